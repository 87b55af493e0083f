# names: nosuch
run nosuch --results @RESULTS@
