// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab compare RUN-A RUN-B [RUN-C...]: each later run against the
 * first, cell by cell. Cells match by their parameters (workload, backend,
 * threads, placement, options), not by index, so runs of different
 * matrices compare on what they share; cells found in one run only are
 * listed, never dropped.
 *
 * The verdict comes from the spread across repetitions, not from a fixed
 * percentage: B is "faster" when its slowest repetition beat A's fastest
 * (the two ranges of ops/s do not overlap), "slower" the other way round,
 * and "within noise" when the ranges overlap. With 3 repetitions each, two
 * runs of identical distributions still give non-overlapping ranges with
 * probability 2 / C(6,3) = 10%; with 5, 2 / C(10,5) < 1%. A cell with
 * fewer than two ok repetitions on either side has no spread to judge by
 * and is "undecided". The same rule on p99 latency gives "better" or
 * "worse" (lower is better).
 *
 * Writes compare.csv, compare.md and ratios.{gp,png,svg} into --out
 * (default: next to RUN-A, compare-<A>-vs-<B>). Exit 0, 1 when an
 * output cannot be written or gnuplot fails, 2 on bad usage.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/flags.h"
#include "cli/outputs.h"
#include "cli/commands.h"
#include "rundir/csv.h"
#include "stats/figures.h"
#include "measure/busy.h"
#include "plot/gp.h"
#include "rundir/read.h"

#define MAX_RUNS 8

enum verdict { V_FASTER, V_SLOWER, V_NOISE, V_UNDECIDED, V_NONE };

static const char *const verdict_names[] = {
	[V_FASTER] = "faster", [V_SLOWER] = "slower",
	[V_NOISE] = "within noise", [V_UNDECIDED] = "undecided",
	[V_NONE] = "not comparable",
};

/* The p99 verdict in its own words: lower latency is "better". */
static const char *p99_verdict_name(enum verdict v)
{
	return v == V_FASTER ? "better" : v == V_SLOWER ? "worse" :
	       verdict_names[v];
}

struct outcome {
	const struct fl_rd_cell *a, *b;
	double ratio, lo, hi;		/* B/A of medians, of range ends */
	enum verdict v;
	double p99_ratio;
	enum verdict p99_v;		/* faster = lower latency */
};

/* The rule of the file comment, for "higher is better" figures. */
static enum verdict judge(const struct fl_rd_fig *a, unsigned int na,
			  const struct fl_rd_fig *b, unsigned int nb)
{
	if (na < 2 || nb < 2)
		return V_UNDECIDED;
	if (b->min > a->max)
		return V_FASTER;
	if (b->max < a->min)
		return V_SLOWER;
	return V_NOISE;
}

static void compare_cell(const struct fl_rd_cell *a,
			 const struct fl_rd_cell *b, struct outcome *o)
{
	memset(o, 0, sizeof(*o));
	o->a = a;
	o->b = b;
	o->v = V_NONE;
	o->p99_v = V_NONE;
	if (!a || !b || strcmp(a->status, "ok") || strcmp(b->status, "ok") ||
	    !a->nok || !b->nok || a->ops_per_sec.med <= 0)
		return;
	o->ratio = b->ops_per_sec.med / a->ops_per_sec.med;
	o->lo = a->ops_per_sec.max > 0 ? b->ops_per_sec.min /
		a->ops_per_sec.max : o->ratio;
	o->hi = a->ops_per_sec.min > 0 ? b->ops_per_sec.max /
		a->ops_per_sec.min : o->ratio;
	o->v = judge(&a->ops_per_sec, a->nok, &b->ops_per_sec, b->nok);
	if (a->p99.med > 0) {
		o->p99_ratio = b->p99.med / a->p99.med;
		/* lower is better: judge the negated ranges */
		struct fl_rd_fig na = { -a->p99.med, -a->p99.max, -a->p99.min };
		struct fl_rd_fig nb = { -b->p99.med, -b->p99.max, -b->p99.min };

		o->p99_v = judge(&na, a->nok, &nb, b->nok);
	}
}

/* "algo=pi;critical=100" -> "algo,critical" */
static void option_names(const char *opts, char *buf, size_t len)
{
	struct fl_rd_pair o;
	size_t used = 0;

	buf[0] = '\0';
	for (const char *p = opts;
	     used + 1 < len && fl_rd_next_pair(&p, &o) == 0;)
		used += (size_t)snprintf(buf + used, len - used, "%s%.*s",
					 used ? "," : "", o.name_len, o.name);
}

