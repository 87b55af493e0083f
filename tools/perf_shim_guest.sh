#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# In the QEMU guest (tools/vm_perf_shim.py run, `ninja vm-perf-shim`):
# the five `perf bench futex` benchmarks, unmodified, on the stock futex
# and through libfutexlab-shim.so on each module design, alternated.
#
#   sh tools/perf_shim_guest.sh STAGE ROUNDS OUTDIR
#
# STAGE holds perf and libfutexlab-shim.so; each run's output goes to
# OUTDIR/r<round>-<benchmark>-<stock|global|private|numa>.txt (OUTDIR under
# /fl/results comes back to the host). Every round runs each benchmark on
# the four implementations, in an order rotated by one each round, so no
# implementation always runs first after a boot or after another.
# Benchmarks use perf's defaults (a thread per CPU) with 2 s runtimes.

STAGE=$1
ROUNDS=${2:-3}
OUT=${3:-results/perf-shim}
PERF=$STAGE/perf
SHIM=$PWD/$STAGE/libfutexlab-shim.so
ORDER="stock global private numa"
mkdir -p "$OUT"
status=0

args_of() {
	case $1 in
	hash|lock-pi) echo "-r 2 -s" ;;
	*) echo "-s" ;;
	esac
}

# run BENCH IMPL ROUND: one benchmark on one implementation
run() {
	f=$OUT/r$3-$1-$2.txt
	if [ "$2" = stock ]; then
		timeout 120 "$PERF" bench futex "$1" $(args_of "$1") > "$f" 2>&1
	else
		FUTEXLAB_DESIGN=$2 LD_PRELOAD=$SHIM \
			timeout 120 "$PERF" bench futex "$1" $(args_of "$1") \
			> "$f" 2>&1
	fi
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "perf-shim: $1 on $2 (round $3) exited $rc"
		status=1
	fi
}

{
	echo "guest $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	grep . /sys/module/futexlab/parameters/* 2>/dev/null
} > "$OUT/guest.txt"
r=1
while [ $r -le "$ROUNDS" ]; do
	# rotate the order by one each round
	set -- $ORDER
	ORDER="$2 $3 $4 $1"
	for b in hash wake wake-parallel requeue lock-pi; do
		for impl in $ORDER; do
			run "$b" "$impl" "$r"
		done
	done
	echo "perf-shim: round $r of $ROUNDS done"
	r=$((r + 1))
done
exit $status
