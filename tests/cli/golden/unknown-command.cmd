frobnicate --results @RESULTS@
