// SPDX-License-Identifier: GPL-2.0
/*
 * numa: a contended futex mutex whose threads and futex words sit on
 * chosen NUMA nodes, so a run compares local against remote words, and
 * hash designs (global, per-process, per-node) against each other.
 *
 * Scenario: --threads threads run on the CPUs of --cpu-nodes (one node,
 * packed; a set of nodes such as 0+2+5, or all nodes with CPUs, round
 * robin; placement rules in numa_topo.h, option syntax in numa_choice.h;
 * the harness's --placement policy is replaced, and the rows' placement
 * column says node0, nodes-0,2 or nodes-all, their cpus column the CPUs).
 * --futexes words (default 1), each on a page of its own bound to its
 * --mem-node: relative to the threads' node, local, remote (the next node
 * by id), near or far (by the node distance table) or dD (a node at
 * distance D); or absolute, spread (word j on the j-th node) or a node
 * number. With several CPU nodes a relative choice gives each CPU node
 * --futexes words of its own, placed relative to it (so local is local
 * for every thread, and the locks are per node); an absolute one gives
 * every thread the same words. Each thread loops: take the next word's
 * lock (Drepper's mutex 3, as in the mutex workload: 0 free, 1 locked, 2
 * locked with waiters, wait/wake through the backend), hold it for
 * --critical ns of busy work, release it. Thread i starts at its group's
 * word i / (CPU nodes) and moves to the next word after each acquisition.
 *
 * Why a contended mutex rather than hash's failing waits: a word that is
 * only read stays in the reader's cache after the first miss, so its
 * node would hardly show. Here every acquisition writes the word, its
 * line moves between the threads' caches through its home node, and the
 * contended path takes the futex's hash bucket lock for each wait and
 * wake, which is where the hash design matters: FUTEX2_NUMA (the
 * futex2-numa backend, 6.16+: the word's node field, which this workload
 * sets to the word's memory node, picks that node's table), the private
 * hash (futex-private with --hash-slots; 0 is the global table), and the
 * module's kmod-global against kmod-numa.
 *
 * Measures: acquisitions per second, acquire latency percentiles, and in
 * each row's counters: nodes (on this machine), cpu_nodes and mem_nodes
 * (bit n for node n: where the threads ran and the words lay, both
 * checked: a thread's CPU by getcpu, a word's page by get_mempolicy),
 * local_ops and remote_ops (acquisitions of a word on the thread's own
 * node or another), and distance (the largest distance, in the machine's
 * table, from a thread's node to a word it takes: 10 when every word is
 * local). The options column says cpu-nodes and mem-node as asked. On
 * a one-node machine the local cells run with nodes 1 and remote_ops 0;
 * cells asking for another node are skipped with the reason. Mutual
 * exclusion is checked on every word in every run.
 */
#include <errno.h>
#include <numaif.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "workloads/lib/exclusion.h"
#include "workloads/lib/futex_mutex.h"
#include "measure/busy_loop.h"
#include "spec/workload.h"
#include "measure/rep.h"
#include "workloads/lib/numa_choice.h"
#include "workloads/lib/numa_topo.h"

enum { OPT_CPU_NODES, OPT_MEM_NODE, OPT_FUTEXES, OPT_CRITICAL };
enum { C_NODES, C_CPU_NODES, C_MEM_NODES, C_LOCAL, C_REMOTE, C_MISPLACED,
       C_VIOLATIONS, C_DISTANCE };

#define NUMA_MAX_FUTEXES 64
/* a relative --mem-node gives each CPU node --futexes words */
#define NUMA_MAX_WORDS	(NUMA_MAX_NODES * NUMA_MAX_FUTEXES)

/* One futex word and the data it guards, on a page of its own. */
struct numa_word {
	/* the lock, then futex2-numa's node field */
	_Alignas(FL_CACHELINE) uint32_t word[2];
	/* the data it guards, on a line of its own */
	_Alignas(FL_CACHELINE) struct fl_guarded guarded;
};

