/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FUTEXLAB_TESTS_INTERPOSE_CONFORM_H
#define FUTEXLAB_TESTS_INTERPOSE_CONFORM_H

#include <pthread.h>
#include <time.h>

#define OUTCOME_LEN	1024

/* one case: its pthread calls' results, written into out */
struct conform_case {
	const char *name;
	void (*run)(char *out);
};

extern const struct conform_case conform_cases[];	/* NULL-ended */

/* cases.c's helpers, which cases_fork.c's cases share */

/* printf to the end of an outcome line */
void add(char *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* ms from now on clock */
struct timespec in_ms(clockid_t clock, long ms);
void init_type(pthread_mutex_t *m, int type, int protocol);
void each_kind(void (*one)(pthread_mutex_t *m, int type, char *out),
	       char *out);

/* a thread holding m for a case: it writes fd[1] once it holds m, and
 * reads fd[0] before it goes on */
struct holder {
	pthread_mutex_t *m;
	int fd[2];
};

/* cases_fork.c: fork(), a PI owner elsewhere or gone, destroy */
void fork_held(char *out);
void fork_pi_live_owner(char *out);
void pi_dead_owner(char *out);
void destroyed(char *out);

#endif
