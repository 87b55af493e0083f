// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's chained-PI family (kmodtest_pi_chain.c), once per hash
 * design: an owner that unlocks and queues on its lock again is no
 * cycle.
 */
#include "kmodtest_pi_chain.h"

#define PARAM_DELAY	"pi_chain_test_delay_ms"
#define RELOCK_DELAY_MS	500

/* The owner of pi-chain-relock: takes L, then on @go unlocks and relocks */
struct relocker {
	pthread_t th;
	int fd;
	uint32_t *w;
	_Atomic pid_t tid;
	_Atomic int stage;	/* 1: owns L; 2: unlocked it; 3: relocked */
	_Atomic int go;
	_Atomic int ret;	/* the second LOCK_PI */
	_Atomic int err;
};

static void *relocker_main(void *p)
{
	struct relocker *o = p;
	int r;

	o->tid = (pid_t)syscall(SYS_gettid);
	r = k_pi(o->fd, FUTEXLAB_IOC_LOCK_PI, o->w, now_ns() + 10 * SEC);
	if (r)
		o->err = r;
	o->stage = 1;
	if (r)
		return NULL;
	wait_flag(&o->go, 1, 30 * SEC);
	r = k_pi(o->fd, FUTEXLAB_IOC_UNLOCK_PI, o->w, 0);
	if (r)
		o->err = r;
	o->stage = 2;
	if (r)
		return NULL;
	o->ret = k_pi(o->fd, FUTEXLAB_IOC_LOCK_PI, o->w, now_ns() + 30 * SEC);
	if (!o->ret && (r = k_pi(o->fd, FUTEXLAB_IOC_UNLOCK_PI, o->w, 0)))
		o->err = r;
	o->stage = 3;
	return NULL;
}

/*
 * One lock, no chain: O owns L; X (SCHED_FIFO) and then W wait on it. W's
 * LOCK_PI walk reads O as L's owner and, with pi_chain_test_delay_ms, sleeps
 * before its next step; meanwhile O unlocks (L goes to X, the top waiter)
 * and queues on L again. The walk must not take O, now queued on L, for
 * L's owner blocked on L: W gets L (after X), not EDEADLK. Without the
 * delay this is the rare interleaving that failed pi-stress.
 */
int t_pi_chain_relock(uint32_t design)
{
	static uint32_t w[1][2];
	long old = module_param_read(PARAM_DELAY);
	struct relocker o;
	struct link x, wl;
	int fd, r, ret = -1;

	if (old < 0)
		return fail("%s missing", PARAM_DELAY), -1;
	fd = open_design(design, 0);
	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	memset(&o, 0, sizeof(o));
	memset(&x, 0, sizeof(x));
	memset(&wl, 0, sizeof(wl));
	init_words(w, 1);
	o.fd = fd;
	o.w = w[0];
	if (pthread_create(&o.th, NULL, relocker_main, &o)) {
		fail("pthread_create");
		close(fd);
		return -1;
	}
	if (wait_flag(&o.stage, 1, 10 * SEC) || o.err) {
		fail("O's LOCK_PI on the free L: %d", o.err);
		goto out;
	}
	if (link_start(&x, fd, NULL, w[0], CHAIN_PRIO, 0))
		goto out;
	r = module_param_write(PARAM_DELAY, RELOCK_DELAY_MS);
	if (r) {
		fail("write %s: %s", PARAM_DELAY, strerror(-r));
		goto out;
	}
	/* W sleeps in its walk's delay, O read as L's owner */
	if (link_start(&wl, fd, NULL, w[0], 0, 0))
		goto out;
	o.go = 1;
	if (wait_flag(&o.stage, 2, 10 * SEC) || o.err) {
		fail("O's UNLOCK_PI: %d", o.err);
		goto out;
	}
	if (wait_sleeping(o.tid)) {
		fail("O never slept in its second LOCK_PI (stage %d)",
		     o.stage);
		goto out;
	}
	/* W's walk goes on now; then no more delays */
	usleep(2 * RELOCK_DELAY_MS * 1000);
	r = module_param_write(PARAM_DELAY, old);
	if (r) {
		fail("restore %s: %s", PARAM_DELAY, strerror(-r));
		goto out;
	}
	if (wl.stage >= 2) {
		fail("W's LOCK_PI returned %d (%s) while X held L, O queued again on it%s",
		     wl.ret, strerror(-wl.ret),
		     wl.ret == -EDEADLK ? ": a false deadlock" : "");
		goto out;
	}
	if (wait_flag(&x.stage, 2, 10 * SEC) || x.ret) {
		fail("X did not get L from O's unlock: %d", x.ret);
		goto out;
	}
	/* X hands L to W (queued before O, the same priority), W to O */
	if (link_finish(&x) || wait_flag(&wl.stage, 2, 10 * SEC) || wl.ret) {
		fail("W did not get L after X: %d (X %d)", wl.ret, x.err);
		goto out;
	}
	if (link_finish(&wl) || wait_flag(&o.stage, 3, 10 * SEC) || o.ret ||
	    o.err) {
		fail("O did not get L again after W: %d (W %d, O %d)", o.ret,
		     wl.err, o.err);
		goto out;
	}
	ret = check_no_waiters(fd, "after the relock");
out:
	r = module_param_write(PARAM_DELAY, old);
	if (r && !ret) {
		fail("restore %s: %s", PARAM_DELAY, strerror(-r));
		ret = -1;
	}
	link_finish(&x);
	link_finish(&wl);
	o.go = 1;
	pthread_join(o.th, NULL);
	close(fd);
	return ret;
}
