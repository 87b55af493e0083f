run mutex --placement "compact compact" --results @RESULTS@
# names: compact
