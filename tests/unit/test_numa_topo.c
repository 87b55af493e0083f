// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the numa workload's placement rules
 * (workloads/lib/numa_topo.h) and option values (numa_choice.h) on
 * made-up topologies with real distance tables (a two-socket 10/21
 * machine, a four-node 10/16/22 square, an eight-node machine in two
 * packages at 10/12/32, a 64-node one), so the logic is checked on a
 * one-node host: threads land on the chosen nodes' CPUs only (round
 * robin over a set or "all"), local/remote/near/far/dD/spread/explicit
 * memory resolve to the right node with ties to the lower id, nodes
 * that are missing, CPU-less or memory-less give a reason instead of a
 * placement, and hostile option text is refused naming the flag. The
 * probe of the real machine must at least describe one node with a CPU,
 * memory and a local distance of 10.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "workloads/lib/numa_choice.h"
#include "workloads/lib/numa_topo.h"

/* A topology of nnodes nodes, every one with memory, no CPU ours yet,
 * and distances 10 on the diagonal, far elsewhere. */
static void blank(struct numa_topo *tp, unsigned int nnodes, int far)
{
	memset(tp, 0, sizeof(*tp));
	tp->nnodes = nnodes;
	tp->ncpus = 64;
	for (unsigned int c = 0; c < tp->ncpus; c++)
		tp->cpu_node[c] = -1;
	tp->mem_nodes = nnodes == 64 ? ~(uint64_t)0 :
			((uint64_t)1 << nnodes) - 1;
	for (unsigned int a = 0; a < nnodes; a++)
		for (unsigned int b = 0; b < nnodes; b++)
			tp->distance[a][b] = a == b ? 10 : (unsigned char)far;
	tp->numa = 1;
}

/* 2 sockets, a node each (SLIT 10/21, as two-socket Xeons report), 4
 * CPUs: 0,2 on node 0 and 1,3 on node 1 (interleaved ids, as QEMU and
 * many machines number them); CPU 5 on node 1 is not ours. */
static void two_nodes(struct numa_topo *tp)
{
	blank(tp, 2, 21);
	tp->cpu_node[0] = 0;
	tp->cpu_node[1] = 1;
	tp->cpu_node[2] = 0;
	tp->cpu_node[3] = 1;
}

/* 4 nodes, 2 CPUs each (CPUs 2n, 2n+1), a square of links like a
 * four-socket Opteron: 16 to a neighbour (0-1, 0-2, 1-3, 2-3), 22 across
 * the diagonal (0-3, 1-2). */
static void four_nodes(struct numa_topo *tp)
{
	static const unsigned char slit[4][4] = {
		{ 10, 16, 16, 22 },
		{ 16, 10, 22, 16 },
		{ 16, 22, 10, 16 },
		{ 22, 16, 16, 10 },
	};

	blank(tp, 4, 0);
	for (unsigned int a = 0; a < 4; a++)
		for (unsigned int b = 0; b < 4; b++)
			tp->distance[a][b] = slit[a][b];
	for (unsigned int c = 0; c < 8; c++)
		tp->cpu_node[c] = (int)c / 2;
}

/* 8 nodes in two packages (nodes 0-3 and 4-7, as a two-socket EPYC in
 * NPS4): 10 local, 12 in the same package, 32 across; CPU n on node n. */
static void eight_nodes(struct numa_topo *tp)
{
	blank(tp, 8, 32);
	for (unsigned int a = 0; a < 8; a++) {
		for (unsigned int b = 0; b < 8; b++)
			if (a != b && a / 4 == b / 4)
				tp->distance[a][b] = 12;
		tp->cpu_node[a] = (int)a;
	}
}

static int word_node(const struct numa_topo *tp, int cpu_node, int choice)
{
	char why[256];

	return numa_word_node(tp, cpu_node, choice, 0, why, sizeof(why));
}

static void test_place_one_node(void **state)
{
	struct numa_topo tp;
	int cpus[5];
	char why[128];

	(void)state;
	two_nodes(&tp);
	assert_int_equal(numa_place(&tp, numa_bit(1), 5, cpus, why,
				    sizeof(why)), 0);
	/* node 1's CPUs in order, wrapping; never CPU 5 (not allowed) */
	assert_int_equal(cpus[0], 1);
	assert_int_equal(cpus[1], 3);
	assert_int_equal(cpus[2], 1);
	assert_int_equal(cpus[3], 3);
	assert_int_equal(cpus[4], 1);
	assert_int_equal(numa_place(&tp, numa_bit(0), 2, cpus, why,
				    sizeof(why)), 0);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(cpus[1], 2);
}

