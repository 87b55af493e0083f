/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The numa workload's view of the machine, and its placement rules as
 * pure functions of that view, so that tests/unit/test_numa_topo.c can
 * check them against made-up topologies (two sockets, four nodes, eight
 * nodes in two packages, a node without CPUs or memory) on a one-node
 * build host.
 *
 * A topology lists, for each CPU this process may run on, its node, which
 * nodes have memory, and the node distance table (the firmware's SLIT as
 * libnuma's numa_distance() reads it: 10 for a node to itself, larger
 * for farther nodes). numa_topo_probe() reads it with libnuma; a kernel
 * without NUMA is one node 0 holding every CPU.
 *
 * Choices, as the options name them (numa_choice.h parses them):
 *   CPU nodes  a set of nodes (a uint64_t mask, bit n for node n): one
 *              node packs every thread on its CPUs (thread i on its i-th
 *              CPU, wrapping); several spread them, thread i on the
 *              (i % k)-th of the k nodes in id order, round robin within
 *              each. NUMA_ALL (the empty set) is every node with CPUs.
 *   memory     relative to a CPU node: NUMA_LOCAL (that node),
 *              NUMA_REMOTE (the next node after it, in id order,
 *              wrapping, that has memory), NUMA_NEAR and NUMA_FAR (the
 *              other node with memory at the smallest or largest
 *              distance, ties to the lower id), or NUMA_AT_DISTANCE(d)
 *              (the lowest node with memory at exactly distance d);
 *              absolute: NUMA_SPREAD (word j on the j-th node with
 *              memory, wrapping) or a node number.
 * With several CPU nodes a relative choice gives each CPU node words of
 * its own, placed relative to it, so "local" stays local for every
 * thread; an absolute choice gives all threads the same words.
 */
#ifndef FUTEXLAB_WORKLOADS_LIB_NUMA_TOPO_H
#define FUTEXLAB_WORKLOADS_LIB_NUMA_TOPO_H

#include <stddef.h>
#include <stdint.h>

#define NUMA_MAX_NODES	64	/* node ids the options can name */
#define NUMA_MAX_CPUS	1024

/* the kernel's own distances when the firmware gives none */
#define NUMA_LOCAL_DISTANCE	10
#define NUMA_REMOTE_DISTANCE	20

/* CPU choice: every node with CPUs */
#define NUMA_ALL	((uint64_t)0)

/* memory choices (a node number is >= 0) */
enum { NUMA_LOCAL = -1, NUMA_REMOTE = -2, NUMA_SPREAD = -3, NUMA_NEAR = -4,
       NUMA_FAR = -5 };
/* a SLIT distance is one byte: NUMA_AT_DISTANCE(10..255) */
#define NUMA_AT_DISTANCE(d)	(-0x100 - (int)(d))
#define NUMA_IS_DISTANCE(c)	((c) <= -0x100 && (c) >= -0x1ff)
#define NUMA_DISTANCE_OF(c)	(-0x100 - (c))

struct numa_topo {
	unsigned int nnodes;		/* node ids 0..nnodes-1 */
	unsigned int ncpus;		/* entries in cpu_node */
	int cpu_node[NUMA_MAX_CPUS];	/* -1: not ours to use */
	uint64_t mem_nodes;		/* bit n: node n has memory */
	/* distance[a][b]: from node a's CPUs to node b's memory */
	unsigned char distance[NUMA_MAX_NODES][NUMA_MAX_NODES];
	int numa;			/* libnuma works: can bind */
};

static inline uint64_t numa_bit(int node)
{
	return (uint64_t)1 << node;
}

static inline int numa_has_memory(const struct numa_topo *tp, int node)
{
	return node >= 0 && (unsigned int)node < tp->nnodes &&
	       (tp->mem_nodes & numa_bit(node));
}

/* This machine's topology, through libnuma (one node 0 without NUMA). */
void numa_topo_probe(struct numa_topo *tp);

/* The CPUs of node we may use, in id order: their count. */
unsigned int numa_node_cpus(const struct numa_topo *tp,
			    int node, int *cpus,
			    unsigned int max);

/*
 * The CPU nodes of a choice, in id order: their count, or 0 with why
 * (a node that does not exist here or has no CPU we may use). NUMA_ALL
 * takes every node with CPUs and skips the others.
 */
unsigned int numa_cpu_nodes(const struct numa_topo *tp,
			    uint64_t choice, int *nodes,
			    char *why, size_t len);

/* Thread i's CPU for a CPU choice: 0, or -1 with why. */
int numa_place(const struct numa_topo *tp, uint64_t choice,
	       unsigned int nthreads, int *cpus, char *why,
	       size_t len);

/* The j-th node (wrapping) that has memory, or -1 if none has. */
int numa_nth_mem_node(const struct numa_topo *tp, unsigned int j);

/* Whether a memory choice is relative to the threads' node. */
int numa_mem_relative(int mem_choice);

/*
 * The node of futex j of the words that threads on cpu_node use (any
 * CPU node for an absolute choice), or -1 with why (the cell cannot run
 * here).
 */
int numa_word_node(const struct numa_topo *tp, int cpu_node,
		   int mem_choice, unsigned int j, char *why,
		   size_t len);

#endif
