run mutex --results ''
# names: --results