static void test_place_all_nodes(void **state)
{
	struct numa_topo tp;
	int cpus[16];
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
	/* eight nodes: every node once before any twice */
	eight_nodes(&tp);
	assert_int_equal(numa_place(&tp, NUMA_ALL, 16, cpus, why,
				    sizeof(why)), 0);
	for (int i = 0; i < 16; i++)
		assert_int_equal(tp.cpu_node[cpus[i]], i % 8);
}

static void test_place_node_set(void **state)
{
	static const int set[] = { 1, 4, 6 };
	struct numa_topo tp;
	int cpus[7];
	char why[128];

	(void)state;
	four_nodes(&tp);
	/* 0+3: round robin over the two, each node's CPUs in turn */
	assert_int_equal(numa_place(&tp, numa_bit(0) | numa_bit(3), 5, cpus,
				    why, sizeof(why)), 0);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(cpus[1], 6);
	assert_int_equal(cpus[2], 1);
	assert_int_equal(cpus[3], 7);
	assert_int_equal(cpus[4], 0);
	eight_nodes(&tp);
	assert_int_equal(numa_place(&tp, numa_bit(1) | numa_bit(4) |
				    numa_bit(6), 7, cpus, why, sizeof(why)), 0);
	for (int i = 0; i < 7; i++)
		assert_int_equal(cpus[i], set[i % 3]);
}

static void test_place_bad_nodes(void **state)
{
	struct numa_topo tp;
	int cpus[2] = { -1, -1 };
	char why[128];

	(void)state;
	two_nodes(&tp);
	assert_int_equal(numa_place(&tp, numa_bit(2), 2, cpus, why,
				    sizeof(why)), -1);
	assert_non_null(strstr(why, "node 2"));
	assert_int_equal(numa_place(&tp, numa_bit(0) | numa_bit(63), 2, cpus,
				    why, sizeof(why)), -1);
	assert_non_null(strstr(why, "node 63 does not exist"));
	/* a memory-only node (CXL, or QEMU's cpu-less node) runs nothing */
	tp.nnodes = 3;
	tp.mem_nodes = 7;
	assert_int_equal(numa_place(&tp, numa_bit(2), 2, cpus, why,
				    sizeof(why)), -1);
	assert_non_null(strstr(why, "no CPU"));
	/* in a set too */
	assert_int_equal(numa_place(&tp, numa_bit(0) | numa_bit(2), 2, cpus,
				    why, sizeof(why)), -1);
	assert_non_null(strstr(why, "node 2 has no CPU"));
	/* "all" skips the CPU-less node instead of failing */
	assert_int_equal(numa_place(&tp, NUMA_ALL, 2, cpus, why, sizeof(why)),
			 0);
	assert_int_equal(tp.cpu_node[cpus[0]], 0);
	assert_int_equal(tp.cpu_node[cpus[1]], 1);
	/* no CPU at all */
	for (unsigned int c = 0; c < tp.ncpus; c++)
		tp.cpu_node[c] = -1;
	assert_int_equal(numa_place(&tp, NUMA_ALL, 2, cpus, why, sizeof(why)),
			 -1);
	assert_non_null(strstr(why, "no node has a CPU"));
}

static void test_memory_choices(void **state)
{
	struct numa_topo tp;
	char why[128];

	(void)state;
	two_nodes(&tp);
	assert_int_equal(word_node(&tp, 0, NUMA_LOCAL), 0);
	assert_int_equal(numa_word_node(&tp, 1, NUMA_LOCAL, 3, why,
					sizeof(why)), 1);
	assert_int_equal(word_node(&tp, 0, NUMA_REMOTE), 1);
	assert_int_equal(word_node(&tp, 1, NUMA_REMOTE), 0);
	for (unsigned int j = 0; j < 5; j++)
		assert_int_equal(numa_word_node(&tp, 0, NUMA_SPREAD, j, why,
						sizeof(why)), (int)(j % 2));
	assert_int_equal(word_node(&tp, 0, 1), 1);
	/* absolute choices need no CPU node */
	assert_int_equal(word_node(&tp, -1, 0), 0);
	assert_int_equal(numa_word_node(&tp, -1, NUMA_SPREAD, 1, why,
					sizeof(why)), 1);
	/* on two nodes near and far are the other one, d21 too */
	assert_int_equal(word_node(&tp, 0, NUMA_NEAR), 1);
	assert_int_equal(word_node(&tp, 0, NUMA_FAR), 1);
	assert_int_equal(word_node(&tp, 1, NUMA_FAR), 0);
	assert_int_equal(word_node(&tp, 0, NUMA_AT_DISTANCE(21)), 1);
	assert_int_equal(word_node(&tp, 1, NUMA_AT_DISTANCE(10)), 1);
	/* every node of "all" gets its own local word */
	{
		int nodes[NUMA_MAX_NODES];
		unsigned int nn = numa_cpu_nodes(&tp, NUMA_ALL, nodes, why,
						 sizeof(why));

		assert_int_equal(nn, 2);
		for (unsigned int k = 0; k < nn; k++)
			assert_int_equal(word_node(&tp, nodes[k], NUMA_LOCAL),
					 nodes[k]);
	}
	assert_true(numa_mem_relative(NUMA_LOCAL));
	assert_true(numa_mem_relative(NUMA_AT_DISTANCE(12)));
	assert_false(numa_mem_relative(NUMA_SPREAD));
	assert_false(numa_mem_relative(3));
}

