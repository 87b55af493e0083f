# names: 0
run mutex --results @RESULTS@ --threads 0
