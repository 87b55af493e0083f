matrix tests/cli/matrices/experiment-twice.ini --results @RESULTS@
# names: 'a'
