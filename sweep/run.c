// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's visit loop (a visit: one repetition of one cell, see
 * matrix.h), pass after pass (passes.h), for a matrix and a run alike
 * (job.h), and its progress: a run's one line per pass, a matrix's
 * progress line per visit. Its count is of the repetitions announced
 * at the start, every cell's minimum, a total that does not grow: the
 * visits a skipped or failed cell will not make count as settled, and
 * the visits adaptive repetitions add are counted apart ("[459/459
 * +3 adaptive]"). The
 * estimate of the time left weighs each visit by its nominal length
 * (warm-up plus the repetition), scaled by how long the visits run so far
 * actually took per nominal second, so fork and set-up costs are in it
 * and skipped visits (which take no time) do not distort it. It counts
 * the visits every cell still owes to its minimum, not the extra ones
 * adaptive repetitions may add: an estimate from below.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/text.h"
#include "measure/busy_loop.h"
#include "measure/cell.h"
#include "rundir/meta.h"
#include "stats/figures.h"
#include "stats/format.h"
#include "sweep/cost.h"
#include "sweep/job.h"
#include "sweep/job_internal.h"

struct progress {
	FILE *out;
	unsigned long total;		/* every cell's minimum */
	int per_pass;			/* a run's: a line per pass only */
	int tty;
	unsigned int width;
	uint64_t t0;
	double nominal_done, nominal_left;
};

/* A visit's cell runs one repetition (fl_matrix_visit_cell). */
static double nominal_s(const struct fl_cell *c)
{
	return fl_visit_seconds(c->warmup_ns, c->duration_ns);
}

/* What the undone visits planned so far and the minimum visits not yet
 * planned will take, nominally. */
static double owed_s(const struct fl_matrix_job *j)
{
	struct fl_cell cell = { 0 };
	unsigned int *planned = calloc(j->m.ncells + 1, sizeof(*planned));
	double s = 0.0;
	char err[256];

	if (!planned)
		return 0.0;
	for (unsigned long k = 0; k < j->m.nvisits; k++) {
		planned[j->m.visits[k].cell]++;
		if (!j->done[k] && !fl_matrix_visit_cell(&j->m, k, &cell,
							 NULL, err,
							 sizeof(err)))
			s += nominal_s(&cell);
	}
	for (unsigned long c = 0; c < j->m.ncells; c++)
		if (!j->tracks[c].stopped && planned[c] < j->tracks[c].reps)
			s += (j->tracks[c].reps - planned[c]) *
			     j->tracks[c].cost_s;
	free(planned);
	fl_cell_free(&cell);
	return s;
}

static void fmt_clock(double s, char *buf, size_t len)
{
	unsigned long t = s > 0 ? (unsigned long)(s + 0.5) : 0;

	if (t >= 3600)
		snprintf(buf, len, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60,
			 t % 60);
	else
		snprintf(buf, len, "%lu:%02lu", t / 60, t % 60);
}

static void times(const struct progress *p, char *buf, size_t len)
{
	double el = (double)(fl_now_ns() - p->t0) / 1e9;
	double eta = p->nominal_done > 0 ?
		     el / p->nominal_done * p->nominal_left : p->nominal_left;
	char a[32], b[32];

	fmt_clock(el, a, sizeof(a));
	fmt_clock(eta, b, sizeof(b));
	snprintf(buf, len, "%s elapsed, ETA %s%s", a, b,
		 p->nominal_done > 0 ? "" : " (nominal)");
}

/* The visit's label, escaped (base/text.h): the progress line measures
 * it against the terminal's width as it will be shown. */
static void cell_name(const struct fl_matrix_exp *e, const struct fl_cell *c,
		      unsigned int rep, char *buf, size_t len)
{
	char raw[1024];

	snprintf(raw, sizeof(raw), "%s: %s %s threads=%u %s %s rep %u/%u%s",
		 e->name, c->workload->name, c->backend->name, c->threads,
		 c->placement, c->options, rep + 1, e->spec.reps,
		 e->spec.reps_auto ? "+" : "");
	fl_text_escape(raw, buf, len);
}

/* The repetitions every cell owes to its minimum: the total announced. */
static unsigned long minimum_total(const struct fl_matrix_job *j)
{
	unsigned long n = 0;

	for (unsigned long c = 0; c < j->m.ncells; c++)
		n += j->tracks[c].reps;
	return n;
}

/*
 * "[k/N]" for visit i, which the tracks do not count yet: k of the
 * announced N settled with it (made, or not to be made by a cell that
 * stopped), or N and the adaptive visits so far, this one among them.
 */
