// SPDX-License-Identifier: GPL-2.0
/* The two-sided normal quantile. */
#include "stats/normal.h"

#include <math.h>

/* by bisection on erfc: exact enough, and no table to get wrong */
double fl_normal_z(double conf)
{
	double lo = 0.0, hi = 10.0;

	for (int i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;

		if (erfc(mid / M_SQRT2) > 1.0 - conf)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}
