run mutex --backend spin, --results @RESULTS@
# names: spin,
