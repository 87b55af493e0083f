// SPDX-License-Identifier: GPL-2.0
/*
 * The median of numbers read from stdin with its distribution-free 95%
 * interval, by the same code as a cell's figure (stats/stats.c,
 * fl_median_ci), for scripts such as tools/fidelity.py that must report
 * intervals the way futexlab does rather than by a copy of their own.
 *
 *   median-ci < values        (whitespace-separated, at most 1000)
 * prints "MEDIAN LO HI COVERAGE N", or "MEDIAN n/a n/a n/a N" below six
 * values, where no 95% order-statistic interval exists. Exit 2 on input
 * that is not numbers, or none.
 */
#include <stdio.h>

#include "stats/stats.h"

int main(void)
{
	static double v[FL_STATS_MAX_N];
	struct fl_ci ci;
	size_t n = 0;
	int r = 0;

	while (n < FL_STATS_MAX_N && (r = scanf("%lf", &v[n])) == 1)
		n++;
	if (n == FL_STATS_MAX_N)
		r = scanf("%*s");
	if (r != EOF || n == 0) {
		fprintf(stderr, "median-ci: expected up to %d numbers on "
			"stdin\n", FL_STATS_MAX_N);
		return 2;
	}
	if (fl_median_ci(v, n, FL_CONFIDENCE, &ci))
		printf("%.17g n/a n/a n/a %zu\n", ci.mid, n);
	else
		printf("%.17g %.17g %.17g %.6f %zu\n", ci.mid, ci.lo, ci.hi,
		       ci.coverage, n);
	return 0;
}