static void counter(const struct fl_matrix_job *j, const struct progress *p,
		    unsigned long i, char *buf, size_t len)
{
	unsigned long settled = 0, extra = 0;

	for (unsigned long c = 0; c < j->m.ncells; c++) {
		const struct fl_cell_track *t = &j->tracks[c];
		unsigned int made = t->visits < t->reps ? t->visits : t->reps;

		settled += t->stopped ? t->reps : made;
		extra += t->visits - made;
	}
	if (j->m.visits[i].rep < j->tracks[j->m.visits[i].cell].reps)
		snprintf(buf, len, "[%lu/%lu]", settled + 1, p->total);
	else
		snprintf(buf, len, "[%lu/%lu +%lu adaptive]", settled,
			 p->total, extra + 1);
}

static void show_running(struct progress *p, const char *count,
			 const char *name)
{
	char t[96], line[1024];

	if (!p->tty || p->per_pass)
		return;
	times(p, t, sizeof(t));
	snprintf(line, sizeof(line), "%s %s | %s", count, name, t);
	/* one screen line, or \r cannot take it back */
	if (p->width > 4 && strlen(line) > p->width - 1) {
		size_t tl = strlen(t) + 3;
		size_t keep = p->width - 1 > tl + 4 ? p->width - 1 - tl - 1 : 0;

		snprintf(line + keep, sizeof(line) - keep, "~ | %s", t);
	}
	/* the line's own sequence, the one control byte that passes */
	fl_text_control(p->out, "\r\033[K");
	fprintf(p->out, "%s", line);
	fflush(p->out);
}

static void show_done(struct progress *p, const char *count,
		      const char *name, const struct fl_cell *cell,
		      const struct fl_cell_result *res)
{
	struct fl_cell_figures fig;
	char what[512], rate[32], p50[32], t[96];

	if (p->per_pass)
		return;
	fl_cell_figures(cell, res, &fig);
	if (res->status == FL_STATUS_OK) {
		fl_fmt_rate(fig.ops_per_sec, rate, sizeof(rate));
		fl_fmt_ns(fl_hist_quantile(&res->merged, 0.5), p50,
			  sizeof(p50));
		snprintf(what, sizeof(what), "ok %s %s/s, p50 %s", rate,
			 cell->workload->ops_unit, p50);
	} else {
		snprintf(what, sizeof(what), "%s: %s",
			 fl_status_name(res->status), res->reason);
	}
	if (p->tty) {
		if (res->status == FL_STATUS_FAILED ||
		    res->status == FL_STATUS_ABORTED) {
			fl_text_control(p->out, "\r\033[K");
			fprintf(p->out, "%s %s: %s\n", count, name, what);
		}
		return;
	}
	times(p, t, sizeof(t));
	fprintf(p->out, "%s %s: %s (%s)\n", count, name, what, t);
	fflush(p->out);
}

/*
 * Where visit i's result goes: its row, written at once; a run also
 * folds it into its cell's result for the summary it prints at the end.
 * 0, or -1 (a write failed, said on stderr; out of memory).
 */
static int keep_visit(struct fl_matrix_job *j, unsigned long i,
		      const struct fl_cell *cell,
		      const struct fl_cell_result *res)
{
	/* the row is its cell's and repetition's; rundir/ journals the
	 * visit it was (rundir/visits.h) */
	struct fl_row_place at = { i, j->m.visits[i].cell,
				   j->m.visits[i].rep };
	char err[PATH_MAX + 128];

	if (j->kind == FL_JOB_RUN &&
	    matrix_job_gather(j, j->m.visits[i].cell, res))
		return -1;
	if (fl_run_write_visit(&j->run, &at, cell, res, err, sizeof(err))) {
		matrix_job_note(j, "futexlab: %s\n", err);
		return -1;
	}
	return 0;
}

/* What a visit asks of the loop. */
enum visit_end { VISIT_DONE, VISIT_INTERRUPTED, VISIT_WRITE_FAILED };

/* One visit: run it, write its row, tell the planner. */
static enum visit_end run_visit(struct fl_matrix_job *j, unsigned long i,
				struct progress *p, int *failed)
{
	struct fl_cell cell = { 0 };
	const struct fl_matrix_exp *exp;
	struct fl_cell_result res;
	struct fl_cell_figures fig;
	char err[512], name[1024], start[40], count[64];
	enum visit_end end = VISIT_DONE;

