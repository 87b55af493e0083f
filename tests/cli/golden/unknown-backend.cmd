run mutex --results @RESULTS@ --backend nosuch
