// SPDX-License-Identifier: GPL-2.0
/* The report's machine table: what a rerun must match. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/result.h"
#include "report/internal.h"
#include "stats/stats.h"

/*
 * The machine and kernel table, as data: each row's value is its template
 * with every {dotted.path} replaced by that value of meta.json ("?" when
 * absent, see fl_rd_meta); {path:N} writes a number with N decimals, as
 * a person reads it, and {path#noun} the count with its noun, singular
 * where it is one ("1 package", "2 packages").
 */
static const char *const machine_rows[][2] = {
	{ "host", "{machine.hostname}" },
	{ "kernel", "{machine.kernel} ({machine.arch}), "
	  "{machine.kernel_version}" },
	{ "CPU", "{machine.cpu_model}" },
	{ "CPUs", "{machine.topology.cpus_online} online, "
	  "{machine.topology.cores#core}, "
	  "{machine.topology.packages#package}, "
	  "{machine.topology.numa_nodes#NUMA node}" },
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
	{ "harness overhead", "clock read {harness_overhead.clock_read_ns:1} "
	  "ns, empty iteration {harness_overhead.empty_iteration_ns:1} ns, "
	  "histogram record {harness_overhead.hist_record_ns:1} ns; "
	  "counting a thread {harness_overhead.counting_open_ns:0} ns to "
	  "open, {harness_overhead.counting_read_ns:0} ns to read, outside "
	  "its loop" },
	{ "compiler", "{build.compiler}: `{build.cflags}`" },
	{ "libc", "{machine.libc}" },
	{ "clock", "{machine.clock.read} from {machine.clock.source}, "
	  "resolution {machine.clock.resolution_ns} ns" },
	{ "SMT", "{machine.smt}" },
	{ "hypervisor", "{machine.hypervisor}" },
	{ "kernel command line", "`{machine.kernel_cmdline}`" },
	{ "load average", "{load.loadavg_start:2} at the start, "
	  "{load.loadavg_end:2} at the end" },
	{ "statistics", "{statistics.confidence} intervals; NOISY above "
	  "{statistics.noisy_halfwidth} relative half-width; percentiles "
	  "withheld with fewer than {statistics.percentile_min_beyond} "
	  "samples beyond" },
};

const char *report_machine_template(const char *name)
{
	for (size_t i = 0; i < sizeof(machine_rows) / sizeof(machine_rows[0]);
	     i++)
		if (!strcmp(machine_rows[i][0], name))
			return machine_rows[i][1];
	return NULL;
}

/* One row of that table: the template's own text as it is, the values
 * escaped for a table cell. */
static void meta_row(FILE *f, const struct fl_rd_run *r, const char *name,
		     const char *tmpl)
{
	fprintf(f, "| %s | ", name);
	report_meta_text(f, r, tmpl);
	fprintf(f, " |\n");
}

/* One placeholder's text: path, then ":N" decimals or "#noun". */
static void meta_value(FILE *f, const struct fl_rd_run *r, const char *in)
{
	char path[128], val[512];
	size_t n = strcspn(in, ":#");
	json_t *v;

	snprintf(path, sizeof(path), "%.*s", (int)n, in);
	v = fl_rd_meta_json(r, path);
	if (in[n] == ':' && json_is_number(v)) {
		fprintf(f, "%.*f", atoi(in + n + 1), json_number_value(v));
		return;
	}
	fl_rd_meta(r, path, val, sizeof(val));
	report_md(f, val);
	if (in[n] == '#') {
		fprintf(f, " ");
		report_md(f, in + n + 1);
		fprintf(f, "%s", strcmp(val, "1") ? "s" : "");
	}
}

void report_meta_text(FILE *f, const struct fl_rd_run *r, const char *tmpl)
{
	char inside[160];

	for (const char *p = tmpl; *p;) {
		size_t n = strcspn(p, "{");

		fwrite(p, 1, n, f);
		p += n;
		if (!*p)
			break;
		n = strcspn(++p, "}");
		snprintf(inside, sizeof(inside), "%.*s", (int)n, p);
		meta_value(f, r, inside);
		p += n;
		if (*p == '}')
			p++;
	}
}

/* The CPU vulnerabilities with a mitigation or a weakness, on one row. */
static void vulnerabilities(FILE *f, const struct fl_rd_run *r)
{
	json_t *v = fl_rd_meta_json(r, "machine.vulnerabilities"), *state;
	const char *name;
	int n = 0;

	if (!json_is_object(v))
		return;
	fprintf(f, "| CPU vulnerabilities | ");
	json_object_foreach(v, name, state) {
		const char *s = json_string_value(state);

		if (!s || !strcmp(s, "Not affected"))
			continue;
		fprintf(f, "%s", n++ ? "; " : "");
		report_md(f, name);
		fprintf(f, ": ");
		report_md(f, s);
	}
	fprintf(f, "%s |\n", n ? "" : "none reported");
}

/* The effective settings (run) or each experiment's (matrix); a real
 * with the digits a person wrote ("0.05", not "0.050000000000000003"). */
#define SETTINGS_JSON (JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(10))

