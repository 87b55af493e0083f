// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's stress family, once per hash design: four threads playing
 * wait/wake and requeue games under a watchdog (lost wakeups, threads
 * without progress), and four threads contending for one PI lock.
 */
#include "kmodtest.h"

/*
 * Four threads, two games, every wait bounded by a 3 s deadline:
 *  - ping-pong: threads 0 and 1 pass a turn through word T0 with
 *    wait/wake_bitset; a thread whose wait times out while the turn is
 *    its own was not woken: a lost wakeup;
 *  - requeue: threads 2 and 3 pass a turn through T1, the switcher moving
 *    the sleeper to U with cmp_requeue and then waking U (or waking
 *    directly through cmp_requeue every other round).
 * The watchdog (the main thread) fails the test when a thread makes no
 * progress for 10 s or any lost wakeup is seen.
 */
struct stress {
	int fd;
	_Atomic int stop;
	/* futex words, each followed by its node word (numa design) */
	_Atomic uint32_t t0, t0_node, t1, t1_node, u, u_node;
	_Atomic unsigned long progress[4];
	_Atomic int lost;
	_Atomic int errors;
	_Atomic int last_err;
};

/* A stress thread's argument: its game's state (struct stress or pistress) */
struct stress_arg {
	void *s;
	int id;
};

/*
 * Run four threads of @fn, each given @s and its id, for @secs seconds
 * under the watchdog: it fails when a thread's counter in @progress stays
 * still for 10 s, or when *@lost (unless NULL) is non-zero. Then *@stop is
 * set and the threads are joined; @last holds the counts last seen.
 */
static int run_stress(void *(*fn)(void *), void *s, int secs,
		      _Atomic unsigned long progress[4], _Atomic int *lost,
		      _Atomic int *stop, unsigned long last[4])
{
	struct stress_arg args[4];
	pthread_t th[4];
	uint64_t stalled_since[4], end, t;
	int i, ret = 0;

	for (i = 0; i < 4; i++) {
		args[i].s = s;
		args[i].id = i;
		pthread_create(&th[i], NULL, fn, &args[i]);
		stalled_since[i] = now_ns();
	}
	end = now_ns() + (uint64_t)secs * 1000000000ull;
	while ((t = now_ns()) < end && !ret) {
		usleep(200000);
		for (i = 0; i < 4; i++) {
			if (progress[i] != last[i]) {
				last[i] = progress[i];
				stalled_since[i] = t;
			} else if (t - stalled_since[i] > 10000000000ull) {
				fail("thread %d made no progress for 10 s", i);
				ret = -1;
			}
		}
		if (lost && *lost) {
			fail("%d lost wakeups", *lost);
			ret = -1;
		}
	}
	*stop = 1;
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	return ret;
}

static void *stress_main(void *p)
{
	struct stress_arg *sa = p;
	struct stress *s = sa->s;
	int id = sa->id, me = id & 1;
	_Atomic uint32_t *turn = id < 2 ? &s->t0 : &s->t1;
	unsigned long round = 0;

	while (!s->stop) {
		uint32_t v = atomic_load(turn);

		if ((v & 1) == (uint32_t)me) {
			/* our turn: pass it on and wake the partner */
			atomic_store(turn, v + 1);
			if (id < 2) {
				k_wake(s->fd, (uint32_t *)turn, 1,
				       1u << (me ^ 1), 0);
			} else if (round & 1) {
				k_requeue(s->fd, (uint32_t *)turn,
					  (uint32_t *)&s->u, 1, 0, v + 1);
			} else {
				int r = k_requeue(s->fd, (uint32_t *)turn,
						  (uint32_t *)&s->u, 0, 1,
						  v + 1);

				if (r < 0 && r != -EAGAIN) {
					s->errors++;
					s->last_err = r;
				}
				k_wake(s->fd, (uint32_t *)&s->u, 1, ~0u, 0);
			}
			s->progress[id]++;
			round++;
			continue;
		}
		{
			int r = k_wait(s->fd, (uint32_t *)turn, v,
				       now_ns() + 3000000000ull,
				       id < 2 ? 1u << me : ~0u, 0);

			if (r == -ETIMEDOUT && !s->stop &&
			    atomic_load(turn) != v)
				s->lost++;
			else if (r && r != -EAGAIN && r != -ETIMEDOUT) {
				s->errors++;
				s->last_err = r;
			}
		}
	}
	/* let the partner out */
	atomic_fetch_add(turn, 1);
	k_wake(s->fd, (uint32_t *)turn, INT_MAX, ~0u, 0);
	k_wake(s->fd, (uint32_t *)&s->u, INT_MAX, ~0u, 0);
	return NULL;
}

int stress_seconds = 10;

int t_stress(uint32_t design)
{
	struct stress s;
	unsigned long last[4] = { 0 };
	struct futexlab_stats st;
	int ret;

	memset(&s, 0, sizeof(s));
	s.t0_node = s.t1_node = s.u_node = FUTEXLAB_NO_NODE;
	s.fd = open_design(design, 0);
	if (s.fd < 0)
		return fail("open: %s", strerror(-s.fd)), -1;
	ret = run_stress(stress_main, &s, stress_seconds, s.progress, &s.lost,
			 &s.stop, last);
	if (!ret && s.lost)
		fail("%d lost wakeups", s.lost), ret = -1;
	if (!ret && s.errors)
		fail("%d unexpected errors (last %d)", s.errors, s.last_err),
			ret = -1;
	k_stats(s.fd, &st, NULL, 0);
	if (!ret && st.live_waiters)
		fail("%llu waiters left queued",
		     (unsigned long long)st.live_waiters), ret = -1;
	printf("# stress %s: %lu+%lu ping-pong, %lu+%lu requeue rounds, waits %llu, woken %llu, timeouts %llu (at the stop), requeued %llu, contended %llu, longest chain %llu\n",
	       design_name(design), last[0], last[1], last[2], last[3],
	       (unsigned long long)st.waits, (unsigned long long)st.woken,
	       (unsigned long long)st.timeouts,
	       (unsigned long long)st.requeued,
	       (unsigned long long)st.contended,
	       (unsigned long long)st.longest_chain);
	close(s.fd);
	return ret;
}

