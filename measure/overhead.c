// SPDX-License-Identifier: GPL-2.0
/* Measuring the harness's own overhead (best of several trials), the
 * counting's included. */
#include "measure/overhead.h"

#include <stdlib.h>

#include "measure/busy_loop.h"
#include "measure/counters.h"
#include "spec/workload.h"

#define TRIALS 5
#define N 200000

static double per_op(uint64_t t0, uint64_t t1)
{
	return (double)(t1 - t0) / N;
}

void fl_measure_overhead(struct fl_overhead *o)
{
	struct fl_thread *t = aligned_alloc(FL_CACHELINE, sizeof(*t));
	struct fl_rep *rep = aligned_alloc(FL_CACHELINE, sizeof(*rep));
	struct fl_hist *h = malloc(sizeof(*h));
	double best_clock = 1e9, best_iter = 1e9, best_hist = 1e9;
	volatile uint64_t sink = 0;

	o->busy_loops_per_us = fl_calibrate_busy();
	fl_counters_probe(&o->counting);
	if (!t || !rep || !h)
		goto out;
	atomic_init(&rep->stop, 0);
	t->ops = 0;
	fl_hist_init(h);
	for (int trial = 0; trial < TRIALS; trial++) {
		uint64_t t0 = fl_now_ns();

		for (int i = 0; i < N; i++)
			sink += fl_now_ns();
		uint64_t t1 = fl_now_ns();

		if (per_op(t0, t1) < best_clock)
			best_clock = per_op(t0, t1);

		/* the skeleton of every measured loop, with nothing in it */
		t0 = fl_now_ns();
		for (int i = 0; i < N && !fl_should_stop(rep); i++) {
			t->ops++;
			__asm__ __volatile__("" ::: "memory");
		}
		t1 = fl_now_ns();
		if (per_op(t0, t1) < best_iter)
			best_iter = per_op(t0, t1);

		t0 = fl_now_ns();
		for (int i = 0; i < N; i++)
			fl_hist_record(h, (uint64_t)i * 37u);
		t1 = fl_now_ns();
		if (per_op(t0, t1) < best_hist)
			best_hist = per_op(t0, t1);
	}
	(void)sink;
out:
	o->clock_read_ns = best_clock;
	o->empty_iteration_ns = best_iter;
	o->hist_record_ns = best_hist;
	free(t);
	free(rep);
	free(h);
}
