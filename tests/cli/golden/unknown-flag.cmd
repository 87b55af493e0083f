# names: --frob
run mutex --results @RESULTS@ --frob 1
