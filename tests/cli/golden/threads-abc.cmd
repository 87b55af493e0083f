# names: abc
run mutex --results @RESULTS@ --threads abc