/*
 * PI stress: four threads (two SCHED_FIFO, two SCHED_OTHER) take one PI
 * lock with the user-space fast path (cmpxchg 0 -> TID) and lock_pi /
 * unlock_pi under contention, checking mutual exclusion inside. The
 * watchdog fails on a thread without progress for 10 s, and at the end
 * every thread must be back to its own policy (no boost left behind).
 */
struct pistress {
	int fd;
	_Atomic uint32_t word;
	uint32_t word_node;	/* (numa design) */
	_Atomic int inside;
	_Atomic int stop;
	_Atomic int violations;
	_Atomic int errors;
	_Atomic int last_err;
	_Atomic unsigned long timeouts;
	_Atomic unsigned long progress[4];
	_Atomic pid_t tid[4];
};

static void *pistress_main(void *p)
{
	struct stress_arg *pa = p;
	struct pistress *s = pa->s;
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	int id = pa->id;

	s->tid[id] = (pid_t)tid;
	if (id < 2) {
		struct sched_param sp = { .sched_priority = 10 + id * 10 };

		sched_setscheduler(0, SCHED_FIFO, &sp);
	}
	while (!s->stop) {
		uint32_t zero = 0;
		int r = 0;

		/* the SCHED_OTHER threads give up after 200 us: waiters
		 * leave the PI queue by timeout all the time */
		if (!atomic_compare_exchange_strong(&s->word, &zero, tid))
			r = k_pi(s->fd, FUTEXLAB_IOC_LOCK_PI, (uint32_t *)&s->word,
				 now_ns() + (id < 2 ? 5000000000ull : 200000));
		if (r == -ETIMEDOUT && id >= 2) {
			s->timeouts++;
			s->progress[id]++;
			continue;
		}
		if (r) {
			s->errors++;
			s->last_err = r;
			continue;
		}
		{
			uint32_t seen = atomic_load(&s->word);
			int in = atomic_fetch_add(&s->inside, 1);

			if ((seen & FUTEXLAB_TID_MASK) != tid || in != 0) {
				if (s->violations++ < 3)
					printf("# pi-stress: thread %d (tid %u, %s path) saw word %#x, %d inside\n",
					       id, tid, zero ? "kernel" : "fast",
					       seen, in);
			}
		}
		for (volatile int i = 0; i < 50; i++)
			;
		atomic_fetch_sub(&s->inside, 1);
		{
			uint32_t mine = tid;

			if (!atomic_compare_exchange_strong(&s->word, &mine, 0)) {
				r = k_pi(s->fd, FUTEXLAB_IOC_UNLOCK_PI,
					 (uint32_t *)&s->word, 0);
				if (r) {
					if (s->errors++ < 3)
						printf("# pi-stress: thread %d (tid %u) unlock: %d, word %#x (was %#x)\n",
						       id, tid, r,
						       atomic_load(&s->word),
						       mine);
					s->last_err = r;
				}
			}
		}
		s->progress[id]++;
		if (id >= 2)
			sched_yield();
	}
	return NULL;
}

int t_pi_stress(uint32_t design)
{
	struct pistress s;
	unsigned long last[4] = { 0 };
	struct sched_attr_k at;
	struct futexlab_stats st;
	int ret;
	int secs = stress_seconds / 2 > 1 ? stress_seconds / 2 : 1;

	memset(&s, 0, sizeof(s));
	s.word_node = FUTEXLAB_NO_NODE;
	s.fd = open_design(design, 0);
	if (s.fd < 0)
		return fail("open: %s", strerror(-s.fd)), -1;
	ret = run_stress(pistress_main, &s, secs, s.progress, NULL, &s.stop,
			 last);
	if (!ret && s.violations)
		fail("%d mutual-exclusion violations", s.violations), ret = -1;
	if (!ret && s.errors)
		fail("%d errors (last %d)", s.errors, s.last_err), ret = -1;
	if (!ret && atomic_load(&s.word))
		fail("lock word left at %#x", atomic_load(&s.word)), ret = -1;
	/* no boost left behind on this (the main) thread */
	get_attr(0, &at);
	if (!ret && at.sched_policy != SCHED_OTHER)
		fail("main thread left with policy %u", at.sched_policy),
			ret = -1;
	k_stats(s.fd, &st, NULL, 0);
	if (!ret && st.live_waiters)
		fail("%llu waiters left queued",
		     (unsigned long long)st.live_waiters), ret = -1;
	printf("# pi-stress %s: %lu/%lu (FIFO) %lu/%lu (OTHER) rounds, %lu timed out, kernel pi_locks %llu, boosts %llu\n",
	       design_name(design), last[0], last[1], last[2], last[3],
	       (unsigned long)s.timeouts, (unsigned long long)st.pi_locks,
	       (unsigned long long)st.pi_boosts);
	close(s.fd);
	return ret;
}
