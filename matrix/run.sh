#!/bin/sh
# What `ninja matrix` and `ninja matrix-vm` run: a matrix file, then the
# plots and the report of the run it wrote.
#
#   matrix/run.sh FUTEXLAB MATRIX-FILE
#   matrix/run.sh FUTEXLAB MATRIX-FILE --vm VM-RUN BUILDDIR
#
# With --vm the matrix runs inside the QEMU guest (vm/run, the module
# loaded), the guest's run directory comes back into results/ (the one
# its --run-dir-file names, as on the host: never guessed from what
# appeared in results/ meanwhile), and the plots and report are drawn
# here on the host. Ends with the run
# directory's path; exits with the matrix's status when it is not 0.
set -eu
fl=$1
file=$2
tmp=$(mktemp)
back=
trap 'rm -f "$tmp"; [ -z "$back" ] || rm -rf "$back"' EXIT

status=0
if [ "${3:-}" = --vm ]; then
	vmrun=$4
	builddir=$5
	# the guest's results/ comes back into a folder of its own, with
	# the file the guest's matrix named its run directory in, as the
	# host's does below
	mkdir -p results
	back=$(mktemp -d results/.vm-back.XXXXXX)
	python3 "$vmrun" --builddir "$builddir" --timeout 1200 \
		--results-out "$back" \
		--include "$fl" --include "$(dirname "$file")" \
		-- "$fl" matrix "$file" --run-dir-file results/.run-dir ||
		status=$?
	name=
	if [ -f "$back/.run-dir" ]; then
		name=$(basename "$(cat "$back/.run-dir")")
	fi
	case $name in
	"" | .*)
		echo "matrix/run.sh: no run directory came back from the" \
		     "guest" >&2
		exit $((status ? status : 1))
		;;
	esac
	if [ ! -d "$back/$name" ]; then
		echo "matrix/run.sh: the guest named $name, which did not" \
		     "come back" >&2
		exit $((status ? status : 1))
	fi
	# never over a run directory already here: as vm/run names one
	run=results/$name
	n=1
	while [ -e "$run" ]; do
		run=results/$name-vm$n
		n=$((n + 1))
	done
	mv "$back/$name" "$run"
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
