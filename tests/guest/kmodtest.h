/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmodtest's one shared surface: the harness (kmodtest_harness.c) that
 * every test family uses, and the test functions the driver (kmodtest.c)
 * lists. A test returns 0 on success, or calls fail() to say why and
 * returns -1; report() prints the PASS/FAIL line and counts failures.
 */
#ifndef FUTEXLAB_KMODTEST_H
#define FUTEXLAB_KMODTEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../kmod/uapi/futexlab.h"

#define DEV "/dev/futexlab"
#define SEC	1000000000ull
#define MS	1000000ull

/* ------------------------------------------------------------ reporting */
extern int failures;		/* FAIL lines printed so far */
extern int stress_seconds;	/* --stress-seconds (kmodtest_stress.c) */

/* Say why the running test fails: printf-like, printed by report(). */
void fail(const char *fmt, ...);
/* Print "PASS name[/design]" or "FAIL name[/design]: why" for result @r. */
void report(const char *name, const char *design, int r);

/* Compare @expr with errno @err; on a difference fail() and goto out. */
#define EXPECT(expr, err, what) do {					\
	int _r = (expr);						\
	if (_r != (err)) {						\
		fail("%s: got %d (%s), want %d", what, _r,		\
		     _r < 0 ? strerror(-_r) : "ok", err);		\
		goto out;						\
	}								\
} while (0)

/* ------------------------------------------------------------ the device */
uint64_t now_ns(void);
/* the first line of a file into buf: 0, or -1 (unreadable or empty) */
int read_first_line(const char *path, char *buf, size_t len);
/* /sys/module/futexlab/parameters/NAME: read (-1: unreadable), write */
long module_param_read(const char *name);
int module_param_write(const char *name, long v);
const char *design_name(uint32_t d);
/* ioctl() returning -errno on failure */
int xioctl(int fd, unsigned long cmd, void *arg);
/* A new file on DEV with @design and @slots set, or -errno. */
int open_design(uint32_t design, uint32_t slots);
/* One typed wrapper per ioctl; a @deadline of 0 means none. */
int k_wait(int fd, uint32_t *w, uint32_t val, uint64_t deadline,
	   uint32_t bitset, uint32_t flags);
int k_wake(int fd, uint32_t *w, int nr, uint32_t bitset, uint32_t flags);
int k_requeue(int fd, uint32_t *w, uint32_t *w2, int nr_wake,
	      int nr_requeue, uint32_t val);
int k_pi(int fd, unsigned long cmd, uint32_t *w, uint64_t deadline);
int k_stats(int fd, struct futexlab_stats *s, uint64_t *counts, uint32_t n);
/* 0 if no waiter is left queued in @fd's tables, else fail saying when. */
int check_no_waiters(int fd, const char *when);

/* ------------------------------------------------------------ sleepers */
/* Wait until thread tid sleeps (state S), at most 5 s. */
int wait_sleeping(pid_t tid);
/* Start @fn(@arg), which stores its TID in *@tid, and wait until it sleeps. */
int start_sleeper(pthread_t *th, void *(*fn)(void *), void *arg,
		  _Atomic pid_t *tid);

/* A thread blocked in one wait: waiter_main, or rqpi_waiter with @w2. */
struct waiter {
	pthread_t th;
	int fd;
	uint32_t *w;
	uint32_t *w2;
	uint32_t val;
	uint32_t bitset;
	uint64_t deadline;
	_Atomic pid_t tid;
	_Atomic int ret;
	_Atomic int done;
};

/* A waiter on @w (value @val, @bitset or 0 for any), asleep on return. */
int start_waiter(struct waiter *wt, int fd, uint32_t *w, uint32_t val,
		 uint32_t bitset);
/* Join the waiter: what its wait returned. */
int join_waiter(struct waiter *wt);
/* Three waiters on @w, each asleep before the next starts. */
int start_three(struct waiter wt[3], int fd, uint32_t *w, uint32_t val);
/* Join the three waiters: non-zero if one of them returned non-zero. */
int join_three(struct waiter wt[3]);
/* SIGUSR1 without SA_RESTART: the wait it interrupts ends. */
void catch_usr1(void);

/* ------------------------------------------------------------ children */
/* How many of the @n processes in @kids are asleep. */
int count_sleeping(const pid_t *kids, int n);
/* SIGKILL the @n processes in @kids and reap them. */
void kill_and_reap(const pid_t *kids, int n);

/* ------------------------------------------------------------ scheduling */
/* struct sched_attr as sched_getattr(2) fills it (no libc wrapper) */
struct sched_attr_k {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
	uint32_t util_min, util_max;
};

#ifndef SCHED_FLAG_RESET_ON_FORK
#define SCHED_FLAG_RESET_ON_FORK	0x01
#endif
#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE	6
#endif

/* sched_getattr(2) of thread @tid (0: the caller) into *@a */
int get_attr(pid_t tid, struct sched_attr_k *a);
/* sched_setscheduler(2): SCHED_FIFO @prio, or SCHED_OTHER for 0 */
int set_fifo(pid_t tid, int prio);
/* sched_setattr(2) with @policy, @prio and @flags (DEADLINE: 2/10/10 ms) */
int set_attr(pid_t tid, uint32_t policy, uint32_t prio, uint64_t flags);
/* Wait until the FIFO priority of @tid is @prio (0: SCHED_OTHER), 5 s at
 * most: 0, or -1 */