	if (fl_matrix_visit_cell(&j->m, i, &cell, &exp, err, sizeof(err))) {
		/* checked at parse time: the machine changed */
		matrix_job_note(j, "futexlab %s: %s\n", j->cmd, err);
		*failed = 1;
		goto out;
	}
	/* a campaign's visits probe the idle wake on the cell's first
	 * only: the probe costs a visit tens of milliseconds on a busy
	 * machine, and the campaign's paired blocks do not adjust by it
	 * (a matrix's visits each probe, for compare/adjust.c) */
	cell.no_idle_wake = j->one_visit && j->m.visits[i].rep > 0;
	cell_name(exp, &cell, j->m.visits[i].rep, name, sizeof(name));
	counter(j, p, i, count, sizeof(count));
	show_running(p, count, name);
	fl_utc_now_ms(start, sizeof(start));
	fl_cell_run(&cell, &res);
	if (fl_interrupted) {
		end = VISIT_INTERRUPTED;
		goto out_res;
	}
	if (keep_visit(j, i, &cell, &res)) {
		/* a full disk fails every visit after: stop at once */
		end = VISIT_WRITE_FAILED;
		goto out_res;
	}
	j->done[i] = 1;
	j->ndone++;
	if (res.nreps) {
		j->last_counts = res.reps[0].counts;
		j->last_ops = res.reps[0].ops;
	}
	fl_cell_figures(&cell, &res, &fig);
	fl_matrix_job_visited(j, i, res.status, fig.primary.mid,
			      fig.cost.ncpu ? fig.cost.cpu_per_op[0] : NAN,
			      fig.cost.ncontaminated != 0, start);
	p->nominal_left -= nominal_s(&cell);
	if (res.status != FL_STATUS_SKIPPED)
		p->nominal_done += nominal_s(&cell);
	if (res.status == FL_STATUS_FAILED ||
	    res.status == FL_STATUS_ABORTED)
		*failed = 1;
	show_done(p, count, name, &cell, &res);
	/* | head went away (a run's out is stderr, said to at each pass) */
	if (!p->per_pass && ferror(p->out))
		end = VISIT_WRITE_FAILED;
out_res:
	fl_cell_result_free(&res);
out:
	fl_cell_free(&cell);
	return end;
}

/* Every visit planned and not done; VISIT_DONE when they all ran. */
static enum visit_end run_planned(struct fl_matrix_job *j, struct progress *p,
				  int *failed)
{
	for (unsigned long i = 0; i < j->m.nvisits; i++) {
		enum visit_end e;

		if (fl_interrupted)
			return VISIT_INTERRUPTED;
		if (!j->done[i] &&
		    (e = run_visit(j, i, p, failed)) != VISIT_DONE)
			return e;
	}
	return VISIT_DONE;
}

enum fl_job_outcome fl_matrix_job_run(struct fl_matrix_job *j, FILE *out,
				      int tty)
{
	struct progress p = { .out = out, .tty = tty, .width = 80,
			      .per_pass = j->kind == FL_JOB_RUN };
	enum visit_end e = VISIT_DONE;
	struct winsize ws;
	char err[512];
	int failed = 0;

	/* a resume that found the rows in cell order: every visit ran */
	if (j->cell_layout)
		return FL_JOB_DONE;
	if (tty && ioctl(fileno(fl_text_under(out)), TIOCGWINSZ, &ws) == 0 &&
	    ws.ws_col)
		p.width = ws.ws_col;
	p.t0 = fl_now_ns();
	p.total = minimum_total(j);
	for (;;) {
		p.nominal_left = owed_s(j);
		e = run_planned(j, &p, &failed);
		if (e != VISIT_DONE || j->planned_only)
			break;
		long n = fl_matrix_job_next_pass(j, (double)(fl_now_ns() -
							     p.t0) / 1e9,
						 err, sizeof(err));

		if (n < 0) {
			matrix_job_note(j, "futexlab %s: %s\n", j->cmd, err);
			return FL_JOB_WRITE_FAILED;
		}
		if (n == 0)
			break;
		if (p.per_pass) {
			fprintf(out, "futexlab %s: pass %u: %ld visit%s\n",
				j->cmd, j->npasses, n, n == 1 ? "" : "s");
			fflush(out);
		}
	}
	if (tty) {
		fl_text_control(out, "\r\033[K");
		fflush(out);
	}
	if (e == VISIT_INTERRUPTED)
		return FL_JOB_INTERRUPTED;
	if (e == VISIT_WRITE_FAILED)
		return FL_JOB_WRITE_FAILED;
	return failed ? FL_JOB_FAILED : FL_JOB_DONE;
}
