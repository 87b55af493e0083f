// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's counts for each measured thread (counters.h). The
 * software events are one group led by task-clock, the hardware ones
 * another led by cycles, so that a PMU busy elsewhere (a hardware group
 * not on the PMU all the time) takes nothing from the software counts;
 * each group is read by one read() of PERF_FORMAT_GROUP.
 */
#include "measure/counters.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/clock.h"

struct event {
	uint32_t type;
	uint64_t config;
	int hw;			/* in the hardware group */
	unsigned int have;
	size_t at;		/* its field in struct fl_rep_counts */
};

#define AT(f) offsetof(struct fl_rep_counts, f)

static const struct event events[FL_NPERF] = {
	[FL_SRC_TASK_CLOCK] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
				0, FL_HAVE_CPU, AT(cpu_ns) },
	[FL_SRC_CTX] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0,
			 FL_HAVE_CTX, AT(ctx_switches) },
	[FL_SRC_MIGRATIONS] = { PERF_TYPE_SOFTWARE,
				PERF_COUNT_SW_CPU_MIGRATIONS, 0,
				FL_HAVE_MIGRATIONS, AT(migrations) },
	[FL_SRC_FAULTS] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0,
			    FL_HAVE_FAULTS, AT(faults) },
	[FL_SRC_CYCLES] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1,
			    FL_HAVE_CYCLES, AT(cycles) },
	[FL_SRC_INSTRUCTIONS] = { PERF_TYPE_HARDWARE,
				  PERF_COUNT_HW_INSTRUCTIONS, 1,
				  FL_HAVE_INSTRUCTIONS, AT(instructions) },
	[FL_SRC_REF_CYCLES] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES,
				1, FL_HAVE_REF_CYCLES, AT(ref_cycles) },
};

/* the events that opened in this process (fl_counters_prepare), as
 * bits by source; all are tried until then */
static unsigned int usable = (1u << FL_NPERF) - 1;
/* fl_counters_perf_off()'s reason: no perf event is opened at all */
static char off_why[96];

void fl_counters_perf_off(const char *why)
{
	snprintf(off_why, sizeof(off_why), "%s", why);
	usable = 0;
}

static int open_event(int e, int group)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = events[e].type;
	a.config = events[e].config;
	a.read_format = PERF_FORMAT_GROUP;
	if (events[e].hw)
		a.read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED |
				 PERF_FORMAT_TOTAL_TIME_RUNNING;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, group,
			    PERF_FLAG_FD_CLOEXEC);
}

/* schedstat's run time and run-queue wait (ns); 0, or -1 */
static int read_sched(int fd, uint64_t v[2])
{
	char buf[96];
	unsigned long long a, b;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu", &a, &b) != 2)
		return -1;
	v[0] = a;
	v[1] = b;
	return 0;
}

/* A group's values in the order its members opened: 0, or -1. With
 * hw, only when it ran on the PMU the whole time it was enabled. */
static int read_group(const struct fl_thread_count *c, int hw,
		      uint64_t *vals)
{
	uint64_t buf[3 + FL_NPERF];
	int leader = -1;

	for (int e = 0; e < FL_NPERF && leader < 0; e++)
		if (events[e].hw == hw && c->fd[e] >= 0)
			leader = c->fd[e];
	if (leader < 0 || read(leader, buf, sizeof(buf)) <= 0)
		return -1;
	if (hw && buf[1] != buf[2])
		return -1;
	for (uint64_t i = 0; i < buf[0] && i < FL_NPERF; i++)
		vals[i] = buf[1 + 2 * hw + i];
	return 0;
}

/* Each open event's value (by source) from both groups' reads. */
static unsigned int read_all(const struct fl_thread_count *c,
			     uint64_t v[FL_NPERF])
{
	unsigned int got = 0;

	for (int hw = 0; hw <= 1; hw++) {
		uint64_t vals[FL_NPERF];
		unsigned int i = 0;

		if (read_group(c, hw, vals))
			continue;
		for (int e = 0; e < FL_NPERF; e++) {
			if (events[e].hw != hw || c->fd[e] < 0)
				continue;
			v[e] = vals[i++];
			got |= 1u << e;
		}
	}
	return got;
}

void fl_counters_open(struct fl_thread_count *c, unsigned int plan)
{
	int leader[2] = { -1, -1 };

	memset(c, 0, sizeof(*c));
	c->sched_fd = -1;
	/* the run delay needs one descriptor: it goes first */
	if (plan & FL_COUNT_SCHED)
		c->sched_fd = open("/proc/thread-self/schedstat",
				   O_RDONLY | O_CLOEXEC);
	if (c->sched_fd >= 0 && read_sched(c->sched_fd, c->sched0)) {
		close(c->sched_fd);
		c->sched_fd = -1;
	}
	for (int e = 0; e < FL_NPERF; e++) {
		c->fd[e] = -1;
		if (!(plan & usable & (1u << e)))
			continue;
		c->fd[e] = open_event(e, leader[events[e].hw]);
		if (c->fd[e] >= 0 && leader[events[e].hw] < 0)
			leader[events[e].hw] = c->fd[e];
	}
	/* an event not read here is not read at the end either */
	c->read0 = read_all(c, c->v0);
}

