run mutex --results @RESULTS@ --threads 0
