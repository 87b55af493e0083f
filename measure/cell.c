// SPDX-License-Identifier: GPL-2.0
/*
 * The parent's side of a cell: decide whether it can run here (capabilities,
 * the backend's probe, the workload's own check), fork the child, watch its
 * deadlines and collect what it wrote. A child that overruns is killed and
 * the cell reported aborted, naming workload, backend and thread count; the
 * run then goes on to the next cell.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/say.h"
#include "measure/busy_loop.h"
#include "measure/cell.h"
#include "measure/counters.h"
#include "measure/program.h"
#include "spec/placement.h"

volatile int fl_interrupted;
const struct fl_say *fl_cell_say;
int fl_cell_parent_only_fd = -1;

static void set_all(struct fl_cell_result *res, enum fl_status st,
		    const char *reason)
{
	res->status = st;
	snprintf(res->reason, sizeof(res->reason), "%s", reason);
	for (unsigned int r = 0; r < res->nreps; r++) {
		if (res->reps[r].done)
			continue;
		res->reps[r].status = st;
		snprintf(res->reps[r].reason, sizeof(res->reps[r].reason),
			 "%s", reason);
	}
}

static int cannot_run(const struct fl_cell *cell, char *why, size_t len)
{
	const struct fl_workload *w = cell->workload;
	const struct fl_backend *b = cell->backend;
	uint32_t need = w->needs ? w->needs(cell) : FL_CAP_WAIT;
	uint32_t missing = need & ~b->caps();

	if (missing) {
		char names[128];

		fl_caps_format(missing, names, sizeof(names));
		snprintf(why, len, "backend %s lacks capability %s", b->name,
			 names);
		return 1;
	}
	if (b->probe(why, len))
		return 1;
	if (w->check && w->check(cell, why, len))
		return 1;
	return 0;
}

static int pidfd_open_child(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	return -1;
#endif
}

/*
 * What the parent knows of a repetition it ends past its deadline whose
 * stop the controller never set: how late, how many threads shared the
 * CPUs with it, and whether its SCHED_FIFO (cell_child.c) was refused,
 * the usual cause when never-sleeping threads outnumber the CPUs. ""
 * when the timed part had not begun or had ended.
 */
static void describe_late_stop(const struct fl_cell_shared *sh,
			       const struct fl_cell *cell, uint64_t now,
			       char *buf, size_t len)
{
	unsigned int n = fl_cell_nthreads(cell);
	uint64_t due = sh->stop_due_ns;
	int fifo = sh->controller_fifo;

	buf[0] = '\0';
	if (!due || sh->stop_set || now < due)
		return;
	snprintf(buf, len, ": the controller had not set the stop, due %.1f s "
		 "before (%u threads on %u CPUs%s%s%s)",
		 (double)(now - due) / 1e9, n, fl_cpus_distinct(cell->cpus, n),
		 fifo > 0 ? "; SCHED_FIFO for it refused: " : "",
		 fifo > 0 ? strerror(fifo) : "",
		 fifo == EPERM ? "; `ulimit -r 1` or CAP_SYS_NICE permits it" :
		 "");
}

/* Wait for the child, killing it if it overruns; 0 if it exited, 1 if
 * it gave up on a repetition that could not start (why says why), -1
 * otherwise. *maxrss_kb: the child's peak resident set. */