void fl_counters_read(struct fl_thread_count *c)
{
	struct fl_rep_counts *g = &c->got;
	uint64_t v[FL_NPERF], s[2];
	unsigned int got = read_all(c, v) & c->read0;

	g->have = 0;
	if (c->sched_fd >= 0 && read_sched(c->sched_fd, s) == 0) {
		g->cpu_ns = s[0] - c->sched0[0];
		g->run_delay_ns = s[1] - c->sched0[1];
		g->have |= FL_HAVE_CPU | FL_HAVE_RUN_DELAY;
	}
	for (int e = 0; e < FL_NPERF; e++) {
		if (!(got & (1u << e)))
			continue;
		g->have |= events[e].have;
		/* task-clock's CPU time goes ahead of schedstat's */
		*(uint64_t *)((char *)g + events[e].at) = v[e] - c->v0[e];
	}
	g->cpu_ns_min = g->cpu_ns_max = g->cpu_ns;
	g->run_delay_ns_max = g->run_delay_ns;
	for (int e = 0; e < FL_NPERF; e++)
		if (c->fd[e] >= 0)
			close(c->fd[e]);
	if (c->sched_fd >= 0)
		close(c->sched_fd);
}

static void max_of(uint64_t *a, uint64_t b)
{
	if (b > *a)
		*a = b;
}

void fl_counters_add(struct fl_rep_counts *out,
		     const struct fl_thread_count *c, unsigned int i)
{
	const struct fl_rep_counts *g = &c->got;

	if (i == 0) {
		*out = *g;
		out->have &= ~(FL_HAVE_STEAL | FL_HAVE_CONTAMINATION);
		return;
	}
	out->have &= g->have;
	out->cpu_ns += g->cpu_ns;
	if (g->cpu_ns < out->cpu_ns_min)
		out->cpu_ns_min = g->cpu_ns;
	max_of(&out->cpu_ns_max, g->cpu_ns);
	out->run_delay_ns += g->run_delay_ns;
	max_of(&out->run_delay_ns_max, g->run_delay_ns);
	out->ctx_switches += g->ctx_switches;
	out->migrations += g->migrations;
	out->faults += g->faults;
	out->cycles += g->cycles;
	out->instructions += g->instructions;
	out->ref_cycles += g->ref_cycles;
}

int fl_steal_ns(uint64_t *ns)
{
	char buf[256];
	unsigned long long f[8];
	long hz = sysconf(_SC_CLK_TCK);
	int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0 || hz <= 0)
		return -1;
	buf[n] = '\0';
	/* cpu user nice system idle iowait irq softirq steal ... */
	if (sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &f[0],
		   &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7]) != 8)
		return -1;
	*ns = (uint64_t)f[7] * (1000000000ull / (uint64_t)hz);
	return 0;
}

/* What threads on cpus CPUs cannot but wait: the share of their
 * runnable time the others on their CPUs take. */
static double own_share(unsigned int threads, unsigned int cpus)
{
	return threads > cpus ? 1.0 - (double)cpus / threads : 0.0;
}

static double denied_share(const struct fl_rep_counts *c)
{
	uint64_t runnable = c->cpu_ns + c->run_delay_ns;

	return runnable ? (double)c->run_delay_ns / (double)runnable : 0.0;
}

/* Steal's share of the machine's CPU time over elapsed_ns: what it
 * surely was, less one tick a CPU of /proc/stat's rounding. */
static double steal_share(const struct fl_rep_counts *c, uint64_t elapsed_ns,
			  unsigned int online)
{
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t slack = (uint64_t)online * (1000000000ull /
					     (uint64_t)(hz > 0 ? hz : 100));

	if (!(c->have & FL_HAVE_STEAL) || !elapsed_ns || !online ||
	    c->steal_ns <= slack)
		return 0;
	return (double)(c->steal_ns - slack) /
	       ((double)elapsed_ns * (double)online);
}

