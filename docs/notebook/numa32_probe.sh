#!/bin/sh
# What a numa cell's threads do in this guest, sampled from inside it:
#   sh numa32_probe.sh DIR [short]   (DIR holds the futexlab binary; short
#   leaves out the 10 s cell). docs/notebook/2026-12-06-numa-32vcpu-guest.md
# has what it found.
B=${1:-build}
FL=$B/futexlab
stamp() { echo "STAMP $1 up=$(cut -d' ' -f1 /proc/uptime)"; }
cs=/sys/devices/system/clocksource/clocksource0
echo "PROBE clocksource=$(cat $cs/current_clocksource) available=$(cat $cs/available_clocksource)"
echo "PROBE cpus=$(nproc) hypervisor-flag-cpus=$(grep -c -w hypervisor /proc/cpuinfo)"
dmesg | grep -i -E "tsc|clocksource|spinlock|hypervisor|smpboot: Total|paravirt" | head -30 | sed 's/^/DMESG /'
# the guest's CPU time (USER_HZ ticks, all CPUs) and IPIs so far
counters() {
	awk '$1=="cpu"{printf "user=%d sys=%d idle=%d ", $2+$3, $4+$7+$8, $5+$6}' /proc/stat
	awk '$1=="CAL:"||$1=="TLB:"||$1=="RES:"{s=0; for(i=2;i<=NF;i++) if($i~/^[0-9]+$/) s+=$i; printf "%s%d ", $1, s}' /proc/interrupts
	echo
}
# every futexlab process's threads: states, where they sleep, CPU time
sample() {
	while kill -0 "$1" 2>/dev/null; do
		up=$(cut -d' ' -f1 /proc/uptime)
		for p in $(pidof futexlab); do
			d=/proc/$p
			awk -v up="$up" -v pid="${d#/proc/}" '
			{ st[$3]++; u += $14; s += $15; n++
			  dir = FILENAME; sub(/\/stat$/, "", dir)
			  w = ""; getline w < (dir "/wchan"); close(dir "/wchan")
			  if (w == "" || w == "0") w = "-"
			  wc[$3 ":" w]++
			  if ($3 == "R") cpus = cpus $39 "," }
			END { if (!n) exit
			  printf "SAMPLE up=%s pid=%s n=%d utime=%d stime=%d", up, pid, n, u, s
			  for (k in st) printf " %s=%d", k, st[k]
			  printf " |"; for (k in wc) printf " %s*%d", k, wc[k]
			  printf " | Rcpus=%s\n", cpus }' $d/task/*/stat 2>/dev/null
		done
		printf "COUNTERS up=%s " "$up"; counters
		sleep 0.5
	done
}
cell() {
	name=$1; shift
	stamp "begin $name"
	printf "COUNTERS-BEGIN %s " "$name"; counters
	$FL run numa --reps 1 --json "$@" > /tmp/$name.json 2> /tmp/$name.err &
	pid=$!
	sample $pid
	wait $pid
	rc=$?
	stamp "end $name rc=$rc"
	printf "COUNTERS-END %s " "$name"; counters
	sed "s/^/ERR $name /" /tmp/$name.err | tail -5
	head -c 6000 /tmp/$name.json | sed "s/^/JSON $name /"
}
cell all32 --cpu-nodes all --mem-node local --threads 32 --duration 0.3 --warmup 0.1
cell all8 --cpu-nodes all --mem-node local --threads 8 --duration 0.3 --warmup 0.1
[ "$2" = short ] ||
cell all32long --cpu-nodes all --mem-node local --threads 32 --duration 10 --warmup 10
stamp done
