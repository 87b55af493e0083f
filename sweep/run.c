// SPDX-License-Identifier: GPL-2.0
/*
 * The matrix's visit loop (a visit: one repetition of one cell, see
 * matrix.h) and its progress line. The estimate of the time left weighs
 * each visit by its nominal length (warm-up plus the repetition), scaled
 * by how long the visits run so far actually took per nominal second, so
 * fork and set-up costs are in it and skipped visits (which take no time)
 * do not distort it.
 */
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "measure/clock.h"
#include "stats/figures.h"
#include "sweep/job.h"

struct progress {
	FILE *out;
	int tty;
	unsigned int width;
	uint64_t t0;
	double nominal_done, nominal_left;
};

static double nominal_s(const struct fl_cell *c)
{
	return ((double)c->warmup_ns + (double)c->reps *
		(double)c->duration_ns) / 1e9 + 0.02;
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

static void cell_name(const struct fl_matrix_exp *e, const struct fl_cell *c,
		      unsigned int rep, char *buf, size_t len)
{
	snprintf(buf, len, "%s: %s %s threads=%u %s %s rep %u/%u", e->name,
		 c->workload->name, c->backend->name, c->threads, c->placement,
		 c->options, rep + 1, e->spec.reps);
}

static void show_running(struct progress *p, unsigned long i,
			 unsigned long n, const char *name)
{
	char t[96], line[1024];

	if (!p->tty)
		return;
	times(p, t, sizeof(t));
	snprintf(line, sizeof(line), "[%lu/%lu] %s | %s", i + 1, n, name, t);
	/* one screen line, or \r cannot take it back */
	if (p->width > 4 && strlen(line) > p->width - 1) {
		size_t tl = strlen(t) + 3;
		size_t keep = p->width - 1 > tl + 4 ? p->width - 1 - tl - 1 : 0;

		snprintf(line + keep, sizeof(line) - keep, "~ | %s", t);
	}
	fprintf(p->out, "\r\033[K%s", line);
	fflush(p->out);
}

static void show_done(struct progress *p, unsigned long i, unsigned long n,
		      const char *name, const struct fl_cell *cell,
		      const struct fl_cell_result *res)
{
	struct fl_cell_figures fig;
	char what[512], rate[32], p99[32], t[96];

	fl_cell_figures(cell, res, &fig);
	if (res->status == FL_STATUS_OK) {
		fl_fmt_rate(fig.ops_per_sec, rate, sizeof(rate));
		fl_fmt_ns(fig.p99, p99, sizeof(p99));
		snprintf(what, sizeof(what), "ok %s %s/s, p99 %s", rate,
			 cell->workload->ops_unit, p99);
	} else {
		snprintf(what, sizeof(what), "%s: %s",
			 fl_status_name(res->status), res->reason);
	}
	if (p->tty) {
		if (res->status == FL_STATUS_FAILED ||
		    res->status == FL_STATUS_ABORTED)
			fprintf(p->out, "\r\033[K[%lu/%lu] %s: %s\n", i + 1, n,
				name, what);
		return;
	}
	times(p, t, sizeof(t));
	fprintf(p->out, "[%lu/%lu] %s: %s (%s)\n", i + 1, n, name, what, t);
	fflush(p->out);
}

enum fl_job_outcome fl_matrix_job_run(struct fl_matrix_job *j, FILE *out,
				      int tty)
{
	static struct fl_cell cell;
	const struct fl_matrix_exp *exp;
	struct progress p = { .out = out, .tty = tty, .width = 80 };
	struct winsize ws;
	char err[512], name[1024];
	enum fl_job_outcome worst = FL_JOB_DONE;

	if (tty && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col)
		p.width = ws.ws_col;
	for (unsigned long i = 0; i < j->m.nvisits; i++)
		if (!j->done[i] && !fl_matrix_visit_cell(&j->m, i, &cell, NULL,
							 err, sizeof(err)))
			p.nominal_left += nominal_s(&cell);
	p.t0 = fl_now_ns();

	for (unsigned long i = 0; i < j->m.nvisits && !fl_interrupted; i++) {
		struct fl_cell_result res;

		if (j->done[i])
			continue;
		if (fl_matrix_visit_cell(&j->m, i, &cell, &exp, err,
					 sizeof(err))) {
			/* checked at parse time: the machine changed */
			fprintf(stderr, "futexlab matrix: %s\n", err);
			return FL_JOB_FAILED;
		}
		cell_name(exp, &cell, j->m.visits[i].rep, name, sizeof(name));
		show_running(&p, i, j->m.nvisits, name);
		fl_cell_run(&cell, &res);
		if (fl_interrupted) {
			fl_cell_result_free(&res);
			break;
		}
		/* the row's cell index is the visit's, so a resumed visit
		 * lands under the same index and histogram file */
		j->run.ncells = (unsigned int)i;
		j->run.bins_as.set = 1;
		j->run.bins_as.cell = j->m.visits[i].cell;
		j->run.bins_as.rep = j->m.visits[i].rep;
		if (fl_run_write_cell(&j->run, &cell, &res)) {
			/* a full disk fails every visit after: stop at once */
			fl_cell_result_free(&res);
			return FL_JOB_WRITE_FAILED;
		}
		j->done[i] = 1;
		j->ndone++;
		p.nominal_left -= nominal_s(&cell);
		if (res.status != FL_STATUS_SKIPPED)
			p.nominal_done += nominal_s(&cell);
		if (res.status == FL_STATUS_FAILED ||
		    res.status == FL_STATUS_ABORTED)
			worst = FL_JOB_FAILED;
		show_done(&p, i, j->m.nvisits, name, &cell, &res);
		fl_cell_result_free(&res);
		if (ferror(out))
			return FL_JOB_WRITE_FAILED;	/* | head went away */
	}
	if (tty) {
		fprintf(out, "\r\033[K");
		fflush(out);
	}
	return fl_interrupted ? FL_JOB_INTERRUPTED : worst;
}
