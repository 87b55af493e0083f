# names: --thread
run mutex --results @RESULTS@ --thread 2
