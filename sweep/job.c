// SPDX-License-Identifier: GPL-2.0
/*
 * Starting a matrix run's partial directory, recording the finished run
 * and freeing the job; with the helpers the resume and the finalizing
 * share (matrix.json, the directory lock).
 */
#include "sweep/job.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "measure/cell.h"
#include "rundir/meta.h"
#include "rundir/write_at.h"
#include "sweep/job_internal.h"

int matrix_job_save_state(struct fl_matrix_job *j)
{
	char shown[PATH_MAX + 32], err[PATH_MAX + 128];
	char *text = json_dumps(j->state, JSON_INDENT(2) | JSON_SORT_KEYS);
	int rc;

	if (!text)
		return -1;
	snprintf(shown, sizeof(shown), "%s/matrix.json", j->run.tmp);
	rc = fl_write_at(j->run.fd, "matrix.json", shown, text, strlen(text),
			 err, sizeof(err));
	int e = errno;

	free(text);
	errno = e;	/* what the callers' messages say */
	return rc;
}

json_t *matrix_job_argv_json(const struct fl_matrix_job *j)
{
	json_t *a = json_array();

	for (int i = 0; i < j->argc; i++)
		json_array_append_new(a, json_string(j->argv[i]));
	return a;
}

int matrix_job_lock_dir(struct fl_matrix_job *j, char *err, size_t errlen)
{
	if (flock(j->run.fd, LOCK_EX | LOCK_NB)) {
		snprintf(err, errlen, "%s is being written by another "
			 "futexlab process", j->run.tmp);
		return -1;
	}
	/* the lock is this process's: a visit's child drops its copy */
	fl_cell_parent_only_fd = j->run.fd;
	return 0;
}

int fl_matrix_job_start(struct fl_matrix_job *j, int argc, char **argv,
			const char *file, const char *results, char *err,
			size_t errlen)
{
	static const struct fl_shard whole;

	return fl_matrix_job_start_shard(j, argc, argv, file, results, &whole,
					 err, errlen);
}

int fl_matrix_job_start_shard(struct fl_matrix_job *j, int argc, char **argv,
			      const char *file, const char *results,
			      const struct fl_shard *shard, char *err,
			      size_t errlen)
{
	char shown[PATH_MAX + 32], abs[PATH_MAX], hash[32], start[32];
	struct utsname u;

	memset(j, 0, sizeof(*j));
	j->cmd = "matrix";
	j->shard = *shard;
	j->run.fd = j->run.dir_fd = -1;
	j->argc = argc;
	j->argv = argv;
	if (fl_matrix_load(file, &j->m, err, errlen) ||
	    matrix_job_init_tracks(j, err, errlen))
		return -1;
	j->done = calloc(j->m.nvisits ? j->m.nvisits : 1, 1);
	if (!j->done) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	uname(&u);
	if (fl_run_open(&j->run, results, u.nodename, err, errlen))
		return -1;
	if (matrix_job_lock_dir(j, err, errlen))
		return -1;
	snprintf(shown, sizeof(shown), "%s/matrix.ini", j->run.tmp);
	if (fl_write_at(j->run.fd, "matrix.ini", shown, j->m.text, j->m.len,
			err, errlen))
		return -1;
	if (!realpath(file, abs))
		snprintf(abs, sizeof(abs), "%s", file);
	snprintf(hash, sizeof(hash), "%016" PRIx64, j->m.hash);
	fl_utc_now(start, sizeof(start));
	/* name and results are for a reader; a resume takes the name from
	 * the directory's own and never moves it out of its folder */
	j->state = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:o, s:[],"
			     " s:[], s:{}, s:f, s:f}",
			     "source", abs, "fnv1a64", hash,
			     "name", j->run.name, "results", results,
			     "start_time", start, "cells",
			     (json_int_t)j->m.ncells, "argv",
			     matrix_job_argv_json(j), "resumed",
			     "passes", "visit_start", "seconds_spent", 0.0,
			     "budget_s", j->budget_s);
	if (j->state && j->shard.n)
		json_object_set_new(j->state, "shard", fl_shard_json(j));
	if (!j->state || matrix_job_save_state(j)) {
		snprintf(err, errlen, "cannot write %s/matrix.json: %s",
			 j->run.tmp, strerror(errno));
		return -1;
	}
	return 0;
}

int fl_matrix_job_finish(struct fl_matrix_job *j, json_t *meta, char *err,
			 size_t errlen)
{
	/* the run's start is when its first cell could start, not the
	 * resume's; the resumes are listed */
	json_object_set(meta, "start_time",
			json_object_get(j->state, "start_time"));
	if (json_object_get(j->state, "resumed"))
		json_object_set(meta, "resumed",
				json_object_get(j->state, "resumed"));
	if (j->kind == FL_JOB_RUN) {
		json_object_set_new(meta, "settings",
				    fl_meta_settings(&j->m.exps[0].spec));
		json_object_set_new(meta, "cells_reps",
				    matrix_job_cells_reps(j));
		return fl_run_finish(&j->run, meta, err, errlen);
	}
	json_object_set_new(meta, "matrix", json_pack("{s:O, s:O, s:s, s:s}",
		"source", json_object_get(j->state, "source"),
		"fnv1a64", json_object_get(j->state, "fnv1a64"),
		"copy", "matrix.ini", "state", "matrix.json"));
	json_t *exps = json_array();

	for (unsigned int x = 0; x < j->m.nexps; x++) {
		const struct fl_matrix_exp *e = &j->m.exps[x];

		json_array_append_new(exps, json_pack("{s:s, s:s, s:I, s:I, s:o}",
			"name", e->name, "workload", e->spec.workload->name,
			"first_cell", (json_int_t)e->first_cell,
			"cells", (json_int_t)e->ncells,
			"settings", fl_meta_settings(&e->spec)));
	}
	json_object_set_new(json_object_get(meta, "matrix"), "experiments",
			    exps);
	json_object_set_new(json_object_get(meta, "matrix"), "time_budget_s",
			    json_real(j->budget_s));
	json_object_set_new(json_object_get(meta, "matrix"), "passes",
			    json_integer(j->npasses));
	json_object_set_new(meta, "cells_reps", matrix_job_cells_reps(j));
	if (j->shard.n)
		json_object_set_new(meta, "shard", fl_shard_json(j));
	return fl_run_finish(&j->run, meta, err, errlen);
}

void fl_matrix_job_free(struct fl_matrix_job *j)
{
	if (fl_cell_parent_only_fd == j->run.fd)
		fl_cell_parent_only_fd = -1;
	fl_run_close(&j->run);
	json_decref(j->state);
	j->state = NULL;
	free(j->done);
	j->done = NULL;
	free(j->tracks);
	j->tracks = NULL;
	for (unsigned long c = 0; j->gathered && c < j->m.ncells; c++)
		fl_cell_result_free(&j->gathered[c]);
	free(j->gathered);
	j->gathered = NULL;
	free(j->in_shard);
	j->in_shard = NULL;
	fl_matrix_free(&j->m);
}
