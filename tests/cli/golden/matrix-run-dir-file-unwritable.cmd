matrix matrix/vm.ini --results @RESULTS@ --run-dir-file /proc/futexlab-run-dir
# names: /proc/futexlab-run-dir
