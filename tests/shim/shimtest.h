/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shim's test: each case makes futex system calls through libc's
 * syscall() and writes what they returned (values, errno names, woken
 * counts, lock words) as one line of text. test_shim.c runs every case
 * twice in fresh processes, once as it is (the stock futex) and once with
 * LD_PRELOAD=libfutexlab-shim.so on each module design, and expects the
 * same line; where the shim is documented to differ, the case says what
 * it must print instead, and why.
 */
#ifndef FUTEXLAB_SHIMTEST_H
#define FUTEXLAB_SHIMTEST_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define OUTCOME_LEN		512
#define CASE_DEVICE		1u	/* needs /dev/futexlab */

struct shim_case {
	const char *name;
	void (*run)(char *out);
	unsigned int flags;
	/* what the shim prints where it differs from stock, NULL if not */
	const char *shim_outcome;
	const char *why;
	/* text the shim must write to stderr exactly once, or NULL */
	const char *said_once;
	/* extra environment for the shim's run ("NAME=value"), or NULL */
	const char *env;
	/* decides instead of strcmp: 1 when the shim's outcome is right */
	int (*agrees)(const char *stock, const char *shim);
};

/* the case tables, each ended by an entry whose name is NULL */
extern const struct shim_case cases_checks[];
extern const struct shim_case cases_waitwake[];
extern const struct shim_case cases_waitv[];
extern const struct shim_case cases_pi[];
extern const struct shim_case cases_signals[];
extern const struct shim_case cases_process[];

/* run_case.c: every table, ended by NULL */
const struct shim_case *const *shim_case_tables(void);
/* run_case.c: one case in a fresh process; shim NULL for the stock run */
int run_case(const struct shim_case *c, const char *shim, const char *design,
	     char *out, size_t out_len, char *err, size_t err_len);
int case_main(const char *name);

/* helpers.c: the calls, through libc's syscall() like any program's */
long futex(uint32_t *uaddr, int op, uint32_t val, const void *timeout,
	   uint32_t *uaddr2, uint32_t val3);
long futex2_wait(void *uaddr, unsigned long val, unsigned long mask,
		 unsigned int flags, const struct timespec *timeout,
		 clockid_t clockid);
long futex2_wake(void *uaddr, unsigned long mask, int nr, unsigned int flags);
long futex2_requeue(void *waiters, unsigned int flags, int nr_wake,
		    int nr_requeue);
long futex_waitv(void *waiters, unsigned int nr, unsigned int flags,
		 const struct timespec *timeout, clockid_t clockid);

/* appends " name=R" to out, R the value or "-1 ENAME" (errno now) */
void record(char *out, const char *name, long r);
/* appends " name=TEXT", a printf format */
void note(char *out, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* a lock word relative to known threads: 0, "main", "w|WAITERS"... */
const char *word_text(uint32_t word, pid_t main_tid, pid_t other_tid,
		      char *buf);
/* now on clk plus ms (negative: in the past) */
struct timespec after_ms(clockid_t clk, long ms);
struct timespec interval_ms(long ms);

#define FUTEX2_SIZE_U32		0x02
#define FUTEX2_PRIVATE		128
#define FUTEX2_NUMA		0x04

/*
 * A thread that makes one blocking call: started, seen asleep in it
 * (state S once it said it is calling), joined; its return and errno
 * kept. fn makes the call with the fields it needs.
 */
struct waiter {
	pthread_t thread;
	_Atomic pid_t tid;
	_Atomic int calling;
	long (*fn)(struct waiter *w);
	uint32_t *word, *word2;
	uint32_t val, bitset;
	int op;
	struct timespec ts;
	const struct timespec *timeout;
	long ret;
	int err;
};

void waiter_start(struct waiter *w);
/* 0 once asleep in its call; -1 after 10 s or when it returned */
int waiter_asleep(struct waiter *w);
void waiter_join(struct waiter *w, char *out, const char *name);

/* waiter functions */
long wait_fn(struct waiter *w);		/* futex(word, op, val, timeout) */
long wait_bitset_fn(struct waiter *w);	/* ... with bitset as val3 */
long futex2_wait_fn(struct waiter *w);	/* futex2_wait(word, val, bitset) */
long lock_pi_fn(struct waiter *w);	/* futex(word, op) with timeout */
long wait_requeue_pi_fn(struct waiter *w);	/* word -> word2 */

/* the descriptors of /dev/futexlab this process holds, and the first */
int device_fds(int *first);
/* wakes until one waiter woke or 5 s passed; the last return */
long wake_until_one(uint32_t *word, int op);

#endif /* FUTEXLAB_SHIMTEST_H */
