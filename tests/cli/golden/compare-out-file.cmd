compare @RESULTS@ @RESULTS@ --out README.md
# names: README.md
