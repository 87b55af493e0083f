#!/bin/sh
# What `ninja matrix` and `ninja matrix-vm` run: a matrix file, then the
# plots and the report of the run it wrote.
#
#   matrix/run.sh FUTEXLAB MATRIX-FILE
#   matrix/run.sh FUTEXLAB MATRIX-FILE --vm VM-RUN BUILDDIR
#
# With --vm the matrix runs inside the QEMU guest (vm/run, the module
# loaded), the guest's run directory comes back into results/, and the
# plots and report are drawn here on the host. Ends with the run
# directory's path; exits with the matrix's status when it is not 0.
set -eu
fl=$1
file=$2
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

status=0
if [ "${3:-}" = --vm ]; then
	vmrun=$4
	builddir=$5
	ls -1 results 2>/dev/null | sort >"$tmp" || true
	python3 "$vmrun" --builddir "$builddir" --timeout 1200 \
		--include "$fl" --include "$(dirname "$file")" \
		-- "$fl" matrix "$file" || status=$?
	# the run directory that came back is the one that was not there
	run=$(ls -1 results 2>/dev/null | sort | comm -13 "$tmp" - |
	      grep -v '^\.' | grep -v '^compare-' | tail -n 1)
	if [ -z "$run" ]; then
		echo "matrix/run.sh: no run directory came back from the" \
		     "guest" >&2
		exit "${status:-1}"
	fi
	run=results/$run
else
	"$fl" matrix "$file" --run-dir-file "$tmp" || status=$?
	run=$(cat "$tmp")
	if [ -z "$run" ]; then
		exit "$status"	# interrupted or a bad file: said already
	fi
fi
"$fl" plot "$run" >/dev/null
"$fl" report "$run" >/dev/null
echo "plots: $run/plots/  report: $run/report.md"
echo "$run"
exit "$status"
