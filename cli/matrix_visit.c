// SPDX-License-Identifier: GPL-2.0
/*
 * One visit of a partial run, for a campaign that interleaves its sides
 * visit by visit: the process is fresh (the visit's own fork, warm-up
 * and calibration are fl_cell_run's), and does no more than the visit
 * needs: no probe of the machine, no measure of the harness's overhead
 * (the run's --finish does them, for its meta.json), its progress line
 * not printed. What it prints on stdout is the one line a campaign reads
 * ("visit CELL N ok NAME FIGURE CPU CONTAMINATED", N the cell's visits
 * now, NAME ops_per_sec or p50_ns, CPU its CPU ns/op) and the partial
 * directory's path.
 */
#include "cli/matrix_visit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"

/* s[0..n) a number of 1 to 9 digits into *v */
static int count_of(const char *s, size_t n, unsigned long *v)
{
	if (!n || n > 9 || strspn(s, "0123456789") < n)
		return -1;
	*v = strtoul(s, NULL, 10);
	return 0;
}

int fl_visit_parse(const char *s, struct fl_visit_arg *v)
{
	const char *colon = strchr(s, ':');
	unsigned long c, n = 1;

	if (count_of(s, colon ? (size_t)(colon - s) : strlen(s), &c) ||
	    (colon && count_of(colon + 1, strlen(colon + 1), &n)) || !n) {
		fprintf(stderr, "futexlab matrix: --visit: '%.40s' is not "
			"CELL or CELL:N (a cell's number, from matrix FILE "
			"--list; N from 1, its visit)\n", s);
		return -1;
	}
	v->cell = (long)c;
	v->nth = colon ? (unsigned int)n : 0;
	return 0;
}

int fl_visit_check_file(const char *file, const struct fl_visit_arg *v)
{
	static struct fl_matrix m;
	char err[2048];
	int rc = fl_matrix_load(file, &m, err, sizeof(err));

	if (rc)
		fprintf(stderr, "%s\n", err);
	else if (v->nth > 1) {
		fprintf(stderr, "futexlab matrix: --visit %ld:%u: a new run "
			"makes a cell's first visit (resume a partial run for "
			"its next)\n", v->cell, v->nth);
		rc = -1;
	} else if ((unsigned long)v->cell >= m.ncells) {
		fprintf(stderr, "futexlab matrix: --visit: %s has no cell %ld "
			"(its cells are 0 to %lu: matrix FILE --list)\n", file,
			v->cell, m.ncells ? m.ncells - 1 : 0);
		rc = -1;
	}
	fl_matrix_free(&m);
	return rc ? -1 : 0;
}

int fl_visit_run(struct fl_matrix_job *job, const struct fl_visit_arg *v)
{
	enum fl_job_outcome out = FL_JOB_DONE;
	char err[2048];
	const struct fl_rep_counts *k = &job->last_counts;
	double primary;
	int status, rc;
	unsigned int n;

	rc = fl_matrix_job_add_visit(job, (unsigned long)v->cell, v->nth, err,
				     sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "futexlab matrix: %s\n", err);
		return FL_EXIT_USAGE;
	}
	job->planned_only = 1;
	job->one_visit = 1;
	job->say = &fl_say_stderr;
	if (rc == 0) {
		FILE *quiet = fopen("/dev/null", "w");

		out = fl_matrix_job_run(job, quiet ? quiet : stderr, 0);
		if (quiet)
			fclose(quiet);
	}
	if (out == FL_JOB_INTERRUPTED || out == FL_JOB_WRITE_FAILED) {
		fprintf(stderr, "futexlab matrix: the visit of cell %ld %s; "
			"%s keeps every visit before it\n", v->cell,
			out == FL_JOB_INTERRUPTED ? "was interrupted" :
			"could not be written", job->run.tmp);
		return out == FL_JOB_INTERRUPTED ? FL_EXIT_INTERRUPTED :
		       FL_EXIT_FAILED;
	}
	n = fl_matrix_job_cell_done(job, (unsigned long)v->cell, &status,
				    &primary);
	/* the figure's name says which way is better; then the CPU time
	 * per operation and whether the machine denied the visit CPU
	 * ("-": not counted, or a visit made before) */
	printf("visit %ld %u %s %s %.17g ", v->cell, n,
	       status == FL_STATUS_OK ? "ok" : "stopped",
	       job->tracks[v->cell].latency_primary ? "p50_ns" :
	       "ops_per_sec", status == FL_STATUS_OK ? primary : 0.0);
	if (rc == 0 && k->have & FL_HAVE_CPU && k->cpu_ns && job->last_ops)
		printf("%.17g ", (double)k->cpu_ns / (double)job->last_ops);
	else
		printf("- ");
	printf("%s\n", rc || !(k->have & FL_HAVE_CONTAMINATION) ? "-" :
	       k->contaminated ? "1" : "0");
	printf("%s\n", job->run.tmp);
	return out == FL_JOB_FAILED ? FL_EXIT_FAILED : FL_EXIT_OK;
}
