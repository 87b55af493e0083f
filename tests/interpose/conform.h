/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FUTEXLAB_TESTS_INTERPOSE_CONFORM_H
#define FUTEXLAB_TESTS_INTERPOSE_CONFORM_H

#define OUTCOME_LEN	1024

/* one case: its pthread calls' results, written into out */
struct conform_case {
	const char *name;
	void (*run)(char *out);
};

extern const struct conform_case conform_cases[];	/* NULL-ended */

#endif
