# names: 99999
run mutex --results @RESULTS@ --placement 99999
