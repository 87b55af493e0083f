matrix matrix/default.ini --topology tests/topologies/64cpu-4node.xml --results @RESULTS@
# names: --topology
