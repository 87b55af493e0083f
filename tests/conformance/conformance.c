// SPDX-License-Identifier: GPL-2.0
/*
 * The conformance suite: the futex semantics the kernel's own selftests
 * pin down (tools/testing/selftests/futex), checked against one backend.
 * configure.py compiles this file once per backend with the backend's
 * header force-included, so fl_wait() and friends below are that
 * backend's operations, exactly as the workloads see them; the binary is
 * build/tests/conformance-<backend>.
 *
 * Every case runs against every backend: a case whose capability the
 * backend does not declare is skipped with that reason, and when the
 * backend's probe fails on this machine (futex2 on an old kernel, kmod-*
 * without /dev/futexlab) every case is skipped with the probe's reason.
 * With --require (tests/run.py passes it for every backend that `futexlab
 * list` calls available, the guest script for the module's designs) an
 * unusable backend fails every case instead: a suite that skipped all its
 * cases must not pass where the backend should have run.
 * Every wait has a deadline and every helper thread is joined with one
 * (waiters.c), so a broken backend fails a case instead of hanging.
 * Helpers are known to be blocked because /proc shows them asleep, never
 * because the test slept a while. No case asserts anything about timing
 * beyond "a timeout did not return before its deadline".
 *
 * This file holds the set-up and the runner; the cases live in one file
 * per family (cases_wait.c, cases_requeue.c, cases_pi.c, cases_waitv.c)
 * and the helper threads in waiters.c.
 */
#include "tests/conformance/conformance.h"

const struct fl_backend *backend;
uint32_t caps;
static char unusable[300];	/* set when the probe fails: skip all */
static int required;		/* --require: unusable fails instead */
static char setup_error[300];	/* set when setup fails: fail all */
void *page;
size_t page_size;
volatile sig_atomic_t signals_seen;

/* The words a case uses: two, on different cache lines. */
uint32_t *word_a(void)
{
	return fl_word_at(page, 0);
}

uint32_t *word_b(void)
{
	return fl_word_at(page, 64 / FL_WORD_BYTES);
}

/* "-EAGAIN" for -11, "3" for 3: what a futex operation returned. */
const char *ret_name(int r)
{
	static char bufs[4][32];
	static unsigned int next;
	char *b = bufs[next++ % 4];
	const char *name = r < 0 ? strerrorname_np(-r) : NULL;

	if (name)
		snprintf(b, sizeof(bufs[0]), "-%s", name);
	else
		snprintf(b, sizeof(bufs[0]), "%d", r);
	return b;
}

struct timespec in_ns(uint64_t ns)
{
	return fl_ns_to_ts(fl_now_ns() + ns);
}

static void on_signal(int sig)
{
	(void)sig;
	signals_seen++;
}

void wait_handled(sig_atomic_t before)
{
	const struct timespec pause = { .tv_sec = 0, .tv_nsec = 100000 };
	uint64_t limit = deadline_in(WAIT_LIMIT_NS);

	while (signals_seen == before) {
		if (fl_now_ns() > limit)
			fail_msg("the signal's handler did not run");
		nanosleep(&pause, NULL);
	}
}

/* Skip the case unless the backend runs here and has every cap in need. */
void require(uint32_t need)
{
	if (setup_error[0])
		fail_msg("%s", setup_error);
	if (unusable[0] && required)
		fail_msg("%s, and --require says it must run", unusable);
	if (unusable[0]) {
		print_message("# skip: %s\n", unusable);
		skip();
	}
	if (need & ~caps) {
		char missing[256];

		fl_caps_format(need & ~caps, missing, sizeof(missing));
		print_message("# skip: %s lacks the capabilities: %s\n",
			      FL_BACKEND_NAME, missing);
		skip();
	}
}

static int group_setup(void **state)
{
	struct sigaction sa;
	char why[256] = "";

	(void)state;
	backend = fl_backend_find(FL_BACKEND_NAME);
	if (!backend) {
		snprintf(setup_error, sizeof(setup_error),
			 "no backend named %s in the registry",
			 FL_BACKEND_NAME);
		return 0;
	}
	caps = backend->caps();
	if (backend->probe(why, sizeof(why))) {
		snprintf(unusable, sizeof(unusable),
			 "%s is not usable here: %s", FL_BACKEND_NAME, why);
		return 0;
	}
	if (backend->setup(-1, why, sizeof(why))) {
		snprintf(setup_error, sizeof(setup_error),
			 "%s setup failed: %s", FL_BACKEND_NAME, why);
		return 0;
	}
	page_size = (size_t)sysconf(_SC_PAGESIZE);
	page = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		    (backend->mem == FL_MEM_SHARED ? MAP_SHARED : MAP_PRIVATE) |
		    MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		snprintf(setup_error, sizeof(setup_error), "mmap: %s",
			 strerror(errno));
		return 0;
	}
	/* no SA_RESTART: a signal must end a wait with EINTR */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	/* SA_RESTART: what the kernel restarts goes on waiting */
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR2, &sa, NULL);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	if (backend && !unusable[0] && !setup_error[0])
		backend->teardown();
	return 0;
}

int case_setup(void **state)
{
	(void)state;
	if (page && page != MAP_FAILED)
		fl_words_init(page, page_size / FL_WORD_BYTES, 0);
	return 0;
}

int case_teardown(void **state)
{
	(void)state;
	reap_waiters();
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const struct CMUnitTest *cases;
		const size_t *n;
	} families[] = {
		{ wait_cases, &wait_ncases },
		{ requeue_cases, &requeue_ncases },
		{ pi_cases, &pi_ncases },
		{ waitv_cases, &waitv_ncases },
	};
	struct CMUnitTest tests[64];
	size_t n = 0;

	if (argc == 2 && strcmp(argv[1], "--require") == 0) {
		required = 1;
	} else if (argc != 1) {
		fprintf(stderr, "usage: %s [--require]\n", argv[0]);
		return 2;
	}
	for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++)
		for (size_t i = 0; i < *families[f].n; i++) {
			if (n == sizeof(tests) / sizeof(tests[0])) {
				fprintf(stderr, "more cases than tests[]\n");
				return 2;
			}
			tests[n++] = families[f].cases[i];
		}
	return _cmocka_run_group_tests("conformance-" FL_BACKEND_NAME, tests,
				       n, group_setup, group_teardown);
}
