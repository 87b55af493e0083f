// SPDX-License-Identifier: GPL-2.0
/*
 * The child process of one cell: set up the backend, then run the warm-up
 * and each repetition with fresh threads, and write each repetition's
 * merged result into the shared mapping.
 *
 * Before the first repetition the busy loop is calibrated in this process,
 * and measured again after the last one (the parent flags a drift).
 *
 * A repetition: the controller (this process's main thread) allocates the
 * threads' slots and histograms, lets the workload build its shared state,
 * starts the threads pinned to their CPUs, and releases them all from one
 * gate (start_gate.h), whose every wait has the repetition's deadline.
 * From the opening to the join it runs at SCHED_FIFO's lowest priority
 * when the threads outnumber their CPUs (controller_raise(), below).
 * It sleeps bin by bin until the end of the duration, reading the counts
 * the threads publish, sets stop, asks the workload to wake sleepers
 * (kick), and joins the threads with a deadline.
 * Nothing in between allocates, locks or prints on the threads' behalf.
 */
#include <errno.h>
#include <fcntl.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "measure/busy_loop.h"
#include "measure/cell.h"
#include "measure/counters.h"
#include "measure/idle_wake.h"
#include "measure/probe.h"
#include "measure/rep.h"
#include "measure/start_gate.h"
#include "spec/placement.h"

struct fl_rep_mem {
	struct fl_rep_mem *next;
	void *addr;
	size_t len;
};

struct thread_start {
	const struct fl_workload_impl *impl;
	struct fl_thread *t;
	struct fl_start_gate *gate;
	int joined;		/* the controller's: joined after the stop */
	unsigned int count_plan;	/* what it may count (counters.h) */
	struct fl_thread_count count;	/* the thread's, until it ends */
};

void *fl_rep_alloc(struct fl_rep *rep, size_t size, int node)
{
	const struct fl_backend *b = rep->cell->backend;
	size_t len = (size + 4095) & ~(size_t)4095;
	int flags = MAP_ANONYMOUS |
		    (b->mem == FL_MEM_SHARED ? MAP_SHARED : MAP_PRIVATE);
	struct fl_rep_mem *m = malloc(sizeof(*m));
	void *p;

	if (!m)
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (p == MAP_FAILED) {
		free(m);
		return NULL;
	}
	if (node >= 0) {
		unsigned long mask[16] = { 0 };

		if (node >= (int)(sizeof(mask) * 8) ||
		    (mask[node / 64] |= 1ul << (node % 64),
		     mbind(p, len, MPOL_BIND, mask, sizeof(mask) * 8,
			   MPOL_MF_STRICT) != 0)) {
			munmap(p, len);
			free(m);
			return NULL;
		}
	}
	/* fault every page in now, on the bound node, not in the loop */
	memset(p, 0, len);
	m->addr = p;
	m->len = len;
	m->next = rep->mem;
	rep->mem = m;
	return p;
}

