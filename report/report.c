// SPDX-License-Identifier: GPL-2.0
/* report.md of a run directory: the machine, a table per workload, the
 * cells that did not run ok, the notes. */
#include "report/report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "report/internal.h"
#include "rundir/write_at.h"
#include "stats/percentile.h"
#include "stats/stats.h"

/* A table cell must not hold '|' or a newline, nor a heading a newline
 * (the file's sink, fl_text_file(), escapes the other controls). */
void report_md(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else
			fputc(*s == '\n' ? ' ' : *s, f);
	}
}


/* What the figures mean, once above the tables. */
static void legend(FILE *f, const struct fl_rd_run *r)
{
	fprintf(f, "Each cell's primary figure (throughput, or a round "
		"workload's p50 latency) is the\nmedian of its repetitions "
		"with a distribution-free 95%% confidence interval from\norder "
		"statistics; *+-* is the interval's relative half-width, and a "
		"cell wider\nthan +-%.0f%% is **NOISY**; *n/a*: fewer than %d "
		"ok repetitions, too few for an\ninterval. *converged*: the "
		"interval met the target. Percentiles are the nearest\nrank of "
		"the histogram merged over the repetitions, with a 95%% "
		"interval, and\n*n/e* (not enough samples) with fewer than %d "
		"samples beyond them; *samples* is\nthe histogram's count. "
		"docs/statistics.md defines each figure.\n\n",
		FL_NOISY_HALFWIDTH * 100, FL_CI_MIN_N, FL_PCT_MIN_BEYOND);
	if (json_object_get(r->meta, "matrix"))
		fprintf(f, "A matrix run: each repetition ran as its own visit "
			"(a fresh process), the\nvisits interleaved across the "
			"matrix in an order shuffled from the seed, so\na "
			"cell's interval covers the whole run (docs/matrix.md)."
			"\n\n");
}

static void body(FILE *f, const struct fl_rd_run *run)
{
	fprintf(f, "# futexlab run ");
	report_md(f, run->name);
	fprintf(f, "\n\n");
	if (!run->meta)
		fprintf(f, "(meta.json is missing or unreadable.)\n\n");
	else
		report_machine(f, run);
	legend(f, run);
	for (unsigned long i = 0; i < run->ncells; i++)
		if (fl_rd_first_of(run, run->cells[i].workload) ==
		    &run->cells[i])
			report_workload(f, run, run->cells[i].workload);
	report_not_ok(f, run, 1);
	report_not_ok(f, run, 0);
	report_notes(f, run);
}

int fl_report_write_run(const struct fl_rd_run *run, char *path,
			size_t pathlen, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	/* through the escape: no byte of a run's text lands as a control */
	FILE *f = mem ? fl_text_sink(mem, _IOFBF) : NULL;
	int rc = 0;

	snprintf(path, pathlen, "%s/report.md", run->dir);
	if (!f) {
		if (mem)
			fclose(mem);
		free(text);
		snprintf(err, errlen, "out of memory");
		return -EIO;
	}
	body(f, run);
	/* through the run's descriptor, replaced whole: a link planted
	 * under report.md or its temporary name is never written through */
	if ((ferror(f) | fclose(f)) | (ferror(mem) | fclose(mem))) {
		snprintf(err, errlen, "out of memory");
		rc = -EIO;
	} else if (fl_write_at(run->dirfd, "report.md", path, text, len, err,
			     errlen))
		rc = -EIO;
	free(text);
	return rc;
}
