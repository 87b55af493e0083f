matrix --results @RESULTS@
# names: FILE
