// SPDX-License-Identifier: GPL-2.0
/*
 * Time axes in the unit their range reads in: ns, us, ms or s. Times are
 * ns in the run directory, and gnuplot's SI prefixes would label a pi
 * round's blocked time "9M ns"; a reader wants "9 ms". A linear axis
 * takes one unit, the largest its top value is at least one of, and the
 * plot divides by it; a logarithmic one spans decades, so each of its
 * tics is labelled in its own unit (100 ns, 1 us, 10 us).
 */
#include "plot/plot.h"

#include <math.h>
#include <string.h>

#include "plot/internal.h"

static const struct plot_unit units[] = {
	{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
};

const struct plot_unit *plot_time_unit(double ns)
{
	const struct plot_unit *u = &units[0];

	for (size_t i = 1; i < sizeof(units) / sizeof(*units); i++)
		if (ns >= units[i].ns)
			u = &units[i];
	return u;
}

int plot_is_time(const struct panel *p)
{
	size_t n = p->extra ? strlen(p->extra) : 0;

	return p->fig == F_P50 || p->fig == F_P99 || p->fig == F_P999 ||
	       p->fig == F_COST ||
	       (p->fig == F_EXTRA && n > 3 &&
		strcmp(p->extra + n - 3, "_ns") == 0);
}

void plot_widen(double *lo, double *hi, const struct fl_rd_fig *f)
{
	const double v[] = { f->med, f->lo, f->hi };

	for (size_t i = 0; i < sizeof(v) / sizeof(*v); i++) {
		if (!(v[i] > 0) || !isfinite(v[i]))
			continue;	/* nothing a log axis could show */
		*lo = v[i] < *lo ? v[i] : *lo;
		*hi = v[i] > *hi ? v[i] : *hi;
	}
}

void plot_scaled(char *buf, size_t len, unsigned int col, double div)
{
	if (div == 1)
		snprintf(buf, len, "%u", col);
	else
		snprintf(buf, len, "($%u/%g)", col, div);
}

/* Tics at 1, 2 and 5 times each power of ten from lo to hi ns where
 * they span fewer than three decades, else at each power, each labelled
 * in its own unit. */
static void log_tics(FILE *f, char axis, double lo, double hi)
{
	static const double steps[] = { 1, 2, 5 };
	int k0 = lo >= 1 ? (int)floor(log10(lo)) : 0;
	int k1 = hi >= 1 ? (int)ceil(log10(hi)) : 0;
	unsigned int nsteps = k1 - k0 < 3 ? 3 : 1;
	const char *sep = "";

	fprintf(f, "set %ctics (", axis);
	for (int k = k0; k <= k1; k++)
		for (unsigned int i = 0; i < nsteps; i++) {
			double v = steps[i] * pow(10, k);
			const struct plot_unit *u = plot_time_unit(v);

			fprintf(f, "%s'%g %s' %g", sep, v / u->ns, u->name, v);
			sep = ", ";
		}
	fprintf(f, ")\n");
}

double plot_time_axis(FILE *f, char axis, const char *quantity, double lo,
		      double hi, int logscale)
{
	const struct plot_unit *u = plot_time_unit(hi);
	char label[300];

	if (logscale) {
		log_tics(f, axis, lo, hi);
		fprintf(f, "set %clabel ", axis);
		fl_gp_str(f, quantity);
		fprintf(f, "\n");
		return 1;
	}
	snprintf(label, sizeof(label), "%s (%s)", quantity, u->name);
	fprintf(f, "set %ctics autofreq\nset format %c '%%g'\nset %clabel ",
		axis, axis, axis);
	fl_gp_str(f, label);
	fprintf(f, "\n");
	return u->ns;
}
