#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The numa workload on a many-node machine: run by vm/guest-suites in a
# guest of 8 nodes in two sockets with vm/run's default two-level
# distance table (10 local, 12 to a node of the same socket, 32 across),
#   vm/run --nodes 8 --cpus 8 -- sh tests/guest/numa-nodes.sh [BUILDDIR]
# Checks that the guest has that table, then runs
#   futexlab run numa --mem-node local,near,far --cpu-nodes all,3,1+6
# and reads its run directory: every cell ran, every thread on its node,
# each cell's distance counter is what the guest's table says for its
# placement (local 10, near 12, far 32), all eight nodes ran threads
# and held words, and futexlab report reads the run back. Prints PASS/FAIL lines and "guest: N passed, N failed".

B=${1:-build}
F=$B/futexlab
NODES=8
NEAR=12
FAR=32
. tests/guest/counts.sh

# dist A B: node A's distance to node B, as the guest's kernel reads it
dist() {
	set -- "$2" $(cat "/sys/devices/system/node/node$1/distance")
	shift "$(($1 + 1))"
	echo "$1"
}

# the smallest (min) or largest (max) distance from node $2 to another
other() {
	best=
	m=0
	while [ $m -lt $NODES ]; do
		if [ $m -ne "$2" ]; then
			d=$(dist "$2" $m)
			if [ -z "$best" ] || { [ "$1" = min ] && [ "$d" -lt "$best" ]; } ||
			   { [ "$1" = max ] && [ "$d" -gt "$best" ]; }; then
				best=$d
			fi
		fi
		m=$((m + 1))
	done
	echo "$best"
}

n=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
if [ "$n" -ne $NODES ]; then
	bad numa-topology "the guest has $n nodes, want $NODES"
	echo "guest: $pass passed, $fail failed"
	exit 1
fi
# the table vm/run gave QEMU: 10, 12 within a socket (nodes 0-3, 4-7),
# 32 across
wrong=
a=0
while [ $a -lt $NODES ]; do
	b=0
	while [ $b -lt $NODES ]; do
		want=$FAR
		[ $((a / 4)) -eq $((b / 4)) ] && want=$NEAR
		[ $a -eq $b ] && want=10
		[ "$(dist $a $b)" = "$want" ] || wrong="$wrong $a-$b:$(dist $a $b)"
		b=$((b + 1))
	done
	a=$((a + 1))
done
if [ -z "$wrong" ]; then
	ok numa-distance-table
else
	bad numa-distance-table "want 10/$NEAR/$FAR, got$wrong"
fi

rm -rf /tmp/numa-runs
mkdir -p /tmp/numa-runs
if "$F" run numa --mem-node local,near,far --cpu-nodes all,3,1+6 \
	--threads 8 --duration 0.3 --warmup 0.1 --reps 1 \
	--results /tmp/numa-runs > /tmp/numa-nodes.out 2>&1; then
	ok numa-nodes-run
else
	cat /tmp/numa-nodes.out
	bad numa-nodes-run "futexlab run numa failed"
fi
CSV=$(ls /tmp/numa-runs/*/cells.csv 2>/dev/null | head -n 1)
if [ -z "$CSV" ]; then
	bad numa-nodes-rundir "no cells.csv under /tmp/numa-runs"
	echo "guest: $pass passed, $fail failed"
	exit 1
fi
# the run directory reads back (its placement and options columns hold
# the node sets: nodes-1,6 and cpu-nodes=1+6)
if "$F" report "$(dirname "$CSV")" > /tmp/numa-report.out 2>&1; then
	ok numa-nodes-report
else
	cat /tmp/numa-report.out
	bad numa-nodes-report "futexlab report cannot read the run"
fi

# counter ROW NAME: a counter from a cells.csv row's extra column
counter() {
	echo "$1" | sed -n "s/.*[,;]$2=\([0-9]*\)[;,].*/\1/p"
}

# expect CPU_NODES MEM_NODE DISTANCE CPU_MASK: that cell ran, every
# thread on its node, at DISTANCE, on the nodes of CPU_MASK
cpu_used=0
mem_used=0
expect() {
	name="numa-cell cpu-nodes=$1 mem-node=$2"
	row=$(grep ",cpu-nodes=$1;mem-node=$2;" "$CSV")
	if [ "$(echo "$row" | grep -c .)" -ne 1 ]; then
		bad "$name" "want one row in $CSV"
		return
	fi
	case "$row" in
	*,ok,*) ;;
	*)	bad "$name" "not ok: $row"
		return ;;
	esac
	d=$(counter "$row" distance)
	c=$(counter "$row" cpu_nodes)
	m=$(counter "$row" mem_nodes)
	mis=$(counter "$row" misplaced)
	if [ "$d" = "$3" ] && [ "$c" = "$4" ] && [ "$mis" = 0 ]; then
		ok "$name (distance $d)"
	else
		bad "$name" "distance $d (want $3), cpu_nodes $c (want $4), misplaced $mis"
	fi
	cpu_used=$((cpu_used | c))
	mem_used=$((mem_used | m))
}

# the distances the table gives: over all nodes the largest of each
# node's nearest and farthest, and node 3's
all_near=0
all_far=0
k=0
while [ $k -lt $NODES ]; do
	v=$(other min $k)
	[ "$v" -gt $all_near ] && all_near=$v
	v=$(other max $k)
	[ "$v" -gt $all_far ] && all_far=$v
	k=$((k + 1))
done
# node sets of cpu_nodes: all = 255, 3 = 8, 1+6 = 66
expect all local 10 255
expect all near "$all_near" 255
expect all far "$all_far" 255
expect 3 local 10 8
expect 3 near "$(other min 3)" 8
expect 3 far "$(other max 3)" 8
expect 1+6 local 10 66
expect 1+6 near "$(( $(other min 1) > $(other min 6) ? $(other min 1) : $(other min 6) ))" 66
expect 1+6 far "$(( $(other max 1) > $(other max 6) ? $(other max 1) : $(other max 6) ))" 66
if [ "$all_near" = $NEAR ] && [ "$all_far" = $FAR ]; then
	ok "numa-near-far (near $all_near, far $all_far)"
else
	bad numa-near-far "near $all_near, far $all_far: want $NEAR and $FAR"
fi
if [ "$cpu_used" = 255 ] && [ "$mem_used" = 255 ]; then
	ok numa-every-node-used
else
	bad numa-every-node-used "threads on nodes mask $cpu_used, words on $mem_used: want 255 each"
fi

echo "guest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
