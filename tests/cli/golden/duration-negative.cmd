run mutex --results @RESULTS@ --duration -1
