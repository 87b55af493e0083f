list --topology tests/cli/topologies/not-xml.xml
# names: not-xml.xml
