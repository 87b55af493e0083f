# names: frobnicate
frobnicate --results @RESULTS@
