plot @RESULTS@ --cdf-cells 1,,2
# names: 1,,2