static int watch_child(pid_t pid, struct fl_cell_shared *sh,
		       const struct fl_cell *cell, char *why, size_t len,
		       long *maxrss_kb)
{
	struct rusage ru = { 0 };
	unsigned int nthreads = fl_cell_nthreads(cell);

	int pfd = pidfd_open_child(pid);
	uint64_t setup_deadline = fl_now_ns() + FL_SETUP_TIMEOUT_NS;
	int status;

	for (;;) {
		pid_t r = wait4(pid, &status, WNOHANG, &ru);

		if (r == pid) {
			*maxrss_kb = ru.ru_maxrss;
			break;
		}
		uint64_t now = fl_now_ns();
		/* the child gives up on its own one second after the rep's
		 * deadline and says why: leave it time to do so */
		uint64_t deadline = sh->rep_deadline_ns ?
				    sh->rep_deadline_ns + 3000000000ull :
				    setup_deadline;

		if (fl_interrupted || now > deadline) {
			char late[192];

			describe_late_stop(sh, cell, now, late, sizeof(late));
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			if (fl_interrupted) {
				snprintf(why, len, "interrupted");
			} else if (sh->rep_deadline_ns && sh->rep < 0) {
				snprintf(why, len, "the warm-up did not finish "
					 "within %.1f s + %.1f s grace%s",
					 (double)cell->warmup_ns / 1e9,
					 (double)FL_GRACE_NS(cell->warmup_ns,
							     nthreads) / 1e9,
					 late);
			} else if (sh->rep_deadline_ns) {
				snprintf(why, len, "repetition %d did not "
					 "finish within %.1f s + %.1f s grace%s",
					 sh->rep + 1,
					 (double)cell->duration_ns / 1e9,
					 (double)FL_GRACE_NS(cell->duration_ns,
							     nthreads) / 1e9,
					 late);
			} else {
				snprintf(why, len, "set-up did not finish in "
					 "%.0f s", FL_SETUP_TIMEOUT_NS / 1e9);
			}
			if (pfd >= 0)
				close(pfd);
			return -1;
		}
		/* wake on the child's exit, or poll the deadline ten times a
		 * second: the parent must not steal CPU from the cell */
		if (pfd >= 0) {
			struct pollfd p = { .fd = pfd, .events = POLLIN };

			poll(&p, 1, 100);
		} else {
			struct timespec ts = { 0, 100000000 };

			nanosleep(&ts, NULL);
		}
	}
	if (pfd >= 0)
		close(pfd);
	if (WIFSIGNALED(status)) {
		snprintf(why, len, "cell process killed by signal %d (%s)",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
		return -1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == FL_CHILD_GAVE_UP &&
	    sh->setup_reason[0]) {
		if (sh->rep < 0)
			snprintf(why, len, "the warm-up: %s", sh->setup_reason);
		else
			snprintf(why, len, "repetition %d: %s", sh->rep + 1,
				 sh->setup_reason);
		return 1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
		snprintf(why, len, "cell process exited with status %d",
			 WEXITSTATUS(status));
		return -1;
	}
	return 0;
}

/* Append text to the cell's note, after any note already there. */
static void add_note(struct fl_cell_result *res, const char *text)
{
	size_t used = strlen(res->note);

	if (text[0] && used < sizeof(res->note))
		snprintf(res->note + used, sizeof(res->note) - used, "%s%s",
			 used ? "; " : "", text);
}

static int has_option(const struct fl_workload *w, const char *name)
{
	for (unsigned int i = 0; i < w->noptions; i++)
		if (strcmp(w->options[i].name, name) == 0)
			return 1;
	return 0;
}

void fl_busy_drift_note(const struct fl_workload *w, uint64_t start,
			uint64_t end, char *buf, size_t len)
{
	int critical = has_option(w, "critical"), think = has_option(w, "think");
	const char *which = critical && think ? "--critical/--think were not "
			    "the lengths" : critical ? "--critical was not the "
			    "length" : "--think was not the length";

	buf[0] = '\0';
	if (!start || !end || !fl_busy_drifted((double)start, (double)end))
		return;
	snprintf(buf, len, "busy-loop speed drifted %+.0f%% (%llu to %llu "
		 "loops/us)%s%s%s",
		 fl_busy_drift((double)start, (double)end) * 100,
		 (unsigned long long)start, (unsigned long long)end,
		 critical || think ? ": " : "", critical || think ? which : "",
		 critical || think ? " asked" : "");
}

/* The busy loop's speeds and the idle wake-up the child measured, kept
 * in the result (fl_cell_note() flags a drift from them). */
static void keep_child_speeds(const struct fl_cell_shared *sh,
			      struct fl_cell_result *res)
{
	res->busy_start = sh->busy_start;
	res->busy_end = sh->busy_end;
	res->busy_used = sh->busy_used;
	res->idle_wake = sh->idle_wake;
}

/* The workload's verdict on the repetitions that completed, if it has
 * one, after any note of the harness's own. */
static void add_workload_note(const struct fl_cell *cell,
			      struct fl_cell_result *res)
{
	uint64_t (*counters)[FL_NCOUNTERS];
	unsigned int n = 0;
	char buf[256] = "";

	if (!cell->workload->note || !res->nreps)
		return;
	counters = calloc(res->nreps, sizeof(*counters));
	if (!counters)
		return;
	for (unsigned int r = 0; r < res->nreps; r++)
		if (res->reps[r].done && res->reps[r].status == FL_STATUS_OK)
			memcpy(counters[n++], res->reps[r].counters,
			       sizeof(counters[0]));
	if (n)
		cell->workload->note(cell, (const uint64_t (*)[FL_NCOUNTERS])
				     counters, n, buf, sizeof(buf));
	free(counters);
	add_note(res, buf);
}

/*
 * More threads than the CPUs they may run on: the threads take turns,
 * and a figure of the cell is partly the scheduler's. Said in the
 * note; a spin backend's says what it costs there.
 */
static void note_oversubscribed(const struct fl_cell *cell,
				struct fl_cell_result *res)
{
	unsigned int n = fl_cell_nthreads(cell);
	unsigned int cpus = fl_cpus_distinct(cell->cpus, n);

	if (fl_cell_spin_oversubscribed(cell))
		snprintf(res->note, sizeof(res->note),
			 "spin backend with more threads than the %u CPUs: "
			 "spinners burn the owner's time slices",
			 cell->ncpus_online);
	else if (n > cpus)
		snprintf(res->note, sizeof(res->note),
			 "oversubscribed: %u threads on %u CPU%s", n, cpus,
			 cpus == 1 ? "" : "s");
}

void fl_cell_note(const struct fl_cell *cell, struct fl_cell_result *res)
{
	char drift[200];

	res->note[0] = '\0';
	note_oversubscribed(cell, res);
	fl_busy_drift_note(cell->workload, res->busy_start, res->busy_end,
			   drift, sizeof(drift));
	add_note(res, drift);
	add_workload_note(cell, res);
}

void fl_cell_run(const struct fl_cell *cell, struct fl_cell_result *res)
{
	const struct fl_workload_impl *impl = fl_impl_find(cell->workload,
							   cell->backend);
	size_t shsize = sizeof(struct fl_cell_shared) +
			cell->reps * sizeof(struct fl_rep_result);
	struct fl_cell_shared *sh;
	char why[256] = "";

	memset(res, 0, sizeof(*res));
	res->nreps = cell->reps;
	res->reps = calloc(cell->reps, sizeof(*res->reps));
	fl_hist_init(&res->merged);
	if (!res->reps) {
		res->nreps = 0;
		set_all(res, FL_STATUS_FAILED, "out of memory");
		fl_say(fl_cell_say, "futexlab: failed cell: workload %s, "
		       "backend %s, %u threads: out of memory",
		       cell->workload->name, cell->backend->name,
		       cell->threads);
		return;
	}
	if (!impl) {
		set_all(res, FL_STATUS_SKIPPED, "no implementation built");
		return;
	}
	if (cannot_run(cell, why, sizeof(why))) {
		set_all(res, FL_STATUS_SKIPPED, why);
		return;
	}
	note_oversubscribed(cell, res);

	sh = mmap(NULL, shsize, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		set_all(res, FL_STATUS_FAILED, "cannot map the result area");
		return;
	}
	/* the first cell of a run is sized by two calibrations, not one */
	if (!fl_busy_fastest)
		fl_busy_seen(fl_busy_speed());
	fflush(NULL);
	/* what the cell starts and its child's death orphans comes here */
	fl_program_adopt_orphans();
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid < 0) {
		munmap(sh, shsize);
		set_all(res, FL_STATUS_FAILED, "fork failed");
		return;
	}
	if (pid == 0)
		fl_cell_child(cell, impl, sh, parent);

	int rc = watch_child(pid, sh, cell, why, sizeof(why),
			     &res->cell_maxrss_kb);

	/* a program the killed child ran, and what it daemonised */
	fl_program_end_children();

	for (unsigned int r = 0; r < cell->reps; r++) {
		if (!__atomic_load_n(&sh->reps[r].done, __ATOMIC_ACQUIRE))
			continue;
		res->reps[r] = sh->reps[r];
		res->reps[r].done = 1;
		fl_hist_merge(&res->merged, &res->reps[r].hist);
		if (res->reps[r].status > res->status) {
			res->status = res->reps[r].status;
			snprintf(res->reason, sizeof(res->reason), "%s",
				 res->reps[r].reason);
		}
	}
	keep_child_speeds(sh, res);
	/* what later cells are sized by: the fastest any cell has seen */
	fl_busy_seen(sh->busy_start);
	fl_busy_seen(sh->busy_end);
	if (sh->setup_done == -1) {
		set_all(res, FL_STATUS_SKIPPED, sh->setup_reason);
	} else if (rc == 1) {
		set_all(res, FL_STATUS_FAILED, why);
		fl_say(fl_cell_say, "futexlab: failed cell: workload %s, "
		       "backend %s, %u threads: %s", cell->workload->name,
		       cell->backend->name, cell->threads, why);
	} else if (rc) {
		char msg[512];

		/* a child that gave up on its own said why in the rep */
		snprintf(msg, sizeof(msg), "%s", why);
		for (unsigned int r = 0; r < cell->reps; r++)
			if (res->reps[r].status == FL_STATUS_ABORTED)
				snprintf(msg, sizeof(msg), "repetition %u: %s",
					 r + 1, res->reps[r].reason);
		set_all(res, FL_STATUS_ABORTED, msg);
		if (!fl_interrupted)
			fl_say(fl_cell_say, "futexlab: aborted cell: "
			       "workload %s, backend %s, %u threads: %s",
			       cell->workload->name, cell->backend->name,
			       cell->threads, msg);
	}
	munmap(sh, shsize);
	fl_cell_note(cell, res);
}

void fl_cell_result_free(struct fl_cell_result *res)
{
	free(res->reps);
	res->reps = NULL;
}