void fl_counters_judge(struct fl_rep_counts *c, unsigned int threads,
		       unsigned int cpus, uint64_t elapsed_ns,
		       unsigned int online)
{
	c->have &= ~FL_HAVE_CONTAMINATION;
	if ((c->have & (FL_HAVE_CPU | FL_HAVE_RUN_DELAY)) !=
	    (FL_HAVE_CPU | FL_HAVE_RUN_DELAY) ||
	    !(c->cpu_ns + c->run_delay_ns) || !threads)
		return;
	c->contaminated = denied_share(c) > own_share(threads, cpus) +
					    FL_DENIED_MARGIN ||
			  steal_share(c, elapsed_ns, online) > FL_STEAL_MAX;
	c->have |= FL_HAVE_CONTAMINATION;
}

/* Why an event does not open, as meta.json says it. */
static void why_not(int err, char *buf, size_t len)
{
	char paranoid[16] = "?";
	int fd;

	switch (err) {
	case EACCES:
	case EPERM:
		fd = open("/proc/sys/kernel/perf_event_paranoid",
			  O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			ssize_t n = read(fd, paranoid, sizeof(paranoid) - 1);

			paranoid[n > 0 ? n : 0] = '\0';
			paranoid[strcspn(paranoid, "\n")] = '\0';
			close(fd);
		}
		snprintf(buf, len, "refused: perf_event_paranoid %s (%s)",
			 paranoid, err == EACCES ? "EACCES" : "EPERM");
		break;
	case ENOSYS:
		snprintf(buf, len, "refused: perf_event_open is not available "
			 "(ENOSYS: a seccomp filter or a kernel without it)");
		break;
	case ENOENT:
	case EOPNOTSUPP:
	case EINVAL:
		snprintf(buf, len, "not supported: the PMU does not count it "
			 "(%s)", err == ENOENT ? "ENOENT" :
			 err == EINVAL ? "EINVAL" : "EOPNOTSUPP");
		break;
	default:
		snprintf(buf, len, "not opened: %s", strerror(err));
		break;
	}
}

/* Try each event alone on this thread: the bits that open, and each
 * other one's reason into why (when given). */
static unsigned int try_events(char (*why)[112])
{
	unsigned int ok = 0;

	for (int e = 0; e < FL_NPERF; e++) {
		int fd;

		if (*off_why) {
			if (why)
				snprintf(why[e], sizeof(why[e]), "turned off: "
					 "%s", off_why);
			continue;
		}
		fd = open_event(e, -1);

		if (fd >= 0) {
			ok |= 1u << e;
			close(fd);
		} else if (why) {
			why_not(errno, why[e], sizeof(why[e]));
		}
	}
	return ok;
}

void fl_counters_prepare(void)
{
	struct rlimit lim;

	if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
		lim.rlim_cur = lim.rlim_max;
		setrlimit(RLIMIT_NOFILE, &lim);
	}
	usable = try_events(NULL);
}

/* descriptors left to the harness and the workload while the threads
 * hold their counters (the controller's /proc/stat, a workload's files
 * and pipes) */
#define FD_RESERVE 256

unsigned int fl_counters_plan(unsigned int nthreads)
{
	unsigned int all = usable | FL_COUNT_SCHED;
	struct rlimit lim;
	uint64_t room;

	if (getrlimit(RLIMIT_NOFILE, &lim))
		return 0;
	if (lim.rlim_cur == RLIM_INFINITY)
		return all;
	room = lim.rlim_cur > FD_RESERVE ? lim.rlim_cur - FD_RESERVE : 0;
	if ((uint64_t)nthreads * (unsigned int)__builtin_popcount(all) <= room)
		return all;
	return nthreads <= room ? FL_COUNT_SCHED : 0;
}

#define TRIALS 5

void fl_counters_probe(struct fl_count_probe *p)
{
	struct fl_thread_count *c = malloc(sizeof(*c));
	uint64_t s;

	memset(p, 0, sizeof(*p));
	usable = try_events(p->why);
	if (access("/proc/thread-self/schedstat", R_OK))
		snprintf(p->why[FL_SRC_SCHEDSTAT], sizeof(p->why[0]),
			 "not readable: /proc/thread-self/schedstat: %s",
			 strerror(errno));
	if (fl_steal_ns(&s))
		snprintf(p->why[FL_SRC_STEAL], sizeof(p->why[0]),
			 "not read: /proc/stat has no steal field");
	p->open_ns = p->read_ns = -1;
	for (int t = 0; c && t < TRIALS; t++) {
		uint64_t t0 = fl_now_ns();

		fl_counters_open(c, fl_counters_plan(1));
		uint64_t t1 = fl_now_ns();

		fl_counters_read(c);
		uint64_t t2 = fl_now_ns();

		if (p->open_ns < 0 || (double)(t1 - t0) < p->open_ns)
			p->open_ns = (double)(t1 - t0);
		if (p->read_ns < 0 || (double)(t2 - t1) < p->read_ns)
			p->read_ns = (double)(t2 - t1);
	}
	free(c);
}
