// SPDX-License-Identifier: GPL-2.0
/* The numa workload's view of the machine and its placement rules
 * (numa_topo.h), compiled once for every build of the workload. */
#include <numa.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "workloads/lib/numa_topo.h"

void numa_topo_probe(struct numa_topo *tp)
{
	cpu_set_t allowed;

	memset(tp, 0, sizeof(*tp));
	CPU_ZERO(&allowed);
	sched_getaffinity(0, sizeof(allowed), &allowed);
	tp->ncpus = CPU_SETSIZE < NUMA_MAX_CPUS ? CPU_SETSIZE : NUMA_MAX_CPUS;
	tp->numa = numa_available() >= 0;
	tp->nnodes = tp->numa ? (unsigned int)numa_max_node() + 1 : 1;
	if (tp->nnodes > NUMA_MAX_NODES)
		tp->nnodes = NUMA_MAX_NODES;
	for (unsigned int c = 0; c < tp->ncpus; c++) {
		int node = !CPU_ISSET(c, &allowed) ? -1 :
			   tp->numa ? numa_node_of_cpu((int)c) : 0;

		tp->cpu_node[c] = node >= 0 && (unsigned int)node < tp->nnodes ?
				  node : -1;
	}
	for (unsigned int n = 0; n < tp->nnodes; n++) {
		if (!tp->numa || numa_node_size64((int)n, NULL) > 0)
			tp->mem_nodes |= numa_bit((int)n);
		for (unsigned int m = 0; m < tp->nnodes; m++) {
			int d = tp->numa ? numa_distance((int)n, (int)m) : 0;

			/* 0: no table (libnuma could not read it) */
			if (d <= 0 || d > 255)
				d = n == m ? NUMA_LOCAL_DISTANCE :
				    NUMA_REMOTE_DISTANCE;
			tp->distance[n][m] = (unsigned char)d;
		}
	}
}

/* The CPUs of node we may use, in id order: their count. */
unsigned int numa_node_cpus(const struct numa_topo *tp,
			    int node, int *cpus,
			    unsigned int max)
{
	unsigned int n = 0;

	for (unsigned int c = 0; c < tp->ncpus && n < max; c++)
		if (tp->cpu_node[c] == node)
			cpus[n++] = (int)c;
	return n;
}

/*
 * The CPU nodes of a choice, in id order: their count, or 0 with why
 * (a node that does not exist here or has no CPU we may use). NUMA_ALL
 * takes every node with CPUs and skips the others.
 */
unsigned int numa_cpu_nodes(const struct numa_topo *tp,
			    uint64_t choice, int *nodes,
			    char *why, size_t len)
{
	unsigned int n = 0;
	int cpu;

	for (unsigned int node = 0; node < NUMA_MAX_NODES; node++) {
		int has;

		if (choice == NUMA_ALL && node >= tp->nnodes)
			break;
		if (choice != NUMA_ALL && !(choice & numa_bit((int)node)))
			continue;
		if (node >= tp->nnodes) {
			snprintf(why, len, "node %u does not exist here "
				 "(%u node%s)", node, tp->nnodes,
				 tp->nnodes == 1 ? "" : "s");
			return 0;
		}
		has = numa_node_cpus(tp, (int)node, &cpu, 1) > 0;
		if (has)
			nodes[n++] = (int)node;
		else if (choice != NUMA_ALL) {
			snprintf(why, len, "node %u has no CPU this process "
				 "may use", node);
			return 0;
		}
	}
	if (!n)
		snprintf(why, len, "no node has a CPU this process may use");
	return n;
}

/* Thread i's CPU for a CPU choice: 0, or -1 with why. */
int numa_place(const struct numa_topo *tp, uint64_t choice,
	       unsigned int nthreads, int *cpus, char *why,
	       size_t len)
{
	int nodes[NUMA_MAX_NODES], node_cpus[NUMA_MAX_CPUS];
	unsigned int nn = numa_cpu_nodes(tp, choice, nodes, why, len);

	if (!nn)
		return -1;
	for (unsigned int k = 0; k < nn; k++) {
		unsigned int ncpu = numa_node_cpus(tp, nodes[k], node_cpus,
						   NUMA_MAX_CPUS);

		for (unsigned int i = k; i < nthreads; i += nn)
			cpus[i] = node_cpus[(i / nn) % ncpu];
	}
	return 0;
}

