#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# In the QEMU guest, under -icount (docs/notebook/failwait_icount.py): the cost of
# a failing wait on the stock futex and the module's designs, for one or
# two builds of the module, alternated within this one boot.
#
#   sh docs/notebook/failwait_guest.sh TOOL ROUNDS PASSES OPS FUTEXLAB BASE_KO TRACE
#
# TOOL is build/tools/failwait-cost. Each round loads every module in turn
# (the one vm/run loaded, labelled "new", and BASE_KO, labelled "base",
# unless BASE_KO is "-"), in an order that alternates from round to round,
# and runs TOOL's passes with an idle second thread and single-threaded;
# every output line is prefixed with the module's label. FUTEXLAB (or "-")
# is build/futexlab: in the first round it also runs `futexlab run hash`
# under each module. TRACE=1 ends with a function_graph trace of the new
# module's cases in results/failwait/trace.txt (results/ comes back to the
# host).

TOOL=$1
ROUNDS=$2
PASSES=$3
OPS=$4
FUTEXLAB=$5
BASE_KO=$6
TRACE=$7
NEW_KO=${FUTEXLAB_KO:-/lib/modules/futexlab.ko}
status=0

echo "failwait-guest: $(uname -r), clocksource" \
	"$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
echo "failwait-guest: LSMs $(cat /sys/kernel/security/lsm 2>/dev/null)"
for f in /sys/devices/system/cpu/vulnerabilities/*; do
	echo "failwait-guest: vulnerability $(basename "$f"): $(cat "$f")"
done

# load LABEL: the module of that label, in place of the loaded one
load() {
	rmmod futexlab 2>/dev/null
	if [ "$1" = base ]; then ko=$BASE_KO; else ko=$NEW_KO; fi
	if ! insmod "$ko"; then
		echo "failwait-guest: insmod $ko failed"
		exit 1
	fi
}

# measure LABEL ROUND
measure() {
	load "$1"
	"$TOOL" --passes "$PASSES" --ops "$OPS" 2>&1 | sed "s/^/[$1] /"
	"$TOOL" --passes "$PASSES" --ops "$OPS" --single-thread 2>&1 |
		sed "s/^/[$1] /"
	if [ "$2" = 1 ] && [ "$FUTEXLAB" != - ]; then
		"$FUTEXLAB" run hash --backend \
			futex-private,kmod-global,kmod-private,kmod-numa \
			--threads 1 --duration 1 --reps 3 \
			--results /tmp/hash-runs 2>&1 | sed "s/^/[$1] /"
	fi
}

r=1
while [ "$r" -le "$ROUNDS" ]; do
	if [ "$BASE_KO" = - ]; then
		order=new
	elif [ $((r % 2)) = 1 ]; then
		order="base new"
	else
		order="new base"
	fi
	for label in $order; do
		measure "$label" "$r" || status=1
	done
	r=$((r + 1))
done

if [ "$TRACE" = 1 ]; then
	load new
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	mkdir -p results/failwait
	"$TOOL" --trace > results/failwait/trace.txt 2>&1 || status=1
	echo "failwait-guest: trace of $(grep -c . results/failwait/trace.txt) lines"
fi
echo "failwait-guest: done"
exit $status
