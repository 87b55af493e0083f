matrix tests/cli/matrices/threads-bad-term.ini --results @RESULTS@
# names: abc
