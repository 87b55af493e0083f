#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The stock backends on the newest kernel (6.16+): run inside the guest by
# `vm/kernel-test --suite stock` (ninja vm-test-newest) as
#   sh tests/vm/stock-newest.sh BUILDDIR
# Debian 12's 6.12 guest has neither FUTEX2_NUMA nor the private futex
# hash prctl (PR_FUTEX_HASH), so these run only on a kernel built by
# tools/kernel_build.py. One PASS/FAIL line per check, then
# "stock: N passed, N failed"; exit status 0 only when nothing failed.

B=${1:-build}
F=$B/futexlab
. tests/guest/counts.sh

# the conformance suite of each stock backend, --require: a backend the
# kernel lacks fails every case instead of skipping it
for b in futex2 futex2-numa futex-private; do
	"$B/tests/conformance-$b" --require > /tmp/conformance.out 2>&1
	rc=$?
	n=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' /tmp/conformance.out | tail -n 1)
	if [ "$rc" -eq 0 ] && [ -n "$n" ] && [ "$n" -gt 0 ]; then
		ok "conformance-$b ($n cases passed)"
	else
		tail -n 40 /tmp/conformance.out
		bad "conformance-$b" "exit status $rc, ${n:-no} cases passed"
	fi
done

# the kernel release and the futex features the harness probes
"$F" list > /tmp/list.out 2>&1
sed -n '/^machine:/,$p' /tmp/list.out
for feature in "FUTEX2_NUMA          yes" "private hash prctl   yes"; do
	if grep -q "^  $feature" /tmp/list.out; then
		ok "list: $feature"
	else
		bad "list" "no '$feature' line"
	fi
done

# local and remote futex words on two nodes, the stock per-node hash
# (FUTEX2_NUMA) next to the private keys and the module's node tables
"$F" run numa --backend futex2-numa,futex-private,kmod-numa --threads 2 \
	--duration 0.5 --warmup 0.1 --reps 1 > /tmp/numa.out 2>&1
rc=$?
cat /tmp/numa.out
cells=$(grep -c '^numa ' /tmp/numa.out)
if [ "$rc" -eq 0 ] && [ "$cells" -eq 6 ] && ! grep -q 'skipped\|failed' /tmp/numa.out; then
	ok "run numa ($cells cells: 3 backends x local, remote)"
else
	bad "run numa" "exit status $rc, $cells cells (want 6), see above"
fi

# the private futex hash prctl through futex-private's --hash-slots: the
# cell process asks PR_FUTEX_HASH_SET_SLOTS for N and its row records
# what PR_FUTEX_HASH_GET_SLOTS answered after the threads ran
# (cells.csv's futex_hash_slots, the field after the histogram's file)
slots_of() {	# the futex_hash_slots of the one run under $1
	sed -n 's/.*,hist\/[^,]*,\(-\{0,1\}[0-9]*\),.*/\1/p' "$1"/*/cells.csv |
		head -n 1
}
for slots in 16 0; do
	"$F" run hash --backend futex-private --hash-slots "$slots" \
		--threads 2 --duration 0.2 --warmup 0.05 --reps 1 \
		--results "/tmp/slots-$slots" > /tmp/hash.out 2>&1
	rc=$?
	got=$(slots_of "/tmp/slots-$slots")
	echo "# hash --hash-slots $slots: futex_hash_slots $got"
	if [ "$rc" -eq 0 ] && [ "$got" = "$slots" ]; then
		ok "prctl PR_FUTEX_HASH slots $slots"
	else
		cat /tmp/hash.out
		bad "prctl PR_FUTEX_HASH slots $slots" "exit status $rc, futex_hash_slots '$got'"
	fi
done
# without --hash-slots the kernel sizes the process's hash itself once
# it has threads (6.16+): recorded, not asserted (the size is its policy)
"$F" run hash --backend futex-private --threads 2 --duration 0.2 \
	--warmup 0.05 --reps 1 --results /tmp/slots-default > /tmp/hash.out 2>&1
echo "# hash without --hash-slots: futex_hash_slots $(slots_of /tmp/slots-default) (the kernel's own size)"

# the kernel log holds no BUG, WARNING or Oops after all of it
if dmesg | grep -E 'BUG|WARNING|Oops|Call Trace|general protection|corruption' > /tmp/dmesg.bad; then
	cat /tmp/dmesg.bad
	bad dmesg-clean "the kernel log has the lines above"
else
	ok dmesg-clean
fi

echo "stock: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
