/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The numa workload's view of the machine, and its placement rules as
 * pure functions of that view, so that tests/unit/test_numa_topo.c can
 * check them against made-up topologies (two nodes, a node without CPUs,
 * a node without memory) on a one-node build host.
 *
 * A topology lists, for each CPU this process may run on, its node, and
 * which nodes have memory. numa_topo_probe() reads it with libnuma; a
 * kernel without NUMA is one node 0 holding every CPU.
 *
 * Choices, as the options name them:
 *   CPU nodes  a node number: every thread on that node's CPUs (thread i
 *              on its i-th CPU, wrapping); NUMA_ALL: thread i on node
 *              i % nodes (only nodes with CPUs), round robin within each.
 *   memory     NUMA_LOCAL: the CPU node; NUMA_REMOTE: the next node after
 *              it (in id order, wrapping) that has memory; NUMA_SPREAD:
 *              futex j on the j-th node with memory (wrapping); or a
 *              node number. LOCAL and REMOTE need a single CPU node.
 */
#ifndef FUTEXLAB_WORKLOADS_LIB_NUMA_TOPO_H
#define FUTEXLAB_WORKLOADS_LIB_NUMA_TOPO_H

#include <numa.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#define NUMA_MAX_NODES	8	/* node ids the options can name */
#define NUMA_MAX_CPUS	1024

enum { NUMA_ALL = -1 };				/* CPU choice */
/* memory choices */
enum { NUMA_LOCAL = -1, NUMA_REMOTE = -2, NUMA_SPREAD = -3 };

struct numa_topo {
	unsigned int nnodes;		/* node ids 0..nnodes-1 */
	unsigned int ncpus;		/* entries in cpu_node */
	int cpu_node[NUMA_MAX_CPUS];	/* -1: not ours to use */
	unsigned int mem_nodes;		/* bit n: node n has memory */
	int numa;			/* libnuma works: can bind */
};

static inline void numa_topo_probe(struct numa_topo *tp)
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
	for (unsigned int n = 0; n < tp->nnodes; n++)
		if (!tp->numa || numa_node_size64((int)n, NULL) > 0)
			tp->mem_nodes |= 1u << n;
}

/* The CPUs of node we may use, in id order: their count. */
static inline unsigned int numa_node_cpus(const struct numa_topo *tp,
					  int node, int *cpus,
					  unsigned int max)
{
	unsigned int n = 0;

	for (unsigned int c = 0; c < tp->ncpus && n < max; c++)
		if (tp->cpu_node[c] == node)
			cpus[n++] = (int)c;
	return n;
}

/* The nodes with CPUs we may use, in id order: their count. */
static inline unsigned int numa_cpu_nodes(const struct numa_topo *tp,
					  int *nodes)
{
	unsigned int n = 0;
	int cpu;

	for (unsigned int node = 0; node < tp->nnodes; node++)
		if (numa_node_cpus(tp, (int)node, &cpu, 1))
			nodes[n++] = (int)node;
	return n;
}

/* Thread i's CPU for a CPU choice: 0, or -1 with why. */
static inline int numa_place(const struct numa_topo *tp, int choice,
			     unsigned int nthreads, int *cpus, char *why,
			     size_t len)
{
	int nodes[NUMA_MAX_NODES], ncpu[NUMA_MAX_NODES], used[NUMA_MAX_NODES];
	static int node_cpus[NUMA_MAX_NODES][NUMA_MAX_CPUS];
	unsigned int nn = 0;

	if (choice == NUMA_ALL) {
		nn = numa_cpu_nodes(tp, nodes);
	} else if (choice >= 0 && (unsigned int)choice < tp->nnodes) {
		nodes[0] = choice;
		nn = 1;
	} else {
		snprintf(why, len, "node %d does not exist here (%u node%s)",
			 choice, tp->nnodes, tp->nnodes == 1 ? "" : "s");
		return -1;
	}
	for (unsigned int k = 0; k < nn; k++) {
		ncpu[k] = (int)numa_node_cpus(tp, nodes[k], node_cpus[k],
					      NUMA_MAX_CPUS);
		used[k] = 0;
		if (!ncpu[k]) {
			snprintf(why, len, "node %d has no CPU this process "
				 "may use", nodes[k]);
			return -1;
		}
	}
	if (!nn) {
		snprintf(why, len, "no node has a CPU this process may use");
		return -1;
	}
	for (unsigned int i = 0; i < nthreads; i++) {
		unsigned int k = i % nn;

		cpus[i] = node_cpus[k][used[k]++ % ncpu[k]];
	}
	return 0;
}

/* The j-th node (wrapping) that has memory, or -1 if none has. */
static inline int numa_nth_mem_node(const struct numa_topo *tp, unsigned int j)
{
	unsigned int n = (unsigned int)__builtin_popcount(tp->mem_nodes);

	if (!n)
		return -1;
	j %= n;
	for (unsigned int node = 0; node < tp->nnodes; node++)
		if (tp->mem_nodes & (1u << node) && j-- == 0)
			return (int)node;
	return -1;
}

/* The node of futex j for these choices, or -1 with why (the cell
 * cannot run here). */
static inline int numa_word_node(const struct numa_topo *tp, int cpu_choice,
				 int mem_choice, unsigned int j, char *why,
				 size_t len)
{
	if (mem_choice >= 0) {
		if ((unsigned int)mem_choice >= tp->nnodes ||
		    !(tp->mem_nodes & (1u << mem_choice))) {
			snprintf(why, len, "node %d has no memory here (%u "
				 "node%s)", mem_choice, tp->nnodes,
				 tp->nnodes == 1 ? "" : "s");
			return -1;
		}
		return mem_choice;
	}
	if (mem_choice == NUMA_SPREAD)
		return numa_nth_mem_node(tp, j);
	if (cpu_choice < 0) {
		snprintf(why, len, "local and remote memory need a single CPU "
			 "node: use spread or a node number with all CPU "
			 "nodes");
		return -1;
	}
	if (mem_choice == NUMA_LOCAL) {
		if (!(tp->mem_nodes & (1u << cpu_choice))) {
			snprintf(why, len, "node %d has no memory of its own",
				 cpu_choice);
			return -1;
		}
		return cpu_choice;
	}
	for (unsigned int k = 1; k < tp->nnodes; k++) {
		unsigned int node = ((unsigned int)cpu_choice + k) %
				    tp->nnodes;

		if (tp->mem_nodes & (1u << node))
			return (int)node;
	}
	snprintf(why, len, "one NUMA node with memory: no remote memory "
		 "here (%u node%s)", tp->nnodes, tp->nnodes == 1 ? "" : "s");
	return -1;
}

#endif
