# names: stray
run mutex --results @RESULTS@ --threads 1 stray
