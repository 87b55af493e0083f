/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Statistics across repetitions and threads.
 *
 * A cell's figure is the median of its repetitions; its spread is the
 * relative range (max - min) / median across repetitions, not a standard
 * error across threads (threads of one run are not independent samples).
 * A cell is noisy when that spread exceeds FL_NOISY_SPREAD: with 3
 * repetitions a 10% range already means one run differs from another by
 * more than most effects worth reporting.
 */
#ifndef FUTEXLAB_STATS_H
#define FUTEXLAB_STATS_H

#include <stddef.h>
#include <stdint.h>

#define FL_NOISY_SPREAD 0.10

double fl_median(const double *v, size_t n);
/* (max - min) / median; 0 for fewer than two values or a zero median */
double fl_spread(const double *v, size_t n);
/* Jain's fairness index: (sum x)^2 / (n * sum x^2), 1 = perfectly fair */
double fl_jain(const uint64_t *x, size_t n);
int fl_is_noisy(double spread);

#endif
