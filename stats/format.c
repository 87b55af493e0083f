// SPDX-License-Identifier: GPL-2.0
/* How figures are written for people: it computes nothing, and calls
 * nothing but snprintf. */
#include "stats/format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

/* A time in the unit its size calls for, to `digits` significant
 * digits (a whole number of ns below 1000 prints whole at 3) */
static void fmt_time(double ns, int digits, char *buf, size_t len)
{
	if (ns >= 1e9)
		snprintf(buf, len, "%.*g s", digits, ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, len, "%.*g ms", digits, ns / 1e6);
	else if (ns >= 1e3)
		snprintf(buf, len, "%.*g us", digits, ns / 1e3);
	else
		snprintf(buf, len, "%.*g ns", digits, ns);
}

void fl_fmt_ns(uint64_t ns, char *buf, size_t len)
{
	fmt_time((double)ns, 3, buf, len);
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

void fl_fmt_ns_frac(double ns, char *buf, size_t len)
{
	fmt_time(ns, 4, buf, len);
}

static void cost_value(enum fl_cost_id id, double v, char *buf, size_t len)
{
	if (id == FL_COST_CPU)
		fl_fmt_ns_frac(v, buf, len);
	else if (id == FL_COST_SHARE)
		snprintf(buf, len, "%.0f%%", v * 100);
	else
		snprintf(buf, len, "%.3g", v);
}

void fl_fmt_cost_fig(const struct fl_cost *c, enum fl_cost_id id,
		     const char *per, char *buf, size_t len)
{
	const struct fl_cost_fig *f = &c->fig[id];
	char mid[64], lo[32], hi[32];
	size_t n;

	if (!f->ci.n) {
		snprintf(buf, len, "not counted");
		return;
	}
	cost_value(id, f->ci.mid, mid, sizeof(mid));
	n = strlen(mid);
	if (per && id != FL_COST_SHARE)
		snprintf(mid + n, sizeof(mid) - n, "/%s", per);
	if (!f->ci.ok) {
		snprintf(buf, len, "%s (interval n/a: %u rep%s)", mid, f->ci.n,
			 f->ci.n == 1 ? "" : "s");
		return;
	}
	cost_value(id, f->ci.lo, lo, sizeof(lo));
	cost_value(id, f->ci.hi, hi, sizeof(hi));
	if (isinf(fl_ci_rel_halfwidth(&f->ci)))
		snprintf(buf, len, "%s [%s, %s]", mid, lo, hi);
	else
		snprintf(buf, len, "%s [%s, %s] +-%.1f%%%s", mid, lo, hi,
			 fl_ci_rel_halfwidth(&f->ci) * 100,
			 f->noisy ? " NOISY" : "");
}

void fl_fmt_cost(const struct fl_cost *c, const char *per, char *buf,
		 size_t len)
{
	char cpu[96], ctx[96], share[96], pmu[200] = "";
	size_t used = 0;

	if (!c->fig[FL_COST_CPU].ci.n && c->nhave_cpu) {
		snprintf(buf, len, "none (no repetition that counted its CPU "
			 "time completed an operation)");
		return;
	}
	if (!c->fig[FL_COST_CPU].ci.n) {
		snprintf(buf, len, "not counted (the run has no CPU time of "
			 "its threads)");
		return;
	}
	fl_fmt_cost_fig(c, FL_COST_CPU, per, cpu, sizeof(cpu));
	fl_fmt_cost_fig(c, FL_COST_CTX, per, ctx, sizeof(ctx));
	fl_fmt_cost_fig(c, FL_COST_SHARE, per, share, sizeof(share));
	for (int id = FL_COST_CYCLES; id <= FL_COST_INSNS; id++) {
		char v[96];

		if (!c->fig[id].ci.n)
			continue;
		fl_fmt_cost_fig(c, (enum fl_cost_id)id, per, v, sizeof(v));
		used += (size_t)snprintf(pmu + used, sizeof(pmu) - used,
					 ", %s %s", id == FL_COST_CYCLES ?
					 "cycles" : "instructions", v);
		if (used >= sizeof(pmu))
			break;
	}
	snprintf(buf, len, "CPU %s, switches %s, CPU share %s%s", cpu, ctx,
		 share, *pmu ? pmu : ", cycles and "
		 "instructions not counted");
}

void fl_fmt_contamination(const struct fl_cost *c, char *buf, size_t len)
{
	char denied[96] = "", steal[64] = "";

	buf[0] = '\0';
	if (!c->njudged)
		return;
	if (!c->ncontaminated) {
		snprintf(buf, len, "none of %u repetition%s contaminated",
			 c->njudged, c->njudged == 1 ? "" : "s");
		return;
	}
	if (c->denied_max >= 0)
		snprintf(denied, sizeof(denied), "threads denied up to %.0f%% "
			 "of their runnable time", c->denied_max * 100);
	if (c->steal_max_ns) {
		char t[32];

		fl_fmt_ns_frac((double)c->steal_max_ns, t, sizeof(t));
		snprintf(steal, sizeof(steal), "%ssteal up to %s",
			 *denied ? ", " : "", t);
	}
	snprintf(buf, len, "%u of %u repetition%s contaminated%s%s%s%s",
		 c->ncontaminated, c->njudged, c->njudged == 1 ? "" : "s",
		 *denied || *steal ? " (" : "", denied, steal,
		 *denied || *steal ? ")" : "");
}