/* What differs between the machines and kernels of two runs. */
static int machine_warnings(const struct fl_rd_run *a,
			    const struct fl_rd_run *b, FILE *md)
{
	static const char *const facts[][2] = {
		{ "machine.hostname", "host" },
		{ "machine.kernel", "kernel" },
		{ "machine.cpu_model", "CPU model" },
		{ "machine.topology.cpus_online", "online CPUs" },
		{ "machine.topology.numa_nodes", "NUMA nodes" },
		{ "machine.governor", "frequency governor" },
		{ "machine.futex.dev_futexlab", "/dev/futexlab" },
	};
	char va[256], vb[256];
	int n = 0;

	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		fl_rd_meta(a, facts[i][0], va, sizeof(va));
		fl_rd_meta(b, facts[i][0], vb, sizeof(vb));
		if (strcmp(va, vb) == 0)
			continue;
		fprintf(stderr, "futexlab compare: warning: %s and %s differ "
			"in %s: '%s' against '%s'\n", a->name, b->name,
			facts[i][1], va, vb);
		if (md)
			fprintf(md, "- **warning**: %s differs: `%s` (%s) "
				"against `%s` (%s)\n", facts[i][1], va,
				a->name, vb, b->name);
		n++;
	}
	/* a workload that gained an option in between: none of its cells
	 * can match, which the one-run-only lists would leave unexplained */
	for (unsigned long i = 0; i < a->ncells; i++) {
		const struct fl_rd_cell *bc;
		char na[512], nb[512];

		if (fl_rd_first_of(a, a->cells[i].workload) != &a->cells[i])
			continue;
		bc = fl_rd_first_of(b, a->cells[i].workload);
		if (!bc)
			continue;
		option_names(a->cells[i].options, na, sizeof(na));
		option_names(bc->options, nb, sizeof(nb));
		if (!strcmp(na, nb))
			continue;
		fprintf(stderr, "futexlab compare: warning: workload %s has "
			"options '%s' in %s but '%s' in %s (another futexlab "
			"version?): its cells cannot match\n",
			a->cells[i].workload, na, a->name, nb, b->name);
		if (md)
			fprintf(md, "- **warning**: workload %s has options "
				"`%s` in %s but `%s` in %s\n",
				a->cells[i].workload, na, a->name, nb, b->name);
		n++;
	}
	/* the spread inside a run cannot show another user's load that
	 * came or went between the runs */
	for (int k = 0; k < 2; k++) {
		const struct fl_rd_run *x = k ? b : a;
		double fs;

		if (fl_rd_foreign_share(x, &fs) || fs <= FL_BUSY_WARN)
			continue;
		fprintf(stderr, "futexlab compare: warning: other processes "
			"used %.0f%% of the CPU time during %s: verdicts may "
			"reflect that load\n", fs * 100, x->name);
		if (md)
			fprintf(md, "- **warning**: other processes used "
				"%.0f%% of the CPU time during %s\n",
				fs * 100, x->name);
		n++;
	}
	return n;
}

static void short_label(const struct fl_rd_cell *c, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "%s %s t%u", c->workload,
				       c->backend, c->threads);
	struct fl_rd_pair o;
	int first = 1;

	/* option values only: "algo=pi;critical=100" reads as "pi,100" */
	for (const char *p = c->options;
	     used < len && fl_rd_next_pair(&p, &o) == 0;) {
		if (!o.value)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%.*s",
					 first ? " " : ",", o.value_len,
					 o.value);
		first = 0;
	}
}

static void csv_header(FILE *f)
{
	fprintf(f, "run_a,run_b,workload,backend,threads,placement,options,"
		"status_a,status_b,ops_a,ops_a_min,ops_a_max,ops_b,ops_b_min,"
		"ops_b_max,ratio,verdict,p99_a_ns,p99_b_ns,p99_ratio,"
		"p99_verdict,reason\n");
}

/* ops_a,ops_a_min,ops_a_max (or b's); empty for a cell in one run only */
static void ops_fields(FILE *f, const struct fl_rd_cell *c)
{
	if (c)
		fprintf(f, "%.1f,%.1f,%.1f,", c->ops_per_sec.med,
			c->ops_per_sec.min, c->ops_per_sec.max);
	else
		fprintf(f, ",,,");
}

