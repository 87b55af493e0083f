// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the run-directory reader (rundir/read.h). The first
 * byte chooses the file the rest is: 0 cells.csv, 1 meta.json, 2 a
 * histogram file. A parse that succeeds is then read as plot, report and
 * compare read it (lookups by key, options, counters, meta paths), and
 * what the checks promise is asserted (members of their type, a
 * histogram that adds up with its quantiles from min to max).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rundir/read.h"

static void read_back_cells(struct fl_rd_run *r)
{
	char v[128];

	for (unsigned long i = 0; i < r->ncells; i++) {
		const struct fl_rd_cell *c = &r->cells[i];

		if (fl_rd_find(r, c->key) == NULL ||
		    fl_rd_first_of(r, c->workload) == NULL)
			abort();	/* a cell the reader kept is findable */
		fl_rd_option(c, "algo", v, sizeof(v));
		for (unsigned int e = 0; e < c->nextra; e++)
			if (!fl_rd_extra(c, c->extra_name[e]))
				abort();
	}
}

static void read_back_meta(struct fl_rd_run *r)
{
	char buf[256];
	double share;

	fl_rd_meta(r, "machine.kernel", buf, sizeof(buf));
	fl_rd_meta(r, "machine.topology.cpus_online", buf, sizeof(buf));
	if (fl_rd_foreign_share(r, &share) == 0 && !(share >= 0 && share <= 1))
		abort();	/* checked on read */
	fl_rd_ops_unit(r, "mutex");
	fl_rd_latency_what(r, "mutex");
	fl_rd_has_fairness(r, "mutex");
	/* a description that passed the check reads back whole */
	static struct fl_rd_plots p;

	fl_rd_plots(r, "pi", &p);
	if (p.n > FL_RD_MAX_SPECIAL || (p.n && !*p.special[0].name))
		abort();
	/* members of the wrong type were refused (read_meta.c) */
	json_t *v = fl_rd_meta_json(r, "workloads");

	if ((v && !json_is_object(v)) ||
	    ((v = fl_rd_meta_json(r, "settings")) && !json_is_object(v)))
		abort();
	json_t *e, *t;
	size_t i, j;
	double when;

	json_array_foreach(fl_rd_meta_json(r, "cells_reps"), i, e)
		json_array_foreach(json_object_get(e, "rep_start"), j, t)
			if (!json_is_null(t) && (!json_is_string(t) ||
			    fl_rd_utc_seconds(json_string_value(t), &when)))
				abort();
}

/* A histogram that parsed is the writer's: its buckets add up to its
 * count, every quantile lies from min to max. */
static void read_back_hist(const struct fl_hist *h)
{
	uint64_t total = 0;

	for (unsigned int i = 0; i < FL_HIST_BUCKETS; i++)
		total += h->buckets[i];
	if (total != h->count)
		abort();
	if (h->count && (h->min > h->max ||
			 fl_hist_quantile(h, 0.5) < h->min ||
			 fl_hist_quantile(h, 0.5) > h->max))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fl_rd_run r;
	static struct fl_hist h;
	char err[512];
	char *text;

	if (size < 1)
		return 0;
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	memset(&r, 0, sizeof(r));
	r.dirfd = -1;
	switch (data[0] % 3) {
	case 0:
		if (fl_rd_parse_cells(&r, "cells.csv", text, size - 1, err,
				      sizeof(err)) == 0)
			read_back_cells(&r);
		break;
	case 1:
		if (fl_rd_parse_meta(&r, "meta.json", text, size - 1, err,
				     sizeof(err)) == 0)
			read_back_meta(&r);
		break;
	default:
		if (fl_rd_parse_hist("hist.csv", text, size - 1, &h, err,
				     sizeof(err)) == 0)
			read_back_hist(&h);
		break;
	}
	fl_rd_close(&r);
	free(text);
	return 0;
}
