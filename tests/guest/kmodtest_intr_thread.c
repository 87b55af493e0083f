// SPDX-License-Identifier: GPL-2.0
/*
 * The interruptible-wait tests' blocked thread and signals: see
 * kmodtest_intr.h.
 */
#include <linux/futex.h>

#include "kmodtest_intr.h"

static atomic_int handled;

static void on_signal(int sig)
{
	(void)sig;
	atomic_fetch_add(&handled, 1);
}

void intr_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIG_NORESTART, &sa, NULL);
	sa.sa_flags = SA_RESTART;
	sigaction(SIG_RESTART, &sa, NULL);
}

int intr_handled(void)
{
	return atomic_load(&handled);
}

static long stock_futex(uint32_t *w, int op, uint32_t val)
{
	long r = syscall(SYS_futex, w, op, val, NULL, NULL, 0);

	return r < 0 ? -errno : r;
}

/* Release what a successful @op took; 0 or -errno. */
static int intr_release(int fd, enum intr_op op, uint32_t *w, uint32_t *w2)
{
	uint32_t tid = (uint32_t)syscall(SYS_gettid);

	switch (op) {
	case I_LOCK_PI:
		return intr_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, w, 0);
	case I_WAIT_REQUEUE_PI:
		return intr_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, w2, 0);
	case I_ADAPTIVE: {
		struct futexlab_adaptive a = {
			.uaddr = (uintptr_t)w, .flags = FUTEXLAB_F_NODE,
			.node = FUTEXLAB_NO_NODE,
		};
		uint32_t mine = tid & FUTEXLAB_TID_MASK;

		/* uncontended: user space releases TID -> 0 itself */
		if (__atomic_compare_exchange_n(w, &mine, 0, 0,
						__ATOMIC_RELEASE,
						__ATOMIC_RELAXED))
			return 0;
		return xioctl(fd, FUTEXLAB_IOC_UNLOCK_ADAPTIVE, &a);
	}
	case I_STOCK_LOCK_PI:
		return (int)stock_futex(w, FUTEX_UNLOCK_PI_PRIVATE, 0);
	default:
		return 0;
	}
}

int intr_call(int fd, enum intr_op op, uint32_t *w, uint32_t *w2,
	      uint32_t val, uint32_t flags, uint64_t deadline)
{
	uint32_t f = flags | FUTEXLAB_F_NODE |
		     (deadline ? FUTEXLAB_F_DEADLINE : 0);
	int i;

	switch (op) {
	case I_WAIT: {
		struct futexlab_wait a = {
			.uaddr = (uintptr_t)w, .deadline_ns = deadline,
			.val = val, .bitset = FUTEXLAB_BITSET_ANY,
			.flags = f, .node = FUTEXLAB_NO_NODE,
		};
		return xioctl(fd, FUTEXLAB_IOC_WAIT, &a);
	}
	case I_LOCK_PI: {
		struct futexlab_pi a = {
			.uaddr = (uintptr_t)w, .deadline_ns = deadline,
			.flags = f, .node = FUTEXLAB_NO_NODE,
		};
		return xioctl(fd, FUTEXLAB_IOC_LOCK_PI, &a);
	}
	case I_WAIT_REQUEUE_PI: {
		struct futexlab_wait_requeue_pi a = {
			.uaddr = (uintptr_t)w, .uaddr2 = (uintptr_t)w2,
			.deadline_ns = deadline, .val = val, .flags = f,
			.node = FUTEXLAB_NO_NODE, .node2 = FUTEXLAB_NO_NODE,
		};
		return xioctl(fd, FUTEXLAB_IOC_WAIT_REQUEUE_PI, &a);
	}
	case I_ADAPTIVE: {
		struct futexlab_adaptive a = {
			.uaddr = (uintptr_t)w, .deadline_ns = deadline,
			.flags = f, .node = FUTEXLAB_NO_NODE,
		};
		return xioctl(fd, FUTEXLAB_IOC_LOCK_ADAPTIVE, &a);
	}
	case I_WAITV: {
		struct futexlab_waitv v[INTR_WAITV];
		struct futexlab_waitv_args a = {
			.waiters = (uintptr_t)v, .deadline_ns = deadline,
			.nr = INTR_WAITV,
			/* the call's flags: no FUTEXLAB_F_NODE here */
			.flags = f & ~FUTEXLAB_F_NODE,
		};

		memset(v, 0, sizeof(v));
		for (i = 0; i < INTR_WAITV; i++) {
			v[i].uaddr = (uintptr_t)&w[i];
			v[i].val = val;
			v[i].flags = FUTEXLAB_WAITV_SIZE_U32 |
				     FUTEXLAB_WAITV_PRIVATE;
		}
		return xioctl(fd, FUTEXLAB_IOC_WAITV, &a);
	}
	case I_STOCK_WAIT:
		return (int)stock_futex(w, FUTEX_WAIT_PRIVATE, val);
	case I_STOCK_LOCK_PI:
		return (int)stock_futex(w, FUTEX_LOCK_PI_PRIVATE, 0);
	}
	return -ENOSYS;
}

