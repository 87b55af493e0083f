// SPDX-License-Identifier: GPL-2.0
/*
 * A workload's own plots as its run directory describes them (meta.json's
 * workloads.W.plots, written by meta.c; results/README.md), so plot and
 * report draw and show them without this binary's registry: a run from a
 * futexlab with workloads this one lacks still gets them. Checked when
 * the run is opened, like every file of it, since a plot's name becomes
 * a file name under plots/.
 *
 * A run written before the description was recorded gets this binary's
 * description of the workload, when it has one; a workload it lacks, or a
 * description of a version it cannot read, only the generic plots. Such
 * a version is a later futexlab's: a run that says this futexlab or an
 * earlier one wrote it is refused for one.
 */
#include "rundir/read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rundir/meta.h"
#include "spec/workload.h"
#include "version.h"

/* A string member of o, copied into buf: 0, or -1 with why. Absent, it
 * is "" when optional. A name becomes part of a file name, so it is
 * checked as cells.csv's names are; text as its free words are. */
enum str_kind { S_NAME, S_TEXT, S_TEXT_OPTIONAL };

static int member(json_t *o, const char *key, enum str_kind kind, char *buf,
		  size_t len, char *why, size_t wlen)
{
	json_t *v = json_object_get(o, key);
	const char *s;
	char what[128];

	*buf = '\0';
	if (!v && kind == S_TEXT_OPTIONAL)
		return 0;
	if (!json_is_string(v)) {
		snprintf(why, wlen, "%s: %s", key, v ? "is not a string" :
			 "is missing");
		return -1;
	}
	s = json_string_value(v);
	if (strlen(s) >= len) {
		snprintf(why, wlen, "%s: is longer than %zu characters", key,
			 len - 1);
		return -1;
	}
	if (fl_col_check(kind == S_NAME ? FL_COL_WORKLOAD : FL_COL_NOTE, s, 1,
			 what, sizeof(what))) {
		if (kind == S_NAME)
			snprintf(why, wlen, "%s: '%.80s' %s", key, s, what);
		else
			snprintf(why, wlen, "%s: %s", key, what);
		return -1;
	}
	snprintf(buf, len, "%s", s);
	return 0;
}

/* The figures a panel may draw: columns of cells.csv (extra: one of the
 * workload's counters, by name). */
static const enum fl_col figures[] = {
	FL_COL_OPS_PER_SEC, FL_COL_P50, FL_COL_P99, FL_COL_P999, FL_COL_JAIN,
	FL_COL_EXTRA,
};

static int parse_panel(json_t *o, struct fl_rd_panel *pn, char *why,
		       size_t wlen)
{
	char fig[64];
	size_t i;

	if (!json_is_object(o)) {
		snprintf(why, wlen, "is not an object");
		return -1;
	}
	if (member(o, "figure", S_NAME, fig, sizeof(fig), why, wlen))
		return -1;
	for (i = 0; i < sizeof(figures) / sizeof(*figures); i++)
		if (strcmp(fig, fl_col_name(figures[i])) == 0)
			break;
	if (i == sizeof(figures) / sizeof(*figures)) {
		snprintf(why, wlen, "figure: '%s' is not ops_per_sec, "
			 "lat_p50_ns, lat_p99_ns, lat_p999_ns, jain or extra",
			 fig);
		return -1;
	}
	pn->fig = figures[i];
	return member(o, "counter", pn->fig == FL_COL_EXTRA ? S_NAME :
		      S_TEXT_OPTIONAL, pn->counter, sizeof(pn->counter), why,
		      wlen) ||
	       member(o, "title", S_TEXT, pn->title, sizeof(pn->title), why,
		      wlen) ||
	       member(o, "ylabel", S_TEXT_OPTIONAL, pn->ylabel,
		      sizeof(pn->ylabel), why, wlen);
}

/* What joins a path to why: why names a member below it ("title: ..."),
 * or is about the path itself ("is not an object"). */
static const char *joint(const char *why)
{
	return strncmp(why, "is ", 3) ? "." : ": ";
}

/* why, behind the list item it is about: "panels[1].figure: ..." */
static int wrong(char *why, size_t wlen, const char *list, unsigned int i)
{
	char inner[512];

	snprintf(inner, sizeof(inner), "%s", why);
	snprintf(why, wlen, "%s[%u]%s%s", list, i, joint(inner), inner);
	return -1;
}

static int parse_special(json_t *o, struct fl_rd_special *sp, char *why,
			 size_t wlen)
{
	json_t *panels = json_object_get(o, "panels");

	if (!json_is_object(o)) {
		snprintf(why, wlen, "is not an object");
		return -1;
	}
	if (member(o, "name", S_NAME, sp->name, sizeof(sp->name), why,
		   wlen) ||
	    member(o, "option", S_NAME, sp->option, sizeof(sp->option), why,
		   wlen) ||
	    member(o, "title", S_TEXT, sp->title, sizeof(sp->title), why,
		   wlen) ||
	    member(o, "ylabel", S_TEXT_OPTIONAL, sp->ylabel,
		   sizeof(sp->ylabel), why, wlen) ||
	    member(o, "caption", S_TEXT, sp->caption, sizeof(sp->caption),
		   why, wlen))
		return -1;
	sp->npanels = (unsigned int)json_array_size(panels);
	if (!json_is_array(panels) || sp->npanels < 1 || sp->npanels > 2) {
		snprintf(why, wlen, "panels: is not a list of one or two");
		return -1;
	}
	for (unsigned int i = 0; i < sp->npanels; i++)
		if (parse_panel(json_array_get(panels, i), &sp->panels[i], why,
				wlen))
			return wrong(why, wlen, "panels", i);
	return 0;
}

