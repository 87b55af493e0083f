/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This machine's hwloc topology, loaded once per process and kept for
 * its life. Loading it reads about a hundred files under /sys: several
 * milliseconds, tens of them on a busy machine, and a process may need
 * it three times (placing cells, placement.c; the thread grammar's
 * node-cpus and package-cpus, topology.c; the machine's record,
 * measure/probe.c): a campaign's visit, a process of its own for one
 * repetition, loaded it twice. Read-only once loaded; a forked child
 * uses its parent's copy.
 */
#ifndef FUTEXLAB_SPEC_HWLOC_HERE_H
#define FUTEXLAB_SPEC_HWLOC_HERE_H

#include <hwloc.h>

/* The topology, or NULL when hwloc cannot read it (tried again at the
 * next call). Never destroyed. */
hwloc_topology_t fl_hwloc_here(void);

#endif
