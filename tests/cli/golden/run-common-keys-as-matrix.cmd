# run's flags are the matrix file's keys, made from one table: a thread
# range, a placement list and two backends make 3 x 2 x 2 cells
run mutex --duration 86400 --reps 100 --threads 1..4 --placement "compact scatter" --backend futex-private,spin --results @RESULTS@
# names: --yes
