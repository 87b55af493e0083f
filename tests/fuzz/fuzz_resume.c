// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: resuming a partial matrix run that an adversary made
 * (sweep/job.h, rundir/partial.c, rundir/rewrite.h). Each input starts
 * from a whole partial directory, as a matrix killed after its last
 * visit leaves it, in a scratch folder:
 *
 *   SCRATCH/m.ini                    the matrix file matrix.json names
 *   SCRATCH/outside/                 what must never change: a file, a
 *                                    folder with a file, a FIFO
 *   SCRATCH/results/.partial-NAME-1-0/  matrix.ini, matrix.json,
 *                                    cells.csv (4 visits), visits.csv,
 *                                    hist/, bins/
 *
 * and the input's bytes are a list of spoils: a name of the directory
 * replaced by a link out, a FIFO, a folder or nothing, or moved out and
 * linked to where it went; bytes appended,
 * cut or overwritten; a field of a row set to a hostile value; a row
 * doubled or dropped; a key of matrix.json set to a hostile value;
 * leftovers of a finalizing; matrix.ini an app matrix with its hash.
 * Then the resume runs, and when every visit
 * is there (no visit can run here: the fuzz build has no workloads) the
 * finalizing and the rename into place too. It must not crash, wait on
 * anything (seconds for what takes milliseconds), change anything under
 * outside/ (compared after the spoils, so links the spoils followed do
 * not count), go on with a program to run (an app matrix's cmd) when
 * neither --yes nor the matrix file was given, leave anything in
 * SCRATCH but those three, or leave
 * results/ holding other than the partial directory or the run under
 * NAME, one of them; and a run renamed into place must be whole: the
 * readers accept it and it has a row for every visit it planned.
 *
 * Here: the input's run, the resume and the checks; the directory is
 * built by resume_build.c, spoiled by resume_spoils.c, and what the
 * resume left is described by resume_checks.c (resume_scratch.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sweep/job.h"
#include "tests/fuzz/resume_scratch.h"

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void remove_scratch(void)
{
	remove_tree(scratch);
}

/* A resume without --yes and without the matrix file named: it may go
 * on only when none of its cells runs a program (an app matrix's cmd). */
static void never_a_program(const struct fl_matrix_job *job)
{
	for (unsigned int x = 0; x < job->m.nexps; x++)
		if (fl_spec_program(&job->m.exps[x].spec))
			abort();
}

static void resume(void)
{
	static struct fl_matrix_job job;
	static char *argv[] = { "futexlab", "matrix", "--resume", NULL };
	char err[2048];
	int rc = fl_matrix_job_resume(&job, 3, argv, partial, NULL, 0, err,
				      sizeof(err));

	if (rc == 0)
		never_a_program(&job);
	if (rc == 0 &&
	    (job.cell_layout || (job.ndone == job.m.nvisits &&
				 fl_matrix_job_next_pass(&job, 0, err,
							 sizeof(err)) == 0)) &&
	    fl_matrix_job_finalize(&job, err, sizeof(err)) == 0) {
		static const struct fl_machine machine;
		struct fl_record rec = { .machine = &machine };

		fl_matrix_job_finish(&job, &rec, err, sizeof(err));
	}
	fl_matrix_job_free(&job);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const top[] = { "outside", "results", "m.ini" };
	static const char *const runs[] = { PARTIAL, NAME };
	struct input in = { data, size };
	char outside[128], results[128], *before, *after;

	if (!*scratch) {
		/* in memory where there is a tmpfs: a resume syncs every
		 * file it writes, which on a disk is most of an input's time */
		snprintf(scratch, sizeof(scratch), "%s/fuzz_resume.XXXXXX",
			 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
		if (!mkdtemp(scratch))
			abort();
		atexit(remove_scratch);
		snprintf(partial, sizeof(partial), "%s/results/" PARTIAL,
			 scratch);
	}
	build();
	for (int i = 0; i < 8 && in.n; i++)
		spoil(&in);
	snprintf(outside, sizeof(outside), "%s/outside", scratch);
	snprintf(results, sizeof(results), "%s/results", scratch);
	before = snapshot(outside);
	double t0 = now_s();

	resume();
	/* a blocking open of a FIFO waits for ever, but libFuzzer's own
	 * alarm interrupts it (EINTR) before -timeout can call it a hang:
	 * a resume of this directory takes milliseconds, so seconds are a
	 * wait on something */
	if (now_s() - t0 > 5)
		abort();
	after = snapshot(outside);
	if (strcmp(before, after))
		abort();	/* written, renamed or removed outside */
	if (only(scratch, top, 3) < 0 || only(results, runs, 2) != 1)
		abort();	/* the run went where it must not */
	if (finished_run_ok(results))
		abort();	/* renamed into place, but not whole */
	free(before);
	free(after);
	return 0;
}
