#!/bin/sh
# The synthetic machines futexlab's tests and docs/matrix.md plan against:
# hwloc topologies written by hwloc's own tools (package hwloc-nox:
# lstopo-no-graphics, hwloc-annotate), each with its NUMA distance table
# ("NUMALatency", as ACPI's SLIT gives it). The distances are two-level, as on real
# two-socket EPYC and Xeon machines: 10 on the node itself, 12 to a node
# of the same package, 32 to a node of the other package.
#
#   tests/topologies/make.sh    rewrites the XML files in this folder
set -eu
cd "$(dirname "$0")"

# machine NAME SYNTHETIC NODES NODES_PER_PACKAGE
machine() {
	name=$1 synthetic=$2 nodes=$3 per_package=$4
	lstopo-no-graphics --input "$synthetic" --of xml --force "$name.xml"
	# hwloc refuses a 1x1 matrix: one node's only distance is local (10)
	[ "$nodes" -gt 1 ] || return 0
	dist=$(mktemp)
	trap 'rm -f "$dist"' EXIT
	{
		echo "name=NUMALatency"
		# HWLOC_DISTANCES_KIND_FROM_USER | HWLOC_DISTANCES_KIND_MEANS_LATENCY
		echo 6
		echo "$nodes"
		i=0
		while [ "$i" -lt "$nodes" ]; do echo "numa:$i"; i=$((i + 1)); done
		i=0
		while [ "$i" -lt "$nodes" ]; do
			j=0
			while [ "$j" -lt "$nodes" ]; do
				if [ "$i" -eq "$j" ]; then echo 10
				elif [ $((i / per_package)) -eq $((j / per_package)) ]
				then echo 12
				else echo 32
				fi
				j=$((j + 1))
			done
			i=$((i + 1))
		done
	} > "$dist"
	hwloc-annotate "$name.xml" "$name.xml" root distances "$dist"
	rm -f "$dist"
	trap - EXIT
}

machine 2cpu-1node "pack:1 numa:1 core:2 pu:1" 1 1
machine 64cpu-4node "pack:2 numa:2 core:8 pu:2" 4 2
# a two-socket Skylake's 112 threads: a node and a package hold 56
machine 112cpu-2node "pack:2 numa:1 core:28 pu:2" 2 1
machine 256cpu-8node "pack:2 numa:4 core:16 pu:2" 8 4
