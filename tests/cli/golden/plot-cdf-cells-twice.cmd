plot @RESULTS@ --cdf-cells 3,3
# names: 3
