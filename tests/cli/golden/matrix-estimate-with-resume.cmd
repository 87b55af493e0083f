matrix matrix/default.ini --estimate --resume @RESULTS@
# names: --estimate
