matrix matrix/default.ini --estimate --topology tests/cli/topologies/distance-300.xml --results @RESULTS@
# names: distance-300.xml
