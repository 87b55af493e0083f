#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The futexlab module's guest suite: run by `ninja vm-test` (through
# vm/guest-suites, in the default guest) as
#   vm/run -- sh tests/guest/run-all.sh [BUILDDIR]
# from /fl (the repository's paths copied into the guest). Prints one
# PASS/FAIL line per test and ends with "guest: N passed, N failed"; the
# exit status is 0 only when nothing failed.
#
# Environment: STRESS_SECONDS (per hash design, default 10: 30 s in all),
# FUTEXLAB_KO (the module, set by vm/run's /init).

B=${1:-build}
KO=${FUTEXLAB_KO:-/lib/modules/futexlab.ko}
KMODTEST=$B/tests/guest/kmodtest
STRESS=${STRESS_SECONDS:-10}
. tests/guest/counts.sh

loaded() {
	grep -q '^futexlab ' /proc/modules
}

# acceptance WORKLOAD ARGS...: the test run-WORKLOAD passes when
# `$F run WORKLOAD ARGS...` succeeds; its output is shown either way
acceptance() {
	out=/tmp/run-$1.out
	if "$F" run "$@" > "$out" 2>&1; then
		ok "run-$1"
	else
		tail -n 20 "$out"
		bad "run-$1"
	fi
	cat "$out"
}

# the module is loaded and the device exists
loaded || insmod "$KO"
if [ -c /dev/futexlab ]; then ok module-loaded; else bad module-loaded "/dev/futexlab missing"; fi