/* What a thread reads of its placement: set in init, read-only after. */
struct numa_thread {
	int node;			/* node of the thread's CPU */
	unsigned int group;		/* the words it takes */
	/* the largest distance from its node to its group's words */
	unsigned int distance;
};

/*
 * The words are in groups of nfutexes: one group per CPU node for a
 * relative --mem-node, else one group all threads share. Thread i takes
 * the words of group threads[i].group. The threads' table has one entry
 * per thread of the repetition, allocated with it.
 */
struct numa_state {
	unsigned int nfutexes, ngroups;
	struct numa_word *words[NUMA_MAX_WORDS];
	int word_node[NUMA_MAX_WORDS];		/* where each page lies */
	struct numa_thread *threads;
	unsigned int nodes;
	uint64_t cpu_mask, mem_mask;
};

/* The options' values are numa_topo.h's choices (numa_choice.h). */
static inline uint64_t cpu_choice(const struct fl_cell *cell)
{
	return (uint64_t)cell->opt[OPT_CPU_NODES];
}

static inline int mem_choice(const struct fl_cell *cell)
{
	return (int)cell->opt[OPT_MEM_NODE];
}

#ifdef FL_DESCRIBE

static int parse_cpu_nodes(const struct fl_option *opt, const char *text,
			   int64_t *out, char *err, size_t len)
{
	return numa_parse_cpu_nodes(opt->name, text, out, err, len);
}

static void format_cpu_nodes(int64_t v, char *buf, size_t len)
{
	numa_format_cpu_nodes((uint64_t)v, buf, len);
}

static int parse_mem_node(const struct fl_option *opt, const char *text,
			  int64_t *out, char *err, size_t len)
{
	return numa_parse_mem_node(opt->name, text, out, err, len);
}

static void format_mem_node(int64_t v, char *buf, size_t len)
{
	numa_format_mem_node((int)v, buf, len);
}

/* the named values, then the forms of the others (numa_choice.h) */
static const char *const cpu_choices[] = { "all", NULL };
static const struct fl_option_form cpu_forms[] = {
	{ "node", "N (0-63)", "1", "that node's CPUs, the threads packed "
	  "on them" },
	{ "node set", "N+N... (0-63 each)", "0+2+5", "those nodes' CPUs, "
	  "the threads round robin over the nodes" },
	{ .name = NULL },
};
static const char *const mem_choices[] = {
	"local", "remote", "near", "far", "spread", NULL
};
static const struct fl_option_form mem_forms[] = {
	{ "node", "N (0-63)", "1", "that node, for every thread" },
	{ "distance", "dD (D 10-255)", "d21", "the lowest node with memory "
	  "at distance D from the threads' node" },
	{ .name = NULL },
};

static const struct fl_option options[] = {
	[OPT_CPU_NODES] = FL_SWEEP_CODED("cpu-nodes", "0", cpu_choices,
			cpu_forms, parse_cpu_nodes, format_cpu_nodes,
			"nodes whose CPUs run the threads: a node (packed), "
			"nodes joined by + (0+2+5), or all"),
	[OPT_MEM_NODE] = FL_SWEEP_CODED("mem-node", "local,remote", mem_choices,
			mem_forms, parse_mem_node, format_mem_node,
			"where the futex words lie: local, remote, near, "
			"far, dD (at distance D from the threads' node), "
			"spread or a node"),
	[OPT_FUTEXES] = FL_SWEEP_INT("futexes", "1", 1, NUMA_MAX_FUTEXES,
			"futex words (a page each); threads move round "
			"them"),
	[OPT_CRITICAL] = FL_SWEEP_NS("critical", "100", 0, 1000000000,
			"critical section length, ns of busy work"),
};

static const struct fl_counter_desc counters[] = {
	[C_NODES] = FL_COUNTER_MAX("nodes"),
	[C_CPU_NODES] = FL_COUNTER_MAX("cpu_nodes"),
	[C_MEM_NODES] = FL_COUNTER_MAX("mem_nodes"),
	[C_LOCAL] = FL_COUNTER_SUM("local_ops"),
	[C_REMOTE] = FL_COUNTER_SUM("remote_ops"),
	[C_MISPLACED] = FL_COUNTER_SUM("misplaced"),
	[C_VIOLATIONS] = FL_COUNTER_SUM("violations"),
	[C_DISTANCE] = FL_COUNTER_MAX("distance"),
};