static void test_four_nodes_by_distance(void **state)
{
	struct numa_topo tp;

	(void)state;
	four_nodes(&tp);
	/* node 0: 1 and 2 at 16 (the tie goes to 1), 3 at 22 */
	assert_int_equal(word_node(&tp, 0, NUMA_NEAR), 1);
	assert_int_equal(word_node(&tp, 0, NUMA_FAR), 3);
	/* node 1: 0 and 3 at 16, 2 at 22 */
	assert_int_equal(word_node(&tp, 1, NUMA_NEAR), 0);
	assert_int_equal(word_node(&tp, 1, NUMA_FAR), 2);
	assert_int_equal(word_node(&tp, 3, NUMA_NEAR), 1);
	assert_int_equal(word_node(&tp, 3, NUMA_FAR), 0);
	/* remote stays the next node by id, whatever the distance */
	assert_int_equal(word_node(&tp, 2, NUMA_REMOTE), 3);
	assert_int_equal(word_node(&tp, 3, NUMA_REMOTE), 0);
	/* a distance: the lowest node at exactly it */
	assert_int_equal(word_node(&tp, 0, NUMA_AT_DISTANCE(16)), 1);
	assert_int_equal(word_node(&tp, 0, NUMA_AT_DISTANCE(22)), 3);
	assert_int_equal(word_node(&tp, 2, NUMA_AT_DISTANCE(22)), 1);
	/* node 1 without memory: node 0's nearest is 2, node 3's is 2 */
	tp.mem_nodes &= ~numa_bit(1);
	assert_int_equal(word_node(&tp, 0, NUMA_NEAR), 2);
	assert_int_equal(word_node(&tp, 3, NUMA_NEAR), 2);
	assert_int_equal(word_node(&tp, 1, NUMA_NEAR), 0);
	assert_int_equal(word_node(&tp, 1, NUMA_LOCAL), -1);
}

static void test_eight_nodes_two_levels(void **state)
{
	struct numa_topo tp;
	char why[256];
	int nodes[NUMA_MAX_NODES];

	(void)state;
	eight_nodes(&tp);
	for (int n = 0; n < 8; n++) {
		int near = word_node(&tp, n, NUMA_NEAR);
		int far = word_node(&tp, n, NUMA_FAR);

		/* the first other node of its package, the first node of
		 * the other package */
		assert_int_equal(near, n / 4 * 4 + (n % 4 == 0));
		assert_int_equal(far, n < 4 ? 4 : 0);
		assert_int_equal(tp.distance[n][near], 12);
		assert_int_equal(tp.distance[n][far], 32);
		assert_int_equal(word_node(&tp, n, NUMA_AT_DISTANCE(32)), far);
		assert_int_equal(word_node(&tp, n, NUMA_AT_DISTANCE(12)), near);
		assert_int_equal(word_node(&tp, n, NUMA_LOCAL), n);
	}
	/* no node at distance 21 here: the reason lists what there is */
	assert_int_equal(numa_word_node(&tp, 5, NUMA_AT_DISTANCE(21), 0, why,
					sizeof(why)), -1);
	assert_non_null(strstr(why, "distance 21 from node 5"));
	assert_non_null(strstr(why, "4:12"));
	assert_non_null(strstr(why, "0:32"));
	/* memory-less nodes 0 and 4: the next ones take their place */
	tp.mem_nodes &= ~(numa_bit(0) | numa_bit(4));
	assert_int_equal(word_node(&tp, 5, NUMA_NEAR), 6);
	assert_int_equal(word_node(&tp, 5, NUMA_FAR), 1);
	assert_int_equal(word_node(&tp, 1, NUMA_FAR), 5);
	/* a CPU-less node 7 is left out of "all" but keeps its memory */
	tp.cpu_node[7] = -1;
	assert_int_equal(numa_cpu_nodes(&tp, NUMA_ALL, nodes, why,
					sizeof(why)), 7);
	assert_int_equal(nodes[6], 6);
	assert_int_equal(word_node(&tp, 6, NUMA_NEAR), 5);
	assert_int_equal(word_node(&tp, 0, 7), 7);
}

