#!/bin/sh
# Host side while a 32-vCPU guest runs (numa32_probe.sh inside; the path
# below is the worktree the guest was booted from): every 2 s, the load and
# the CPU time QEMU's threads got (the fields after the name, which
# holds spaces: "CPU 3/TCG") (ticks of 1/100 s), until $1 exists.
stop=$1
while [ ! -e "$stop" ]; do
	q=
	for p in $(pgrep qemu-system-x86); do
		grep -q /work/wt33G/build/vm/ /proc/$p/cmdline 2>/dev/null && q=$p
	done
	if [ -n "$q" ]; then
		awk -v t="$(date -u +%T)" -v l="$(cut -d' ' -f1-3 /proc/loadavg)" -v q="$q" '
		{ sub(/^.*\) /, ""); n++; c += $12 + $13; if ($1 == "R") r++ }
		END { printf "HOST %s load=%s qemu=%s threads=%d running=%d cputicks=%d\n", t, l, q, n, r, c }' /proc/$q/task/*/stat 2>/dev/null
	fi
	sleep 2
done