# the C tests: every design, bad input, shared keys, kill -9, PI, stress
if [ -x "$KMODTEST" ]; then
	"$KMODTEST" --stress-seconds "$STRESS" > /tmp/kmodtest.out 2>&1
	rc=$?
	cat /tmp/kmodtest.out
	p=$(grep -c '^PASS' /tmp/kmodtest.out)
	f=$(grep -c '^FAIL' /tmp/kmodtest.out)
	pass=$((pass + p))
	fail=$((fail + f))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		bad kmodtest "exit status $rc without a FAIL line"
	elif [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		bad kmodtest "ran no test"
	fi
else
	bad kmodtest "$KMODTEST not built"
fi
# the PI tests again with the adaptive lock on; a parameter that cannot be
# written is a failure, not a silent skip
P=/sys/module/futexlab/parameters/adaptive_spin_us
if [ ! -x "$KMODTEST" ]; then
	bad adaptive "$KMODTEST not built"
elif [ ! -w "$P" ]; then
	bad adaptive "$P is not writable"
else
	echo 50 > "$P"
	"$KMODTEST" --stress-seconds 6 pi-boost pi-stress > /tmp/adaptive.raw 2>&1
	rc=$?
	echo 0 > "$P"
	sed 's/^\(PASS\|FAIL\) \([^:]*\)/\1 \2+adaptive/' /tmp/adaptive.raw > /tmp/adaptive.out
	cat /tmp/adaptive.out
	p=$(grep -c '^PASS' /tmp/adaptive.out)
	f=$(grep -c '^FAIL' /tmp/adaptive.out)
	pass=$((pass + p))
	fail=$((fail + f))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		bad adaptive "exit status $rc without a FAIL line"
	elif [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		bad adaptive "kmodtest ran no test"
	fi
fi
# the module's statistics after the tests, for the log
if [ -r /sys/kernel/debug/futexlab/stats ]; then
	sed 's/^/# /' /sys/kernel/debug/futexlab/stats
	ok debugfs-stats
else
	bad debugfs-stats "/sys/kernel/debug/futexlab/stats missing (debugfs not mounted?)"
fi

# unload is refused while a file is open, allowed after close
exec 3</dev/futexlab
if rmmod futexlab 2>/dev/null; then
	bad rmmod-while-open "rmmod succeeded with /dev/futexlab open"
	insmod "$KO"
else
	ok rmmod-while-open
fi
exec 3<&-
if rmmod futexlab && ! loaded; then ok rmmod-after-close; else bad rmmod-after-close; fi

# 20 load/unload cycles, one operation each time
i=0
err=""
while [ $i -lt 20 ]; do
	insmod "$KO" || err="insmod failed in cycle $i"
	if [ -x "$KMODTEST" ] && ! "$KMODTEST" --op-smoke; then
		err="operation failed in cycle $i"
	fi
	rmmod futexlab || err="rmmod failed in cycle $i"
	i=$((i + 1))
done
if [ -z "$err" ]; then ok load-unload-20; else bad load-unload-20 "$err"; fi
loaded || insmod "$KO"

# the conformance suite against each hash design, with --require: the
# module is loaded here, so a design it cannot use fails every case
# instead of skipping it; a run that executed no case fails too, whatever
# its exit status (the count is cmocka's "[  PASSED  ] N test(s).");
# futex2 too, the stock futex_waitv beside the module's (6.12 has it)
for d in kmod-global kmod-private kmod-numa futex2; do
	c=$B/tests/conformance-$d
	if [ ! -x "$c" ]; then
		bad "conformance-$d" "$c is not in the guest"
		continue
	fi
	"$c" --require > /tmp/conformance.out 2>&1
	rc=$?
	n=$(sed -n 's/^conformance: \([0-9]*\) passed.*/\1/p' /tmp/conformance.out | tail -n 1)
	[ -n "$n" ] || n=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' /tmp/conformance.out | tail -n 1)
	if [ "$rc" -ne 0 ]; then
		tail -n 40 /tmp/conformance.out
		bad "conformance-$d" "exit status $rc, see the lines above"
	elif [ -z "$n" ]; then
		tail -n 40 /tmp/conformance.out
		bad "conformance-$d" "no count of executed cases in its output"
	elif [ "$n" -eq 0 ]; then
		tail -n 40 /tmp/conformance.out
		bad "conformance-$d" "executed no case (0 passed)"
	else
		ok "conformance-$d ($n cases passed)"
	fi
done

# the acceptance runs, where futexlab was built with the kmod backends
F=$B/futexlab
if [ -x "$F" ] && "$F" list 2>/dev/null | grep -q kmod-global; then
	BK=futex-private,kmod-global,kmod-private,kmod-numa
	# three repetitions of 1 s: a check that every design runs (the
	# ratio below is a rough one: timed under TCG, it follows the host)
	acceptance hash --backend "$BK" --threads 1 --duration 1 --reps 3
	# cost of a failing wait relative to the stock futex (inverse rates)
	awk '/^hash /{b=$2} /waits\/s/{v=$2; m=1;
		if (v ~ /k$/) m=1e3; if (v ~ /M$/) m=1e6; sub(/[kM]$/, "", v);
		r[b]=v*m}
		END{ if (r["futex-private"] > 0) {
			printf "# cost per failing wait, kmod/stock (futex-private):";
			for (b in r) if (b ~ /^kmod/ && r[b] > 0)
				printf " %s %.2f", b, r["futex-private"]/r[b];
			printf "\n" } }' /tmp/run-hash.out
	acceptance mutex --backend "$BK" --threads 4 --duration 1 --reps 3
	# the semaphore and barrier workloads on each design (glibc's skip
	# off futex-private: they sleep in the stock futex); two short
	# repetitions each, a check that they run, not a measurement
	acceptance semaphore --backend "$BK" --algo glibc,futex --threads 1,3 \
		--duration 0.3 --reps 2
	acceptance barrier --backend "$BK" --algo glibc,wake-all,requeue \
		--threads 1,3 --duration 0.3 --reps 2
fi

# script NAME: tests/guest/NAME.sh, its PASS and FAIL lines counted here
script() {
	sh "tests/guest/$1.sh" "$B" > "/tmp/$1.out" 2>&1
	rc=$?
	cat "/tmp/$1.out"
	pass=$((pass + $(grep -c '^PASS' "/tmp/$1.out")))
	fail=$((fail + $(grep -c '^FAIL' "/tmp/$1.out")))
	if [ "$rc" -ne 0 ] && ! grep -q '^FAIL' "/tmp/$1.out"; then
		bad "$1" "tests/guest/$1.sh exited $rc without a FAIL line"
	fi
}

# unmodified futex programs on the module through the preload shim
# (its cases, then a short pass of each perf bench futex benchmark)
script shim

# unmodified pthread programs on the module through the interposer
# (its conformance cases, sysbench and pi_stress on each design)
script interpose

# a dynamically linked program that exits and cancels threads: glibc
# dlopens libgcc_s.so.1 then, which vm/run must have put in the guest
P=$B/tests/guest/pthread_exit_cancel
if [ ! -x "$P" ]; then
	bad pthread-exit-cancel "$P is not in the guest"
else
	"$P" > /tmp/pthread.out 2>&1
	rc=$?
	if [ "$rc" -eq 0 ] && grep -q '^PASS' /tmp/pthread.out; then
		ok pthread-exit-cancel
	else
		cat /tmp/pthread.out
		bad pthread-exit-cancel "exit status $rc"
	fi
fi

# after all of it the kernel log holds no BUG, WARNING, Oops or busy inode
if dmesg | grep -E 'BUG|WARNING|Oops|Call Trace|general protection|corruption|Busy inodes' > /tmp/dmesg.bad; then
	cat /tmp/dmesg.bad
	bad dmesg-clean "the kernel log has the lines above"
else
	ok dmesg-clean
fi

echo "guest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
