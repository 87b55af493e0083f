matrix tests/cli/matrices/threads-twice.ini --results @RESULTS@
# names: '1'
