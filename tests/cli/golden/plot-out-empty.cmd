plot @RESULTS@ --out ''
# names: --out