/* plots into p: 0, or -1 with why naming the member below plots. A
 * version other than FL_PLOTS_VERSION is a newer futexlab's, read no
 * further: p->from FL_RD_PLOTS_NEWER. */
static int parse_plots(json_t *plots, struct fl_rd_plots *p, char *why,
		       size_t wlen)
{
	json_t *version = json_object_get(plots, "version");
	json_t *special = json_object_get(plots, "special");

	memset(p, 0, sizeof(*p));
	p->from = FL_RD_PLOTS_RUN;
	if (!json_is_object(plots)) {
		snprintf(why, wlen, "is not an object");
		return -1;
	}
	if (!json_is_integer(version) || json_integer_value(version) < 1) {
		snprintf(why, wlen, "version: is not a whole number >= 1");
		return -1;
	}
	p->version = json_integer_value(version);
	if (p->version != FL_PLOTS_VERSION) {
		p->from = FL_RD_PLOTS_NEWER;
		return 0;
	}
	p->n = (unsigned int)json_array_size(special);
	if (!json_is_array(special) || p->n > FL_RD_MAX_SPECIAL) {
		snprintf(why, wlen, "special: is not a list of at most %d",
			 FL_RD_MAX_SPECIAL);
		return -1;
	}
	for (unsigned int i = 0; i < p->n; i++)
		if (parse_special(json_array_get(special, i), &p->special[i],
				  why, wlen))
			return wrong(why, wlen, "special", i);
	return 0;
}

/* A dotted version's next number at *s, moving *s past it and its '.';
 * -1 when there is none. */
static long version_part(const char **s)
{
	char *end;
	long v;

	if (**s < '0' || **s > '9')
		return -1;
	v = strtol(*s, &end, 10);
	*s = end + (*end == '.');
	return v;
}

/* Is version v ("0.1.0") later than this futexlab's, or not a dotted
 * version at all (then it may be)? */
static int later_than_mine(const char *v)
{
	const char *mine = FL_VERSION;

	while (*v || *mine) {
		long a = *v ? version_part(&v) : 0;
		long b = *mine ? version_part(&mine) : 0;

		if (a < 0 || b < 0)
			return 1;
		if (a != b)
			return a > b;
	}
	return 0;
}

/* A plots version this futexlab does not know is a later futexlab's;
 * a run that says this futexlab or an earlier one wrote it cannot have
 * one (a run that does not say may be from a later one). */
static int version_possible(json_t *meta, const struct fl_rd_plots *p,
			    char *why, size_t wlen)
{
	const char *by = json_string_value(json_object_get(meta,
							   "futexlab_version"));

	if (p->from != FL_RD_PLOTS_NEWER || !by || later_than_mine(by))
		return 0;
	snprintf(why, wlen, "version: %lld is no format futexlab %.20s "
		 "writes (%d), and the run says futexlab %.20s wrote it",
		 p->version, FL_VERSION, FL_PLOTS_VERSION, by);
	return -1;
}

int fl_rd_check_plots(json_t *meta, const char *file, char *err,
		      size_t errlen)
{
	static struct fl_rd_plots p;
	json_t *all = json_object_get(meta, "workloads"), *w, *plots;
	const char *name;
	char why[768], ignored[128];

	json_object_foreach(all, name, w) {
		plots = json_object_get(w, "plots");
		/* a key no cell could name (not a name) is never read */
		if (!plots || fl_col_check(FL_COL_WORKLOAD, name, 1, ignored,
					   sizeof(ignored)))
			continue;
		if (parse_plots(plots, &p, why, sizeof(why)) ||
		    version_possible(meta, &p, why, sizeof(why))) {
			snprintf(err, errlen, "%s: workloads.%s.plots%s%s",
				 file, name, joint(why), why);
			return -1;
		}
	}
	return 0;
}

void fl_rd_plots(const struct fl_rd_run *r, const char *workload,
		 struct fl_rd_plots *p)
{
	json_t *plots = json_object_get(json_object_get(json_object_get(
		r->meta, "workloads"), workload), "plots");
	const struct fl_workload *known;
	char why[768];

	if (plots) {	/* checked when the run was opened */
		if (parse_plots(plots, p, why, sizeof(why)))
			memset(p, 0, sizeof(*p));
		return;
	}
	known = fl_workload_find(workload);
	memset(p, 0, sizeof(*p));
	p->from = FL_RD_PLOTS_NONE;
	if (!known)
		return;
	/* an older run: the description this futexlab would have written */
	plots = fl_meta_plots_json(known);
	if (parse_plots(plots, p, why, sizeof(why)) == 0)
		p->from = FL_RD_PLOTS_REGISTRY;
	json_decref(plots);
}
