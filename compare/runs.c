// SPDX-License-Identifier: GPL-2.0
/* Comparing sides of several runs: open them, check that each side is
 * one matrix of one futexlab, match, judge, write the outputs. */
#include "compare/runs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compare/internal.h"
#include "compare/runs_internal.h"
#include "stats/cost.h"

/* what every run of a side must share: which matrix (its file's hash),
 * and which futexlab ran it */
static const char *const same_in_side[][2] = {
	{ "matrix.fnv1a64", "matrices" },
	{ "futexlab_version", "futexlab versions" },
	{ "git_commit", "futexlab builds (git commits)" },
};

static int check_side(const struct runs_side *s, char *err, size_t errlen)
{
	char v0[256], v[256];

	if (!s->n) {
		snprintf(err, errlen, "side %s has no runs", s->name);
		return -1;
	}
	for (size_t i = 0; i < sizeof(same_in_side) / sizeof(same_in_side[0]);
	     i++) {
		fl_rd_meta(&s->run[0], same_in_side[i][0], v0, sizeof(v0));
		for (unsigned int k = 1; k < s->n; k++) {
			fl_rd_meta(&s->run[k], same_in_side[i][0], v,
				   sizeof(v));
			if (strcmp(v0, v) == 0)
				continue;
			snprintf(err, errlen, "side %s mixes %s: %s has '%s', "
				 "%s has '%s'", s->name, same_in_side[i][1],
				 s->run[0].dir, v0, s->run[k].dir, v);
			return -1;
		}
	}
	return 0;
}

static void md_legend(FILE *md, const struct runs_cmp *c)
{
	fprintf(md, "Side A: %u runs, side B: %u runs", c->side[0].n,
		c->side[1].n);
	if (c->ignore)
		fprintf(md, "; cells matched with the declared setting `%s` "
			"left out", c->ignore);
	fprintf(md, ".\n\nThe run is the unit: per cell, each run's median "
		"is one observation, and\nB/A is the Hodges-Lehmann shift "
		"of the runs' log medians with its 95%%\ninterval and "
		"rank-sum p (adjusted by Benjamini-Hochberg over the "
		"cells).\n*faster*/*slower*: beyond 1 +- %.1f%% with p < "
		"%.2f; *equivalent*: within;\n*needs more runs*: neither, "
		"with about how many runs per side the spread\nbetween runs "
		"says it would take. Summaries: each run's mean log over the"
		"\ncells, compared between the sides with intervals that "
		"hold together at 95%%\n(permutation max-t). "
		"docs/statistics.md has the error rates.\n\n", c->delta * 100, FL_ALPHA);
}

/* Has a cell runs of both sides? */
static int in_common(const struct runs_cmp *c)
{
	for (unsigned long i = 0; i < c->n; i++) {
		int on[2] = { 0, 0 };

		for (int s = 0; s < 2; s++)
			for (unsigned int k = 0; k < c->side[s].n; k++)
				on[s] |= c->cells[i].at[s][k] != NULL;
		if (on[0] && on[1])
			return 1;
	}
	return 0;
}

/* The sides' repetitions the machine contaminated, of those judged. */
static unsigned int contaminated(const struct runs_side *s,
				 unsigned int *judged)
{
	unsigned int n = 0;

	for (unsigned int k = 0; k < s->n; k++)
		for (unsigned long i = 0; i < s->run[k].ncells; i++) {
			n += s->run[k].cells[i].cost.ncontaminated;
			*judged += s->run[k].cells[i].cost.njudged;
		}
	return n;
}

/*
 * The cost's verdicts (each run's CPU ns per operation as the run's
 * figure), written first (lead) where either side was contaminated,
 * after the primary figure's otherwise: 1 written, 0 not (no cell
 * counted on both sides, or not its turn), -1 no memory.
 */
