// SPDX-License-Identifier: GPL-2.0
/*
 * Starting a matrix run's partial directory and freeing the job; with the helpers the resume and the finalizing
 * share (matrix.json, the directory lock).
 */
#include "sweep/job.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "measure/cell.h"
#include "rundir/meta.h"
#include "rundir/visits.h"
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

void matrix_job_note(struct fl_matrix_job *j, const char *fmt, ...)
{
	size_t used = strlen(j->notes), len;
	char line[PATH_MAX + 512];
	va_list ap;

	va_start(ap, fmt);
	if (j->say) {
		/* while it runs: said at once, in its place among the
		 * progress */
		vsnprintf(line, sizeof(line), fmt, ap);
		len = strlen(line);
		if (len && line[len - 1] == '\n')	/* a say line has none */
			line[len - 1] = '\0';
		fl_say(j->say, "%s", line);
	} else if (used < sizeof(j->notes)) {
		vsnprintf(j->notes + used, sizeof(j->notes) - used, fmt, ap);
	}
	va_end(ap);
}

json_t *matrix_job_argv_json(const struct fl_matrix_job *j)
{
	return fl_meta_argv_json(j->argc, j->argv);
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
	if (fl_run_open(&j->run, results, u.nodename, err, errlen) ||
	    fl_visits_start(&j->run, err, errlen))
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
