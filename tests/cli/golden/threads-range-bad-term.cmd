# the one thread-list grammar: run's --threads takes a matrix file's ranges
run mutex --threads 1..abc --results @RESULTS@
# names: 1..abc
