// SPDX-License-Identifier: GPL-2.0
/*
 * signal_return: how long a thread blocked in a PI lock takes to return
 * after a signal, on the stock futex (FUTEX_LOCK_PI_PRIVATE) and on the
 * module without and with FUTEXLAB_F_INTERRUPTIBLE, in each design.
 *
 *   signal_return [--rounds N] [--hold-ms H]     (defaults 20 and 20)
 *
 * A round: the main thread holds the lock, the waiter (SCHED_OTHER)
 * blocks in LOCK_PI; the main thread sends SIGUSR1 (a handler without
 * SA_RESTART) and unlocks H ms after sending it. The figure is the time
 * from just before the signal to the waiter's return: without the flag
 * the call restarts and returns only with the lock (about H ms), with it
 * the call returns ECANCELED at once. Run in the guest; under TCG the
 * times are functional (compare within one run only).
 *
 * Prints one table row per case: case, result, rounds, median, min and
 * max in microseconds. Exit status 0, 1 if a call returned something
 * unexpected, 2 on a bad argument.
 */
#include <linux/futex.h>

#include "kmodtest_intr.h"

struct sr_case {
	const char *name;
	uint32_t design;	/* 0: the stock futex */
	uint32_t flags;
	int want;		/* what the waiter's call returns */
};

static const struct sr_case cases[] = {
	{ "stock FUTEX_LOCK_PI", 0, 0, 0 },
	{ "kmod-global", FUTEXLAB_DESIGN_GLOBAL, 0, 0 },
	{ "kmod-global INTERRUPTIBLE", FUTEXLAB_DESIGN_GLOBAL,
	  FUTEXLAB_F_INTERRUPTIBLE, -ECANCELED },
	{ "kmod-private", FUTEXLAB_DESIGN_PRIVATE, 0, 0 },
	{ "kmod-private INTERRUPTIBLE", FUTEXLAB_DESIGN_PRIVATE,
	  FUTEXLAB_F_INTERRUPTIBLE, -ECANCELED },
	{ "kmod-numa", FUTEXLAB_DESIGN_NUMA, 0, 0 },
	{ "kmod-numa INTERRUPTIBLE", FUTEXLAB_DESIGN_NUMA,
	  FUTEXLAB_F_INTERRUPTIBLE, -ECANCELED },
};

#define MAX_ROUNDS	1000

static uint32_t lock_word __attribute__((aligned(64)));

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int lock(int fd, int design)
{
	if (!design) {
		uint32_t zero = 0;

		return __atomic_compare_exchange_n(&lock_word, &zero,
			(uint32_t)syscall(SYS_gettid), 0, __ATOMIC_ACQUIRE,
			__ATOMIC_RELAXED) ? 0 : -EBUSY;
	}
	return intr_pi(fd, FUTEXLAB_IOC_LOCK_PI, &lock_word, 0);
}

static int unlock(int fd, int design)
{
	if (!design)
		return syscall(SYS_futex, &lock_word, FUTEX_UNLOCK_PI_PRIVATE,
			       0, NULL, NULL, 0) ? -errno : 0;
	return intr_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, &lock_word, 0);
}

/* One round: the signal-to-return time in ns, or -1 (said on stderr). */
static int64_t round_once(const struct sr_case *c, int fd, uint64_t hold)
{
	struct intr_thread t = {
		.op = c->design ? I_LOCK_PI : I_STOCK_LOCK_PI,
		.fd = fd, .w = &lock_word, .flags = c->flags,
	};
	struct timespec at;
	uint64_t t0;

	if (lock(fd, c->design)) {
		fprintf(stderr, "signal_return: %s: cannot take the lock\n",
			c->name);
		return -1;
	}
	if (intr_start(&t)) {
		fprintf(stderr, "signal_return: %s: the waiter did not block\n",
			c->name);
		unlock(fd, c->design);
		return -1;
	}
	t0 = now_ns();
	pthread_kill(t.th, SIGUSR1);
	at.tv_sec = (time_t)((t0 + hold) / SEC);
	at.tv_nsec = (long)((t0 + hold) % SEC);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL))
		;
	if (unlock(fd, c->design) || intr_join(&t)) {
		fprintf(stderr, "signal_return: %s: unlock or join failed\n",
			c->name);
		return -1;
	}
	if (t.ret != c->want || t.unlock_ret) {
		fprintf(stderr, "signal_return: %s: the waiter returned %d "
			"(released: %d), want %d\n", c->name, (int)t.ret,
			(int)t.unlock_ret, c->want);
		return -1;
	}
	return (int64_t)(t.returned_ns - t0);
}

static int run_case(const struct sr_case *c, int rounds, uint64_t hold)
{
	uint64_t ns[MAX_ROUNDS];
	int fd = -1, i;

	if (c->design) {
		fd = open_design(c->design, 0);
		if (fd < 0) {
			fprintf(stderr, "signal_return: %s: open: %s\n",
				c->name, strerror(-fd));
			return -1;
		}
	}
	for (i = 0; i < rounds; i++) {
		int64_t r = round_once(c, fd, hold);

		if (r < 0) {
			if (fd >= 0)
				close(fd);
			return -1;
		}
		ns[i] = (uint64_t)r;
	}
	if (fd >= 0)
		close(fd);
	qsort(ns, (size_t)rounds, sizeof(ns[0]), cmp_u64);
	printf("| %s | %s | %d | %.0f | %.0f | %.0f |\n", c->name,
	       c->want ? "ECANCELED" : "0, owning the lock", rounds,
	       ns[rounds / 2] / 1e3, ns[0] / 1e3, ns[rounds - 1] / 1e3);
	return 0;
}

static void on_usr1(int sig)
{
	(void)sig;
}

static int arg_int(const char *opt, const char *v, int lo, int hi)
{
	char *end;
	long x;

	errno = 0;
	x = v ? strtol(v, &end, 10) : 0;
	if (!v || errno || *end || x < lo || x > hi) {
		fprintf(stderr, "signal_return: %s wants an integer in "
			"%d..%d, got '%s'\n", opt, lo, hi, v ? v : "");
		exit(2);
	}
	return (int)x;
}

int main(int argc, char **argv)
{
	int rounds = 20, hold_ms = 20, i, bad = 0;
	struct sigaction sa;
	size_t c;

	for (i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--rounds")) {
			rounds = arg_int("--rounds", v, 1, MAX_ROUNDS);
			i++;
		} else if (!strcmp(argv[i], "--hold-ms")) {
			hold_ms = arg_int("--hold-ms", v, 1, 10000);
			i++;
		} else {
			fprintf(stderr, "signal_return: unknown argument "
				"'%s' (--rounds N, --hold-ms H)\n", argv[i]);
			return 2;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;	/* no SA_RESTART */
	sigaction(SIGUSR1, &sa, NULL);
	printf("# signal_return: %d rounds, the owner unlocks %d ms after "
	       "the signal; times in us from the signal to the return\n",
	       rounds, hold_ms);
	printf("| case | the waiter returns | rounds | median | min | max |\n");
	printf("|---|---|---|---|---|---|\n");
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		bad |= run_case(&cases[c], rounds, (uint64_t)hold_ms * MS);
	return bad ? 1 : 0;
}
