matrix --resume @RESULTS@ --results @RESULTS@
# names: --results
