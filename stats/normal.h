/* SPDX-License-Identifier: GPL-2.0 */
/* The standard normal distribution's quantile, for the rank tests'
 * normal approximations (stats/shift.c, stats/paired.c). */
#ifndef FUTEXLAB_NORMAL_H
#define FUTEXLAB_NORMAL_H

/* z such that P(|Z| <= z) = conf: 1.959964 for 0.95. */
double fl_normal_z(double conf);

#endif
