// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's seeded random-operation fuzzer, once per hash design.
 *
 * Three worker processes of two threads each issue random ioctls on
 * /dev/futexlab with random, partly invalid arguments: words shared by all
 * (so they contend), misaligned, NULL, unmapped and kernel addresses,
 * bogus TIDs and WAITERS/OWNER_DIED bits stored into PI words, random
 * flags and nodes, designs and sizes, unknown commands. Among them the
 * main process sends signals (no SA_RESTART: EINTR paths), kills a worker
 * process now and then (and starts a new one), and workers fork children
 * that run a few operations and exit. Every blocking operation carries a
 * deadline of at most 20 ms.
 *
 * Half the worker processes run as a hostile user would: uid 65534 with
 * RLIMIT_RTPRIO 0, in a user and mount namespace of their own with a
 * tmpfs mounted there, a page of whose file they map shared and use as
 * more lock words, and which they unmap and unmount (then mount and map
 * again) while their own and others' waiters may sleep on it. Workers
 * change their own scheduling (SCHED_FIFO, SCHED_IDLE, nice, reset-on-
 * fork), and hold several PI locks at once, so boosts start and end in
 * every order while the owner changes its own policy; at the end each
 * thread gives back every lock it holds and, once every waiter's deadline
 * has passed, must run with what it could have set on its own rights.
 *
 * It passes when every call returned a result documented for it, no
 * operation outlived its deadline (by more than 5 s of slack for TCG), no
 * killed worker outlived its SIGKILL, no waiter is left queued, and the
 * kernel log gained no BUG, WARNING, lockup or stall. The seed and the
 * operation count are printed, so a failure can be replayed:
 *   kmodtest --seed S --fuzz-ops N fuzz
 *
 * Here: the workers' processes and threads, the main process's signals
 * and kills, and the verdict; one operation and its documented results
 * are kmodtest_fuzz_ops.c, a worker's own tmpfs and scheduling
 * kmodtest_fuzz_self.c, what they share kmodtest_fuzz.h.
 */
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "kmodtest_fuzz.h"

unsigned long fuzz_ops = 20000;		/* per design (--fuzz-ops) */
unsigned long fuzz_seed = 1;		/* --seed */
unsigned int fuzz_seconds = 7;		/* per design at most (--fuzz-seconds) */

static const char *const op_names[OP_NR] = {
	"wait", "wake", "cmp_requeue", "lock_pi", "trylock_pi", "unlock_pi",
	"wait_requeue_pi", "cmp_requeue_pi", "stats", "design", "bogus",
	"sched", "remount", "store",
};

static void fz_usr1(int sig)
{
	(void)sig;
}

/* Run random operations until @budget is spent or the run stops. */
static void fz_loop(struct fz_worker *w, void *unmapped, unsigned long budget)
{
	struct fz_ctl *c = w->c;
	struct fz_slot *sl = &c->slot[w->id];

	while (budget-- && !c->stop &&
	       atomic_fetch_add(&c->ops, 1) < fuzz_ops) {
		int op = fz_pick(&w->rng, OP_NR), r;

		if (fz_pick(&w->rng, 300) == 0) {
			/*
			 * A child that does a few operations and exits. It
			 * inherits the tmpfs file's mapping, which keeps the
			 * tmpfs busy: no remount until it is reaped.
			 */
			struct fz_mount *m = w->child ? NULL : w->mnt;
			pid_t kid;

			if (m)
				pthread_mutex_lock(&m->lock);
			kid = fork();

			if (kid == 0) {
				w->rng ^= (uint64_t)getpid() << 32;
				w->child = 1;
				fz_loop(w, unmapped, 20);
				_exit(0);
			}
			if (kid > 0) {
				c->forks++;
				waitpid(kid, NULL, 0);
			}
			if (m)
				pthread_mutex_unlock(&m->lock);
			continue;
		}
		sl->op = op;
		sl->op_end = now_ns() + 20000000;
		r = fz_one(w, unmapped, op);
		sl->op_end = 0;
		c->results[op][r < 0]++;
		if (!fz_documented(op, r) && c->bad++ == 0)
			snprintf(c->first_bad, sizeof(c->first_bad),
				 "%s returned %d (%s)", op_names[op], r,
				 r < 0 ? strerror(-r) : "count");
		/* a lock taken is mostly given back at once */
		if ((op == OP_LOCK || op == OP_TRYLOCK) && !r &&
		    fz_pick(&w->rng, 2))
			fz_one(w, unmapped, OP_UNLOCK);
	}
}

