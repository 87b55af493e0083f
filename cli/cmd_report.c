// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab report RUN-DIR: write RUN-DIR/report.md, a short Markdown
 * report of the run: the machine and kernel from meta.json, a table per
 * workload (median and spread across repetitions per cell, noisy cells
 * flagged), the plots found in RUN-DIR/plots/, and the cells that were
 * skipped, failed or aborted with their reasons. Reads only the run
 * directory. Exit 0, 1 if report.md cannot be written, 2 on bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "stats/figures.h"
#include "measure/busy.h"
#include "rundir/read.h"
#include "stats/stats.h"
#include "spec/workload.h"

static const char *const plot_kinds[][2] = {
	{ "throughput", "throughput against threads" },
	{ "latency", "latency percentiles against threads" },
	{ "cdf", "latency distribution" },
	{ "fairness", "fairness against threads" },
};

/* Markdown table cells must not contain '|' or newlines. */
static void md(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else
			fputc(*s == '\n' ? ' ' : *s, f);
	}
}

/*
 * The machine and kernel table, as data: each row's value is its template
 * with every {dotted.path} replaced by that value of meta.json ("?" when
 * absent, see fl_rd_meta).
 */
static const char *const machine_rows[][2] = {
	{ "host", "{machine.hostname}" },
	{ "kernel", "{machine.kernel} ({machine.arch}), "
	  "{machine.kernel_version}" },
	{ "CPU", "{machine.cpu_model}" },
	{ "CPUs", "{machine.topology.cpus_online} online, "
	  "{machine.topology.cores} cores, {machine.topology.packages} "
	  "packages, {machine.topology.numa_nodes} NUMA nodes" },
	{ "governor", "{machine.governor}" },
	{ "futex features", "futex2 {machine.futex.futex2}, FUTEX2_NUMA "
	  "{machine.futex.futex2_numa}, FUTEX_LOCK_PI2 "
	  "{machine.futex.lock_pi2}, private hash slots "
	  "{machine.futex.private_hash_slots}, /dev/futexlab "
	  "{machine.futex.dev_futexlab}" },
	{ "futexlab", "{futexlab_version} (git {git_commit})" },
	{ "command", "`{command_line}`" },
	{ "time (UTC)", "{start_time} to {end_time}" },
	{ "cells", "{cells.total}: {cells.ok} ok, {cells.skipped} skipped, "
	  "{cells.failed} failed, {cells.aborted} aborted" },
	{ "harness overhead", "clock read {harness_overhead.clock_read_ns} "
	  "ns, empty iteration {harness_overhead.empty_iteration_ns} ns, "
	  "histogram record {harness_overhead.hist_record_ns} ns" },
};

/* One row of that table: the template's own text as it is, the values
 * escaped for a table cell. */
static void meta_row(FILE *f, const struct fl_rd_run *r, const char *name,
		     const char *tmpl)
{
	char path[128], val[512];

	fprintf(f, "| %s | ", name);
	for (const char *p = tmpl; *p;) {
		size_t n = strcspn(p, "{");

		fwrite(p, 1, n, f);
		p += n;
		if (!*p)
			break;
		n = strcspn(++p, "}");
		snprintf(path, sizeof(path), "%.*s", (int)n, p);
		md(f, fl_rd_meta(r, path, val, sizeof(val)));
		p += n;
		if (*p == '}')
			p++;
	}
	fprintf(f, " |\n");
}

static void machine(FILE *f, const struct fl_rd_run *r)
{
	double v;

	fprintf(f, "## Machine and kernel\n\n| | |\n|---|---|\n");
	for (size_t i = 0; i < sizeof(machine_rows) / sizeof(machine_rows[0]);
	     i++)
		meta_row(f, r, machine_rows[i][0], machine_rows[i][1]);
	if (fl_rd_foreign_share(r, &v) == 0)
		fprintf(f, "| other load | %.0f%% of all CPU time went to other "
			"processes during the run%s |\n", v * 100,
			v > FL_BUSY_WARN ? " (**busy machine**: expect wide "
			"spreads)" : "");
	fprintf(f, "\n");
}

