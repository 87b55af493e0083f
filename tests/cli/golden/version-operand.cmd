--version extra
# names: extra
