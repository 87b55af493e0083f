run mutex --results @RESULTS@ --duration abc