static void *fz_thread(void *p)
{
	struct fz_worker *w = p;
	char why[160];

	w->c->slot[w->id].tid = (pid_t)syscall(SYS_gettid);
	get_attr(0, &w->own);
	fz_loop(w, w->unmapped, ~0ul);
	/* the run is over for every worker: no new waiter comes */
	while (!w->c->stop)
		usleep(5000);
	if (fz_sched_check(w, why, sizeof(why)) && w->c->bad++ == 0)
		snprintf(w->c->first_bad, sizeof(w->c->first_bad), "%s", why);
	return NULL;
}

/* One worker process: FZ_THREADS threads on one descriptor. */
static void fz_process(struct fz_ctl *c, uint32_t design, int first_id,
		       uint64_t seed)
{
	struct fz_worker w[FZ_THREADS];
	struct fz_mount *mnt = NULL;
	int unpriv = fz_rand(&seed) % 2;
	pthread_t th[FZ_THREADS];
	/*
	 * Kept mapped without access rather than unmapped: a hole could be
	 * reused by a thread stack, and the module's writes to "bad" words
	 * (a PI claim, a node word) would land in it.
	 */
	void *unmapped = mmap(NULL, 4 * 4096, PROT_NONE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct sigaction sa;
	int i, fd;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fz_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	/* slots are only for the private design (EINVAL elsewhere) */
	fd = open_design(design, design == FUTEXLAB_DESIGN_PRIVATE &&
			 fz_rand(&seed) % 2 ? 64 : 0);
	if (fd < 0)
		_exit(1);
	if (unpriv) {
		mnt = fz_unprivileged(c);
		/* no user namespace: still uid 65534, with no tmpfs */
		if (!mnt && getuid() != NOBODY)
			_exit(1);
	}
	for (i = 0; i < FZ_THREADS; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].mnt = mnt;
		w[i].unpriv = unpriv;
		w[i].c = c;
		w[i].design = design;
		w[i].fd = fd;
		w[i].id = first_id + i;
		w[i].rng = seed * 0x9e3779b97f4a7c15ull + (uint64_t)i + 1;
		w[i].unmapped = unmapped;
		pthread_create(&th[i], NULL, fz_thread, &w[i]);
	}
	for (i = 0; i < FZ_THREADS; i++)
		pthread_join(th[i], NULL);
	_exit(0);
}

static pid_t fz_spawn(struct fz_ctl *c, uint32_t design, int p, uint64_t seed)
{
	pid_t kid = fork();

	if (kid == 0)
		fz_process(c, design, p * FZ_THREADS, seed);
	return kid;
}

/*
 * Reap @kid, which stops by itself by @deadline; SIGKILL after it. -1 if it
 * is still there 3 s after SIGKILL (it outlived its deadline for good).
 */
static int reap_kid_bounded(pid_t kid, uint64_t deadline)
{
	uint64_t end = deadline;
	int killed = 0;

	for (;;) {
		if (waitpid(kid, NULL, WNOHANG) == kid)
			return 0;
		if (now_ns() > end) {
			if (killed)
				return -1;
			kill(kid, SIGKILL);
			killed = 1;
			end = now_ns() + 3000000000ull;
		}
		usleep(5000);
	}
}

/* Lines of the kernel log that say something went wrong. */
static int bad_kernel_lines(char *first, size_t n)
{
	static char buf[1 << 20];
	int len = klogctl(3, buf, sizeof(buf) - 1), count = 0;
	char *line, *save = NULL;

	if (len < 0)
		return -1;
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "BUG") || strstr(line, "WARNING") ||
		    strstr(line, "lockup") || strstr(line, "stall") ||
		    strstr(line, "Oops") || strstr(line, "Busy inodes")) {
			if (!count)
				snprintf(first, n, "%s", line);
			count++;
		}
	}
	return count;
}

/*
 * Long on purpose: the fuzzer's one run is a sequence (fork the workers,
 * signal and kill them at random, reap them under a watchdog, then check
 * the counts and dmesg) whose steps share the worker table.
 */
