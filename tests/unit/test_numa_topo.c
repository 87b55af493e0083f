// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the numa workload's placement rules
 * (workloads/lib/numa_topo.h) on made-up topologies, so the two-node
 * logic is checked on a one-node host: threads land on the chosen
 * node's CPUs only (round robin over nodes for "all"),
 * local/remote/spread/explicit memory resolve to the right node, and
 * nodes that are missing, CPU-less or memory-less give a reason instead
 * of a placement. The probe of the real machine must at
 * least describe one node with a CPU and memory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "workloads/lib/numa_topo.h"

/* 2 nodes, 4 CPUs: 0,2 on node 0 and 1,3 on node 1 (interleaved ids, as
 * QEMU and many machines number them); CPU 5 on node 1 is not ours. */
static void two_nodes(struct numa_topo *tp)
{
	memset(tp, 0, sizeof(*tp));
	tp->nnodes = 2;
	tp->ncpus = 8;
	for (unsigned int c = 0; c < tp->ncpus; c++)
		tp->cpu_node[c] = -1;
	tp->cpu_node[0] = 0;
	tp->cpu_node[1] = 1;
	tp->cpu_node[2] = 0;
	tp->cpu_node[3] = 1;
	tp->mem_nodes = 3;
	tp->numa = 1;
}

static void test_place_one_node(void **state)
{
	struct numa_topo tp;
	int cpus[5];
	char why[128];

	(void)state;
	two_nodes(&tp);
	assert_int_equal(numa_place(&tp, 1, 5, cpus, why, sizeof(why)), 0);
	/* node 1's CPUs in order, wrapping; never CPU 5 (not allowed) */
	assert_int_equal(cpus[0], 1);
	assert_int_equal(cpus[1], 3);
	assert_int_equal(cpus[2], 1);
	assert_int_equal(cpus[3], 3);
	assert_int_equal(cpus[4], 1);
	assert_int_equal(numa_place(&tp, 0, 2, cpus, why, sizeof(why)), 0);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(cpus[1], 2);
}

static void test_place_all_nodes(void **state)
{
	struct numa_topo tp;
	int cpus[6];
	char why[128];

	(void)state;
	two_nodes(&tp);
	assert_int_equal(numa_place(&tp, NUMA_ALL, 6, cpus, why, sizeof(why)),
			 0);
	/* thread i on node i % 2, round robin within the node */
	assert_int_equal(cpus[0], 0);
	assert_int_equal(cpus[1], 1);
	assert_int_equal(cpus[2], 2);
	assert_int_equal(cpus[3], 3);
	assert_int_equal(cpus[4], 0);
	assert_int_equal(cpus[5], 1);
	for (int i = 0; i < 6; i++)
		assert_int_equal(tp.cpu_node[cpus[i]], i % 2);
}

static void test_place_bad_nodes(void **state)
{
	struct numa_topo tp;
	int cpus[2] = { -1, -1 };
	char why[128];

	(void)state;
	two_nodes(&tp);
	assert_int_equal(numa_place(&tp, 2, 2, cpus, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "node 2"));
	/* a memory-only node (CXL, or QEMU's cpu-less node) runs nothing */
	tp.nnodes = 3;
	tp.mem_nodes = 7;
	assert_int_equal(numa_place(&tp, 2, 2, cpus, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no CPU"));
	/* "all" skips the CPU-less node instead of failing */
	assert_int_equal(numa_place(&tp, NUMA_ALL, 2, cpus, why, sizeof(why)),
			 0);
	assert_int_equal(tp.cpu_node[cpus[0]], 0);
	assert_int_equal(tp.cpu_node[cpus[1]], 1);
}

static void test_memory_choices(void **state)
{
	struct numa_topo tp;
	char why[128];

	(void)state;
	two_nodes(&tp);
	assert_int_equal(numa_word_node(&tp, 0, NUMA_LOCAL, 0, why,
					sizeof(why)), 0);
	assert_int_equal(numa_word_node(&tp, 1, NUMA_LOCAL, 3, why,
					sizeof(why)), 1);
	assert_int_equal(numa_word_node(&tp, 0, NUMA_REMOTE, 0, why,
					sizeof(why)), 1);
	assert_int_equal(numa_word_node(&tp, 1, NUMA_REMOTE, 0, why,
					sizeof(why)), 0);
	for (unsigned int j = 0; j < 5; j++)
		assert_int_equal(numa_word_node(&tp, 0, NUMA_SPREAD, j, why,
						sizeof(why)), (int)(j % 2));
	assert_int_equal(numa_word_node(&tp, NUMA_ALL, NUMA_SPREAD, 1, why,
					sizeof(why)), 1);
	assert_int_equal(numa_word_node(&tp, 0, 1, 0, why, sizeof(why)), 1);
	assert_int_equal(numa_word_node(&tp, NUMA_ALL, 0, 0, why,
					sizeof(why)), 0);
}

static void test_memory_refusals(void **state)
{
	struct numa_topo tp;
	char why[128];

	(void)state;
	two_nodes(&tp);
	/* local/remote mean nothing when threads span nodes */
	assert_int_equal(numa_word_node(&tp, NUMA_ALL, NUMA_LOCAL, 0, why,
					sizeof(why)), -1);
	assert_non_null(strstr(why, "single CPU node"));
	assert_int_equal(numa_word_node(&tp, 0, 5, 0, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "node 5"));
	/* node 1 without memory: it has no local memory, and node 0's only
	 * remote candidate is gone, so remote is refused on a 1+1 machine */
	tp.mem_nodes = 1;
	assert_int_equal(numa_word_node(&tp, 1, NUMA_LOCAL, 0, why,
					sizeof(why)), -1);
	assert_non_null(strstr(why, "no memory"));
	assert_int_equal(numa_word_node(&tp, 0, NUMA_REMOTE, 0, why,
					sizeof(why)), -1);
	assert_non_null(strstr(why, "no remote"));
	/* but node 1's remote memory is node 0 */
	assert_int_equal(numa_word_node(&tp, 1, NUMA_REMOTE, 0, why,
					sizeof(why)), 0);
	/* spread uses memory nodes only */
	assert_int_equal(numa_word_node(&tp, 0, NUMA_SPREAD, 1, why,
					sizeof(why)), 0);
}

static void test_probe_this_machine(void **state)
{
	struct numa_topo tp;
	int cpus[1] = { -1 }, node = -1;
	char why[128];

	(void)state;
	numa_topo_probe(&tp);
	assert_true(tp.nnodes >= 1);
	assert_true(tp.mem_nodes != 0);
	for (unsigned int n = 0; n < tp.nnodes && node < 0; n++)
		if (numa_node_cpus(&tp, (int)n, cpus, 1))
			node = (int)n;
	assert_true(node >= 0);
	assert_int_equal(numa_place(&tp, node, 1, cpus, why, sizeof(why)), 0);
	assert_int_equal(tp.cpu_node[cpus[0]], node);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_place_one_node),
		cmocka_unit_test(test_place_all_nodes),
		cmocka_unit_test(test_place_bad_nodes),
		cmocka_unit_test(test_memory_choices),
		cmocka_unit_test(test_memory_refusals),
		cmocka_unit_test(test_probe_this_machine),
	};

	return cmocka_run_group_tests_name("numa_topo", tests, NULL, NULL);
}
