run mutex --results @RESULTS@ --algo nosuch
