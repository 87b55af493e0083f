matrix matrix/default.ini --estimate --topology tests/topologies --results @RESULTS@
# names: tests/topologies
