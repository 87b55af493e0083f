run mutex --backend spin,spin --results @RESULTS@
# names: spin