static uint32_t needs(const struct fl_cell *cell)
{
	(void)cell;
	return FL_CAP_WAIT;
}

/* Every CPU node must have CPUs, and every word's node must exist
 * here, for each CPU node a relative choice places words from. */
static int check(const struct fl_cell *cell, char *why, size_t len)
{
	static struct numa_topo tp;
	int nodes[NUMA_MAX_NODES];
	unsigned int nn;

	numa_topo_probe(&tp);
	nn = numa_cpu_nodes(&tp, cpu_choice(cell), nodes, why, len);
	if (!nn)
		return -1;
	for (unsigned int k = 0; k < nn; k++)
		for (unsigned int j = 0;
		     j < (unsigned int)cell->opt[OPT_FUTEXES]; j++)
			if (numa_word_node(&tp, nodes[k], mem_choice(cell), j,
					   why, len) < 0)
				return -1;
	return 0;
}

/* Put the threads on the chosen node's CPUs; a node that does not exist
 * here leaves the policy's CPUs, and check() skips the cell. */
static int place(struct fl_cell *cell, unsigned int n, char *err, size_t len)
{
	static struct numa_topo tp;
	char why[256], set[256];
	uint64_t choice = cpu_choice(cell);

	(void)err;
	(void)len;
	numa_topo_probe(&tp);
	/* numa_place() writes the table only once the choice holds */
	if (n > cell->nplaced ||
	    numa_place(&tp, choice, n, cell->cpus, why, sizeof(why)))
		return 0;
	numa_format_cpu_nodes(choice, set, sizeof(set));
	/* the placement column takes a CPU list's characters: the set
	 * with commas (nodes-0,4); too long for it, the set keeps its
	 * count, and the options column names every node */
	for (char *c = set; *c; c++)
		if (*c == '+')
			*c = ',';
	if ((size_t)snprintf(cell->placement, sizeof(cell->placement), "%s%s",
			     __builtin_popcountll(choice) == 1 ? "node" :
			     "nodes-", set) >= sizeof(cell->placement))
		snprintf(cell->placement, sizeof(cell->placement),
			 "nodes-set%d", __builtin_popcountll(choice));
	return 0;
}

/* The node of the page at p, or -1 if the kernel cannot say. */
static int page_node(void *p)
{
	int node = -1;

	if (get_mempolicy(&node, NULL, 0, p, MPOL_F_NODE | MPOL_F_ADDR))
		return -1;
	return node;
}

/* Map word w (of group k's) on node, checking where its page lies. */
static int place_word(struct fl_rep *rep, struct numa_state *s,
		      const struct numa_topo *tp, unsigned int w, int node,
		      char *why, size_t len)
{
	/* without libnuma's NUMA there is nothing to bind */
	s->words[w] = fl_rep_alloc(rep, sizeof(struct numa_word),
				   tp->numa ? node : -1);
	if (!s->words[w]) {
		snprintf(why, len, "cannot bind a page to node %d", node);
		return -1;
	}
	s->word_node[w] = tp->numa ? page_node(s->words[w]) : 0;
	if (s->word_node[w] != node) {
		snprintf(why, len, "futex %u should lie on node %d but its "
			 "page is on node %d", w, node, s->word_node[w]);
		return -1;
	}
	/* a node-word backend: the word's node names its table */
	fl_node_set(rep, s->words[w]->word, (uint32_t)node);
	s->mem_mask |= numa_bit(node);
	return 0;
}

