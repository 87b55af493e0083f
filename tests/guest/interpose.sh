#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The pthread interposer in the guest (docs/interpose.md): its conformance
# cases (glibc's outcome the expectation) on each module design with every
# algorithm, then sysbench threads with each algorithm and rt-tests'
# pi_stress on each design, each of which must have reached the module
# (its statistics' counters moved). One PASS/FAIL line per test; exit
# status non-zero when one failed. Run from /fl as
#   sh tests/guest/interpose.sh [BUILDDIR]
# (tests/guest/run-all.sh counts its PASS and FAIL lines). sysbench and
# pi_stress are the host's, put beside the library by configure.py.

B=${1:-build}
STAGE=$B/tests/interpose
LIB=$PWD/$STAGE/libfutexlab-interpose.so
STATS=/sys/kernel/debug/futexlab/stats
fail=0

ok() {
	echo "PASS $1"
}

bad() {
	echo "FAIL $1${2:+: $2}"
	fail=1
}

# the module's operations so far, over every table: waits, wakes, PI and
# adaptive locks
module_ops() {
	awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^(waits|wakes|pi_locks|adaptive_locks)=/) { split($i, kv, "="); n += kv[2] } } END { print n + 0 }' "$STATS"
}

# run NAME DESIGN ALGO COMMAND...: the command through the interposer,
# passing when it exits 0 and the module's counters moved: the debugfs
# totals for the global and numa designs, and for the private design
# (whose tables leave with their process) what the interposer read from
# its own descriptor at exit
run() {
	name=$1 design=$2 algo=$3
	shift 3
	before=$(module_ops)
	FUTEXLAB_BACKEND=kmod-$design FUTEXLAB_ALGO=$algo LD_PRELOAD=$LIB \
		FUTEXLAB_INTERPOSE_VERBOSE=1 \
		timeout 120 "$@" > "/tmp/$name.out" 2>&1
	rc=$?
	after=$(module_ops)
	if [ "$design" = private ]; then
		before=0
		after=$(awk '/the module.s kmod-private tables/ { for (i = 1; i <= NF; i++) if ($i ~ /^(waits|wakes|pi_locks|adaptive_locks)=/) { split($i, kv, "="); n += kv[2] } } END { print n + 0 }' "/tmp/$name.out")
	fi
	if [ $rc -ne 0 ]; then
		tail -n 5 "/tmp/$name.out"
		bad "$name" "exit status $rc"
	elif [ "$after" -le "$before" ]; then
		bad "$name" "no call reached the module ($before -> $after)"
	else
		ok "$name"
		echo "# $name: $((after - before)) module operations"
	fi
}

if [ ! -r "$LIB" ] || [ ! -x "$STAGE/conform" ]; then
	bad interpose "$LIB or $STAGE/conform not built"
	exit 1
fi
if [ ! -r "$STATS" ]; then
	bad interpose "$STATS missing"
	exit 1
fi

for design in global private numa; do
	for algo in mutex3 spin-then-wait pi adaptive; do
		FUTEXLAB_BACKEND=kmod-$design FUTEXLAB_ALGO=$algo \
			"$STAGE/conform" --preload "$LIB" > /tmp/conform.out 2>&1
		sed -n "s/^ok [0-9]* - \(.*\)/PASS interpose-$design-$algo-\1/p; s/^not ok [0-9]* - \(.*\)/FAIL interpose-$design-$algo-\1/p" /tmp/conform.out
		if grep -q '^not ok' /tmp/conform.out; then
			fail=1
			cat /tmp/conform.out
		elif ! grep -q '^ok' /tmp/conform.out; then
			bad "interpose-$design-$algo" "no case ran"
			cat /tmp/conform.out
		fi
	done
	for algo in mutex3 spin-then-wait pi adaptive; do
		if [ -x "$STAGE/sysbench" ]; then
			run "sysbench-threads-$design-$algo" "$design" "$algo" \
				"$STAGE/sysbench" threads --threads=4 --time=2 run
		else
			bad "sysbench-threads-$design-$algo" "sysbench not staged"
		fi
	done
	if [ -x "$STAGE/pi_stress" ]; then
		run "pi-stress-$design" "$design" pi "$STAGE/pi_stress" \
			--duration=3 --groups=1 --quiet
	else
		bad "pi-stress-$design" "pi_stress not staged"
	fi
done
exit $fail