void fl_rep_fail(struct fl_rep *rep, const char *fmt, ...)
{
	va_list ap;

	/* the first failure wins; later ones would race on the text */
	if (atomic_exchange(&rep->failed, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(rep->fail_reason, sizeof(rep->fail_reason), fmt, ap);
	va_end(ap);
}

static void *thread_main(void *arg)
{
	struct thread_start *s = arg;
	struct fl_thread *t = s->t;

	__atomic_store_n(&t->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	/* counted from before the gate to after the loop, outside both */
	fl_counters_open(&s->count, s->count_plan);
	/* a gate never opened: the controller gave up and the process
	 * is ending; measure nothing */
	if (fl_start_gate_pass(s->gate))
		return NULL;
	s->impl->thread(t);
	fl_counters_read(&s->count);
	return NULL;
}

static void free_rep_mem(struct fl_rep *rep)
{
	while (rep->mem) {
		struct fl_rep_mem *m = rep->mem;

		rep->mem = m->next;
		munmap(m->addr, m->len);
		free(m);
	}
}

/* The counts the threads have published so far. */
static uint64_t ops_so_far(const struct fl_rep *rep)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < rep->nthreads; i++)
		sum += __atomic_load_n(&rep->threads[i].ops, __ATOMIC_RELAXED);
	return sum;
}

/*
 * The timed part of a repetition, from the gate's opening at t0 (the
 * clock read just before it) to the stop flag: sleep bin by bin to the
 * end of the duration, reading the threads' counts at each bin's end.
 * *stopped_ns is when stop was set. The controller wakes 1/bin times a
 * second for a few microseconds; on a machine whose CPUs all run
 * threads that is the only cost, and it falls on no thread's loop.
 */
static void run_timed(struct fl_rep *rep, uint64_t t0, uint64_t duration_ns,
		      uint64_t bin_ns, struct fl_bins *bins,
		      uint64_t *stopped_ns, struct fl_cell_shared *sh)
{
	uint64_t width = bin_ns ? bin_ns : duration_ns, prev = 0;

	if (duration_ns / width >= FL_MAX_BINS)
		width = (duration_ns / ((uint64_t)FL_MAX_BINS * width) + 1) *
			width;
	bins->bin_ns = width;
	bins->n = 0;

	uint64_t end = t0 + duration_ns;

	sh->stop_due_ns = end;
	for (uint64_t next = t0 + width; next < end &&
	     bins->n < FL_MAX_BINS - 1; next += width) {
		fl_sleep_until_ns(next);
		uint64_t total = ops_so_far(rep);

		bins->end_ns[bins->n] = fl_now_ns() - t0;
		bins->ops[bins->n++] = total - prev;
		prev = total;
	}
	fl_sleep_until_ns(end);
	atomic_store(&rep->stop, 1);
	*stopped_ns = fl_now_ns();
	sh->stop_set = 1;
}

/* The last bin, once the threads joined: what they did since the last
 * read, up to the stop (a thread's operation in progress counts). */
static void close_bins(struct fl_bins *bins, uint64_t ops, uint64_t elapsed)
{
	uint64_t counted = 0;

	for (unsigned int i = 0; i < bins->n; i++)
		counted += bins->ops[i];
	bins->end_ns[bins->n] = elapsed;
	bins->ops[bins->n++] = ops - counted;
}

/*
 * The controller's priority while its threads run. A repetition ends on
 * time only if the controller gets a CPU when it needs one: to open
 * the gate, at each bin, to set stop and to join. With
 * more threads than CPUs, each CPU's run queue holds many of the cell's
 * threads, all runnable when they never sleep (hash), and a
 * fair-scheduled controller is one more of them: preempted by the
 * threads it has just let through the gate, or woken by its timer, it
 * waits its turn among them, longer the more threads a CPU has. With
 * 256 hash threads a CPU one such wait lasted 4.0 s, the stop came 4.1 s
 * late and the start was then read as late (ops/s overstated: the
 * clock now starts before the gate opens); with 512 the
 * wait outlasted the grace (docs/notebook/2026-12-06-hash-many-
 * threads.md). At SCHED_FIFO's lowest priority it runs the moment it is
 * ready, ahead of every fair-scheduled thread and not above any
 * real-time one a workload makes (pi, condvar --rt-waiters), for the
 * microseconds each step takes. Raised only once every thread waits at
 * the gate (none is created at it; RESET_ON_FORK besides), only for a
 * cell whose threads outnumber their CPUs (one a CPU keeps it waiting a
 * slice at most) and only from a fair policy, and restored after the
 * join, before the merge. Where it is not permitted (no CAP_SYS_NICE,
 * RLIMIT_RTPRIO 0) it stays as it was and the parent names the errno if
 * the stop comes too late (cell.c).
 */
struct controller_sched {
	int policy;
	struct sched_param param;
};

/* 0 raised, an errno, or -1 when it was real-time already. */
static int controller_raise(struct controller_sched *saved)
{
	struct sched_param sp = { .sched_priority = 1 };
	int err = pthread_getschedparam(pthread_self(), &saved->policy,
					&saved->param);

	if (err)
		return err;
	if (saved->policy == SCHED_FIFO || saved->policy == SCHED_RR)
		return -1;
	return pthread_setschedparam(pthread_self(),
				     SCHED_FIFO | SCHED_RESET_ON_FORK, &sp);
}

static void controller_restore(const struct controller_sched *saved)
{
	pthread_setschedparam(pthread_self(), saved->policy, &saved->param);
}

/* Join every thread not yet joined by the deadline: how many are still
 * running. Each is tried, so the count is of the threads that did not
 * end, not of those after the first that did not. */
static unsigned int join_all(pthread_t *tids, struct thread_start *starts,
			     unsigned int n, uint64_t deadline_ns)
{
	struct timespec real_deadline;
	uint64_t now_mono = fl_now_ns();
	unsigned int running = 0;

	/* pthread_timedjoin_np takes a CLOCK_REALTIME deadline */
	clock_gettime(CLOCK_REALTIME, &real_deadline);
	uint64_t until = fl_ts_to_ns(&real_deadline) +
			 (deadline_ns > now_mono ? deadline_ns - now_mono : 0);

	real_deadline = fl_ns_to_ts(until);
	for (unsigned int i = 0; i < n; i++) {
		if (starts[i].joined)
			continue;
		if (pthread_timedjoin_np(tids[i], NULL, &real_deadline))
			running++;
		else
			starts[i].joined = 1;
	}
	return running;
}

/* Each thread's slot: its histogram, index, CPU, seed and sampler.
 * 0, or -1 when a histogram cannot be allocated (the ones made are
 * freed by the caller, which frees every slot's). */
static int init_threads(struct fl_rep *rep, const struct fl_cell *cell)
{
	for (unsigned int i = 0; i < rep->nthreads; i++) {
		struct fl_thread *t = &rep->threads[i];

		t->hist = aligned_alloc(4096, (sizeof(struct fl_hist) + 4095) &
					~(size_t)4095);
		if (!t->hist)
			return -1;
		fl_hist_init(t->hist);
		t->rep = rep;
		t->index = i;
		t->cpu = cell->cpus[i];
		t->seed = cell->seed * 0x9E3779B97F4A7C15ull + i + 1;
		fl_sampler_init(&t->sampler, t->seed, cell->sample_every);
	}
	return 0;
}

/*
 * The repetition cannot start (a thread not created, or not at the gate
 * by the deadline): the reason goes to the parent, and the child exits at
 * once, taking the threads already made, which wait at a closed gate.
 */
static void give_up(struct fl_cell_shared *sh, struct fl_rep_result *out,
		    const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

static void give_up(struct fl_cell_shared *sh, struct fl_rep_result *out,
		    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sh->setup_reason, sizeof(sh->setup_reason), fmt, ap);
	va_end(ap);
	out->status = FL_STATUS_FAILED;
	snprintf(out->reason, sizeof(out->reason), "%s", sh->setup_reason);
	out->done = 1;
	_exit(FL_CHILD_GAVE_UP);
}

/* What pthread_create's EAGAIN means: one of the limits on threads, or
 * the memory for the new thread's stack. */
static void creation_limits(char *buf, size_t len)
{
	struct rlimit lim;

	if (getrlimit(RLIMIT_NPROC, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY)
		snprintf(buf, len, "RLIMIT_NPROC (ulimit -u) %llu processes",
			 (unsigned long long)lim.rlim_cur);
	else
		snprintf(buf, len, "RLIMIT_NPROC (ulimit -u) unlimited");
}

/*
 * Start every thread, pinned, at one gate. A thread that cannot be
 * created, or creation that outlasts the repetition's deadline, gives up
 * the cell with the cause.
 */
static void start_threads(struct fl_rep *rep,
			  const struct fl_workload_impl *impl,
			  struct thread_start *starts, pthread_t *tids,
			  struct fl_start_gate *gate, struct fl_cell_shared *sh,
			  struct fl_rep_result *out)
{
	unsigned int n = rep->nthreads, plan = fl_counters_plan(n);

	for (unsigned int i = 0; i < n; i++) {
		struct fl_thread *t = &rep->threads[i];
		pthread_attr_t attr;
		cpu_set_t set;

		pthread_attr_init(&attr);
		if (t->cpu >= 0) {
			CPU_ZERO(&set);
			CPU_SET(t->cpu, &set);
			pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		}
		starts[i] = (struct thread_start){ .impl = impl, .t = t,
						  .gate = gate,
						  .count_plan = plan };
		int err = pthread_create(&tids[i], &attr, thread_main,
					 &starts[i]);

		pthread_attr_destroy(&attr);
		if (err == EAGAIN) {
			char lim[96];

			creation_limits(lim, sizeof(lim));
			give_up(sh, out, "thread %u of %u not created: "
				"pthread_create: %s: a limit on threads (%s, "
				"kernel.threads-max) or memory for its stack",
				i + 1, n, strerror(err), lim);
		}
		if (err)
			give_up(sh, out, "thread %u of %u not created: "
				"pthread_create: %s", i + 1, n, strerror(err));
		if (i + 1 < n && fl_now_ns() >= gate->deadline_ns)
			give_up(sh, out, "%u of %u threads created by the "
				"repetition's deadline", i + 1, n);
	}
}

/*
 * After the stop: kick sleepers and join every thread by the hard
 * deadline; if one still runs, let bounded waits end, kick once more and
 * give it a second. A thread that outlives that aborts the cell: the
 * result so far is written and the child exits, taking the thread along.
 */
static void stop_threads(struct fl_rep *rep,
			 const struct fl_workload_impl *impl, pthread_t *tids,
			 struct thread_start *starts, uint64_t duration_ns,
			 struct fl_rep_result *out)
{
	unsigned int running, n = rep->nthreads;

	if (impl->kick)
		impl->kick(rep);
	if (!join_all(tids, starts, n, rep->hard_deadline_ns))
		return;
	__atomic_store_n(&fl_abort_waits, 1, __ATOMIC_RELAXED);
	if (impl->kick)
		impl->kick(rep);
	running = join_all(tids, starts, n, fl_now_ns() + 1000000000ull);
	if (!running)
		return;
	out->status = FL_STATUS_ABORTED;
	snprintf(out->reason, sizeof(out->reason),
		 "%u of %u threads still running %.1f s after the end of the "
		 "repetition", running, n,
		 (double)FL_GRACE_NS(duration_ns, n) / 1e9);
	fl_rep_merge(out, rep);
	close_bins(&out->bins, out->ops, out->elapsed_ns);
	out->done = 1;
	_exit(4);
}

/* The repetition's verdict: a thread's reported failure, then verify(). */
static void judge(struct fl_rep *rep, struct fl_rep_result *out)
{
	const struct fl_workload *w = rep->cell->workload;
	char why[256] = "";

	if (atomic_load(&rep->failed)) {
		out->status = FL_STATUS_FAILED;
		snprintf(out->reason, sizeof(out->reason), "%s",
			 rep->fail_reason);
	} else if (w->verify && w->verify(rep, why, sizeof(why))) {
		out->status = FL_STATUS_FAILED;
		snprintf(out->reason, sizeof(out->reason), "%s", why);
	}
}

static void run_rep(const struct fl_cell *cell,
		    const struct fl_workload_impl *impl, uint64_t duration_ns,
		    struct fl_cell_shared *sh, struct fl_rep_result *out)
{
	const struct fl_workload *w = cell->workload;
	unsigned int n = fl_cell_nthreads(cell);
	struct fl_rep *rep = aligned_alloc(FL_CACHELINE,
					   (sizeof(*rep) + FL_CACHELINE - 1) &
					   ~(size_t)(FL_CACHELINE - 1));
	size_t tsize = n * sizeof(struct fl_thread);
	struct fl_thread *threads = aligned_alloc(FL_CACHELINE, tsize);
	struct thread_start *starts = calloc(n, sizeof(*starts));
	pthread_t *tids = calloc(n, sizeof(*tids));
	struct fl_start_gate gate;
	struct controller_sched sched;
	char why[256] = "";

	out->status = FL_STATUS_OK;
	if (!rep || !threads || !starts || !tids || n == 0 ||
	    n > FL_MAX_THREADS) {
		out->status = FL_STATUS_FAILED;
		snprintf(out->reason, sizeof(out->reason),
			 "cannot allocate %u threads' state", n);
		goto out_free;
	}
	memset(rep, 0, sizeof(*rep));
	memset(threads, 0, tsize);
	rep->cell = cell;
	rep->nthreads = n;
	rep->threads = threads;
	if (init_threads(rep, cell)) {
		out->status = FL_STATUS_FAILED;
		snprintf(out->reason, sizeof(out->reason),
			 "cannot allocate %u threads' histograms (%zu bytes "
			 "each)", n, sizeof(struct fl_hist));
		goto out_hists;
	}
	/* the deadline covers init too: a workload's set-up may wait */
	rep->hard_deadline_ns = fl_now_ns() + duration_ns +
				FL_GRACE_NS(duration_ns, n);
	rep->hard_deadline = fl_ns_to_ts(rep->hard_deadline_ns);
	fl_wait_deadline_ns = rep->hard_deadline_ns;
	__atomic_store_n(&fl_abort_waits, 0, __ATOMIC_RELAXED);
	sh->rep_deadline_ns = rep->hard_deadline_ns;
	if (w->init && w->init(rep, why, sizeof(why))) {
		out->status = FL_STATUS_FAILED;
		snprintf(out->reason, sizeof(out->reason), "set-up: %s", why);
		goto out_hists;
	}
	fl_start_gate_init(&gate, n, rep->hard_deadline_ns);
	sh->stop_due_ns = 0;
	sh->stop_set = 0;
	sh->controller_fifo = -1;
	uint64_t created = fl_now_ns();

	start_threads(rep, impl, starts, tids, &gate, sh, out);
	unsigned int arrived = fl_start_gate_gather(&gate);

	if (arrived < n)
		give_up(sh, out, "%u of %u threads at the start by the "
			"repetition's deadline, %.1f s after the first was "
			"created", arrived, n,
			(double)(fl_now_ns() - created) / 1e9);
	if (n > fl_cpus_distinct(cell->cpus, n))
		sh->controller_fifo = controller_raise(&sched);
	/* due from here: a controller kept from a CPU from the opening on
	 * never reads the clock again (run_timed sets it exactly) */
	sh->stop_due_ns = fl_now_ns() + duration_ns;
	/* the clock starts before the opening: read after it, by a
	 * controller the released threads keep from its CPU, it would
	 * start late and time less than the threads did (at 1024 mutex
	 * threads on 2 CPUs a fair-scheduled controller's first bin held
	 * up to 5% of the run's work done before its clock started:
	 * docs/notebook/2026-12-07-fidelity-start.md) */
	uint64_t steal0, steal1;
	int steal = fl_steal_ns(&steal0) == 0;
	uint64_t t1, t0 = fl_start_gate_open(&gate);

	run_timed(rep, t0, duration_ns, cell->bin_ns, &out->bins, &t1, sh);

	out->start_ns = t0 - created;
	out->elapsed_ns = t1 - t0;
	stop_threads(rep, impl, tids, starts, duration_ns, out);
	if (sh->controller_fifo == 0)
		controller_restore(&sched);
	out->hash_slots = fl_probe_hash_slots();
	uint64_t merging = fl_now_ns();

	fl_rep_merge(out, rep);
	for (unsigned int i = 0; i < n; i++)
		fl_counters_add(&out->counts, &starts[i].count, i);
	if (steal && fl_steal_ns(&steal1) == 0) {
		out->counts.steal_ns = steal1 - steal0;
		out->counts.have |= FL_HAVE_STEAL;
	}
	fl_counters_judge(&out->counts, n, fl_cpus_distinct(cell->cpus, n),
			  out->elapsed_ns, cell->ncpus_online);
	out->merge_ns = fl_now_ns() - merging;
	close_bins(&out->bins, out->ops, out->elapsed_ns);
	judge(rep, out);
out_hists:
	for (unsigned int i = 0; i < n; i++)
		free(threads[i].hist);
	free_rep_mem(rep);
out_free:
	free(rep);
	free(threads);
	free(starts);
	free(tids);
}

void fl_cell_child(const struct fl_cell *cell,
		   const struct fl_workload_impl *impl,
		   struct fl_cell_shared *sh, pid_t parent)
{
	const struct fl_backend *b = cell->backend;
	char why[256] = "";
	struct fl_rep_result *scratch;

	/* the lock on the run directory is the parent's alone: the number
	 * is given a fresh open of the same directory, which holds no lock,
	 * so a program's output can still be kept there (rundir/keep.c) */
	if (fl_cell_parent_only_fd >= 0) {
		int fresh = openat(fl_cell_parent_only_fd, ".",
				   O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fresh < 0 || dup3(fresh, fl_cell_parent_only_fd,
				      O_CLOEXEC) < 0)
			close(fl_cell_parent_only_fd);
		if (fresh >= 0)
			close(fresh);
	}
	/* the parent owns Ctrl-C: it ends this child when it must; and a
	 * parent killed outright (SIGKILL) must not leave a cell measuring;
	 * checked after the prctl, for a parent that died before it */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	if (b->setup(cell->hash_slots, why, sizeof(why))) {
		snprintf(sh->setup_reason, sizeof(sh->setup_reason), "%s", why);
		sh->setup_done = -1;
		_exit(0);
	}
	sh->setup_done = 1;
	fl_counters_prepare();
	/* this process's own calibration, checked again at the end; the
	 * loop is sized by the fastest the run has seen (measure/busy_loop.h) */
	sh->busy_start = fl_calibrate_busy();
	sh->busy_used = fl_busy_loops_per_us;
	if (cell->no_idle_wake)
		sh->idle_wake.not_probed = 1;
	else
		fl_idle_wake_probe(&sh->idle_wake);
	if (cell->warmup_ns) {
		scratch = calloc(1, sizeof(*scratch));
		sh->rep = -1;
		if (scratch) {
			run_rep(cell, impl, cell->warmup_ns, sh, scratch);
			free(scratch);
		}
	}
	for (unsigned int r = 0; r < cell->reps; r++) {
		sh->rep = (int)r;
		run_rep(cell, impl, cell->duration_ns, sh, &sh->reps[r]);
		__atomic_store_n(&sh->reps[r].done, 1, __ATOMIC_RELEASE);
	}
	sh->busy_end = fl_busy_speed();
	b->teardown();
	_exit(0);
}
