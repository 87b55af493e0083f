run mutex --results @RESULTS@ --reps 0