static void *intr_main(void *arg)
{
	struct intr_thread *t = arg;
	int r;

	if (t->prio && set_fifo(0, t->prio)) {
		t->ret = -1000;		/* no operation returns this */
		t->tid = (pid_t)syscall(SYS_gettid);
		t->done = 1;
		return NULL;
	}
	t->tid = (pid_t)syscall(SYS_gettid);
	r = intr_call(t->fd, t->op, t->w, t->w2, t->val, t->flags,
		      t->deadline);
	t->returned_ns = now_ns();
	if (r == 0 || (t->op == I_ADAPTIVE && r == -EOWNERDEAD))
		t->unlock_ret = intr_release(t->fd, t->op, t->w, t->w2);
	t->ret = r;
	t->done = 1;
	return NULL;
}

int intr_start_nowait(struct intr_thread *t)
{
	t->tid = 0;
	t->ret = 1;		/* no operation here returns 1 */
	t->unlock_ret = 0;
	t->done = 0;
	if (pthread_create(&t->th, NULL, intr_main, t)) {
		fail("pthread_create failed");
		return -1;
	}
	while (!t->tid)
		usleep(100);
	return 0;
}

int intr_start(struct intr_thread *t)
{
	if (intr_start_nowait(t))
		return -1;
	if (wait_sleeping(t->tid) || t->done) {
		fail("op %d did not block: returned %d", (int)t->op,
		     (int)t->ret);
		return -1;
	}
	return 0;
}

int intr_join(struct intr_thread *t)
{
	uint64_t end = now_ns() + 5 * SEC;

	while (!t->done && now_ns() < end)
		usleep(500);
	if (!t->done) {
		fail("op %d still blocked 5 s after it should have returned",
		     (int)t->op);
		return -1;
	}
	pthread_join(t->th, NULL);
	return 0;
}

int intr_signal(struct intr_thread *t, int sig)
{
	int before = intr_handled();
	uint64_t end = now_ns() + 5 * SEC;

	if (pthread_kill(t->th, sig)) {
		fail("pthread_kill failed");
		return -1;
	}
	while (intr_handled() == before && now_ns() < end)
		usleep(200);
	if (intr_handled() == before) {
		fail("the handler of signal %d never ran", sig);
		return -1;
	}
	return 0;
}

int intr_still_waiting(struct intr_thread *t, const char *what)
{
	if (wait_sleeping(t->tid) || t->done) {
		fail("%s: returned %d instead of going on waiting", what,
		     (int)t->ret);
		return -1;
	}
	return 0;
}

int intr_expect(struct intr_thread *t, int want, const char *what)
{
	if (intr_join(t))
		return -1;
	if (t->ret != want) {
		fail("%s: got %d (%s), want %d (%s)", what, (int)t->ret,
		     t->ret < 0 ? strerror(-t->ret) : "ok", want,
		     want < 0 ? strerror(-want) : "ok");
		return -1;
	}
	if (t->unlock_ret) {
		fail("%s: releasing the lock it took: %d", what,
		     (int)t->unlock_ret);
		return -1;
	}
	return 0;
}

int intr_signalled(struct intr_thread *t, int sig, int want,
		   const char *what)
{
	if (intr_start(t) || intr_signal(t, sig))
		return -1;
	return intr_expect(t, want, what);
}

int intr_restarted(struct intr_thread *t, int sig, const char *what)
{
	if (intr_start(t) || intr_signal(t, sig))
		return -1;
	return intr_still_waiting(t, what);
}

int intr_wake(int fd, uint32_t *w, int nr)
{
	struct futexlab_wake a = {
		.uaddr = (uintptr_t)w, .nr_wake = (uint32_t)nr,
		.bitset = FUTEXLAB_BITSET_ANY, .flags = FUTEXLAB_F_NODE,
		.node = FUTEXLAB_NO_NODE,
	};

	return xioctl(fd, FUTEXLAB_IOC_WAKE, &a);
}

int intr_requeue_pi(int fd, uint32_t *w, uint32_t *w2, int nr_requeue,
		    uint32_t val)
{
	struct futexlab_requeue a = {
		.uaddr = (uintptr_t)w, .uaddr2 = (uintptr_t)w2, .nr_wake = 1,
		.nr_requeue = (uint32_t)nr_requeue, .val = val,
		.flags = FUTEXLAB_F_NODE, .node = FUTEXLAB_NO_NODE,
		.node2 = FUTEXLAB_NO_NODE,
	};

	return xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE_PI, &a);
}

int intr_pi(int fd, unsigned long cmd, uint32_t *w, uint32_t flags)
{
	struct futexlab_pi a = {
		.uaddr = (uintptr_t)w, .flags = flags | FUTEXLAB_F_NODE,
		.node = FUTEXLAB_NO_NODE,
	};

	return xioctl(fd, cmd, &a);
}
