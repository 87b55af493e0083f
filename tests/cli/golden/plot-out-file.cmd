plot @RESULTS@ --out README.md
# names: README.md
