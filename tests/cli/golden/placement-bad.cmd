run mutex --results @RESULTS@ --placement 99999
