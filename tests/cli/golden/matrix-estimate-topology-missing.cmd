matrix matrix/default.ini --estimate --topology tests/cli/topologies/missing.xml --results @RESULTS@
# names: missing.xml