static int write_cost(const struct runs_cmp *c, FILE *out,
		      const struct cmp_outputs *f, int lead, char *err,
		      size_t errlen)
{
	struct runs_cmp cost = { .side = { c->side[0], c->side[1] },
				 .ignore = c->ignore, .delta = c->delta,
				 .cost = 1 };
	unsigned int judged[2] = { 0, 0 }, bad[2];
	int rc = 0;

	bad[0] = contaminated(&c->side[0], &judged[0]);
	bad[1] = contaminated(&c->side[1], &judged[1]);
	if (lead != (bad[0] || bad[1]))
		return 0;
	if (runs_match(&cost, err, errlen))
		return -1;
	runs_judge(&cost);
	if (cost.n == cost.count[FL_V_NONE])
		goto out;
	if (lead) {
		char line[400];

		snprintf(line, sizeof(line), "the machine contaminated %u of "
			 "%u repetitions of A and %u of %u of B: the "
			 "throughput verdicts are about the machine; the "
			 "cost (%s) leads", bad[0], judged[0], bad[1],
			 judged[1], fl_cost_name[FL_COST_CPU]);
		fprintf(out, "  %s\n", line);
		fprintf(f->md, "**Contaminated**: %s.\n\n", line);
	}
	runs_write(&cost, out, f->csv, f->md);
	rc = 1;
out:
	free(cost.cells);
	return rc;
}

static int write_all(struct runs_cmp *c, const struct fl_compare_opts *o,
		     FILE *out, const char *dir, char *err, size_t errlen)
{
	struct cmp_outputs f = { 0 };
	int rc = -EIO;

	if (runs_match(c, err, errlen))
		return -EINVAL;
	if (!in_common(c))
		return cmp_refuse_apart(&c->side[0].run[0], "side A",
					&c->side[1].run[0], "side B",
					c->ignore, err, errlen), -EINVAL;
	runs_judge(c);
	if (cmp_open_outputs(dir, &f, err, errlen))
		goto out;
	fprintf(f.md, "# futexlab compare, runs as the unit\n\n");
	md_legend(f.md, c);
	cmp_setup_warnings(&c->side[0].run[0], &c->side[1].run[0], o->say,
			   f.md);
	fprintf(out, "%u runs of B against %u runs of A:\n", c->side[1].n,
		c->side[0].n);
	if (c->side[0].n == 1 || c->side[1].n == 1) {
		fprintf(out, "  %s\n", FL_ONE_RUN_NOTE);
		fprintf(f.md, "%s\n\n", FL_ONE_RUN_NOTE);
	}
	runs_csv_header(f.csv);
	if (write_cost(c, out, &f, 1, err, errlen) < 0)
		goto out;
	runs_write(c, out, f.csv, f.md);
	if (write_cost(c, out, &f, 0, err, errlen) < 0)
		goto out;
	rc = 0;
	if (o->plot) {
		int n = runs_plot(dir, c, o->say, err, errlen);

		if (n < 0)
			rc = -EIO;
		else if (n)
			fprintf(f.md, "![ratios](ratios.png)\n");
	}
	if (ferror(f.csv) || ferror(f.md)) {
		snprintf(err, errlen, "cannot write in %s", dir);
		rc = -EIO;
	}
out:
	if (f.csv && fclose(f.csv))
		rc = -EIO;
	if (f.md && fclose(f.md))
		rc = -EIO;
	return rc;
}

/* 0; -ENOENT when a run cannot be read (as compare of two runs says);
 * -EINVAL for a side that mixes. s->n: the runs to close. */
static int open_side(struct runs_side *s, char *const *dirs, char *err,
		     size_t errlen)
{
	for (unsigned int k = 0; k < s->n; k++) {
		if (fl_rd_open(dirs[k], &s->run[k], err, errlen) ||
		    cmp_unique_setups(&s->run[k], err, errlen)) {
			s->n = k + 1;
			return -ENOENT;
		}
	}
	return check_side(s, err, errlen) ? -EINVAL : 0;
}

/* c's sides opened and checked; 0, or -ENOENT, -EINVAL, -ENOMEM with
 * err (close_all() either way) */
