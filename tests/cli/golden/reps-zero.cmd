# names: 0
run mutex --results @RESULTS@ --reps 0
