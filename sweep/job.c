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

#include "sweep/job_internal.h"
#include "rundir/meta.h"

static int write_file_synced(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	size_t off = 0;

	if (fd < 0)
		return -1;
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return -1;
		}
		off += (size_t)n;
	}
	if (fsync(fd)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

int matrix_job_save_state(struct fl_matrix_job *j)
{
	char path[PATH_MAX + 32];
	char *text = json_dumps(j->state, JSON_INDENT(2) | JSON_SORT_KEYS);
	int rc;

	if (!text)
		return -1;
	snprintf(path, sizeof(path), "%s/matrix.json", j->run.tmp);
	rc = write_file_synced(path, text, strlen(text));
	free(text);
	return rc;
}

json_t *matrix_job_argv_json(const struct fl_matrix_job *j)
{
	json_t *a = json_array();

	for (int i = 0; i < j->argc; i++)
		json_array_append_new(a, json_string(j->argv[i]));
	return a;
}

int matrix_job_lock_dir(struct fl_matrix_job *j, const char *dir, char *err,
			size_t errlen)
{
	j->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (j->dirfd < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (flock(j->dirfd, LOCK_EX | LOCK_NB)) {
		snprintf(err, errlen, "%s is being written by another "
			 "futexlab process", dir);
		return -1;
	}
	return 0;
}

int fl_matrix_job_start(struct fl_matrix_job *j, int argc, char **argv,
			const char *file, const char *results, char *err,
			size_t errlen)
{
	char path[PATH_MAX + 32], abs[PATH_MAX], hash[32], start[32];
	struct utsname u;

	memset(j, 0, sizeof(*j));
	j->dirfd = -1;
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
	if (matrix_job_lock_dir(j, j->run.tmp, err, errlen))
		return -1;
	snprintf(path, sizeof(path), "%s/matrix.ini", j->run.tmp);
	if (write_file_synced(path, j->m.text, j->m.len)) {
		snprintf(err, errlen, "cannot write %s: %s", path,
			 strerror(errno));
		return -1;
	}
	if (!realpath(file, abs))
		snprintf(abs, sizeof(abs), "%s", file);
	snprintf(hash, sizeof(hash), "%016" PRIx64, j->m.hash);
	fl_utc_now(start, sizeof(start));
	j->state = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:o, s:[],"
			     " s:b, s:[], s:{}, s:f, s:f}",
			     "source", abs, "fnv1a64", hash,
			     "name", j->run.name, "results", results,
			     "start_time", start, "cells",
			     (json_int_t)j->m.ncells, "argv",
			     matrix_job_argv_json(j), "resumed", "finalizing", 0,
			     "passes", "visit_start", "seconds_spent", 0.0,
			     "budget_s", j->budget_s);
	if (!j->state || matrix_job_save_state(j)) {
		snprintf(err, errlen, "cannot write %s/matrix.json",
			 j->run.tmp);
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
	json_object_set(meta, "resumed", json_object_get(j->state,
							 "resumed"));
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
	return fl_run_finish(&j->run, meta, err, errlen);
}

void fl_matrix_job_free(struct fl_matrix_job *j)
{
	if (j->run.cells)
		fclose(j->run.cells);
	j->run.cells = NULL;
	if (j->dirfd >= 0)
		close(j->dirfd);
	j->dirfd = -1;
	json_decref(j->state);
	j->state = NULL;
	free(j->done);
	j->done = NULL;
	free(j->tracks);
	j->tracks = NULL;
	fl_matrix_free(&j->m);
}
