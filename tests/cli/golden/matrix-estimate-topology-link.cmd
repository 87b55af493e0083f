matrix matrix/default.ini --estimate --topology tests/cli/topologies/link.xml --results @RESULTS@
# names: link.xml