static void csv_row(FILE *f, const struct fl_rd_run *ra,
		    const struct fl_rd_run *rb, const struct outcome *o)
{
	const struct fl_rd_cell *c = o->a ? o->a : o->b;
	char why[600] = "";

	fl_csv_field(f, ra->name, 0);
	fl_csv_field(f, rb->name, 0);
	fl_csv_field(f, c->workload, 0);
	fl_csv_field(f, c->backend, 0);
	fprintf(f, "%u,", c->threads);
	fl_csv_field(f, c->placement, 0);
	fl_csv_field(f, c->options, 0);
	fl_csv_field(f, o->a ? o->a->status : "absent", 0);
	fl_csv_field(f, o->b ? o->b->status : "absent", 0);
	ops_fields(f, o->a);
	ops_fields(f, o->b);
	if (o->v == V_NONE)
		fprintf(f, ",");
	else
		fprintf(f, "%.4f,", o->ratio);
	fl_csv_field(f, verdict_names[o->v], 0);
	fprintf(f, "%.0f,%.0f,", o->a ? o->a->p99.med : 0,
		o->b ? o->b->p99.med : 0);
	if (o->p99_v == V_NONE)
		fprintf(f, ",");
	else
		fprintf(f, "%.4f,", o->p99_ratio);
	fl_csv_field(f, p99_verdict_name(o->p99_v), 0);
	if (!o->a || !o->b)
		snprintf(why, sizeof(why), "only in %s",
			 o->a ? ra->name : rb->name);
	else if (strcmp(o->a->status, "ok"))
		snprintf(why, sizeof(why), "%s: %s", ra->name, o->a->reason);
	else if (strcmp(o->b->status, "ok"))
		snprintf(why, sizeof(why), "%s: %s", rb->name, o->b->reason);
	fl_csv_field(f, why, 1);
}

static int ratio_plot(const char *dir, struct fl_rd_run *runs,
		      unsigned int nruns, struct outcome **outs,
		      unsigned long *nouts, char *err, size_t errlen)
{
	char title[1024], lab[256];
	unsigned long n = 0;
	struct fl_gp g;

	for (unsigned int k = 1; k < nruns; k++)
		for (unsigned long i = 0; i < nouts[k]; i++)
			n += outs[k][i].v != V_NONE;
	if (!n)
		return 0;
	snprintf(title, sizeof(title), "throughput ratio against %s (bars: "
		 "slowest/fastest and fastest/slowest repetitions)\nfaster or "
		 "slower only where the ranges across repetitions do not "
		 "overlap", runs[0].name);
	if (fl_gp_open(&g, dir, "ratios", title, err, errlen))
		return -1;
	/* one block per run and verdict, x = the cell's position; the
	 * labels of the first pair's cells in a block of their own */
	unsigned int have[MAX_RUNS][V_NONE] = { { 0 } };

	for (unsigned int k = 1; k < nruns; k++)
		for (int v = V_FASTER; v <= V_UNDECIDED; v++) {
			unsigned long x = 0;

			fprintf(g.f, "$r%u_%d << EOD\n# x ratio lo hi\n", k, v);
			for (unsigned long i = 0; i < nouts[k]; i++) {
				const struct outcome *o = &outs[k][i];

				if (o->v == V_NONE)
					continue;
				x++;
				if ((int)o->v != v)
					continue;
				fprintf(g.f, "%lu %.6g %.6g %.6g\n", x,
					o->ratio, o->lo, o->hi);
				have[k][v]++;
			}
			fl_gp_end_block(&g);
		}
	fprintf(g.f, "$labels << EOD\n");
	for (unsigned long i = 0, x = 0; i < nouts[1]; i++) {
		if (outs[1][i].v == V_NONE)
			continue;
		short_label(outs[1][i].a, lab, sizeof(lab));
		/* data files quote with double quotes */
		for (char *q = lab; *q; q++)
			if (*q == '"')
				*q = '\'';
		fprintf(g.f, "%lu \"%s\"\n", ++x, lab);
	}
	fl_gp_end_block(&g);
	unsigned long per = n / (nruns - 1);
	int width = per * 16 + 400 > 1100 ? (int)(per * 16 + 400) : 1100;

	fl_gp_begin_draw(&g, width > 4000 ? 4000 : width, 700);
	fprintf(g.f, "set title ");
	fl_gp_dstr(g.f, title);
	fprintf(g.f, "\nset logscale y 2\nset ylabel 'B / A (ops/s, "
		"median)'\nset xlabel 'cell'\nset xrange [0:%lu]\n"
		"set xtics rotate by 90 right font ',8'\nset bmargin 14\n"
		"set arrow 1 from graph 0, first 1 to graph 1, first 1 "
		"nohead lc rgb '#555555' dt 2\nset format y '%%g'\n",
		per + 1);
	fprintf(g.f, "plot $labels using 1:(1):xtic(2) with dots "
		"lc rgb '#555555' notitle");
	static const char *const colour[] = { "#009e73", "#d55e00",
					      "#7f7f7f", "#cccccc" };

	for (unsigned int k = 1; k < nruns; k++)
		for (int v = V_FASTER; v <= V_UNDECIDED; v++) {
			char t[400];

			if (!have[k][v])
				continue;
			snprintf(t, sizeof(t), "%s: %s", runs[k].name,
				 verdict_names[v]);
			fprintf(g.f, ", \\\n\t$r%u_%d using 1:2:3:4 with "
				"yerrorbars pt %u lc rgb '%s' title ", k, v,
				k * 2 + 5, colour[v]);
			fl_gp_str(g.f, t);
		}
	fprintf(g.f, "\n");
	if (fl_gp_close(&g, err, errlen) || fl_gp_run(&g, err, errlen))
		return -1;
	return 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: futexlab compare RUN-A RUN-B [RUN-C...] [--out DIR]\n\n"
		"Compare each later run against RUN-A, cell by cell (cells "
		"match by\nworkload, backend, threads, placement and "
		"options). Per cell: B/A of\nmedian ops/s and a verdict: "
		"faster or slower when the ranges across\nrepetitions do not "
		"overlap, else within noise. Cells in one run only\nare "
		"listed. Warns when the machines or kernels differ.\n\n"
		"  --out DIR   where compare.csv, compare.md and "
		"ratios.png/svg go\n              (default: RUN-A's parent, "
		"compare-<A>-vs-<B>)\n"
		"  --no-plot   skip the ratio plot\n");
}

