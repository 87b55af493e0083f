/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which futex features the running kernel has, probed at run time (never
 * assumed from the kernel version): for the backends' probes and set-up,
 * for `futexlab list` and for every run's meta.json.
 */
#ifndef FUTEXLAB_KERNEL_PROBE_H
#define FUTEXLAB_KERNEL_PROBE_H

#include <stddef.h>

int fl_probe_futex2(void);
int fl_probe_futex2_numa(void);
int fl_probe_lock_pi2(void);
/* The private hash's slot count (6.16+), or -1 when the prctl is absent. */
long fl_probe_hash_slots(void);
/* Set this process's private hash size: 0 = global table. */
int fl_probe_set_hash_slots(long slots, char *why, size_t len);

#define FL_PR_FUTEX_HASH		78
#define FL_PR_FUTEX_HASH_SET_SLOTS	1
#define FL_PR_FUTEX_HASH_GET_SLOTS	2

#endif
