matrix tests/cli/matrices/pi-threads.ini --results @RESULTS@
# names: '5'
