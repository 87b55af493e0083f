# names: nosuch
run mutex --results @RESULTS@ --backend nosuch
