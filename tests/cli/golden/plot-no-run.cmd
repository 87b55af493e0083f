plot
# names: RUN-DIR
