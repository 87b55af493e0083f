run nosuch --results @RESULTS@