/* Thread i's node, group, and the farthest of its group's words. */
static void place_thread(struct numa_state *s, const struct numa_topo *tp,
			 unsigned int i, int cpu)
{
	struct numa_thread *th = &s->threads[i];
	unsigned int far = 0;

	th->node = cpu >= 0 && (unsigned int)cpu < tp->ncpus ?
		   tp->cpu_node[cpu] : -1;
	th->group = i % s->ngroups;
	if (th->node < 0)
		return;
	s->cpu_mask |= numa_bit(th->node);
	for (unsigned int j = 0; j < s->nfutexes; j++) {
		unsigned int d = tp->distance[th->node]
				[s->word_node[th->group * s->nfutexes + j]];

		if (d > far)
			far = d;
	}
	th->distance = far;
}

static int init(struct fl_rep *rep, char *why, size_t len)
{
	const struct fl_cell *cell = rep->cell;
	struct numa_state *s = fl_rep_alloc(rep, sizeof(*s), -1);
	struct numa_topo tp;
	int nodes[NUMA_MAX_NODES];

	if (!s) {
		snprintf(why, len, "cannot map the state");
		return -1;
	}
	/* one entry a thread: the harness bounds them by FL_MAX_THREADS */
	s->threads = fl_rep_alloc(rep, rep->nthreads * sizeof(*s->threads),
				  -1);
	if (!s->threads) {
		snprintf(why, len, "cannot map the state of %u threads",
			 rep->nthreads);
		return -1;
	}
	numa_topo_probe(&tp);
	s->nodes = tp.nnodes;
	s->nfutexes = (unsigned int)cell->opt[OPT_FUTEXES];
	/* numa_place() put thread i on nodes[i % ngroups] */
	s->ngroups = numa_cpu_nodes(&tp, cpu_choice(cell), nodes, why, len);
	if (!s->ngroups)
		return -1;
	if (!numa_mem_relative(mem_choice(cell)))
		s->ngroups = 1;
	for (unsigned int k = 0; k < s->ngroups; k++) {
		for (unsigned int j = 0; j < s->nfutexes; j++) {
			int node = numa_word_node(&tp, nodes[k],
						  mem_choice(cell), j, why,
						  len);

			if (node < 0 ||
			    place_word(rep, s, &tp, k * s->nfutexes + j, node,
				       why, len))
				return -1;
		}
	}
	for (unsigned int i = 0; i < rep->nthreads; i++)
		place_thread(s, &tp, i, rep->threads[i].cpu);
	rep->shared = s;
	return 0;
}

static int verify(struct fl_rep *rep, char *why, size_t len)
{
	struct numa_state *s = rep->shared;
	uint64_t ops = fl_rep_ops(rep), count = 0;
	uint64_t violations = fl_rep_sum(rep, C_VIOLATIONS);
	uint64_t misplaced = fl_rep_sum(rep, C_MISPLACED);

	for (unsigned int w = 0; w < s->ngroups * s->nfutexes; w++)
		count += fl_guarded_entries(&s->words[w]->guarded);
	if (violations || count != ops) {
		snprintf(why, len, "mutual exclusion violated: %llu double "
			 "owners, %llu acquisitions against %llu counted",
			 (unsigned long long)violations,
			 (unsigned long long)ops, (unsigned long long)count);
		return -1;
	}
	if (misplaced) {
		snprintf(why, len, "%llu threads ran off their node",
			 (unsigned long long)misplaced);
		return -1;
	}
	return 0;
}

/* The placement in words: a one-node machine says so, others say
 * whether the acquisitions were local, remote or a mix. */
static void note(const struct fl_cell *cell,
		 const uint64_t (*counters)[FL_NCOUNTERS], unsigned int nreps,
		 char *buf, size_t len)
{
	uint64_t local = 0, remote = 0;

	(void)cell;
	for (unsigned int r = 0; r < nreps; r++) {
		local += counters[r][C_LOCAL];
		remote += counters[r][C_REMOTE];
	}
	if (counters[0][C_NODES] == 1)
		snprintf(buf, len, "one-node machine (nodes=1): every word is "
			 "local");
	else if (!remote)
		snprintf(buf, len, "local: every acquisition on the thread's "
			 "own node");
	else if (!local)
		snprintf(buf, len, "remote: every acquisition on another "
			 "node");
	else
		snprintf(buf, len, "mixed: %.0f%% of acquisitions remote",
			 100.0 * (double)remote / (double)(local + remote));
}