int fl_cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "out", 1, NULL, 'o' },
		{ "no-plot", 0, NULL, 'n' },
		{ "help", 0, NULL, 'h' },
		{ 0 },
	};
	static struct fl_rd_run runs[MAX_RUNS];
	struct outcome *outs[MAX_RUNS] = { 0 };
	unsigned long nouts[MAX_RUNS] = { 0 };
	char out[PATH_MAX], path[PATH_MAX + 32], err[2048], tmp[PATH_MAX];
	const char *outdir = NULL;
	unsigned int nruns = 0;
	int noplot = 0, rc = 0;
	FILE *csv = NULL, *md = NULL;

	fl_getopt_start();
	for (;;) {
		int c = fl_getopt("compare", argc, argv, longopts);

		if (c == -1)
			break;
		switch (c) {
		case 'o':
			if (fl_check_output("compare", "--out", optarg,
					    FL_OUT_DIR))
				return 2;
			outdir = optarg;
			break;
		case 'n':
			noplot = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:	/* FL_GETOPT_BAD: it said why */
			return 2;
		}
	}
	if (argc - optind < 2 || argc - optind > MAX_RUNS) {
		fprintf(stderr, "futexlab compare: give 2 to %d run "
			"directories (see --help)\n", MAX_RUNS);
		return 2;
	}
	for (int i = optind; i < argc; i++) {
		if (fl_rd_open(argv[i], &runs[nruns], err, sizeof(err))) {
			fprintf(stderr, "futexlab compare: %s\n", err);
			rc = 2;
			goto out;
		}
		nruns++;
	}
	if (!outdir) {
		snprintf(tmp, sizeof(tmp), "%s", runs[0].dir);
		snprintf(out, sizeof(out), "%s/compare-%s-vs-%s%s",
			 dirname(tmp), runs[0].name, runs[1].name,
			 nruns > 2 ? "-and-more" : "");
		outdir = out;
	}
	if (mkdir(outdir, 0755) && errno != EEXIST) {
		fprintf(stderr, "futexlab compare: cannot create %s: %s\n",
			outdir, strerror(errno));
		rc = 1;
		goto out;
	}
	snprintf(path, sizeof(path), "%s/compare.csv", outdir);
	csv = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/compare.md", outdir);
	md = csv ? fopen(path, "w") : NULL;
	if (!csv || !md) {
		fprintf(stderr, "futexlab compare: cannot write in %s: %s\n",
			outdir, strerror(errno));
		rc = 1;
		goto out;
	}
	csv_header(csv);
	fprintf(md, "# futexlab compare\n\nBaseline (A): `%s`\n\n",
		runs[0].dir);
	for (unsigned int k = 1; k < nruns; k++) {
		const struct fl_rd_run *a = &runs[0], *b = &runs[k];
		unsigned int cnt[V_NONE + 1] = { 0 };

		fprintf(md, "## %s against %s\n\n", b->name, a->name);
		machine_warnings(a, b, md);
		outs[k] = calloc(a->ncells + b->ncells + 1, sizeof(**outs));
		if (!outs[k]) {
			rc = 1;
			goto out;
		}
		for (unsigned long i = 0; i < a->ncells; i++)
			compare_cell(&a->cells[i], fl_rd_find(b,
				     a->cells[i].key), &outs[k][nouts[k]++]);
		for (unsigned long i = 0; i < b->ncells; i++)
			if (!fl_rd_find(a, b->cells[i].key))
				compare_cell(NULL, &b->cells[i],
					     &outs[k][nouts[k]++]);
		fprintf(md, "\n| cell | A ops/s | B ops/s | B/A | verdict | "
			"p99 B/A | p99 verdict | note |\n"
			"|---|---:|---:|---:|---|---:|---|---|\n");
		printf("%s against %s:\n", b->name, a->name);
		printf("  %-52s %9s %9s %7s  %s\n", "cell", "A ops/s",
		       "B ops/s", "B/A", "verdict");
		for (unsigned long i = 0; i < nouts[k]; i++) {
			const struct outcome *o = &outs[k][i];
			const struct fl_rd_cell *c = o->a ? o->a : o->b;
			char lab[256], ra[32] = "-", rb[32] = "-", r[32] = "-";
			char pr[32] = "-", note[300] = "";

			csv_row(csv, a, b, o);
			cnt[o->v]++;
			short_label(c, lab, sizeof(lab));
			if (o->a && o->a->nok)
				fl_fmt_rate(o->a->ops_per_sec.med, ra,
					    sizeof(ra));
			if (o->b && o->b->nok)
				fl_fmt_rate(o->b->ops_per_sec.med, rb,
					    sizeof(rb));
			if (o->v != V_NONE)
				snprintf(r, sizeof(r), "%.3f", o->ratio);
			if (o->p99_v != V_NONE)
				snprintf(pr, sizeof(pr), "%.3f",
					 o->p99_ratio);
			if (!o->a || !o->b)
				snprintf(note, sizeof(note), "only in %s",
					 o->a ? a->name : b->name);
			else if (o->v == V_NONE)
				snprintf(note, sizeof(note), "%s in A, %s in "
					 "B", o->a->status, o->b->status);
			printf("  %-52s %9s %9s %7s  %s%s%s\n", lab, ra, rb, r,
			       verdict_names[o->v], *note ? ": " : "", note);
			fprintf(md, "| %s | %s | %s | %s | %s | %s | %s | %s "
				"|\n", lab, ra, rb, r, verdict_names[o->v], pr,
				p99_verdict_name(o->p99_v), note);
		}
		unsigned int judged = cnt[V_FASTER] + cnt[V_SLOWER] +
				      cnt[V_NOISE];

		snprintf(err, sizeof(err), "%u cells compared: %u faster, %u "
			 "slower, %u within noise (%.0f%% within noise), %u "
			 "undecided, %u not comparable or in one run only",
			 judged + cnt[V_UNDECIDED], cnt[V_FASTER],
			 cnt[V_SLOWER], cnt[V_NOISE],
			 judged ? 100.0 * cnt[V_NOISE] / judged : 0.0,
			 cnt[V_UNDECIDED], cnt[V_NONE]);
		printf("  %s\n", err);
		fprintf(md, "\n%s.\n\n", err);
	}
	fprintf(md, "Verdicts: *faster*/*slower* when the ranges of ops/s "
		"across repetitions do not\noverlap, *within noise* when they "
		"do, *undecided* with fewer than two ok\nrepetitions on a "
		"side. p99: *better*/*worse* by the same rule.\n\n");
	if (!noplot) {
		int n = ratio_plot(outdir, runs, nruns, outs, nouts, err,
				   sizeof(err));

		if (n < 0) {
			fprintf(stderr, "futexlab compare: %s\n", err);
			rc = 1;
		} else if (n) {
			fprintf(md, "![throughput ratios](ratios.png)\n");
		}
	}
	if (ferror(csv) | ferror(md)) {
		fprintf(stderr, "futexlab compare: cannot write in %s\n",
			outdir);
		rc = 1;
	}
	printf("%s\n", outdir);
out:
	if (csv)
		fclose(csv);
	if (md)
		fclose(md);
	for (unsigned int k = 0; k < MAX_RUNS; k++)
		free(outs[k]);
	for (unsigned int k = 0; k < nruns; k++)
		fl_rd_close(&runs[k]);
	return rc;
}
