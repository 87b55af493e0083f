matrix tests/cli/matrices/backend-trailing-comma.ini --results @RESULTS@
# names: spin,
