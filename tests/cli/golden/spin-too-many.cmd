# names: 100001
run mutex --results @RESULTS@ --algo spin-then-wait --spin 100001
