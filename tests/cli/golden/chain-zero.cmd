# names: 0
run pi --results @RESULTS@ --chain 0
