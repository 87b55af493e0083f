# names: --threads
run mutex --results @RESULTS@ --threads
