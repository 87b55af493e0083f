matrix tests/cli/matrices/beyond-a-day.ini --results @RESULTS@
# names: --yes
