matrix tests/cli/matrices/experiment-twice.ini --estimate --topology tests/topologies/64cpu-4node.xml --results @RESULTS@
# names: 'a'
