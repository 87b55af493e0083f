# names: -1
run mutex --results @RESULTS@ --duration -1
