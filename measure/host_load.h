/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How busy the machine was with other work while a matrix ran: the share
 * of all CPUs' time (from /proc/stat, steal included) that went neither
 * to this process and its cell children nor to idle. Recorded in
 * meta.json as foreign_cpu_share, shown by the report and warned about by
 * compare: on a shared machine another user's load is what widens the
 * spreads and moves one run against another.
 */
#ifndef FUTEXLAB_HOST_LOAD_H
#define FUTEXLAB_HOST_LOAD_H

#include <stdint.h>

struct fl_host_load {
	uint64_t busy, total;		/* /proc/stat ticks, all CPUs */
	double own_s;			/* our CPU time, children included */
	int ok;
};

void fl_host_load_start(struct fl_host_load *b);
/* Share (0..1) of the machine's CPU time used by other processes since
 * fl_host_load_start(), or -1 when /proc/stat cannot be read. */
double fl_host_load_foreign_share(const struct fl_host_load *b);

#endif
