// SPDX-License-Identifier: GPL-2.0
/*
 * A fleet's report: the runs of one matrix on several machines, side by
 * side. The machines' facts in one table (a column per machine), then
 * per workload the primary figure of every cell with a column per
 * machine, and the fleet's plots (plot/fleet.c: a line per machine).
 * Cells are matched on their setup (workload, backend, threads,
 * placement, options), as compare matches them.
 */
#include "report/report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/text.h"
#include "plot/plot.h"
#include "report/internal.h"
#include "rundir/regular.h"
#include "rundir/same_dir.h"
#include "stats/format.h"
#include "stats/stats.h"

/* The facts a reader sets machines side by side by: rows of the
 * single run's machine table (machine.c), by name, and the CPU set. */
static const char *const fleet_rows[] = {
	"host", "kernel", "CPU", "CPUs", "CPUs allowed", "SMT", "governor",
	"futex features", "hypervisor", "libc", "futexlab", "time (UTC)",
	"cells",
};

struct fleet {
	struct fl_rd_run *runs;
	char (*names)[96];
	const char **name_of;
	unsigned int n;
};

/* A machine's name: its label, else its host name; a name two runs
 * share gets the run's place after it ("vm#2"). */
static void name_machines(struct fleet *fl)
{
	for (unsigned int i = 0; i < fl->n; i++) {
		const char *s = json_string_value(fl_rd_meta_json(
			&fl->runs[i], "machine.label"));

		if (!s || !*s)
			s = json_string_value(fl_rd_meta_json(
				&fl->runs[i], "machine.hostname"));
		snprintf(fl->names[i], sizeof(fl->names[i]), "%.60s",
			 s && *s ? s : "unknown");
		for (unsigned int j = 0; j < i; j++)
			if (!strcmp(fl->names[j], fl->names[i])) {
				snprintf(fl->names[i], sizeof(fl->names[i]),
					 "%.60s#%u", s && *s ? s : "unknown",
					 i + 1);
				break;
			}
		fl->name_of[i] = fl->names[i];
	}
}

/* The rest of a table's header: a column per machine, then the rule
 * (rule, then each machine's column's). */
static void columns(FILE *f, const struct fleet *fl, const char *rule,
		    const char *each)
{
	for (unsigned int i = 0; i < fl->n; i++) {
		fprintf(f, " ");
		report_md(f, fl->names[i]);
		fprintf(f, " |");
	}
	fprintf(f, "\n%s", rule);
	for (unsigned int i = 0; i < fl->n; i++)
		fprintf(f, "%s", each);
	fprintf(f, "\n");
}

static void machines(FILE *f, const struct fleet *fl)
{
	fprintf(f, "## Machines\n\n| |");
	columns(f, fl, "|---|", "---|");
	for (size_t k = 0; k < sizeof(fleet_rows) / sizeof(fleet_rows[0]);
	     k++) {
		const char *tmpl = !strcmp(fleet_rows[k], "CPUs allowed") ?
			"{machine.topology.cpus_allowed}" :
			report_machine_template(fleet_rows[k]);

		fprintf(f, "| %s |", fleet_rows[k]);
		for (unsigned int i = 0; i < fl->n; i++) {
			fprintf(f, " ");
			report_meta_text(f, &fl->runs[i], tmpl ? tmpl : "?");
			fprintf(f, " |");
		}
		fprintf(f, "\n");
	}
	fprintf(f, "| run |");
	for (unsigned int i = 0; i < fl->n; i++) {
		fprintf(f, " ");
		report_md(f, fl->runs[i].dir);
		fprintf(f, " |");
	}
	fprintf(f, "\n\n");
}

/* One machine's figure for a cell: median [interval], or why not,
 * written as the run's own report writes it (stats/format.h). */
static void figure(FILE *f, const struct fl_rd_cell *c)
{
	char text[128];

	if (!c) {
		fprintf(f, " (not run) |");
		return;
	}
	if (strcmp(c->status, "ok")) {
		fprintf(f, " %s |", c->status);
		return;
	}
	fl_fmt_ci(&c->ci, c->lower_is_better, text, sizeof(text));
	fprintf(f, " %s%s |", text, c->noisy ? " NOISY" : "");
}

/* The first run (from the first) that has this cell's setup, is this
 * one: the row is written once. */
static int first_with(const struct fleet *fl, unsigned int i,
		      const struct fl_rd_cell *c)
{
	for (unsigned int j = 0; j < i; j++)
		if (fl_rd_find(&fl->runs[j], c->key))
			return 0;
	return 1;
}