static void plots(FILE *f, const struct fl_rd_run *r, const char *w)
{
	char path[PATH_MAX + 128];
	int any = 0;

	for (size_t k = 0; k < sizeof(plot_kinds) / sizeof(plot_kinds[0]);
	     k++) {
		snprintf(path, sizeof(path), "%s/plots/%s-%s.png", r->dir, w,
			 plot_kinds[k][0]);
		if (access(path, R_OK))
			continue;
		fprintf(f, "![%s: %s](plots/%s-%s.png)\n\n", w,
			plot_kinds[k][1], w, plot_kinds[k][0]);
		any = 1;
	}
	/* the workload's own plot, as its descriptor declares it */
	const struct fl_workload *wd = fl_workload_find(w);
	const struct fl_special_plot *sp = wd ? wd->plot : NULL;

	snprintf(path, sizeof(path), "%s/plots/%s.png", r->dir,
		 sp ? sp->name : "");
	if (sp && access(path, R_OK) == 0) {
		fprintf(f, "![%s: %s](plots/%s.png)\n\n", w, sp->caption,
			sp->name);
		any = 1;
	}
	if (!any)
		fprintf(f, "(No plots: run `futexlab plot %s` first.)\n\n",
			r->dir);
}

static void workload(FILE *f, const struct fl_rd_run *r, const char *w)
{
	char rate[32], p50[32], p99[32], p999[32];
	unsigned int n = 0, noisy = 0;
	/* round workloads: one thread counts, Jain's index means nothing */
	int fair = fl_rd_has_fairness(r, w);

	fprintf(f, "## %s\n\n", w);
	json_t *summary = json_object_get(json_object_get(json_object_get(
		r->meta, "workloads"), w), "summary");

	if (json_is_string(summary))
		fprintf(f, "%s. Throughput in %s per second; latency: %s.\n\n",
			json_string_value(summary), fl_rd_ops_unit(r, w),
			fl_rd_latency_what(r, w));
	fprintf(f, "| cell | backend | threads | placement | options | reps "
		"| %s/s (median) | spread | p50 | p99 | p99.9 | Jain |\n"
		"|---:|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|\n",
		fl_rd_ops_unit(r, w));
	for (unsigned long i = 0; i < r->ncells; i++) {
		const struct fl_rd_cell *c = &r->cells[i];

		if (strcmp(c->workload, w) || strcmp(c->status, "ok") ||
		    !c->nok)
			continue;
		n++;
		fl_fmt_rate(c->ops_per_sec.med, rate, sizeof(rate));
		fl_fmt_ns((uint64_t)c->p50.med, p50, sizeof(p50));
		fl_fmt_ns((uint64_t)c->p99.med, p99, sizeof(p99));
		fl_fmt_ns((uint64_t)c->p999.med, p999, sizeof(p999));
		fprintf(f, "| %lu | %s | %u | ", c->index, c->backend,
			c->threads);
		md(f, c->placement);
		fprintf(f, " | ");
		md(f, c->options);
		fprintf(f, " | %u/%u | %s | %.1f%%%s | %s | %s | %s | ",
			c->nok, c->nrows, rate, c->spread * 100,
			c->noisy ? " **noisy**" : "", p50, p99, p999);
		if (fair)
			fprintf(f, "%.3f |\n", c->jain.med);
		else
			fprintf(f, "n/a |\n");
		noisy += (unsigned int)c->noisy;
	}
	if (!n)
		fprintf(f, "| | no cell of %s ran ok | | | | | | | | | | |\n",
			w);
	fprintf(f, "\n%u cell%s, %u noisy (spread of ops/s across "
		"repetitions above %.0f%%).\n\n", n, n == 1 ? "" : "s", noisy,
		FL_NOISY_SPREAD * 100);
	plots(f, r, w);
}

static void not_ok(FILE *f, const struct fl_rd_run *r, int skipped)
{
	unsigned int n = 0;

	for (unsigned long i = 0; i < r->ncells; i++) {
		const struct fl_rd_cell *c = &r->cells[i];
		int is_skip = strcmp(c->status, "skipped") == 0;

		if (!strcmp(c->status, "ok") || is_skip != skipped)
			continue;
		if (!n++)
			fprintf(f, "## %s\n\n| cell | workload | backend | "
				"threads | options | status | reason |\n"
				"|---:|---|---|---:|---|---|---|\n",
				skipped ? "Skipped cells" :
				"Failed and aborted cells");
		fprintf(f, "| %lu | %s | %s | %u | ", c->index, c->workload,
			c->backend, c->threads);
		md(f, c->options);
		fprintf(f, " | %s | ", c->status);
		md(f, c->reason);
		fprintf(f, " |\n");
	}
	if (n)
		fprintf(f, "\n");
}

