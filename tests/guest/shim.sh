#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The preload shim in the guest (docs/kmod.md): the shim's test program,
# whose cases compare futex(2) with and without the shim on each design,
# then a short pass of each `perf bench futex` benchmark through the shim
# on each design. One PASS/FAIL line per test; the exit status is non-zero
# when one failed. Run from /fl as
#   sh tests/guest/shim.sh [BUILDDIR]
# (tests/guest/run-all.sh counts its PASS and FAIL lines).

B=${1:-build}
STAGE=$B/tests/shim
SHIM=$PWD/$STAGE/libfutexlab-shim.so
PERF=$STAGE/perf
fail=0

ok() {
	echo "PASS $1"
}

bad() {
	echo "FAIL $1${2:+: $2}"
	fail=1
}

# the cases: every one must run here (none skipped: the module is loaded)
T=$B/tests/test_shim
if [ -x "$T" ] && [ -r "$SHIM" ]; then
	CMOCKA_MESSAGE_OUTPUT=TAP "$T" --shim "$SHIM" > /tmp/shim-cases.out 2>&1
	rc=$?
	sed -n 's/^ok [0-9]* - \(.*\)/PASS shim-case-\1/p; s/^not ok [0-9]* - \(.*\)/FAIL shim-case-\1/p' /tmp/shim-cases.out
	grep -q '^not ok [0-9]* - ' /tmp/shim-cases.out && fail=1
	if grep -q '# SKIP' /tmp/shim-cases.out; then
		bad shim-cases-all-ran "$(grep -c '# SKIP' /tmp/shim-cases.out) skipped in the guest"
	elif [ $rc -ne 0 ] || ! grep -q '^1\.\.[1-9]' /tmp/shim-cases.out; then
		bad shim-cases "exit status $rc"
	fi
	[ $fail -ne 0 ] && cat /tmp/shim-cases.out
else
	bad shim-cases "$T or $SHIM not built"
fi

# perf bench futex BENCH through the shim on DESIGN: it must end well,
# print its summary, and have made its futex calls through the module
# (the shim's verbose count); hash and lock-pi also report unexpected
# futex returns when not silent
perf_pass() {
	out=/tmp/perf-$1-$2.out
	FUTEXLAB_DESIGN=$2 FUTEXLAB_SHIM_VERBOSE=1 LD_PRELOAD=$SHIM \
		timeout 120 "$PERF" bench futex "$1" $3 > "$out" 2>&1
	rc=$?
	calls=$(sed -n 's/.*: \([0-9]*\) futex calls went to the module/\1/p' "$out" | tail -n 1)
	if [ $rc -ne 0 ]; then
		bad "perf-$1-$2" "exit status $rc"
	elif ! grep -qE '^(Averaged|Wokeup|Avg per-thread|Requeued) ' "$out"; then
		bad "perf-$1-$2" "no summary line"
	elif grep -qi 'non-expected\|error' "$out"; then
		bad "perf-$1-$2" "$(grep -i 'non-expected\|error' "$out" | head -n 1)"
	elif [ -z "$calls" ] || [ "$calls" -eq 0 ]; then
		bad "perf-$1-$2" "no futex call went to the module"
	else
		ok "perf-$1-$2"
		grep -E '^(Averaged|Wokeup|Avg per-thread|Requeued) ' "$out" | sed "s/^/# $1 $2: /"
		return
	fi
	cat "$out"
}

if [ -x "$PERF" ] && [ -r "$SHIM" ]; then
	for d in global private numa; do
		perf_pass hash "$d" "-r 1 -t 2"
		perf_pass wake "$d" "-t 2"
		perf_pass wake-parallel "$d" "-t 2 -w 2"
		perf_pass requeue "$d" "-t 2"
		perf_pass lock-pi "$d" "-r 1 -t 2"
	done
else
	bad perf-shim "$PERF or $SHIM not built"
fi
exit $fail
