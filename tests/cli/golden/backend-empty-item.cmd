run mutex --backend futex-private,,spin --results @RESULTS@
# names: futex-private,,spin
