# names: --shared
run hash --results @RESULTS@ --shared yes
