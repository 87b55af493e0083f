matrix matrix/default.ini --estimate --topology tests/cli/topologies/not-xml.xml --results @RESULTS@
# names: not-xml.xml