static void test_memory_refusals(void **state)
{
	struct numa_topo tp;
	char why[256];

	(void)state;
	two_nodes(&tp);
	assert_int_equal(numa_word_node(&tp, 0, 5, 0, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "node 5"));
	assert_int_equal(numa_word_node(&tp, 0, 63, 0, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "node 63"));
	/* a relative choice from a node that is not there */
	assert_int_equal(numa_word_node(&tp, 9, NUMA_NEAR, 0, why,
					sizeof(why)), -1);
	assert_non_null(strstr(why, "node 9"));
	assert_int_equal(numa_word_node(&tp, 0, NUMA_AT_DISTANCE(20), 0, why,
					sizeof(why)), -1);
	assert_non_null(strstr(why, "0:10 1:21"));
	/* node 1 without memory: it has no local memory, and node 0's only
	 * remote candidate is gone, so remote, near and far are refused on
	 * a 1+1 machine */
	tp.mem_nodes = 1;
	assert_int_equal(numa_word_node(&tp, 1, NUMA_LOCAL, 0, why,
					sizeof(why)), -1);
	assert_non_null(strstr(why, "no memory"));
	assert_int_equal(numa_word_node(&tp, 0, NUMA_REMOTE, 0, why,
					sizeof(why)), -1);
	assert_non_null(strstr(why, "no remote"));
	assert_int_equal(numa_word_node(&tp, 0, NUMA_NEAR, 0, why,
					sizeof(why)), -1);
	assert_non_null(strstr(why, "no remote"));
	assert_int_equal(numa_word_node(&tp, 0, NUMA_FAR, 0, why,
					sizeof(why)), -1);
	/* but node 1's remote (and near) memory is node 0 */
	assert_int_equal(word_node(&tp, 1, NUMA_REMOTE), 0);
	assert_int_equal(word_node(&tp, 1, NUMA_NEAR), 0);
	/* spread uses memory nodes only */
	assert_int_equal(numa_word_node(&tp, 0, NUMA_SPREAD, 1, why,
					sizeof(why)), 0);
}

/* A 64-node machine: the top node's bit, and a set that uses it. */
static void test_sixty_four_nodes(void **state)
{
	struct numa_topo tp;
	int cpus[3], nodes[NUMA_MAX_NODES];
	char why[128];

	(void)state;
	blank(&tp, 64, 20);
	for (unsigned int c = 0; c < 64; c++)
		tp.cpu_node[c] = (int)c;
	tp.distance[0][63] = 11;
	assert_int_equal(numa_cpu_nodes(&tp, NUMA_ALL, nodes, why,
					sizeof(why)), 64);
	assert_int_equal(numa_place(&tp, numa_bit(0) | numa_bit(63), 3, cpus,
				    why, sizeof(why)), 0);
	assert_int_equal(cpus[1], 63);
	assert_int_equal(word_node(&tp, 0, NUMA_NEAR), 63);
	assert_int_equal(word_node(&tp, 0, NUMA_FAR), 1);
	assert_int_equal(word_node(&tp, 62, NUMA_REMOTE), 63);
	assert_int_equal(word_node(&tp, 63, NUMA_REMOTE), 0);
	assert_int_equal(word_node(&tp, 5, 63), 63);
	assert_int_equal(numa_nth_mem_node(&tp, 63), 63);
}

/* --cpu-nodes TEXT into *set: 0 or -1 (err says why) */
static int cpu_text(const char *text, uint64_t *set, char *err, size_t len)
{
	int64_t v = (int64_t)*set;
	int r = numa_parse_cpu_nodes("cpu-nodes", text, &v, err, len);

	*set = (uint64_t)v;
	return r;
}

