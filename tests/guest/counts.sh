# SPDX-License-Identifier: GPL-2.0
#
# PASS and FAIL lines and their counts, for a guest suite to source from
# /fl (the suites' working directory):
#   . tests/guest/counts.sh
# then `ok NAME` and `bad NAME [WHY]`; $pass and $fail hold the counts
# for the suite's closing line.

pass=0
fail=0

ok() {
	echo "PASS $1"
	pass=$((pass + 1))
}

bad() {
	echo "FAIL $1${2:+: $2}"
	fail=$((fail + 1))
}
