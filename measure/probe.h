/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What this machine is and which futex features its kernel has, probed at
 * run time (never assumed from the kernel version): for `futexlab list`,
 * for every run's meta.json, and for the backends' probes.
 */
#ifndef FUTEXLAB_PROBE_H
#define FUTEXLAB_PROBE_H

#include <stddef.h>

#include "backends/kernel_probe.h"
#include "base/machine.h"

void fl_probe_machine(struct fl_machine *m);
void fl_probe_rerun_facts(struct fl_rerun_facts *f);
/* The first line of a file without its newline, or fallback. */
void fl_probe_read_line(const char *path, char *buf, size_t len,
			const char *fallback);

#endif
