// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest: the futexlab module's tests that only make sense in a guest
 * with the module loaded (run by tests/guest/run-all.sh under vm/run).
 *
 *   kmodtest [--stress-seconds N] [--seed S] [--fuzz-ops N]
 *            [--fuzz-seconds N] [TEST...]       (default: every test)
 *   kmodtest --list
 *   kmodtest --op-smoke      (one failing wait: used by the load cycles)
 *
 * Each test prints "PASS name" or "FAIL name: why"; the exit status is the
 * number of failures (capped at 100). Like ntsync's selftest, the error
 * paths check the exact errno, with argument buffers prefilled.
 */
#include "kmodtest.h"
#include "kmodtest_intr.h"

static const uint32_t designs[] = {
	FUTEXLAB_DESIGN_GLOBAL, FUTEXLAB_DESIGN_PRIVATE, FUTEXLAB_DESIGN_NUMA,
};

struct test {
	const char *name;
	int (*fn)(uint32_t design);
	int per_design;
	int (*fn0)(void);
};

static const struct test tests[] = {
	{ "wait-wake", t_wait_wake, 1, NULL },
	{ "timeout", t_timeout, 1, NULL },
	{ "bitset", t_bitset, 1, NULL },
	{ "requeue", t_requeue, 1, NULL },
	{ "eintr", t_eintr, 1, NULL },
	{ "shared-key", t_shared, 1, NULL },
	{ "bad-input", NULL, 0, t_bad_input },
	{ "numa-node", NULL, 0, t_numa_node },
	{ "plain-word", t_plain_word, 1, NULL },
	{ "waitv-wake", t_waitv_wake, 1, NULL },
	{ "waitv-eagain", t_waitv_eagain, 1, NULL },
	{ "waitv-timeout", t_waitv_timeout, 1, NULL },
	{ "waitv-eintr", t_waitv_eintr, 1, NULL },
	{ "waitv-bad-input", t_waitv_bad_input, 1, NULL },
	{ "adaptive-mutex", t_adaptive_mutex, 1, NULL },
	{ "adaptive-owner-sleeps", t_adaptive_owner_sleeps, 1, NULL },
	{ "adaptive-deadline", t_adaptive_deadline, 1, NULL },
	{ "adaptive-signal", t_adaptive_signal, 1, NULL },
	{ "adaptive-dead-owner", t_adaptive_dead_owner, 1, NULL },
	{ "adaptive-bad-input", t_adaptive_bad_input, 1, NULL },
	{ "kill9", NULL, 0, t_kill9 },
	{ "kill9-pi", NULL, 0, t_kill9_pi },
	{ "pi-boost", t_pi, 1, NULL },
	{ "pi-cow", t_pi_cow, 1, NULL },
	{ "requeue-pi", t_requeue_pi, 1, NULL },
	{ "pi-chain", t_pi_chain, 1, NULL },
	{ "pi-cycle", t_pi_cycle, 1, NULL },
	{ "pi-chain-limit", t_pi_chain_limit, 1, NULL },
	{ "pi-chain-timeout", t_pi_chain_timeout, 1, NULL },
	{ "pi-chain-rights", t_pi_chain_rights, 1, NULL },
	{ "pi-chain-relock", t_pi_chain_relock, 1, NULL },
	{ "pi-chain-files-global", NULL, 0, t_pi_chain_files_global },
	{ "pi-chain-files-numa", NULL, 0, t_pi_chain_files_numa },
	{ "stress", t_stress, 1, NULL },
	{ "pi-stress", t_pi_stress, 1, NULL },
	{ "pi-kthread", t_pi_kthread, 1, NULL },
	{ "pi-other-user", t_pi_other_user, 1, NULL },
	{ "pi-rlimit", t_pi_rlimit, 1, NULL },
	{ "pi-reset-on-fork", t_pi_reset_on_fork, 1, NULL },
	{ "shared-alias", t_shared_alias, 1, NULL },
	{ "numa-move", NULL, 0, t_numa_move },
	{ "stats-huge", t_stats_huge, 1, NULL },
	{ "table-cap", NULL, 0, t_table_cap },
	{ "pi-live-prio", t_pi_live_prio, 1, NULL },
	{ "pi-dl-waiter", t_pi_dl_waiter, 1, NULL },
	{ "pi-free-take", t_pi_free_take, 1, NULL },
	{ "requeue-pi-alias", t_requeue_pi_alias, 1, NULL },
	{ "pi-owner-exit", t_pi_owner_exit, 1, NULL },
	{ "pi-owner-kill", t_pi_owner_kill, 1, NULL },
	{ "pi-owner-two", t_pi_owner_two, 1, NULL },
	{ "requeue-pi-owner-exit", t_requeue_pi_owner_exit, 1, NULL },
	{ "shared-unmount", t_shared_unmount, 1, NULL },
	{ "shared-unmount-userns", t_shared_unmount_userns, 1, NULL },
	{ "pi-two-locks-12", t_pi_two_locks_12, 1, NULL },
	{ "pi-two-locks-21", t_pi_two_locks_21, 1, NULL },
	{ "pi-boost-setscheduler", t_pi_boost_setscheduler, 1, NULL },
	{ "pi-boost-own-choice", t_pi_boost_own_choice, 1, NULL },
	{ "tid-rights", t_tid_rights, 1, NULL },
	{ "pi-not-owner-unlock", t_pi_not_owner_unlock, 1, NULL },
	{ "pi-not-owner-unlock-same-uid", t_pi_not_owner_unlock_same_uid, 1, NULL },
	{ "pi-not-owner-take", t_pi_not_owner_take, 1, NULL },
	{ "pi-not-owner-take-same-uid", t_pi_not_owner_take_same_uid, 1, NULL },
	{ "pi-not-owner-requeue", t_pi_not_owner_requeue, 1, NULL },
	{ "pi-not-owner-requeue-same-uid", t_pi_not_owner_requeue_same_uid, 1, NULL },
	{ "pi-not-owner-leave", t_pi_not_owner_leave, 1, NULL },
	{ "pi-not-owner-leave-same-uid", t_pi_not_owner_leave_same_uid, 1, NULL },
	{ "pi-not-owner-exit", t_pi_not_owner_exit, 1, NULL },
	{ "pi-not-owner-exit-same-uid", t_pi_not_owner_exit_same_uid, 1, NULL },
	{ "pi-not-owner-adaptive", t_pi_not_owner_adaptive, 1, NULL },
	{ "pi-not-owner-adaptive-same-uid", t_pi_not_owner_adaptive_same_uid, 1, NULL },
	{ "intr-wait", t_intr_wait, 1, NULL },
	{ "intr-lock-pi", t_intr_lock_pi, 1, NULL },
	{ "intr-requeue-pi", t_intr_requeue_pi, 1, NULL },
	{ "intr-adaptive", t_intr_adaptive, 1, NULL },
	{ "intr-waitv", t_intr_waitv, 1, NULL },
	{ "intr-stock", NULL, 0, t_intr_stock },
	{ "intr-refused", t_intr_refused, 1, NULL },
	{ "intr-storm", t_intr_storm, 1, NULL },
	{ "intr-wake-race", t_intr_wake_race, 1, NULL },
	{ "fuzz", t_fuzz, 1, NULL },
	{ "dead-owner", NULL, 0, t_dead_owner },
};

