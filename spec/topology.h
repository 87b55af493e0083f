/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine a plan is made for (base/machine.h's struct fl_topology):
 * this one, from hwloc and libnuma, or a synthetic one from an hwloc XML
 * file (made with lstopo and hwloc-annotate: tests/topologies/), so that
 * a thread list and a matrix's estimate can be worked out for a big
 * machine on a small one. Placing threads always uses this machine.
 */
#ifndef FUTEXLAB_SPEC_TOPOLOGY_H
#define FUTEXLAB_SPEC_TOPOLOGY_H

#include <stddef.h>

#include "base/machine.h"

/* This machine: the CPUs online, libnuma's nodes and distances, hwloc's
 * packages. Never fails: what cannot be read is one node, no package. */
void fl_topology_here(struct fl_topology *t);

/*
 * The topology an hwloc XML document describes (len bytes of xml, read
 * by the caller; shown names it in messages): 0, or -1 with "SHOWN: why"
 * in err. Its distances are hwloc's "NUMALatency" matrix; a one-node
 * machine without one has the local distance only.
 */
int fl_topology_from_xml(const char *xml, size_t len, const char *shown,
			 struct fl_topology *t, char *err, size_t errlen);

/* libnuma's distance table for nodes 0..nnodes-1 into d (n = 0 without
 * libnuma). */
void fl_numa_distances(struct fl_distances *d, unsigned int nnodes);

/* The most CPUs of any one node, of any one package (the node's when
 * hwloc saw no package), for the thread grammar's node-cpus and
 * package-cpus; never 0. */
unsigned int fl_topology_node_cpus(const struct fl_topology *t);
unsigned int fl_topology_package_cpus(const struct fl_topology *t);

#endif
