list --topology
# names: --topology