static void workload(FILE *f, const struct fleet *fl, const char *w,
		     const char *outdir)
{
	const struct fl_rd_run *r0 = NULL;
	char path[PATH_MAX + 128];

	for (unsigned int i = 0; i < fl->n && !r0; i++)
		if (fl_rd_first_of(&fl->runs[i], w))
			r0 = &fl->runs[i];
	const struct fl_rd_cell *c0 = fl_rd_first_of(r0, w);
	int latency = c0 && c0->lower_is_better;
	fprintf(f, "## %s\n\nEach machine's ", w);
	if (latency) {
		fprintf(f, "p50 ");
		report_md(f, fl_rd_latency_what(r0, w));
	} else {
		report_md(f, fl_rd_ops_unit(r0, w));
		fprintf(f, "/s");
	}
	fprintf(f, ": the median of its repetitions [95%% interval].\n\n"
		"| backend | threads | placement | options |");
	columns(f, fl, "|---|---:|---|---|", "---:|");
	for (unsigned int i = 0; i < fl->n; i++) {
		const struct fl_rd_run *r = &fl->runs[i];

		for (unsigned long k = 0; k < r->ncells; k++) {
			const struct fl_rd_cell *c = &r->cells[k];

			if (strcmp(c->workload, w) || !first_with(fl, i, c))
				continue;
			fprintf(f, "| %s | %u | %s | ", c->backend, c->threads,
				c->placement);
			report_md(f, c->options[0] ? c->options : "-");
			fprintf(f, " |");
			for (unsigned int j = 0; j < fl->n; j++)
				figure(f, fl_rd_find(&fl->runs[j], c->key));
			fprintf(f, "\n");
		}
	}
	fprintf(f, "\n");
	static const char *const kinds[] = { "throughput", "latency" };

	for (size_t k = 0; k < 2; k++) {
		snprintf(path, sizeof(path), "%s/plots/%s-fleet-%s.png",
			 outdir, w, kinds[k]);
		if (!access(path, R_OK))
			fprintf(f, "![%s: %s, a line per machine](plots/%s-"
				"fleet-%s.png)\n\n", w, kinds[k], w, kinds[k]);
	}
}

static void body(FILE *f, const struct fleet *fl, const char *outdir)
{
	fprintf(f, "# futexlab fleet: %u machines\n\n", fl->n);
	fprintf(f, "The same matrix on each machine, each a run of its own; "
		"a figure is comparable\nacross a row only as far as the "
		"machines' facts below allow (futexlab compare\nsays what "
		"differs). docs/fleet.md.\n\n");
	machines(f, fl);
	for (unsigned int i = 0; i < fl->n; i++)
		for (unsigned long k = 0; k < fl->runs[i].ncells; k++) {
			const char *w = fl->runs[i].cells[k].workload;
			int seen = 0;

			for (unsigned int j = 0; j < i && !seen; j++)
				seen = fl_rd_first_of(&fl->runs[j], w) != NULL;
			if (!seen && fl_rd_first_of(&fl->runs[i], w) ==
			    &fl->runs[i].cells[k])
				workload(f, fl, w, outdir);
		}
}

/* A machine given twice would be two machines alike; an OUTDIR inside a
 * run would write into a finished run. 0, or -1 with err. */
static int fleet_refused(const struct fleet *fl, const char *const *dirs,
			 const char *outdir, char *err, size_t errlen)
{
	char b1[161], b2[161];
	unsigned int i, j;

	if (fl_rd_repeated(fl->runs, fl->n, &i, &j)) {
		snprintf(err, errlen, "'%s' and '%s' are one run: a fleet "
			 "reports each machine's run once",
			 fl_path_shown(dirs[i], b1, 160),
			 fl_path_shown(dirs[j], b2, 160));
		return -1;
	}
	for (i = 0; i < fl->n; i++) {
		if (!fl_rd_holds(&fl->runs[i], outdir))
			continue;
		snprintf(err, errlen, "'%s' is inside the run '%s': report "
			 "writes nothing into a finished run (give --out "
			 "another folder)", fl_path_shown(outdir, b1, 160),
			 fl_path_shown(dirs[i], b2, 160));
		return -1;
	}
	return 0;
}

int fl_report_fleet(const char *const *dirs, unsigned int n,
		    const char *outdir, const struct fl_say *say, char *path,
		    size_t pathlen, char *err, size_t errlen)
{
	struct fleet fl = { calloc(n, sizeof(*fl.runs)),
			    calloc(n, sizeof(*fl.names)),
			    calloc(n, sizeof(*fl.name_of)), 0 };
	struct fl_plot_opts o = { .say = say };
	char tmp[PATH_MAX + 32];
	int rc = -ENOENT;
	FILE *f;

	if (!fl.runs || !fl.names || !fl.name_of) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (; fl.n < n; fl.n++)
		if (fl_rd_open(dirs[fl.n], &fl.runs[fl.n], err, errlen))
			goto out;
	rc = -EINVAL;
	if (fleet_refused(&fl, dirs, outdir, err, errlen))
		goto out;
	name_machines(&fl);
	rc = -EIO;
	if (mkdir(outdir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", outdir,
			 strerror(errno));
		goto out;
	}
	snprintf(tmp, sizeof(tmp), "%s/plots", outdir);
	if (fl_plot_fleet(fl.runs, fl.name_of, n, tmp, &o, NULL, err,
			  errlen) < 0)
		goto out;
	snprintf(path, pathlen, "%s/report.md", outdir);
	snprintf(tmp, sizeof(tmp), "%s/.report.md.tmp", outdir);
	f = fl_text_file(tmp);
	if (!f) {
		snprintf(err, errlen, "cannot write %s: %s", tmp,
			 strerror(errno));
		goto out;
	}
	body(f, &fl, outdir);
	if (ferror(f) | fclose(f) || rename(tmp, path)) {
		snprintf(err, errlen, "cannot write %s: %s", path,
			 strerror(errno));
		unlink(tmp);
		goto out;
	}
	rc = 0;
out:
	for (unsigned int i = 0; fl.runs && i < fl.n; i++)
		fl_rd_close(&fl.runs[i]);
	free(fl.runs);
	free(fl.names);
	free(fl.name_of);
	return rc;
}
