# names: abc
run mutex --results @RESULTS@ --duration abc