static int selected(const char *name, int argc, char **argv, int first)
{
	int i;

	if (first >= argc)
		return 1;
	for (i = first; i < argc; i++)
		if (!strcmp(argv[i], name))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	int first = 1;
	size_t i, j;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (first < argc && !strncmp(argv[first], "--", 2)) {
		if (!strcmp(argv[first], "--list")) {
			for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
				printf("%s\n", tests[i].name);
			return 0;
		}
		if (!strcmp(argv[first], "--op-smoke")) {
			uint32_t w[2] = { 1, FUTEXLAB_NO_NODE };
			int fd = open_design(FUTEXLAB_DESIGN_PRIVATE, 64), r;

			if (fd < 0)
				return 1;
			r = k_wait(fd, w, 2, 0, ~0u, 0);
			close(fd);
			return r == -EAGAIN ? 0 : 1;
		}
		if (!strcmp(argv[first], "--stress-seconds") &&
		    first + 1 < argc) {
			stress_seconds = atoi(argv[first + 1]);
			first += 2;
			continue;
		}
		if (!strcmp(argv[first], "--seed") && first + 1 < argc) {
			fuzz_seed = strtoul(argv[first + 1], NULL, 0);
			first += 2;
			continue;
		}
		if (!strcmp(argv[first], "--fuzz-ops") && first + 1 < argc) {
			fuzz_ops = strtoul(argv[first + 1], NULL, 0);
			first += 2;
			continue;
		}
		if (!strcmp(argv[first], "--fuzz-seconds") &&
		    first + 1 < argc) {
			fuzz_seconds = (unsigned int)atoi(argv[first + 1]);
			first += 2;
			continue;
		}
		fprintf(stderr, "kmodtest: unknown option %s\n", argv[first]);
		return 100;
	}
	if (access(DEV, F_OK)) {
		printf("FAIL setup: %s missing (module not loaded)\n", DEV);
		return 1;
	}
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		const struct test *t = &tests[i];

		if (!selected(t->name, argc, argv, first))
			continue;
		if (!t->per_design) {
			report(t->name, NULL, t->fn0());
			continue;
		}
		for (j = 0; j < 3; j++)
			report(t->name, design_name(designs[j]),
			       t->fn(designs[j]));
	}
	return failures > 100 ? 100 : failures;
}
