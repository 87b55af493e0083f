// SPDX-License-Identifier: GPL-2.0
/*
 * A fleet's plots: the runs of one matrix on several machines drawn as
 * one run whose series are "MACHINE SERIES", so the plots against
 * threads draw a line per machine (per backend and varying option where
 * a workload has several) with the code every run's plots use.
 */
#include "plot/plot.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plot/internal.h"

/* s joined to the list in buf ("a, b") unless it is there already. */
static void join(char *buf, size_t len, const char *s)
{
	size_t used = strlen(buf);

	for (const char *p = buf; (p = strstr(p, s)); p += strlen(s))
		if ((p == buf || p[-1] == ' ') &&
		    (!p[strlen(s)] || p[strlen(s)] == ','))
			return;
	snprintf(buf + used, len - used, "%s%s", used ? ", " : "", s);
}

/* The fleet as one run: every run's cells, each backend prefixed with
 * its machine's name; meta.json the first run's, with every run's
 * workload descriptions and the machines' names, kernels and CPUs. */
static int fleet_run(struct fl_rd_run *f, const struct fl_rd_run *runs,
		     const char *const *names, unsigned int n)
{
	static const char *const joined[] = {
		"hostname", "kernel", "cpu_model",
	};
	char vals[3][1024] = { "", "", "" };
	unsigned long at = 0;

	memset(f, 0, sizeof(*f));
	f->dirfd = -1;
	snprintf(f->name, sizeof(f->name), "fleet of %u", n);
	for (unsigned int i = 0; i < n; i++)
		f->ncells += runs[i].ncells;
	f->cells = calloc(f->ncells + 1, sizeof(*f->cells));
	f->meta = json_deep_copy(runs[0].meta);
	if (!f->cells || !f->meta)
		return -1;
	for (unsigned int i = 0; i < n; i++) {
		json_object_update_missing(json_object_get(f->meta,
							   "workloads"),
					   fl_rd_meta_json(&runs[i],
							   "workloads"));
		join(vals[0], sizeof(vals[0]), names[i]);
		for (unsigned int k = 1; k < 3; k++) {
			char path[64], v[256];

			snprintf(path, sizeof(path), "machine.%s", joined[k]);
			join(vals[k], sizeof(vals[k]),
			     fl_rd_meta(&runs[i], path, v, sizeof(v)));
		}
		for (unsigned long c = 0; c < runs[i].ncells; c++) {
			struct fl_rd_cell *cell = &f->cells[at++];

			*cell = runs[i].cells[c];
			cell->primary = cell->primary == runs[i].cells[c].ops ?
					cell->ops : cell->lat_p50;
			snprintf(cell->backend, sizeof(cell->backend),
				 "%.30s %.32s", names[i],
				 runs[i].cells[c].backend);
		}
	}
	for (unsigned int k = 0; k < 3; k++)
		json_object_set_new(json_object_get(f->meta, "machine"),
				    joined[k], json_string(vals[k]));
	return 0;
}

int fl_plot_fleet(const struct fl_rd_run *runs, const char *const *names,
		  unsigned int n, const char *outdir,
		  const struct fl_plot_opts *o, FILE *log, char *err,
		  size_t errlen)
{
	static const struct panel thr[] = {
		{ F_OPS, NULL, "throughput", NULL },
	};
	static const struct panel lat[] = {
		{ F_P50, NULL, "p50 (median)", NULL },
		{ F_P99, NULL, "p99", NULL },
	};
	struct fl_rd_run f;
	struct fl_gp_dir out;
	int total = 0;

	if (fleet_run(&f, runs, names, n)) {
		fl_rd_close(&f);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (plot_open_out(&f, outdir, &out, err, errlen)) {
		fl_rd_close(&f);
		return -1;
	}
	for (unsigned long i = 0; total >= 0 && i < f.ncells; i++) {
		struct wl w;
		int a = 0, b = 0;

		if (fl_rd_first_of(&f, f.cells[i].workload) != &f.cells[i])
			continue;
		plot_wl_init(&w, &f, f.cells[i].workload);
		if (!w.cells) {
			snprintf(err, errlen, "out of memory");
			total = -1;
			break;
		}
		if (w.n)
			a = plot_vs_threads(&f, &w, &out, "fleet-throughput",
					    "throughput against threads, a "
					    "line per machine (median, bars: "
					    "its 95% interval)", thr, 1, o,
					    log, err, errlen);
		if (w.n && a >= 0)
			b = plot_vs_threads(&f, &w, &out, "fleet-latency",
					    "latency against threads, a line "
					    "per machine", lat, 2, o, log, err,
					    errlen);
		plot_wl_free(&w);
		total = a < 0 || b < 0 ? -1 : total + a + b;
	}
	close(out.fd);
	fl_rd_close(&f);
	return total;
}
