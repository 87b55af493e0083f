// SPDX-License-Identifier: GPL-2.0
/*
 * Resuming a matrix run: reopen its partial directory, check that the
 * matrix file still says the same, and keep the row of every complete
 * visit so only the missing ones run again.
 *
 * The directory is untrusted input like any run directory (it may sit
 * in a shared results folder, and a resume often runs as root). What it
 * says is run: the folder, matrix.json and matrix.ini must be the user's
 * and writable by no one else (fl_fd_trusted, as ssh asks of its
 * configuration) before they are read, and a program its cells would
 * run (app's cmd) runs only when the user says so. It is
 * opened by descriptor without following links (rundir/partial.c), every
 * file in it is read as a regular file below it, its rows by the
 * readers' rules (rundir/rewrite.h), and its finished name is its own,
 * never one from inside a file. Whether a kill came before or after the
 * finalizing's commit is read from the disk: a partial with its visit
 * journal (rundir/visits.h) had not committed, one without has its rows
 * in cell layout; a flag in matrix.json decides nothing.
 */
#include "sweep/job.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rundir/meta.h"
#include "rundir/regular.h"
#include "rundir/rewrite.h"
#include "rundir/visits.h"
#include "spec/options.h"
#include "sweep/job_internal.h"

/* matrix.json is written by futexlab; a larger one is not its */
#define MAX_STATE_BYTES (64u << 20)

/* "P/matrix.json: why"; always -1 */
static int bad_state(const struct fl_matrix_job *j, const char *why,
		     char *err, size_t errlen)
{
	snprintf(err, errlen, "%s/matrix.json: %s: only what futexlab "
		 "wrote can be resumed", j->run.tmp, why);
	return -1;
}

