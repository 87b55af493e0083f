/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the conformance suite's files share (conformance.c has the story):
 * the backend under test, its futex words, the case skip rule, and each
 * family's table of cases. Every file of the suite is compiled once per
 * backend with the backend's header force-included.
 */
#ifndef FUTEXLAB_CONFORMANCE_H
#define FUTEXLAB_CONFORMANCE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spec/workload.h"
#include "tests/conformance/waiters.h"

#define FUTEX_TID_BITS		0x3fffffffu	/* FUTEX_TID_MASK */
#define FUTEX_WAITERS_BIT	0x80000000u	/* FUTEX_WAITERS */
#define ALL			INT_MAX

extern const struct fl_backend *backend;
extern uint32_t caps;
extern void *page;		/* the futex words, of the backend's kind */
extern size_t page_size;
extern volatile sig_atomic_t signals_seen;	/* handler runs */
#define SIG_NORESTART	SIGUSR1	/* its handler has no SA_RESTART */
#define SIG_RESTART	SIGUSR2	/* its handler has SA_RESTART */

/* The words a case uses: two, on different cache lines. */
uint32_t *word_a(void);
uint32_t *word_b(void);
/* "-EAGAIN" for -11, "3" for 3: what a futex operation returned. */
const char *ret_name(int r);
struct timespec in_ns(uint64_t ns);
/* Skip the case unless the backend runs here and has every cap in need. */
void require(uint32_t need);
/* Wait until signals_seen moved past @before (a handler ran). */
void wait_handled(sig_atomic_t before);

/* An operation's result, with errno names in the failure message. */
#define assert_ret(expr, want) do { \
	int got_ = (expr), want_ = (want); \
	if (got_ != want_) \
		fail_msg("%s returned %s, expected %s", #expr, \
			 ret_name(got_), ret_name(want_)); \
} while (0)

int case_setup(void **state);
int case_teardown(void **state);
#define CASE(fn) cmocka_unit_test_setup_teardown(fn, case_setup, \
						 case_teardown)

/* Each family's cases (cases_<family>.c), run in this order. */
#define FL_CONFORMANCE_FAMILY(f) \
	extern const struct CMUnitTest f##_cases[]; \
	extern const size_t f##_ncases
FL_CONFORMANCE_FAMILY(wait);
FL_CONFORMANCE_FAMILY(requeue);
FL_CONFORMANCE_FAMILY(pi);
FL_CONFORMANCE_FAMILY(waitv);

#endif