static void test_option_values(void **state)
{
	static const char *const cpu_ok[] = {
		"all", "0", "7", "63", "0+2+5", "5+0", "0+63",
	};
	static const char *const mem_ok[] = {
		"local", "remote", "near", "far", "spread", "0", "63", "d10",
		"d21", "d32", "d255",
	};
	char err[256], buf[256];
	uint64_t set = 1;
	int64_t mem = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(cpu_ok) / sizeof(cpu_ok[0]); i++) {
		uint64_t again = 0;

		assert_int_equal(cpu_text(cpu_ok[i], &set, err, sizeof(err)),
				 0);
		/* printed back in id order, and read the same again */
		numa_format_cpu_nodes(set, buf, sizeof(buf));
		assert_int_equal(cpu_text(buf, &again, err, sizeof(err)), 0);
		assert_true(again == set);
	}
	assert_int_equal(cpu_text("all", &set, err, sizeof(err)), 0);
	assert_true(set == NUMA_ALL);
	assert_int_equal(cpu_text("5+0", &set, err, sizeof(err)), 0);
	assert_true(set == (numa_bit(0) | numa_bit(5)));
	numa_format_cpu_nodes(set, buf, sizeof(buf));
	assert_string_equal(buf, "0+5");
	assert_int_equal(cpu_text("63", &set, err, sizeof(err)), 0);
	assert_true(set == numa_bit(63));
	for (size_t i = 0; i < sizeof(mem_ok) / sizeof(mem_ok[0]); i++) {
		assert_int_equal(numa_parse_mem_node("mem-node", mem_ok[i],
						     &mem, err, sizeof(err)),
				 0);
		numa_format_mem_node((int)mem, buf, sizeof(buf));
		assert_string_equal(buf, mem_ok[i]);
	}
	assert_int_equal(numa_parse_mem_node("mem-node", "d21", &mem, err,
					     sizeof(err)), 0);
	assert_int_equal(mem, NUMA_AT_DISTANCE(21));
}

static void test_hostile_option_values(void **state)
{
	static const char *const cpu_bad[] = {
		"", "+", "0+", "+0", "0++1", "64", "-1", "1-3", "0,1", "ALL",
		"all+1", "1+all", "0x1", " 1", "1 ", "1000", "99999999999999",
		"0+0", "3+1+3", "local", "d21", "\xff",
	};
	static const char *const mem_bad[] = {
		"", "64", "-1", "d", "d9", "d0", "d256", "d1000", "dd21",
		"d-21", "d+21", "D21", "21d", "near2", "Near", "all", "0+1",
		"local,remote", " 1", "1 ", "99999999999999", "\xff",
	};
	char err[256];
	uint64_t set = 42;
	int64_t mem = 42;

	(void)state;
	for (size_t i = 0; i < sizeof(cpu_bad) / sizeof(cpu_bad[0]); i++) {
		err[0] = '\0';
		if (cpu_text(cpu_bad[i], &set, err, sizeof(err)) != -1)
			fail_msg("--cpu-nodes '%s' was accepted", cpu_bad[i]);
		assert_non_null(strstr(err, "--cpu-nodes"));
		assert_true(set == 42);
	}
	assert_int_equal(cpu_text("0+0", &set, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "twice"));
	for (size_t i = 0; i < sizeof(mem_bad) / sizeof(mem_bad[0]); i++) {
		err[0] = '\0';
		if (numa_parse_mem_node("mem-node", mem_bad[i], &mem, err,
					sizeof(err)) != -1)
			fail_msg("--mem-node '%s' was accepted", mem_bad[i]);
		assert_non_null(strstr(err, "--mem-node"));
		assert_int_equal(mem, 42);
	}
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
	assert_int_equal(numa_place(&tp, numa_bit(node), 1, cpus, why,
				    sizeof(why)), 0);
	assert_int_equal(tp.cpu_node[cpus[0]], node);
	/* a node's distance to itself is the local one */
	assert_int_equal(tp.distance[node][node], 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_place_one_node),
		cmocka_unit_test(test_place_all_nodes),
		cmocka_unit_test(test_place_bad_nodes),
		cmocka_unit_test(test_place_node_set),
		cmocka_unit_test(test_memory_choices),
		cmocka_unit_test(test_four_nodes_by_distance),
		cmocka_unit_test(test_eight_nodes_two_levels),
		cmocka_unit_test(test_memory_refusals),
		cmocka_unit_test(test_sixty_four_nodes),
		cmocka_unit_test(test_option_values),
		cmocka_unit_test(test_hostile_option_values),
		cmocka_unit_test(test_probe_this_machine),
	};

	return cmocka_run_group_tests_name("numa_topo", tests, NULL, NULL);
}
