// SPDX-License-Identifier: GPL-2.0
/* Comparing runs: open them, match, judge, write the outputs. */
#include "compare/compare.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/text.h"
#include "compare/internal.h"
#include "rundir/regular.h"

int cmp_open_outputs(const char *dir, struct cmp_outputs *o, char *err,
		     size_t errlen)
{
	char path[PATH_MAX + 32];

	if (mkdir(dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", dir,
			 strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/compare.csv", dir);
	o->csv = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/compare.md", dir);
	o->md = o->csv ? fl_text_file(path) : NULL;
	if (!o->csv || !o->md) {
		snprintf(err, errlen, "cannot write in %s: %s", dir,
			 strerror(errno));
		return -1;
	}
	return 0;
}

static void md_legend(FILE *md, double delta)
{
	fprintf(md, "Per cell: B/A of the primary figure (throughput, or a "
		"round workload's p50\nlatency), the Hodges-Lehmann estimate "
		"on log values with its 95%% interval;\nthe rank-sum p-value "
		"adjusted by Benjamini-Hochberg over the cells compared.\n"
		"*faster*/*slower*: the interval lies beyond 1 +- %.1f%% and "
		"the adjusted p < %.2f;\n*equivalent*: within 1 +- %.1f%%; "
		"*inconclusive*: neither; *undecided*: too few\nrepetitions "
		"for an interval. Summaries: geometric means with a bootstrap "
		"interval\nover cells. A workload whose figures drifted over "
		"the time of a run has its\nintervals widened by that drift. "
		"Where both runs counted their threads' CPU\ntime, a second "
		"verdict per cell is on the CPU ns per operation (lower is\n"
		"faster; its own Benjamini-Hochberg family), and leads where "
		"either run was\ncontaminated. Every verdict names its figure. "
		"docs/statistics.md has the error rates.\n\n", delta * 100,
		FL_ALPHA, delta * 100);
}

static int compare_all(struct fl_rd_run *runs, unsigned int nruns,
		       const struct fl_compare_opts *opt, FILE *out,
		       const char *dir, char *err, size_t errlen)
{
	struct cmp_pair pairs[FL_COMPARE_MAX_RUNS] = { { 0 } };
	struct cmp_outputs o = { 0 };
	int rc = -EIO;

	if (cmp_open_outputs(dir, &o, err, errlen))
		goto out;
	if (opt->note)
		fprintf(out, "%s\n", opt->note);
	cmp_csv_header(o.csv);
	fprintf(o.md, "# futexlab compare\n\nBaseline (A): `%s`\n\n",
		runs[0].dir);
	md_legend(o.md, opt->delta);
	for (unsigned int k = 1; k < nruns; k++) {
		struct cmp_pair *p = &pairs[k - 1];

		*p = (struct cmp_pair){ .a = &runs[0], .b = &runs[k],
					.delta = opt->delta,
					.use_adjust = opt->adjust,
					.say = opt->say };
		fprintf(o.md, "## %s against %s\n\n", p->b->name,
			p->a->name);
		cmp_setup_warnings(p->a, p->b, opt->say, o.md);
		if (cmp_match(p) || cmp_adjust(p, o.md) ||
		    cmp_drift(p, o.md)) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		cmp_judge(p);
		if (cmp_judge_cost(p)) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		fprintf(out, "%s against %s:\n", p->b->name, p->a->name);
		cmp_write_pair(p, out, o.csv, o.md);
	}
	rc = 0;
	if (opt->plot) {
		int n = cmp_ratio_plot(dir, pairs, nruns - 1, opt->say, err,
				       errlen);

		if (n < 0)
			rc = -EIO;
		else if (n)
			fprintf(o.md, "![ratios](ratios.png)\n");
	}
	if (ferror(o.csv) || ferror(o.md)) {
		snprintf(err, errlen, "cannot write in %s", dir);
		rc = -EIO;
	}
out:
	if (o.csv && fclose(o.csv))
		rc = -EIO;
	if (o.md && fclose(o.md))
		rc = -EIO;
	for (unsigned int k = 0; k < FL_COMPARE_MAX_RUNS; k++) {
		if (pairs[k].a)
			cmp_adjust_free(&pairs[k]);
		free(pairs[k].cells);
		free(pairs[k].cost);
		free(pairs[k].drift);
	}
	return rc;
}

void fl_compare_default_out(const char *a, const char *b, int more,
			    int runs, char *buf, size_t len)
{
	char dir[PATH_MAX], name_a[PATH_MAX], name_b[PATH_MAX];

	/* as the readers name a run: its path less any trailing '/' */
	snprintf(dir, sizeof(dir), "%s", a);
	for (size_t l = strlen(dir); l > 1 && dir[l - 1] == '/'; l--)
		dir[l - 1] = '\0';
	snprintf(name_a, sizeof(name_a), "%s", dir);
	snprintf(name_b, sizeof(name_b), "%s", b);
	for (size_t l = strlen(name_b); l > 1 && name_b[l - 1] == '/'; l--)
		name_b[l - 1] = '\0';
	snprintf(buf, len, "%s/compare-%s-vs-%s%s", dirname(dir),
		 basename(name_a), basename(name_b),
		 runs ? "-runs" : more ? "-and-more" : "");
}

/* Does a cell of b have the full setup of a cell of a? */
static int in_common(const struct fl_rd_run *a, const struct fl_rd_run *b)
{
	for (unsigned long i = 0; i < a->ncells; i++)
		if (fl_rd_find_setup(b, a->cells[i].setup_key))
			return 1;
	return 0;
}

/* What makes the comparison of runs mean nothing, refused; 0 or -1. */
static int refused(const struct fl_rd_run *runs, char *const *dirs,
		   unsigned int nruns, const char *outdir, int given,
		   char *err, size_t errlen)
{
	char na[164], nb[164], sb[161];

	if (cmp_refuse_twice(runs, dirs, nruns, NULL, err, errlen) ||
	    cmp_refuse_out_inside(runs, dirs, nruns, outdir, given, err,
				  errlen))
		return -1;
	snprintf(na, sizeof(na), "'%s'", fl_path_shown(dirs[0], sb, 160));
	for (unsigned int k = 1; k < nruns; k++) {
		if (in_common(&runs[0], &runs[k]))
			continue;
		snprintf(nb, sizeof(nb), "'%s'", fl_path_shown(dirs[k], sb,
							       160));
		return cmp_refuse_apart(&runs[0], na, &runs[k], nb, NULL, err,
					errlen);
	}
	return 0;
}

int fl_compare(char *const *dirs, unsigned int nruns,
	       const struct fl_compare_opts *o, FILE *out, char *outdir,
	       size_t outlen, char *err, size_t errlen)
{
	static struct fl_rd_run runs[FL_COMPARE_MAX_RUNS];
	unsigned int n = 0;
	int rc = -ENOENT;

	if (nruns < 2 || nruns > FL_COMPARE_MAX_RUNS) {
		snprintf(err, errlen, "give 2 to %d run directories",
			 FL_COMPARE_MAX_RUNS);
		return -EINVAL;
	}
	for (; n < nruns; n++)
		if (fl_rd_open(dirs[n], &runs[n], err, errlen))
			goto out;
	for (unsigned int k = 0; k < nruns; k++)
		if (cmp_unique_setups(&runs[k], err, errlen))
			goto out;
	if (o->outdir)
		snprintf(outdir, outlen, "%s", o->outdir);
	else
		fl_compare_default_out(dirs[0], dirs[1], nruns > 2, 0, outdir,
				       outlen);
	rc = -EINVAL;
	if (refused(runs, dirs, nruns, outdir, o->outdir != NULL, err,
		    errlen))
		goto out;
	rc = compare_all(runs, nruns, o, out, outdir, err, errlen);
out:
	for (unsigned int k = 0; k < n; k++)
		fl_rd_close(&runs[k]);
	return rc;
}
