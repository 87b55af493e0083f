run mutex --duration 86400 --reps 100 --threads 1,2 --results @RESULTS@
# names: --yes
