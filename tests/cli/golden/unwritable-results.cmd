# names: /proc/futexlab-results
run mutex --results /proc/futexlab-results --duration 0.1 --reps 1 --warmup 0
