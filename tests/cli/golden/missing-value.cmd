run mutex --results @RESULTS@ --threads
