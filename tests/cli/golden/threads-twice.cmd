run mutex --threads 1,1 --results @RESULTS@
# names: 1,1
