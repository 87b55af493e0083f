run pi --threads 5 --results @RESULTS@
# names: 5
