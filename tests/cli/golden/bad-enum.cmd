# names: nosuch
run mutex --results @RESULTS@ --algo nosuch
