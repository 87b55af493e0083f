# names: 7
run pi --results @RESULTS@ --chain 1,7