static void settings(FILE *f, const struct fl_rd_run *r)
{
	json_t *exps = fl_rd_meta_json(r, "matrix.experiments"), *e;
	json_t *one = json_object_get(r->meta, "settings");
	size_t i;

	if (json_is_object(one)) {
		char *text = json_dumps(one, SETTINGS_JSON);

		fprintf(f, "| settings | `");
		report_md(f, text ? text : "?");
		fprintf(f, "` |\n");
		free(text);
	}
	json_array_foreach(exps, i, e) {
		char *text = json_dumps(json_object_get(e, "settings"),
					SETTINGS_JSON);

		const char *name = json_string_value(json_object_get(e,
								     "name"));

		fprintf(f, "| settings of ");
		report_md(f, name ? name : "?");
		fprintf(f, " | `");
		report_md(f, text ? text : "?");
		fprintf(f, "` |\n");
		free(text);
	}
}

/* The median (rank n / 2) and 10th and 90th percentiles of n values,
 * sorted in place. */
static void spread(double *v, size_t n, double *med, double *p10,
		   double *p90)
{
	fl_deciles_sort(v, n, p10, p90);
	*med = v[n / 2];
}

/* Room for one value of each ok repetition of the run. */
static double *per_rep(const struct fl_rd_run *r)
{
	size_t reps = 0;

	for (unsigned long i = 0; i < r->ncells; i++)
		reps += r->cells[i].nok;
	return malloc((reps + 1) * sizeof(double));
}

/*
 * What waking an idle CPU cost over the run (measure/idle_wake.h): its
 * median and 10th to 90th percentiles for each idle length, over every
 * ok repetition that has it. The state of the host that moves every
 * sleeping workload; compare adjusts for it. A campaign's run probed
 * only each cell's first visit: the line says of how many.
 */
static void idle_wake(FILE *f, const struct fl_rd_run *r)
{
	static const char *const idle[2] = { "30 us", "200 us" };
	double *v = per_rep(r), med, p10, p90;

	for (int k = 0; v && k < 2; k++) {
		size_t n = 0, reps = 0;

		for (unsigned long i = 0; i < r->ncells; i++) {
			reps += r->cells[i].nok;
			for (unsigned int j = 0; j < r->cells[i].nok; j++)
				if (isfinite(r->cells[i].idle_wake[j][k]))
					v[n++] = r->cells[i].idle_wake[j][k];
		}
		if (!n)
			break;
		spread(v, n, &med, &p10, &p90);
		fprintf(f, "| waking an idle CPU after %s | median %.1f us "
			"(10th-90th percentile %.1f-%.1f us) over %zu ",
			idle[k], med / 1000, p10 / 1000, p90 / 1000, n);
		if (n < reps)
			fprintf(f, "of %zu repetitions (the others not probed) "
				"|\n", reps);
		else
			fprintf(f, "repetition%s |\n", n == 1 ? "" : "s");
	}
	free(v);
}

/*
 * The node distance table (ACPI's SLIT, as libnuma read it): a row per
 * node, from that node's CPUs to each node's memory. A run written
 * before futexlab recorded it says so rather than guess.
 */
static void distances(FILE *f, const struct fl_rd_run *r)
{
	struct fl_distances d;

	if (fl_rd_distances(r, &d)) {
		fprintf(f, "| NUMA distances | unknown (this run's meta.json "
			"does not record them) |\n");
		return;
	}
	fprintf(f, "| NUMA distances | ");
	for (unsigned int i = 0; i < d.n; i++) {
		fprintf(f, "%snode %u:", i ? "; " : "", i);
		for (unsigned int j = 0; j < d.n; j++)
			fprintf(f, " %u", d.d[i][j]);
	}
	fprintf(f, " |\n");
}

/*
 * The CPU's speed over the run, as the busy loop's calibration before
 * each ok repetition read it, and how many repetitions it moved under:
 * another guest on the host slows this machine without any process in
 * it showing, and this is where a reader sees it. More than
 * FL_BUSY_WARN of them is the busy host compare warns about and widens
 * its intervals for (fl_rd_busy_host).
 */
static void busy_speed(FILE *f, const struct fl_rd_run *r)
{
	double *v = per_rep(r), med, p10, p90;
	unsigned long drifted, reps;
	int busy = fl_rd_busy_host(r, &drifted, &reps);
	size_t n = 0;

	for (unsigned long i = 0; v && i < r->ncells; i++)
		for (unsigned int j = 0; j < r->cells[i].nok; j++)
			if (isfinite(r->cells[i].busy[j][0]))
				v[n++] = r->cells[i].busy[j][0];
	if (n) {
		spread(v, n, &med, &p10, &p90);
		fprintf(f, "| busy loop's speed | median %.0f loops/us "
			"(10th-90th percentile %.0f-%.0f) over %zu "
			"repetitions, calibrated before each; it moved by "
			"more than %.0f%% during %lu of %lu%s |\n", med, p10,
			p90, n, FL_BUSY_DRIFT_MAX * 100, drifted, reps, busy ?
			" (**busy host**: expect wide intervals)" : "");
	}
	free(v);
}

void report_machine(FILE *f, const struct fl_rd_run *r)
{
	double v;

	fprintf(f, "## Machine and kernel\n\n| | |\n|---|---|\n");
	for (size_t i = 0; i < sizeof(machine_rows) / sizeof(machine_rows[0]);
	     i++)
		meta_row(f, r, machine_rows[i][0], machine_rows[i][1]);
	distances(f, r);
	if (fl_rd_foreign_share(r, &v) == 0)
		fprintf(f, "| other load | %.0f%% of all CPU time went to other "
			"processes during the run%s |\n", v * 100,
			v > FL_BUSY_WARN ? " (**busy machine**: expect wide "
			"intervals)" : "");
	busy_speed(f, r);
	idle_wake(f, r);
	vulnerabilities(f, r);
	settings(f, r);
	fprintf(f, "\n");
}