int t_fuzz(uint32_t design)
{
	struct fz_ctl *c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t seed = fuzz_seed * 131 + design, start = now_ns(), t;
	uint64_t end = start + (uint64_t)fuzz_seconds * 1000000000ull;
	uint64_t last_progress = start, last_report = start;
	unsigned long last_ops = 0;
	pid_t kids[FZ_PROCS];
	unsigned long kills = 0, signals = 0, ok = 0, err = 0;
	char klog[200] = "", overrun[160] = "";
	int klog_before, klog_after, i, j, ret = -1;
	struct futexlab_stats st;

	if (c == MAP_FAILED)
		return fail("mmap"), -1;
	memset(c, 0, sizeof(*c));
	snprintf(c->dir, sizeof(c->dir), "/tmp/kmodtest-fz-XXXXXX");
	if (!mkdtemp(c->dir) || chmod(c->dir, 0755))
		return fail("mkdtemp: %s", strerror(errno)), -1;
	/*
	 * Above the workers' own SCHED_FIFO (at most 20): the watchdog runs
	 * whatever they chose.
	 */
	set_fifo(0, 30);
	for (i = 0; i < FZ_WORDS; i++)
		c->words[2 * i + 1] = FUTEXLAB_NO_NODE;
	klog_before = bad_kernel_lines(klog, sizeof(klog));
	for (i = 0; i < FZ_PROCS; i++)
		kids[i] = fz_spawn(c, design, i, fz_rand(&seed));
	while (c->ops < fuzz_ops && (t = now_ns()) < end && !overrun[0]) {
		usleep(2000 + fz_pick(&seed, 8000));
		/* every operation ends within 20 ms: no progress is a hang */
		if (c->ops != last_ops) {
			last_ops = c->ops;
			last_progress = t;
		} else if (t - last_progress > 6 * FZ_SLACK) {
			snprintf(overrun, sizeof(overrun),
				 "no operation completed for 30 s (at %lu)",
				 last_ops);
		}
		if (t - last_report > 10000000000ull) {
			printf("# fuzz %s: %lu operations after %.0f s\n",
			       design_name(design), (unsigned long)c->ops,
			       (t - start) / 1e9);
			last_report = t;
		}
		i = fz_pick(&seed, FZ_WORKERS);
		if (c->slot[i].tid && fz_pick(&seed, 2)) {
			syscall(SYS_tgkill, kids[i / FZ_THREADS],
				c->slot[i].tid, SIGUSR1);
			signals++;
		}
		if (fz_pick(&seed, 100) == 0) {
			/* kill -9 a worker process, start another */
			j = fz_pick(&seed, FZ_PROCS);
			kill(kids[j], SIGKILL);
			if (reap_kid_bounded(kids[j], now_ns()))
				snprintf(overrun, sizeof(overrun),
					 "worker process %d outlived SIGKILL by 3 s",
					 j);
			for (i = 0; i < FZ_THREADS; i++)
				c->slot[j * FZ_THREADS + i].tid = 0;
			kids[j] = fz_spawn(c, design, j, fz_rand(&seed));
			kills++;
		}
		for (i = 0; i < FZ_WORKERS; i++) {
			uint64_t e = c->slot[i].op_end;

			if (e && now_ns() > e + FZ_SLACK)
				snprintf(overrun, sizeof(overrun),
					 "worker %d's %s outlived its deadline by 5 s",
					 i, op_names[c->slot[i].op]);
		}
	}
	c->stop = 1;
	for (i = 0; i < FZ_PROCS; i++)
		if (reap_kid_bounded(kids[i], now_ns() + 2 * FZ_SLACK) &&
		    !overrun[0])
			snprintf(overrun, sizeof(overrun),
				 "worker process %d outlived the run and SIGKILL",
				 i);
	for (i = 0; i < OP_NR; i++) {
		ok += c->results[i][0];
		err += c->results[i][1];
	}
	set_fifo(0, 0);
	rmdir(c->dir);
	printf("# fuzz %s: seed %lu, %lu operations (%lu ok, %lu errors) in %.1f s, %lu signals, %lu kills, %lu forks, %lu remounts\n",
	       design_name(design), fuzz_seed, ok + err, ok, err,
	       (now_ns() - start) / 1e9, signals, kills,
	       (unsigned long)c->forks, (unsigned long)c->remounts);
	klog_after = bad_kernel_lines(klog, sizeof(klog));
	if (overrun[0]) {
		fail("%s", overrun);
	} else if (c->bad) {
		fail("%d undocumented results, the first: %s", c->bad,
		     c->first_bad);
	} else if (klog_after != klog_before) {
		fail("the kernel log gained %d bad lines: %s",
		     klog_after - klog_before, klog);
	} else {
		int fd = open_design(design == FUTEXLAB_DESIGN_PRIVATE ?
				     FUTEXLAB_DESIGN_GLOBAL : design, 0);

		k_stats(fd, &st, NULL, 0);
		close(fd);
		if (st.live_waiters)
			fail("%llu waiters left queued",
			     (unsigned long long)st.live_waiters);
		else if (ok + err < 100)
			fail("only %lu operations ran", ok + err);
		else
			ret = 0;
	}
	munmap(c, sizeof(*c));
	return ret;
}