int wait_fifo(pid_t tid, int prio);

/* ------------------------------------------------------------ users */
#define NOBODY	65534
/* As uid 65534 in a user and mount namespace of its own: 0, or -1 with
 * the reason printed */
int become_userns_nobody(void);

/* ------------------------------------------------------------ tests */
/* kmodtest_wait.c: run once per design */
int t_wait_wake(uint32_t design);
int t_timeout(uint32_t design);
int t_bitset(uint32_t design);
int t_requeue(uint32_t design);
int t_eintr(uint32_t design);
int t_shared(uint32_t design);
int t_numa_node(void);
int t_plain_word(uint32_t design);
/* kmodtest_waitv.c: run once per design */
int t_waitv_wake(uint32_t design);
int t_waitv_eagain(uint32_t design);
int t_waitv_timeout(uint32_t design);
int t_waitv_eintr(uint32_t design);
int t_waitv_bad_input(uint32_t design);
/* kmodtest_adaptive.c: run once per design */
int t_adaptive_mutex(uint32_t design);
int t_adaptive_owner_sleeps(uint32_t design);
int t_adaptive_deadline(uint32_t design);
int t_adaptive_signal(uint32_t design);
int t_adaptive_dead_owner(uint32_t design);
int t_adaptive_bad_input(uint32_t design);
/* kmodtest_bad_input.c */
int t_bad_input(void);
/* kmodtest_kill9.c */
int t_kill9(void);
int t_kill9_pi(void);
/* kmodtest_pi.c: run once per design */
int t_pi(uint32_t design);
int t_pi_cow(uint32_t design);
int t_requeue_pi(uint32_t design);
/* kmodtest_pi_chain.c: run once per design */
int t_pi_chain(uint32_t design);
int t_pi_cycle(uint32_t design);
int t_pi_chain_limit(uint32_t design);
int t_pi_chain_timeout(uint32_t design);
int t_pi_chain_rights(uint32_t design);
int t_pi_chain_relock(uint32_t design);
int t_pi_chain_files_global(void);
int t_pi_chain_files_numa(void);
/* kmodtest_stress.c: run once per design */
int t_stress(uint32_t design);
int t_pi_stress(uint32_t design);

/* kmodtest_safety.c: the security review's findings, one test each */
int t_dead_owner(void);
int t_pi_kthread(uint32_t design);
int t_pi_other_user(uint32_t design);
int t_pi_rlimit(uint32_t design);
int t_pi_reset_on_fork(uint32_t design);
int t_shared_alias(uint32_t design);
int t_numa_move(void);
int t_stats_huge(uint32_t design);
int t_table_cap(void);
int t_pi_live_prio(uint32_t design);
int t_pi_dl_waiter(uint32_t design);
int t_pi_free_take(uint32_t design);
int t_requeue_pi_alias(uint32_t design);
/* kmodtest_owner_death.c: a PI owner dies holding the lock */
int t_pi_owner_exit(uint32_t design);
int t_pi_owner_kill(uint32_t design);
int t_pi_owner_two(uint32_t design);
int t_requeue_pi_owner_exit(uint32_t design);
/* kmodtest_unmount.c: a shared waiter's filesystem unmounted under it */
int t_shared_unmount(uint32_t design);
int t_shared_unmount_userns(uint32_t design);
/* kmodtest_boost_end.c: what a PI owner holds once its boosts ended */
int t_pi_two_locks_12(uint32_t design);
int t_pi_two_locks_21(uint32_t design);
int t_pi_boost_setscheduler(uint32_t design);
int t_pi_boost_own_choice(uint32_t design);
/* kmodtest_tid_rights.c: a word names only tasks the caller may signal */
int t_tid_rights(uint32_t design);
/* kmodtest_pi_not_owner.c: a word's writer is not the lock's owner */
int t_pi_not_owner_unlock(uint32_t design);
int t_pi_not_owner_unlock_same_uid(uint32_t design);
int t_pi_not_owner_take(uint32_t design);
int t_pi_not_owner_take_same_uid(uint32_t design);
int t_pi_not_owner_requeue(uint32_t design);
int t_pi_not_owner_requeue_same_uid(uint32_t design);
int t_pi_not_owner_leave(uint32_t design);
int t_pi_not_owner_leave_same_uid(uint32_t design);
int t_pi_not_owner_exit(uint32_t design);
int t_pi_not_owner_exit_same_uid(uint32_t design);
int t_pi_not_owner_adaptive(uint32_t design);
int t_pi_not_owner_adaptive_same_uid(uint32_t design);
/* kmodtest_fuzz.c: the seeded random-operation fuzzer */
extern unsigned long fuzz_ops, fuzz_seed;
extern unsigned int fuzz_seconds;
int t_fuzz(uint32_t design);

#endif /* FUTEXLAB_KMODTEST_H */
