# names: not a run directory
report @RESULTS@
