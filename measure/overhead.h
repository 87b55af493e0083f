/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The harness's own cost, measured at the start of every run and stored in
 * meta.json: a clock read, an empty iteration of a measured loop (the stop
 * check and the per-thread counter), and one histogram record. A latency
 * figure near these numbers measures the harness, not the futex.
 */
#ifndef FUTEXLAB_OVERHEAD_H
#define FUTEXLAB_OVERHEAD_H

#include "base/machine.h"

void fl_measure_overhead(struct fl_overhead *o);

#endif
