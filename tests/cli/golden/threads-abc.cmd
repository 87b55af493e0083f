run mutex --results @RESULTS@ --threads abc