/* The cells' notes, one line per distinct note with the cells it is
 * about: a one-node machine notes every numa cell the same way. */
static void notes(FILE *f, const struct fl_rd_run *r)
{
	unsigned int n = 0;

	for (unsigned long i = 0; i < r->ncells; i++) {
		const struct fl_rd_cell *c = &r->cells[i];
		unsigned long j;

		if (!*c->note)
			continue;
		for (j = 0; j < i; j++)
			if (!strcmp(r->cells[j].note, c->note))
				break;
		if (j < i)
			continue;	/* listed with its first cell */
		if (!n++)
			fprintf(f, "## Notes\n\n");
		fprintf(f, "- ");
		md(f, c->note);
		unsigned int k = 0;

		for (j = i; j < r->ncells; j++)
			k += !strcmp(r->cells[j].note, c->note);
		if (k == 1) {
			fprintf(f, " (cell %lu: %s %s, %u threads)\n", c->index,
				c->workload, c->backend, c->threads);
			continue;
		}
		fprintf(f, " (cells");
		k = 0;
		for (j = i; j < r->ncells; j++)
			if (!strcmp(r->cells[j].note, c->note))
				fprintf(f, "%s %lu", k++ ? "," : "",
					r->cells[j].index);
		fprintf(f, ")\n");
	}
	if (n)
		fprintf(f, "\n");
}

int fl_cmd_report(int argc, char **argv)
{
	static struct fl_rd_run run;
	char path[PATH_MAX + 32], tmp[PATH_MAX + 32], err[1024];
	FILE *f;

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 ||
			  strcmp(argv[1], "-h") == 0)) {
		printf("usage: futexlab report RUN-DIR\n\nWrite RUN-DIR/"
		       "report.md: machine and kernel, a table per workload "
		       "(median\nand spread per cell, noisy cells flagged), "
		       "the plots of RUN-DIR/plots\n(run futexlab plot first), "
		       "and the skipped, failed and aborted cells.\n");
		return 0;
	}
	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: futexlab report RUN-DIR\n");
		return 2;
	}
	if (fl_rd_open(argv[1], &run, err, sizeof(err))) {
		fprintf(stderr, "futexlab report: %s\n", err);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/report.md", run.dir);
	snprintf(tmp, sizeof(tmp), "%s/.report.md.tmp", run.dir);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "futexlab report: cannot write %s: %s\n", tmp,
			strerror(errno));
		fl_rd_close(&run);
		return 1;
	}
	fprintf(f, "# futexlab run %s\n\n", run.name);
	if (!run.meta)
		fprintf(f, "(meta.json is missing or unreadable.)\n\n");
	else
		machine(f, &run);
	fprintf(f, "Figures are medians across repetitions; *spread* is "
		"(max - min) / median of ops/s\nacross repetitions, and a cell "
		"whose spread exceeds %.0f%% is flagged **noisy**.\nLatencies "
		"are the medians of each repetition's percentile.\n\n",
		FL_NOISY_SPREAD * 100);
	if (json_object_get(run.meta, "matrix"))
		fprintf(f, "A matrix run: each repetition ran as its own visit "
			"(a fresh process), the\nvisits interleaved across the "
			"matrix, so a cell's spread covers the whole run\n"
			"(docs/matrix.md).\n\n");
	for (unsigned long i = 0; i < run.ncells; i++)
		if (fl_rd_first_of(&run, run.cells[i].workload) ==
		    &run.cells[i])
			workload(f, &run, run.cells[i].workload);
	not_ok(f, &run, 1);
	not_ok(f, &run, 0);
	notes(f, &run);
	if (ferror(f) | fclose(f) || rename(tmp, path)) {
		fprintf(stderr, "futexlab report: cannot write %s: %s\n", path,
			strerror(errno));
		unlink(tmp);
		fl_rd_close(&run);
		return 1;
	}
	printf("%s\n", path);
	fl_rd_close(&run);
	return 0;
}