static int open_all(struct runs_cmp *c, char *const *a, unsigned int na,
		    char *const *b, unsigned int nb, char *err, size_t errlen)
{
	int rc;

	c->side[0] = (struct runs_side){ .name = "A", .n = na };
	c->side[1] = (struct runs_side){ .name = "B", .n = nb };
	for (int s = 0; s < 2; s++) {
		if (!c->side[s].n) {
			snprintf(err, errlen, "side %s has no runs",
				 c->side[s].name);
			c->side[0].n = c->side[1].n = 0;
			return -EINVAL;
		}
		if (c->side[s].n > FL_RUNS_MAX_SIDE) {
			snprintf(err, errlen, "side %s has %u runs: at most "
				 "%d a side", c->side[s].name, c->side[s].n,
				 FL_RUNS_MAX_SIDE);
			c->side[0].n = c->side[1].n = 0;
			return -EINVAL;
		}
	}
	c->side[0].run = calloc(na, sizeof(struct fl_rd_run));
	c->side[1].run = calloc(nb, sizeof(struct fl_rd_run));
	if (!c->side[0].run || !c->side[1].run) {
		snprintf(err, errlen, "out of memory");
		c->side[0].n = c->side[1].n = 0;
		return -ENOMEM;
	}
	for (int s = 0; s < 2; s++) {
		rc = open_side(&c->side[s], s ? b : a, err, errlen);
		if (rc) {
			if (!s)
				c->side[1].n = 0;
			return rc;
		}
	}
	return 0;
}

static void close_all(struct runs_cmp *c)
{
	for (int s = 0; s < 2; s++) {
		for (unsigned int k = 0; k < c->side[s].n; k++)
			fl_rd_close(&c->side[s].run[k]);
		free(c->side[s].run);
	}
	free(c->cells);
}

/* What makes the comparison of the sides mean nothing, refused; 0 or
 * -1 with err. */
static int refused(const struct runs_cmp *c, char *const *a, char *const *b,
		   const struct fl_compare_opts *o, const char *outdir,
		   char *err, size_t errlen)
{
	const struct runs_side *s = c->side;

	if (cmp_refuse_twice(s[0].run, a, s[0].n, "A", err, errlen) ||
	    cmp_refuse_twice(s[1].run, b, s[1].n, "B", err, errlen) ||
	    cmp_refuse_both_sides(s[0].run, a, s[0].n, s[1].run, b, s[1].n,
				  err, errlen))
		return -1;
	if (o->setting_given && c->ignore &&
	    cmp_refuse_setting(s[0].run, s[0].n, c->ignore, err, errlen) &&
	    cmp_refuse_setting(s[1].run, s[1].n, c->ignore, err, errlen))
		return -1;
	for (int k = 0; k < 2; k++)
		if (cmp_refuse_out_inside(s[k].run, k ? b : a, s[k].n, outdir,
					  o->outdir != NULL, err, errlen))
			return -1;
	return 0;
}

int fl_compare_runs(char *const *a, unsigned int na, char *const *b,
		    unsigned int nb, const char *ignore,
		    const struct fl_compare_opts *o, FILE *out, char *outdir,
		    size_t outlen, char *err, size_t errlen)
{
	struct runs_cmp c = { .ignore = ignore, .delta = o->delta };
	int rc = open_all(&c, a, na, b, nb, err, errlen);

	if (rc)
		goto out;
	if (o->outdir)
		snprintf(outdir, outlen, "%s", o->outdir);
	else
		fl_compare_default_out(a[0], b[0], 0, 1, outdir, outlen);
	rc = refused(&c, a, b, o, outdir, err, errlen) ? -EINVAL :
	     write_all(&c, o, out, outdir, err, errlen);
out:
	close_all(&c);
	return rc;
}

int fl_runs_undecided(char *const *a, unsigned int na, char *const *b,
		      unsigned int nb, const char *ignore, double delta,
		      unsigned int *undecided, unsigned int *needed,
		      char *err, size_t errlen)
{
	struct runs_cmp c = { .ignore = ignore, .delta = delta };
	int rc = open_all(&c, a, na, b, nb, err, errlen);

	*undecided = *needed = 0;
	if (!rc && runs_match(&c, err, errlen))
		rc = -EINVAL;
	if (!rc) {
		runs_judge(&c);
		for (unsigned long i = 0; i < c.n; i++) {
			if (c.cells[i].v != FL_V_MORE_RUNS)
				continue;
			(*undecided)++;
			if (c.cells[i].needed > *needed)
				*needed = c.cells[i].needed;
		}
	}
	close_all(&c);
	return rc;
}
