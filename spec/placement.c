// SPDX-License-Identifier: GPL-2.0
/* Placement policies: compact, scatter (hwloc) and explicit CPU lists. */
#include "spec/placement.h"

#include <errno.h>
#include <hwloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/hwloc_here.h"

#define MAX_CPUS 4096

int fl_cpulist_parse(const char *text, int *cpus, int max)
{
	const char *p = text;
	int n = 0;

	if (!p || !*p)
		return -1;
	for (;;) {
		char *end;
		long lo, hi;

		if (*p < '0' || *p > '9')
			return -1;
		lo = strtol(p, &end, 10);
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				return -1;
			hi = strtol(p, &end, 10);
			p = end;
		}
		if (lo < 0 || hi < lo || hi >= MAX_CPUS)
			return -1;
		for (long c = lo; c <= hi; c++) {
			if (n == max)
				return -1;
			cpus[n++] = (int)c;
		}
		if (*p == '\0')
			return n;
		if (*p != ',')
			return -1;
		p++;
	}
}

void fl_cpulist_format(const int *cpus, int n, char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (int i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%d",
					 i ? "," : "", cpus[i]);
}

static int allowed(const cpu_set_t *set, int cpu)
{
	return cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, set);
}

/*
 * The CPUs the process was given when it started (a Slurm allocation's
 * cgroup, taskset, a container): read once, at the first placement or
 * probe, so a thread that later pins itself for a probe (idle_wake.c)
 * can never narrow or widen the set the cells are placed in.
 */
static int start_mask(cpu_set_t *mask)
{
	static cpu_set_t saved;
	static int have;

	if (!have) {
		if (sched_getaffinity(0, sizeof(saved), &saved))
			return -1;
		have = 1;
	}
	*mask = saved;
	return 0;
}

void fl_allowed_cpus(char *buf, size_t len)
{
	cpu_set_t mask;
	size_t used = 0;
	int cpu = 0;

	if (len)
		buf[0] = '\0';
	if (start_mask(&mask))
		return;
	while (cpu < CPU_SETSIZE && used < len) {
		int last;

		if (!CPU_ISSET(cpu, &mask)) {
			cpu++;
			continue;
		}
		for (last = cpu; last + 1 < CPU_SETSIZE &&
		     CPU_ISSET(last + 1, &mask); last++)
			;
		if (last == cpu)
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%d", used ? "," : "", cpu);
		else
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%d-%d", used ? "," : "",
						 cpu, last);
		cpu = last + 1;
	}
}

static int order_from_hwloc(int scatter, const cpu_set_t *mask, int *cpus,
			    int max, char *err, size_t errlen)
{
	hwloc_topology_t topo = fl_hwloc_here();
	int n = 0;

	if (!topo) {
		snprintf(err, errlen, "hwloc could not read the topology");
		return -1;
	}
	int npu = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);

	if (npu <= 0) {
		snprintf(err, errlen, "hwloc found no CPUs");
		return -1;
	}

	if (!scatter) {
		for (int i = 0; i < npu && n < max; i++) {
			hwloc_obj_t pu = hwloc_get_obj_by_type(topo,
							      HWLOC_OBJ_PU, (unsigned)i);
			if (allowed(mask, (int)pu->os_index))
				cpus[n++] = (int)pu->os_index;
		}
	} else {
		/* hwloc_distrib spreads npu sets over the tree, widest
		 * level first: taking one PU of each gives scatter order */
		hwloc_bitmap_t *sets = calloc((size_t)npu, sizeof(*sets));
		hwloc_obj_t root = hwloc_get_root_obj(topo);

		/* hwloc_distrib allocates each set itself (it dups
		 * cpusets into them): bitmaps allocated here leaked */
		if (sets && hwloc_distrib(topo, &root, 1, sets, (unsigned)npu,
					  INT_MAX, 0) == 0) {
			for (int i = 0; i < npu && n < max; i++) {
				int cpu;

				hwloc_bitmap_singlify(sets[i]);
				cpu = hwloc_bitmap_first(sets[i]);
				int dup = 0;

				for (int j = 0; j < n; j++)
					dup |= cpus[j] == cpu;
				if (!dup && allowed(mask, cpu))
					cpus[n++] = cpu;
			}
		}
		for (int i = 0; sets && i < npu; i++)
			hwloc_bitmap_free(sets[i]);
		free(sets);
	}
	if (n == 0) {
		snprintf(err, errlen, "no usable CPU found for placement");
		return -1;
	}
	return n;
}

int fl_placement_order(const char *policy, int *cpus, int max, char *err,
		       size_t errlen)
{
	cpu_set_t mask;

	if (start_mask(&mask)) {
		snprintf(err, errlen, "sched_getaffinity: %s", strerror(errno));
		return -1;
	}
	if (strcmp(policy, "compact") == 0)
		return order_from_hwloc(0, &mask, cpus, max, err, errlen);
	if (strcmp(policy, "scatter") == 0)
		return order_from_hwloc(1, &mask, cpus, max, err, errlen);
	int n = fl_cpulist_parse(policy, cpus, max);

	if (n < 0) {
		snprintf(err, errlen, "--placement: '%s' is not compact, "
			 "scatter or a CPU list like 0,2-3", policy);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (!allowed(&mask, cpus[i])) {
			snprintf(err, errlen, "--placement: CPU %d is not "
				 "online or not allowed for this process",
				 cpus[i]);
			return -1;
		}
	}
	return n;
}

unsigned int fl_cpus_distinct(const int *cpus, unsigned int n)
{
	static unsigned char seen[MAX_CPUS];
	unsigned int count = 0;
	cpu_set_t mask;

	memset(seen, 0, sizeof(seen));
	for (unsigned int i = 0; i < n; i++) {
		if (cpus[i] < 0) {
			/* unpinned: any CPU the process was allowed */
			return start_mask(&mask) ? 1 :
			       (unsigned int)CPU_COUNT(&mask);
		}
		if (cpus[i] < MAX_CPUS && !seen[cpus[i]]) {
			seen[cpus[i]] = 1;
			count++;
		}
	}
	return count;
}

int fl_place_threads(const char *policy, unsigned int nthreads, int *cpus,
		     char *err, size_t errlen)
{
	static int order[MAX_CPUS];
	int n = fl_placement_order(policy, order, MAX_CPUS, err, errlen);

	if (n < 0)
		return -1;
	for (unsigned int i = 0; i < nthreads; i++)
		cpus[i] = order[i % (unsigned int)n];
	return 0;
}

int fl_placement_check(const char *policy, char *err, size_t errlen)
{
	static int order[MAX_CPUS];

	return fl_placement_order(policy, order, MAX_CPUS, err, errlen) < 0 ?
	       -1 : 0;
}