/* The j-th node (wrapping) that has memory, or -1 if none has. */
int numa_nth_mem_node(const struct numa_topo *tp, unsigned int j)
{
	unsigned int n = (unsigned int)__builtin_popcountll(tp->mem_nodes);

	if (!n)
		return -1;
	j %= n;
	for (unsigned int node = 0; node < tp->nnodes; node++)
		if (numa_has_memory(tp, (int)node) && j-- == 0)
			return (int)node;
	return -1;
}

/* Whether a memory choice is relative to the threads' node. */
int numa_mem_relative(int mem_choice)
{
	return mem_choice < 0 && mem_choice != NUMA_SPREAD;
}

/*
 * The other node with memory nearest to (far 0) or farthest from (far 1)
 * node, ties to the lower id; -1 if there is none.
 */
static int numa_by_distance(const struct numa_topo *tp, int node,
			    int far)
{
	int best = -1;

	for (unsigned int m = 0; m < tp->nnodes; m++) {
		const unsigned char *d = tp->distance[node];

		if ((int)m == node || !numa_has_memory(tp, (int)m))
			continue;
		if (best < 0 || (far ? d[m] > d[best] : d[m] < d[best]))
			best = (int)m;
	}
	return best;
}

/* The distances from node to the nodes with memory, for a reason. */
static void numa_distances_text(const struct numa_topo *tp, int node,
				char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned int m = 0; m < tp->nnodes && used < len; m++)
		if (numa_has_memory(tp, (int)m))
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%u:%u", used ? " " : "", m,
						 tp->distance[node][m]);
}

/* The node of a relative memory choice from CPU node cpu_node, or -1
 * with why. */
static int numa_relative_node(const struct numa_topo *tp,
			      int cpu_node, int mem_choice, char *why,
			      size_t len)
{
	char seen[256];
	int node = -1;

	if (mem_choice == NUMA_LOCAL) {
		if (numa_has_memory(tp, cpu_node))
			return cpu_node;
		snprintf(why, len, "node %d has no memory of its own",
			 cpu_node);
		return -1;
	}
	if (mem_choice == NUMA_REMOTE) {
		for (unsigned int k = 1; k < tp->nnodes && node < 0; k++) {
			unsigned int m = ((unsigned int)cpu_node + k) %
					 tp->nnodes;

			if (numa_has_memory(tp, (int)m))
				node = (int)m;
		}
	} else if (mem_choice == NUMA_NEAR || mem_choice == NUMA_FAR) {
		node = numa_by_distance(tp, cpu_node, mem_choice == NUMA_FAR);
	} else if (NUMA_IS_DISTANCE(mem_choice)) {
		for (unsigned int m = 0; m < tp->nnodes && node < 0; m++)
			if (numa_has_memory(tp, (int)m) &&
			    tp->distance[cpu_node][m] ==
			    NUMA_DISTANCE_OF(mem_choice))
				node = (int)m;
		if (node < 0) {
			numa_distances_text(tp, cpu_node, seen, sizeof(seen));
			snprintf(why, len, "no node with memory at distance %d "
				 "from node %d (node:distance here: %s)",
				 NUMA_DISTANCE_OF(mem_choice), cpu_node, seen);
		}
		return node;
	}
	if (node < 0)
		snprintf(why, len, "one NUMA node with memory: no remote "
			 "memory here (%u node%s)", tp->nnodes,
			 tp->nnodes == 1 ? "" : "s");
	return node;
}

/*
 * The node of futex j of the words that threads on cpu_node use (any
 * CPU node for an absolute choice), or -1 with why (the cell cannot run
 * here).
 */
int numa_word_node(const struct numa_topo *tp, int cpu_node,
		   int mem_choice, unsigned int j, char *why,
		   size_t len)
{
	if (mem_choice >= 0) {
		if (!numa_has_memory(tp, mem_choice)) {
			snprintf(why, len, "node %d has no memory here (%u "
				 "node%s)", mem_choice, tp->nnodes,
				 tp->nnodes == 1 ? "" : "s");
			return -1;
		}
		return mem_choice;
	}
	if (mem_choice == NUMA_SPREAD)
		return numa_nth_mem_node(tp, j);
	if (cpu_node < 0 || (unsigned int)cpu_node >= tp->nnodes) {
		snprintf(why, len, "node %d does not exist here", cpu_node);
		return -1;
	}
	return numa_relative_node(tp, cpu_node, mem_choice, why, len);
}
