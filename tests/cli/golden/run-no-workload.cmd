run
# names: workload
