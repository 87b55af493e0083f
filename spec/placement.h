/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where threads run. A placement policy maps thread i to a CPU:
 *   compact   fill the CPUs in hwloc's logical order (SMT siblings, then
 *             cores of one package, then the next package);
 *   scatter   spread over packages and cores first (hwloc_distrib);
 *   CPU-LIST  "0,2,4-7": thread i runs on the i-th listed CPU.
 * More threads than CPUs wrap around. Only CPUs the process was allowed
 * when it started are chosen (meta.json: machine.topology.cpus_allowed).
 * The placement is recorded with every results row.
 */
#ifndef FUTEXLAB_PLACEMENT_H
#define FUTEXLAB_PLACEMENT_H

#include <stddef.h>

/* Parse "0,2,4-7" into cpus (at most max); returns the count or -1. */
int fl_cpulist_parse(const char *text, int *cpus, int max);
/* Format cpus as "0,1,2,1" (the order threads got them). */
void fl_cpulist_format(const int *cpus, int n, char *buf, size_t len);

/* The CPUs the process was allowed when it started ("0-3,8"), the set
 * every placement chooses from; "" when it cannot be read. */
void fl_allowed_cpus(char *buf, size_t len);

/* The CPUs this process may use, in the policy's order; count or -1. */
int fl_placement_order(const char *policy, int *cpus, int max,
		       char *err, size_t errlen);

/* Fill cpus[0..nthreads) from a policy; 0, or -1 with err set. */
int fl_place_threads(const char *policy, unsigned int nthreads, int *cpus,
		     char *err, size_t errlen);

/* The CPUs n threads placed on cpus may run on: the distinct ones, or
 * every CPU allowed when one is unpinned (-1). */
unsigned int fl_cpus_distinct(const int *cpus, unsigned int n);

/* Check a policy's syntax and CPUs without placing: for option parsing. */
int fl_placement_check(const char *policy, char *err, size_t errlen);

#endif
