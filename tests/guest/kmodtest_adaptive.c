// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's adaptive-lock family (FUTEXLAB_IOC_LOCK_ADAPTIVE and
 * UNLOCK_ADAPTIVE), once per hash design: mutual exclusion under
 * contention, a spin that ends when the owner sleeps (asserted through
 * the module's counters, not through time), the deadline, a signal, an
 * owner that dies with the lock (before and while we sleep), and the
 * errors. The lock word is a plain u32 (FUTEXLAB_F_NODE with
 * FUTEXLAB_NO_NODE): 0 free, the owner's TID, FUTEXLAB_WAITERS.
 */
#include "kmodtest.h"

#define PARAM	"/sys/module/futexlab/parameters/adaptive_lock_spin_us"
#define LONG_BOUND_NS	20000000000ull	/* a bound on waits, never hit */

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static int k_adaptive(int fd, unsigned long cmd, uint32_t *w,
		      uint64_t deadline)
{
	struct futexlab_adaptive a = {
		.uaddr = (uintptr_t)w, .deadline_ns = deadline,
		.flags = FUTEXLAB_F_NODE | (deadline ? FUTEXLAB_F_DEADLINE : 0),
		.node = FUTEXLAB_NO_NODE,
	};

	return xioctl(fd, cmd, &a);
}

/* 0 -> TID in user space, else the module; as mutex's --algo adaptive. */
static int lock(int fd, uint32_t *w, uint64_t deadline)
{
	uint32_t zero = 0;

	if (__atomic_compare_exchange_n(w, &zero, (uint32_t)gettid_(), 0,
					__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return 0;
	return k_adaptive(fd, FUTEXLAB_IOC_LOCK_ADAPTIVE, w, deadline);
}

static int unlock(int fd, uint32_t *w)
{
	uint32_t tid = (uint32_t)gettid_();

	if (__atomic_compare_exchange_n(w, &tid, 0, 0, __ATOMIC_RELEASE,
					__ATOMIC_RELAXED))
		return 0;
	return k_adaptive(fd, FUTEXLAB_IOC_UNLOCK_ADAPTIVE, w, 0);
}

/* Read or write the spin bound (-1 when the parameter is not there). */
static long spin_bound(long set)
{
	FILE *f = fopen(PARAM, set < 0 ? "r" : "w");
	long v = -1;

	if (!f)
		return -1;
	if (set < 0) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
	} else {
		v = fprintf(f, "%ld\n", set) > 0 ? set : -1;
	}
	if (fclose(f))
		v = -1;
	return v;
}

/* ---------------------------------------------------- mutual exclusion */
#define MX_THREADS	4
#define MX_ROUNDS	3000

struct mx {
	int fd;
	uint32_t word;
	unsigned long counter;		/* only under the lock */
	_Atomic int inside;
	_Atomic int errors;
	_Atomic int overlap;
};

static void *mx_main(void *arg)
{
	struct mx *m = arg;
	int i;

	for (i = 0; i < MX_ROUNDS; i++) {
		int r = lock(m->fd, &m->word, now_ns() + LONG_BOUND_NS);

		if (r) {
			m->errors++;
			break;
		}
		if (m->inside++)
			m->overlap++;
		m->counter++;
		if (i % 64 == 0)
			sched_yield();	/* be preempted holding it */
		m->inside--;
		if (unlock(m->fd, &m->word))
			m->errors++;
	}
	return NULL;
}

/* Until a thread sleeps in the module on the held word (it set
 * FUTEXLAB_WAITERS: this thread, asleep here, is off the CPU, so no
 * spin lasts), or the deadline: 0, or -1. */
static int wait_for_sleeper(const uint32_t *w, uint64_t deadline)
{
	while (!(__atomic_load_n(w, __ATOMIC_ACQUIRE) & FUTEXLAB_WAITERS)) {
		if (now_ns() >= deadline)
			return -1;
		usleep(1000);
	}
	return 0;
}

int t_adaptive_mutex(uint32_t design)
{
	static struct mx m;
	pthread_t th[MX_THREADS];
	struct futexlab_stats s;
	int i, r = -1;

	memset(&m, 0, sizeof(m));
	m.fd = open_design(design, 0);
	if (m.fd < 0)
		return fail("open: %s", strerror(-m.fd)), -1;
	/*
	 * The threads start while this one holds the lock, so at least one
	 * of them goes to the module whatever the scheduler does: started
	 * free, four threads in a slow guest could each finish their rounds
	 * before the next one ran, and nothing would have contended.
	 */
	if (lock(m.fd, &m.word, 0))
		return close(m.fd), fail("the first lock failed"), -1;
	for (i = 0; i < MX_THREADS; i++)
		pthread_create(&th[i], NULL, mx_main, &m);
	r = wait_for_sleeper(&m.word, now_ns() + LONG_BOUND_NS);
	if (unlock(m.fd, &m.word))
		m.errors++;
	for (i = 0; i < MX_THREADS; i++)
		pthread_join(th[i], NULL);
	if (r) {
		fail("no thread slept in the module while the lock was held");
		r = -1;
		goto out;
	}
	r = -1;
	if (m.errors || m.overlap) {
		fail("%d lock errors, %d overlaps", m.errors, m.overlap);
		goto out;
	}
	if (m.counter != MX_THREADS * MX_ROUNDS || m.word) {
		fail("counter %lu (want %d), word %#x at the end", m.counter,
		     MX_THREADS * MX_ROUNDS, m.word);
		goto out;
	}
	k_stats(m.fd, &s, NULL, 0);
	if (!s.adaptive_locks) {
		fail("no lock went through the module (no contention?)");
		goto out;
	}
	r = check_no_waiters(m.fd, "after the contention");
out:
	close(m.fd);
	return r;
}

/* ------------------------------------------------------- owner threads */
struct owner {
	pthread_t th;
	int fd;
	uint32_t *w;
	uint64_t busy_ns;		/* on the CPU holding the lock */
	uint64_t sleep_ns;		/* then asleep holding it */
	int die;			/* exit holding it, when told to */
	_Atomic int holding;
	_Atomic int go;
	_Atomic pid_t tid;
	int ret;
};

static void *owner_main(void *arg)
{
	struct owner *o = arg;
	struct timespec ts;
	uint64_t end;

	o->tid = gettid_();
	o->ret = lock(o->fd, o->w, now_ns() + LONG_BOUND_NS);
	if (o->ret)
		return NULL;
	o->holding = 1;
	end = now_ns() + o->busy_ns;
	while (now_ns() < end)
		;
	if (o->sleep_ns) {
		ts.tv_sec = o->sleep_ns / 1000000000ull;
		ts.tv_nsec = o->sleep_ns % 1000000000ull;
		nanosleep(&ts, NULL);
	}
	while (!o->go)
		usleep(1000);
	if (!o->die)
		o->ret = unlock(o->fd, o->w);
	return NULL;
}

static int start_owner(struct owner *o, int fd, uint32_t *w)
{
	o->fd = fd;
	o->w = w;
	if (pthread_create(&o->th, NULL, owner_main, o))
		return -1;
	while (!o->holding && !o->ret)
		usleep(100);
	return o->ret;
}

/*
 * The owner spins on its CPU, then sleeps in nanosleep holding the lock:
 * the contender may spin while it runs but must then sleep, not spin on
 * to the bound (set far beyond the test's length): no spin may end at the
 * bound, and the contender must have queued.
 */
int t_adaptive_owner_sleeps(uint32_t design)
{
	static uint32_t w;
	struct futexlab_stats s0, s1;
	struct owner o = { .busy_ns = 30000000, .sleep_ns = 300000000,
			   .go = 1 };
	long old = spin_bound(-1);
	int fd = open_design(design, 0), r = -1;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	if (old < 0 || spin_bound(10000000) < 0) {	/* 10 s */
		fail("cannot set " PARAM);
		goto out;
	}
	w = 0;
	k_stats(fd, &s0, NULL, 0);
	if (start_owner(&o, fd, &w)) {
		fail("owner lock: %d", o.ret);
		goto out_param;
	}
	EXPECT(lock(fd, &w, now_ns() + LONG_BOUND_NS), 0, "contended lock");
	k_stats(fd, &s1, NULL, 0);
	EXPECT(unlock(fd, &w), 0, "unlock");
	pthread_join(o.th, NULL);
	if (o.ret) {
		fail("owner unlock: %d", o.ret);
		goto out_param;
	}
	if (s1.adaptive_spin_bound != s0.adaptive_spin_bound ||
	    s1.adaptive_sleeps == s0.adaptive_sleeps) {
		fail("spins %llu (ended off CPU %llu, at the bound %llu), "
		     "sleeps %llu: the contender did not sleep when the "
		     "owner did",
		     (unsigned long long)(s1.adaptive_spins - s0.adaptive_spins),
		     (unsigned long long)(s1.adaptive_spin_off_cpu -
					  s0.adaptive_spin_off_cpu),
		     (unsigned long long)(s1.adaptive_spin_bound -
					  s0.adaptive_spin_bound),
		     (unsigned long long)(s1.adaptive_sleeps -
					  s0.adaptive_sleeps));
		goto out_param;
	}
	printf("# adaptive-owner-sleeps/%s: spins %llu, ended off CPU %llu, "
	       "sleeps %llu\n", design_name(design),
	       (unsigned long long)(s1.adaptive_spins - s0.adaptive_spins),
	       (unsigned long long)(s1.adaptive_spin_off_cpu -
				    s0.adaptive_spin_off_cpu),
	       (unsigned long long)(s1.adaptive_sleeps - s0.adaptive_sleeps));
	r = check_no_waiters(fd, "after the lock");
out_param:
out:
	if (old >= 0)
		spin_bound(old);
	close(fd);
	return r;
}

/* An owner asleep holding the lock: ETIMEDOUT at the deadline. */
int t_adaptive_deadline(uint32_t design)
{
	static uint32_t w;
	struct owner o = { 0 };
	int fd = open_design(design, 0), r = -1;
	uint64_t dl;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	w = 0;
	if (start_owner(&o, fd, &w))
		return fail("owner lock: %d", o.ret), close(fd), -1;
	dl = now_ns() + 30000000;
	EXPECT(lock(fd, &w, dl), -ETIMEDOUT, "lock with a deadline");
	if (now_ns() < dl) {
		fail("ETIMEDOUT before the deadline");
		goto out;
	}
	if ((w & FUTEXLAB_TID_MASK) != (uint32_t)o.tid) {
		fail("word %#x no longer names the owner %d", w, o.tid);
		goto out;
	}
	EXPECT(lock(fd, &w, 1), -ETIMEDOUT, "deadline in the past");
	r = check_no_waiters(fd, "after the timeout");
out:
	o.go = 1;
	pthread_join(o.th, NULL);
	if (!r && (o.ret || w)) {
		fail("owner unlock %d, word %#x after it", o.ret, w);
		r = -1;
	}
	close(fd);
	return r;
}

struct contender {
	pthread_t th;
	int fd;
	uint32_t *w;
	_Atomic pid_t tid;
	_Atomic int ret;
};

static void *contender_main(void *arg)
{
	struct contender *c = arg;

	c->tid = gettid_();
	c->ret = lock(c->fd, c->w, now_ns() + LONG_BOUND_NS);
	return NULL;
}

/* A signal ends the sleep with EINTR (SIGUSR1 without SA_RESTART). */
int t_adaptive_signal(uint32_t design)
{
	static uint32_t w;
	struct owner o = { 0 };
	struct contender c = { 0 };
	int fd = open_design(design, 0), r = -1;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	catch_usr1();
	w = 0;
	if (start_owner(&o, fd, &w))
		return fail("owner lock: %d", o.ret), close(fd), -1;
	c.fd = fd;
	c.w = &w;
	if (start_sleeper(&c.th, contender_main, &c, &c.tid)) {
		fail("the contender did not sleep");
		goto out_owner;
	}
	if (!(w & FUTEXLAB_WAITERS)) {
		fail("word %#x: a sleeper without FUTEXLAB_WAITERS", w);
		goto out_owner;
	}
	pthread_kill(c.th, SIGUSR1);
	pthread_join(c.th, NULL);
	if (c.ret != -EINTR) {
		fail("signalled lock returned %d", c.ret);
		goto out_owner;
	}
	r = check_no_waiters(fd, "after the signal");
out_owner:
	o.go = 1;
	pthread_join(o.th, NULL);
	if (!r && (o.ret || w)) {
		fail("owner unlock %d, word %#x after it", o.ret, w);
		r = -1;
	}
	close(fd);
	return r;
}

/*
 * An owner thread exits holding the lock: a later locker takes it over
 * with EOWNERDEAD at once, and one already asleep does so too, within
 * its (far) deadline, rather than hang.
 */
int t_adaptive_dead_owner(uint32_t design)
{
	static uint32_t w;
	struct owner o = { .die = 1, .go = 1 };
	struct contender c = { 0 };
	uint32_t me = (uint32_t)gettid_();
	int fd = open_design(design, 0), r = -1;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	w = 0;
	if (start_owner(&o, fd, &w))
		return fail("owner lock: %d", o.ret), close(fd), -1;
	pthread_join(o.th, NULL);
	EXPECT(lock(fd, &w, now_ns() + LONG_BOUND_NS), -EOWNERDEAD,
	       "lock of a dead owner's");
	if (w != (me | FUTEXLAB_OWNER_DIED)) {
		fail("word %#x after the take-over, want %#x", w,
		     me | FUTEXLAB_OWNER_DIED);
		goto out;
	}
	EXPECT(unlock(fd, &w), 0, "unlock after the take-over");
	if (w) {
		fail("word %#x after the unlock", w);
		goto out;
	}

	/* the owner dies while the contender sleeps */
	memset(&o, 0, sizeof(o));
	o.die = 1;
	if (start_owner(&o, fd, &w))
		return fail("owner lock: %d", o.ret), close(fd), -1;
	c.fd = fd;
	c.w = &w;
	if (start_sleeper(&c.th, contender_main, &c, &c.tid)) {
		fail("the contender did not sleep");
		o.go = 1;
		pthread_join(o.th, NULL);
		goto out;
	}
	o.go = 1;
	pthread_join(o.th, NULL);
	pthread_join(c.th, NULL);
	if (c.ret != -EOWNERDEAD) {
		fail("sleeper's lock returned %d when its owner died", c.ret);
		goto out;
	}
	if ((w & FUTEXLAB_TID_MASK) != (uint32_t)c.tid ||
	    !(w & FUTEXLAB_OWNER_DIED)) {
		fail("word %#x: not the sleeper's %d with OWNER_DIED", w,
		     c.tid);
		goto out;
	}
	w = 0;
	r = check_no_waiters(fd, "after the dead owners");
out:
	close(fd);
	return r;
}

int t_adaptive_bad_input(uint32_t design)
{
	static uint32_t w;
	struct futexlab_adaptive a;
	struct owner o = { 0 };
	int fd = open_design(design, 0), r = -1;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	w = 0;
	EXPECT(lock(fd, &w, 0), 0, "free lock");
	EXPECT(k_adaptive(fd, FUTEXLAB_IOC_LOCK_ADAPTIVE, &w, 0), -EDEADLK,
	       "lock we hold");
	EXPECT(unlock(fd, &w), 0, "unlock");
	EXPECT(k_adaptive(fd, FUTEXLAB_IOC_UNLOCK_ADAPTIVE, &w, 0), -EPERM,
	       "unlock of a free lock");
	if (start_owner(&o, fd, &w))
		return fail("owner lock: %d", o.ret), close(fd), -1;
	EXPECT(k_adaptive(fd, FUTEXLAB_IOC_UNLOCK_ADAPTIVE, &w, 0), -EPERM,
	       "unlock of another's lock");
	EXPECT(k_adaptive(fd, FUTEXLAB_IOC_LOCK_ADAPTIVE, (uint32_t *)8, 0),
	       -EFAULT, "unmapped word");
	EXPECT(k_adaptive(fd, FUTEXLAB_IOC_LOCK_ADAPTIVE,
			  (uint32_t *)((char *)&w + 1), 0), -EINVAL,
	       "misaligned word");
	memset(&a, 0, sizeof(a));
	a.uaddr = (uintptr_t)&w;
	a.flags = FUTEXLAB_F_NODE | 0x100;
	a.node = FUTEXLAB_NO_NODE;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_LOCK_ADAPTIVE, &a), -EINVAL,
	       "unknown flag");
	a.flags = FUTEXLAB_F_NODE | FUTEXLAB_F_DEADLINE;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_UNLOCK_ADAPTIVE, &a), -EINVAL,
	       "unlock with a deadline");
	r = check_no_waiters(fd, "after the bad input");
out:
	o.go = 1;
	if (o.th)
		pthread_join(o.th, NULL);
	close(fd);
	return r;
}
