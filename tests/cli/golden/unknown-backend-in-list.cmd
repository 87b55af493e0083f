# names: nosuch2
run mutex --results @RESULTS@ --backend futex-private,nosuch2