/* Is s a string of at most max characters, none a control one? */
static int plain_string(json_t *s, size_t max)
{
	const char *p = json_string_value(s);

	if (!p || json_string_length(s) > max ||
	    strlen(p) != json_string_length(s))
		return 0;
	for (; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return 0;
	return 1;
}

/* The partial folder j->run.fd and its file name (when it is there)
 * are the user's own: they say what runs. 0, or -1 with err. */
static int trusted(const struct fl_matrix_job *j, const char *name,
		   char *err, size_t errlen)
{
	char shown[PATH_MAX + 32];
	int fd;

	if (!name)
		return fl_fd_trusted(j->run.fd, j->run.tmp, err, errlen);
	snprintf(shown, sizeof(shown), "%s/%s", j->run.tmp, name);
	fd = fl_open_trusted(j->run.fd, name, shown, err, errlen);
	if (fd < 0)	/* missing: its reader says so */
		return errno == ENOENT ? 0 : -1;
	close(fd);
	return 0;
}

/* Reopened, trusted and locked: the partial directory dir as j->run. */
static int reopen(struct fl_matrix_job *j, const char *dir, char *err,
		  size_t errlen)
{
	return fl_run_reopen(&j->run, dir, err, errlen) ||
	       trusted(j, NULL, err, errlen) ||
	       matrix_job_lock_dir(j, err, errlen) ? -1 : 0;
}

/* matrix.json into j->state, parsed; the keys are checked by the
 * caller, as a matrix's or a run's. */
static int read_state(struct fl_matrix_job *j, char *err, size_t errlen)
{
	char shown[PATH_MAX + 32], *text;
	json_error_t jerr;
	size_t len;

	snprintf(shown, sizeof(shown), "%s/matrix.json", j->run.tmp);
	if (trusted(j, "matrix.json", err, errlen))
		return -1;
	if (fl_read_regular(j->run.fd, "matrix.json", shown, FL_NOFOLLOW,
			    MAX_STATE_BYTES, &text, &len, err, errlen)) {
		if (errno == ENOENT)
			snprintf(err, errlen, "--resume: %s has no "
				 "matrix.json: only a matrix or run that "
				 "futexlab started can be resumed", j->run.tmp);
		return -1;
	}
	j->state = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (!j->state) {
		snprintf(err, errlen, "%s:%d:%d: %s", shown, jerr.line,
			 jerr.column, jerr.text);
		return -1;
	}
	if (!json_is_object(j->state))
		return bad_state(j, "not a JSON object", err, errlen);
	return 0;
}

/* The keys a matrix's and a run's resume both read, checked. */
static int check_common_state(struct fl_matrix_job *j, char *err,
			      size_t errlen)
{
	json_t *v = json_object_get(j->state, "start_time");

	if (v && !plain_string(v, 40))
		return bad_state(j, "'start_time' is not a time", err, errlen);
	v = json_object_get(j->state, "visit_start");
	if (v && !json_is_object(v))
		return bad_state(j, "'visit_start' is not an object", err,
				 errlen);
	v = json_object_get(j->state, "resumed");
	if (v && !json_is_array(v))
		return bad_state(j, "'resumed' is not a list", err, errlen);
	if (!v)
		json_object_set_new(j->state, "resumed", json_array());
	return 0;
}

/* A matrix's matrix.json into j->state, each key a resume reads checked. */
static int load_state(struct fl_matrix_job *j, char *err, size_t errlen)
{
	json_t *v;

	if (read_state(j, err, errlen))
		return -1;
	if (json_object_get(j->state, "kind"))
		return bad_state(j, "it is a run's: resume it with futexlab "
				 "run --resume", err, errlen);
	/* the recorded matrix file is read like one given on the command
	 * line, and only by an absolute path, as futexlab records it */
	v = json_object_get(j->state, "source");
	if (!plain_string(v, PATH_MAX - 1) || json_string_value(v)[0] != '/')
		return bad_state(j, "'source' is not the absolute path of a "
				 "matrix file", err, errlen);
	v = json_object_get(j->state, "fnv1a64");
	if (!plain_string(v, 16) || json_string_length(v) != 16 ||
	    strspn(json_string_value(v), "0123456789abcdef") != 16)
		return bad_state(j, "'fnv1a64' is not a 64-bit hash", err,
				 errlen);
	return check_common_state(j, err, errlen);
}

const char *fl_spec_program(const struct fl_spec *s)
{
	const struct fl_workload *w = s->workload;

	for (unsigned int i = 0; w && i < w->noptions; i++)
		if (w->options[i].type == FL_OPT_TEXT && s->opts[i].n &&
		    !strcmp(w->options[i].name, "cmd"))
			return fl_opt_text(s->opts[i].v[0]);
	return NULL;
}

/* The first program the matrix's cells run, or NULL; *n: how many of
 * its experiments run one. */
static const char *matrix_program(const struct fl_matrix *m, unsigned int *n)
{
	const char *first = NULL;

	*n = 0;
	for (unsigned int x = 0; x < m->nexps; x++) {
		const char *p = fl_spec_program(&m->exps[x].spec);

		if (p && !(*n)++)
			first = p;
	}
	return first;
}

/* A program the partial's matrix runs, refused (-1 with err naming it)
 * unless the user said so: --yes, or the matrix file named. */
static int confirmed(const struct fl_matrix_job *j, int yes, int named,
		     char *err, size_t errlen)
{
	unsigned int n;
	const char *p = matrix_program(&j->m, &n);

	if (!p || yes || named)
		return 0;
	snprintf(err, errlen, "--resume: %s/matrix.ini runs '%s'%s: a "
		 "partial directory runs a program only with your say: give "
		 "--yes, or the matrix file that names it", j->run.tmp, p,
		 n > 1 ? " and other programs" : "");
	return -1;
}

/* What the resume will run, said before it runs. */
static void show_program(struct fl_matrix_job *j, int yes)
{
	unsigned int n;
	const char *p = matrix_program(&j->m, &n);

	if (p)
		matrix_job_note(j, "futexlab matrix: resuming runs '%s'%s, as "
			"%s/matrix.ini says (confirmed by %s)\n", p, n > 1 ?
			" and other programs" : "", j->run.tmp, yes ?
			"--yes" : "the matrix file given");
}

/* Load the run's copy of its matrix file, unmodified, see that a program
 * it runs is confirmed, and check that file (NULL: the source recorded)
 * still defines the same matrix. */
static int same_matrix(struct fl_matrix_job *j, const char *file, int yes,
		       char *err, size_t errlen)
{
	const char *saved = json_string_value(json_object_get(j->state,
							      "fnv1a64"));
	char shown[PATH_MAX + 32], hash[32], what[1024];
	static struct fl_matrix now;
	int given = file != NULL;

	snprintf(shown, sizeof(shown), "%s/matrix.ini", j->run.tmp);
	if (trusted(j, "matrix.ini", err, errlen) ||
	    fl_matrix_load_at(j->run.fd, "matrix.ini", shown, &j->m, err,
			      errlen))
		return -1;
	snprintf(hash, sizeof(hash), "%016" PRIx64, j->m.hash);
	if (strcmp(hash, saved) != 0) {
		snprintf(err, errlen, "--resume: %s was modified after the "
			 "run started: start a new run", shown);
		return -1;
	}
	if (confirmed(j, yes, given, err, errlen))
		return -1;
	if (!file)
		file = json_string_value(json_object_get(j->state, "source"));
	if (!given && access(file, F_OK) != 0) {
		matrix_job_note(j, "futexlab matrix: %s is gone; resuming with "
			"the copy in %s\n", file, shown);
		return 0;
	}
	if (fl_matrix_load(file, &now, err, errlen)) {
		fl_matrix_free(&now);
		return -1;
	}
	int differs = fl_matrix_diff(&j->m, &now, what, sizeof(what));

	fl_matrix_free(&now);
	if (differs) {
		snprintf(err, errlen, "--resume: %s changed since the run "
			 "started: %s. Restore it, or start a new run", file,
			 what);
		return -1;
	}
	return 0;
}

/* A journalled run's rows kept, and its journal said again from them:
 * what the run did before it was killed. */
static int keep_visits(struct fl_matrix_job *j, struct job_rows *jr,
		       char *err, size_t errlen)
{
	int torn = 0, last_only = 0;

	/* a campaign's visit: the last row's histogram read alone, unless
	 * a kill left something to drop (sweep/job_rows.c says why) */
	if (j->one_visit) {
		last_only = matrix_job_last_hist(j, err, errlen);
		if (last_only < 0)
			return -1;
		last_only = !last_only;
	}
	if (matrix_job_keep_visits(j, jr, last_only, &torn, err, errlen) ||
	    fl_visits_rewrite(&j->run, jr->kept, jr->nkept, err, errlen) ||
	    fl_rw_drop_staged(&j->run, err, errlen) ||
	    fl_rw_make_folders(&j->run, err, errlen))
		return -1;
	matrix_job_take_rows(j, jr);
	if (torn)
		matrix_job_note(j, "futexlab matrix: %s/cells.csv:%d: dropped a "
			"torn last line (the kill came while it was written); "
			"that visit runs again\n", j->run.tmp, torn);
	if (jr->dropped)
		matrix_job_note(j, "futexlab matrix: dropped %lu row%s of visits "
			"without their histogram; they run again\n",
			jr->dropped, jr->dropped == 1 ? "" : "s");
	return 0;
}

/*
 * The rows already in cell order (a kill after the finalizing's commit)
 * and complete: every visit is done, only the histograms' swap is left.
 */
static int took_cell_layout(struct fl_matrix_job *j, char *err,
			    size_t errlen)
{
	struct job_rows jr;
	int rc;

	if (matrix_job_rows_init(&jr, j->m.nvisits)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rc = matrix_job_check_cells(j, &jr, err, errlen);
	if (!rc) {
		matrix_job_take_rows(j, &jr);
		j->cell_layout = 1;
	}
	matrix_job_rows_free(&jr);
	return rc;
}

/*
 * Without a journal, the rows are finalized, or a futexlab before the
 * journal wrote them (its cell column then held visit indices): that
 * partial is refused, before anything is written.
 */
static int finalized_rows(struct fl_matrix_job *j, char *err, size_t errlen)
{
	char why[1024];

	if (took_cell_layout(j, why, sizeof(why)) == 0)
		return 0;
	snprintf(err, errlen, "--resume: %s has no %s and its rows are not "
		 "a finished run's (%s): a partial directory of a futexlab "
		 "before the visit journal is resumed by the futexlab that "
		 "started it", j->run.tmp, FL_VISITS_FILE, why);
	return -1;
}

/* The rows on disk, whichever step a kill left them at. */
static int recover_rows(struct fl_matrix_job *j, char *err, size_t errlen)
{
	struct job_rows jr;
	int rc;

	if (fl_rw_check_folders(&j->run, err, errlen))
		return -1;
	if (!fl_visits_present(&j->run))
		return finalized_rows(j, err, errlen);
	if (matrix_job_rows_init(&jr, j->m.nvisits)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rc = keep_visits(j, &jr, err, errlen);
	matrix_job_rows_free(&jr);
	if (rc)
		return rc;
	return fl_rw_append_rows(&j->run, err, errlen);
}

/* The resume recorded in matrix.json; 0, or -1 with err. A visit's is
 * written with the visit's pass (fl_matrix_job_add_visit), which saves
 * matrix.json at once: one write and sync of it a visit, not two. */
static int record_resume(struct fl_matrix_job *j, char *err, size_t errlen)
{
	char now_s[32];

	fl_utc_now(now_s, sizeof(now_s));
	json_array_append_new(json_object_get(j->state, "resumed"),
			      fl_record_resume_json(now_s, j->argc, j->argv,
						    j->ndone));
	j->resumed = j->ndone > 0;
	if (!j->one_visit && matrix_job_save_state(j)) {
		snprintf(err, errlen, "cannot write %s/matrix.json: %s",
			 j->run.tmp, strerror(errno));
		return -1;
	}
	return 0;
}

/* cell (when >= 0) one of the matrix's, checked before a resume writes
 * anything; 0, or -1 with err */
static int has_cell(const struct fl_matrix_job *j, long cell, char *err,
		    size_t errlen)
{
	if (cell < 0 || ((unsigned long)cell < j->m.ncells &&
			 (!j->in_shard || j->in_shard[cell])))
		return 0;
	snprintf(err, errlen, "--visit: %s has no cell %ld (its cells are 0 "
		 "to %lu: matrix FILE --list)", j->run.tmp, cell,
		 j->m.ncells ? j->m.ncells - 1 : 0);
	return -1;
}

/* an nth visit of cell beyond the one after those planned, refused
 * before a resume writes anything (those planned but lost to a kill are
 * counted once the rows are read); 0, or -1 with err */
static int nth_possible(const struct fl_matrix_job *j, long cell,
			unsigned int nth, char *err, size_t errlen)
{
	unsigned int planned = cell >= 0 && j->m.planned ?
			       j->m.planned[cell] : 0;

	if (cell < 0 || !nth || nth <= planned + 1)
		return 0;
	snprintf(err, errlen, "--visit %ld:%u: cell %ld has %u visit%s, so "
		 "its next is %u", cell, nth, cell, planned,
		 planned == 1 ? "" : "s", planned + 1);
	return -1;
}

int fl_matrix_job_resume(struct fl_matrix_job *j, int argc, char **argv,
			 const char *dir_arg, const char *file, int yes,
			 char *err, size_t errlen)
{
	return fl_matrix_job_resume_cell(j, argc, argv, dir_arg, file, yes,
					 -1, 0, err, errlen);
}

int fl_matrix_job_resume_cell(struct fl_matrix_job *j, int argc, char **argv,
			      const char *dir_arg, const char *file, int yes,
			      long cell, unsigned int nth, char *err,
			      size_t errlen)
{
	memset(j, 0, sizeof(*j));
	j->cmd = "matrix";
	j->run.fd = j->run.dir_fd = -1;
	j->argc = argc;
	j->argv = argv;
	j->one_visit = cell >= 0;
	if (reopen(j, dir_arg, err, errlen) ||
	    load_state(j, err, errlen) ||
	    same_matrix(j, file, yes, err, errlen))
		return -1;
	show_program(j, yes);
	j->done = calloc(1, 1);
	if (!j->done) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (fl_shard_from_state(j, err, errlen) ||
	    matrix_job_init_tracks(j, err, errlen) ||
	    has_cell(j, cell, err, errlen) ||
	    matrix_job_replay_passes(j, err, errlen) ||
	    nth_possible(j, cell, nth, err, errlen) ||
	    recover_rows(j, err, errlen))
		return -1;
	return record_resume(j, err, errlen);
}

/* the most flags a run records; more is not futexlab's */
#define MAX_RUN_ARGS	256

int fl_matrix_job_reopen_run(struct fl_matrix_job *j, const char *dir,
			     int *argc_out, const char ***argv_out,
			     char *err, size_t errlen)
{
	static const char *flags[MAX_RUN_ARGS + 1];
	json_t *v;
	size_t n;

	memset(j, 0, sizeof(*j));
	j->kind = FL_JOB_RUN;
	j->cmd = "run";
	j->run.fd = j->run.dir_fd = -1;
	if (reopen(j, dir, err, errlen) || read_state(j, err, errlen))
		return -1;
	if (!json_is_string(json_object_get(j->state, "kind")) ||
	    strcmp(json_string_value(json_object_get(j->state, "kind")),
		   "run"))
		return bad_state(j, "it is not a run's: resume a matrix with "
				 "futexlab matrix --resume", err, errlen);
	v = json_object_get(j->state, "run_argv");
	n = json_array_size(v);
	if (!json_is_array(v) || n < 1 || n > MAX_RUN_ARGS)
		return bad_state(j, "'run_argv' is not the workload and its "
				 "flags", err, errlen);
	for (size_t i = 0; i < n; i++) {
		if (!plain_string(json_array_get(v, i), 4096))
			return bad_state(j, "'run_argv' holds something that "
					 "is not a flag", err, errlen);
		flags[i] = json_string_value(json_array_get(v, i));
	}
	flags[n] = NULL;
	*argc_out = (int)n;
	*argv_out = flags;
	return check_common_state(j, err, errlen);
}

int fl_matrix_job_resume_run(struct fl_matrix_job *j, const struct fl_spec *s,
			     int argc, char **argv, char *err, size_t errlen)
{
	struct fl_run run = j->run;
	json_t *state = j->state;

	/* planned afresh, then given back the directory and its record */
	int rc = fl_matrix_job_plan_run(j, s, err, errlen);

	json_decref(j->state);
	j->run = run;
	j->state = state;
	if (rc)
		return -1;
	j->argc = argc;
	j->argv = argv;
	if (matrix_job_replay_passes(j, err, errlen) ||
	    recover_rows(j, err, errlen))
		return -1;
	return record_resume(j, err, errlen);
}
