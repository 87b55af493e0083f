// SPDX-License-Identifier: GPL-2.0
/* How figures are written for people: it computes nothing, and calls
 * nothing but snprintf. */
#include "stats/format.h"

#include <math.h>
#include <stdio.h>

void fl_fmt_rate(double v, char *buf, size_t len)
{
	if (v >= 1e9)
		snprintf(buf, len, "%.3gG", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, len, "%.3gM", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, len, "%.3gk", v / 1e3);
	else
		snprintf(buf, len, "%.3g", v);
}

void fl_fmt_ns(uint64_t ns, char *buf, size_t len)
{
	if (ns >= 1000000000ull)
		snprintf(buf, len, "%.3g s", (double)ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, len, "%.3g ms", (double)ns / 1e6);
	else if (ns >= 1000)
		snprintf(buf, len, "%.3g us", (double)ns / 1e3);
	else
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
}

static void fmt_value(double v, int latency, char *buf, size_t len)
{
	if (latency)
		fl_fmt_ns((uint64_t)v, buf, len);
	else
		fl_fmt_rate(v, buf, len);
}

void fl_fmt_ci(const struct fl_ci *ci, int latency, char *buf, size_t len)
{
	char mid[32], lo[32], hi[32];

	fmt_value(ci->mid, latency, mid, sizeof(mid));
	if (!ci->ok) {
		snprintf(buf, len, "%s (interval n/a: %u rep%s)", mid, ci->n,
			 ci->n == 1 ? "" : "s");
		return;
	}
	fmt_value(ci->lo, latency, lo, sizeof(lo));
	fmt_value(ci->hi, latency, hi, sizeof(hi));
	if (isinf(fl_ci_rel_halfwidth(ci)))
		snprintf(buf, len, "%s [%s, %s] (no relative width about 0)",
			 mid, lo, hi);
	else
		snprintf(buf, len, "%s [%s, %s] +-%.1f%%", mid, lo, hi,
			 fl_ci_rel_halfwidth(ci) * 100);
}

void fl_pct_format(const struct fl_pct *p, char *buf, size_t len)
{
	char v[32], lo[32], hi[32];

	if (!p->enough) {
		snprintf(buf, len, "n/e");
		return;
	}
	fl_fmt_ns(p->value, v, sizeof(v));
	fl_fmt_ns(p->lo, lo, sizeof(lo));
	fl_fmt_ns(p->hi, hi, sizeof(hi));
	snprintf(buf, len, "%s [%s, %s]", v, lo, hi);
}