/* futexlab plot's numa-locality: local against remote memory */
static const struct fl_special_plot locality_plot = {
	.option = "mem-node",
	.name = "numa-locality",
	.title = "numa: local against remote futex memory",
	.panels = {
		{ .fig = FL_FIG_OPS, .title = "throughput" },
		{ .fig = FL_FIG_P99, .title = "p99 latency",
		  .ylabel = "latency" },
	},
	.caption = "local against remote memory",
};

FL_WORKLOAD_DESCRIPTOR(numa) = {
	.name = "numa",
	.summary = "contended futex mutex with threads and words on chosen "
		   "NUMA nodes",
	.scenario = "Threads on the CPUs of --cpu-nodes (which replaces "
		    "--placement) take and release mutexes whose futex words "
		    "lie on --mem-node (local, remote, near, far, dD, spread "
		    "or a node), "
		    "--futexes words a page each. "
		    "Reports acquisitions/s and acquire latency with the "
		    "nodes used and local/remote acquisitions in the counters; "
		    "cells needing a node this machine lacks are skipped.",
	.ops_unit = "acquisitions",
	.latency = "acquire latency (sampled)",
	.sample_every = 512,
	.options = options,
	.noptions = sizeof(options) / sizeof(options[0]),
	.counters = counters,
	.ncounters = sizeof(counters) / sizeof(counters[0]),
	.needs = needs,
	.check = check,
	.place = place,
	.init = init,
	.verify = verify,
	.note = note,
	.plot = &locality_plot,
};

#else /* one build per backend */

static void thread(struct fl_thread *t)
{
	struct fl_rep *rep = t->rep;
	struct numa_state *s = rep->shared;
	const uint64_t crit = fl_busy_ns_to_loops(
		(uint64_t)rep->cell->opt[OPT_CRITICAL]);
	const struct numa_thread *th = &s->threads[t->index];
	const int node = th->node;
	const unsigned int base = th->group * s->nfutexes;
	struct numa_word *const *words = &s->words[base];
	const int *word_node = &s->word_node[base];
	unsigned int j = t->index / s->ngroups % s->nfutexes;
	uint64_t next_timed = t->sampler.first;
	uint64_t ops = 0, local = 0;
	unsigned int cpu = 0, cpu_node = 0;

	/* the CPU the harness pinned us to must be on the planned node */
	if (getcpu(&cpu, &cpu_node) || (int)cpu_node != node)
		t->counters[C_MISPLACED]++;
	while (!fl_should_stop(rep)) {
		struct numa_word *nw = words[j];
		const int timed = fl_sample_due(ops + 1, &next_timed,
						  &t->sampler);
		uint64_t t0 = timed ? fl_now_ns() : 0, t1 = 0;
		int r = fl_mutex3_lock(nw->word, &rep->hard_deadline, NULL);

		if (r) {
			if (r != -ETIMEDOUT)	/* else the cell is aborted */
				fl_rep_fail(rep, "lock returned %d", r);
			break;
		}
		if (timed)
			t1 = fl_now_ns();
		if (fl_guarded_enter(&nw->guarded))
			t->counters[C_VIOLATIONS]++;
		fl_busy(crit);
		fl_guarded_leave(&nw->guarded);
		fl_drepper_unlock(nw->word, NULL);
		/* recorded after the unlock: not inside the critical section */
		if (timed)
			fl_hist_record(t->hist, t1 - t0);
		local += word_node[j] == node;
		fl_ops_publish(t, ++ops);
		if (++j == s->nfutexes)
			j = 0;
	}
	t->counters[C_LOCAL] = local;
	t->counters[C_REMOTE] = ops - local;
	t->counters[C_NODES] = s->nodes;
	t->counters[C_CPU_NODES] = s->cpu_mask;
	t->counters[C_MEM_NODES] = s->mem_mask;
	t->counters[C_DISTANCE] = th->distance;
}

FL_WORKLOAD_IMPL(numa, thread, NULL);

#endif
