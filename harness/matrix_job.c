// SPDX-License-Identifier: GPL-2.0
/* Starting and resuming a matrix run's partial directory. */
#include "matrix_job.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "commands.h"
#include "csv.h"
#include "hist.h"
#include "meta.h"

#define MAX_COLUMNS 64

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

static int save_state(struct fl_matrix_job *j)
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

static json_t *argv_json(void)
{
	json_t *a = json_array();

	for (int i = 0; i < fl_main_argc; i++)
		json_array_append_new(a, json_string(fl_main_argv[i]));
	return a;
}

static int lock_dir(struct fl_matrix_job *j, const char *dir, char *err,
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

int fl_matrix_job_start(struct fl_matrix_job *j, const char *file,
			const char *results, char *err, size_t errlen)
{
	char path[PATH_MAX + 32], abs[PATH_MAX], hash[32], start[32];
	struct utsname u;

	memset(j, 0, sizeof(*j));
	j->dirfd = -1;
	if (fl_matrix_load(file, &j->m, err, errlen))
		return 2;
	j->done = calloc(j->m.ncells, 1);
	if (!j->done) {
		snprintf(err, errlen, "out of memory");
		return 2;
	}
	uname(&u);
	if (fl_run_open(&j->run, results, u.nodename, err, errlen))
		return 2;
	if (lock_dir(j, j->run.tmp, err, errlen))
		return 2;
	snprintf(path, sizeof(path), "%s/matrix.ini", j->run.tmp);
	if (write_file_synced(path, j->m.text, j->m.len)) {
		snprintf(err, errlen, "cannot write %s: %s", path,
			 strerror(errno));
		return 2;
	}
	if (!realpath(file, abs))
		snprintf(abs, sizeof(abs), "%s", file);
	snprintf(hash, sizeof(hash), "%016" PRIx64, j->m.hash);
	fl_utc_now(start, sizeof(start));
	j->state = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:o, s:[]}",
			     "source", abs, "fnv1a64", hash,
			     "name", j->run.name, "results", results,
			     "start_time", start, "cells",
			     (json_int_t)j->m.ncells, "argv", argv_json(),
			     "resumed");
	if (!j->state || save_state(j)) {
		snprintf(err, errlen, "cannot write %s/matrix.json",
			 j->run.tmp);
		return 2;
	}
	return 0;
}

static int column(char **names, int n, const char *want)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], want) == 0)
			return i;
	return -1;
}

static int hist_ok(const char *dir, unsigned long cell)
{
	static struct fl_hist h;
	char path[PATH_MAX + 64];
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/hist/cell-%04lu.csv", dir, cell);
	f = fopen(path, "r");
	if (!f)
		return 0;
	rc = fl_hist_read_csv(&h, f);
	fclose(f);
	return rc == 0;
}

static enum fl_status status_of(const char *s)
{
	for (int st = FL_STATUS_OK; st <= FL_STATUS_ABORTED; st++)
		if (strcmp(s, fl_status_name((enum fl_status)st)) == 0)
			return (enum fl_status)st;
	return FL_STATUS_FAILED;
}

/*
 * Keep the rows of every complete cell of cells.csv and drop the rest,
 * checking that each kept row is the cell the matrix puts at its index.
 */
static int filter_cells(struct fl_matrix_job *j, char *err, size_t errlen)
{
	char path[PATH_MAX + 32], tmp[PATH_MAX + 32];
	char *hdr_fields[MAX_COLUMNS], *f[MAX_COLUMNS];
	char *data = NULL, *line = NULL;
	size_t cap = 0;
	unsigned long ncells = j->m.ncells, dropped = 0;
	unsigned int *rows = calloc(ncells, sizeof(*rows));
	unsigned char *seen = calloc(ncells, 13);	/* 100 rep bits */
	unsigned char *status = calloc(ncells, 1);
	int rc = -1, ncol, col[9];
	static struct fl_cell cell;
	FILE *in, *out = NULL;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/cells.csv", j->run.tmp);
	snprintf(tmp, sizeof(tmp), "%s/cells.csv.tmp", j->run.tmp);
	in = fopen(path, "r");
	if (!in || !rows || !seen || !status) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	/* pass 1: count the rows of each cell */
	n = getline(&line, &cap, in);
	if (n <= 0 || strcmp(line, FL_CELLS_COLUMNS "\n") != 0) {
		snprintf(err, errlen, "%s: the header is not this futexlab's "
			 "(%s)", path, FL_CELLS_COLUMNS);
		goto out;
	}
	char header[] = FL_CELLS_COLUMNS;

	ncol = fl_csv_split(header, hdr_fields, MAX_COLUMNS);
	static const char *const want[9] = { "cell", "workload", "backend",
		"threads", "placement", "options", "rep", "status", "hist" };
	for (int i = 0; i < 9; i++)
		col[i] = column(hdr_fields, ncol, want[i]);
	long rows_start = ftell(in);

	while ((n = getline(&line, &cap, in)) > 0) {
		if (line[n - 1] != '\n') {
			dropped++;	/* torn by the kill */
			continue;
		}
		free(data);
		data = strdup(line);
		if (!data || fl_csv_split(data, f, MAX_COLUMNS) != ncol) {
			dropped++;
			continue;
		}
		unsigned long c = strtoul(f[col[0]], NULL, 10);
		unsigned long r = strtoul(f[col[6]], NULL, 10);

		if (c >= ncells || r >= 100) {
			snprintf(err, errlen, "%s: row for cell %s, rep %s: "
				 "the matrix has %lu cells", path, f[col[0]],
				 f[col[6]], ncells);
			goto out;
		}
		if (fl_matrix_cell(&j->m, c, &cell, NULL, err, errlen))
			goto out;
		char th[16];

		snprintf(th, sizeof(th), "%u", cell.threads);
		if (strcmp(f[col[1]], cell.workload->name) ||
		    strcmp(f[col[2]], cell.backend->name) ||
		    strcmp(f[col[3]], th) ||
		    strcmp(f[col[4]], cell.placement) ||
		    strcmp(f[col[5]], cell.options)) {
			snprintf(err, errlen, "cell %lu in cells.csv is %s %s "
				 "threads=%s %s %s, but the matrix now gives "
				 "%s %s threads=%u %s %s here: start a new run",
				 c, f[col[1]], f[col[2]], f[col[3]], f[col[4]],
				 f[col[5]], cell.workload->name,
				 cell.backend->name, cell.threads,
				 cell.placement, cell.options);
			goto out;
		}
		if (seen[c * 13 + r / 8] & (1u << (r % 8)))
			rows[c] = 1000;	/* doubled: redo the cell */
		seen[c * 13 + r / 8] |= (unsigned char)(1u << (r % 8));
		rows[c]++;
		enum fl_status st = status_of(f[col[7]]);

		if (st > status[c])
			status[c] = (unsigned char)st;
	}
	for (unsigned long c = 0; c < ncells; c++) {
		if (fl_matrix_cell(&j->m, c, &cell, NULL, err, errlen))
			goto out;
		if (rows[c] == cell.reps && hist_ok(j->run.tmp, c)) {
			j->done[c] = 1;
			j->ndone++;
			j->by_status[status[c]]++;
		} else if (rows[c]) {
			dropped += rows[c] % 1000;
		}
	}
	/* pass 2: rewrite with the complete cells only */
	out = fopen(tmp, "w");
	if (!out) {
		snprintf(err, errlen, "cannot write %s: %s", tmp,
			 strerror(errno));
		goto out;
	}
	fprintf(out, "%s\n", FL_CELLS_COLUMNS);
	fseek(in, rows_start, SEEK_SET);
	while ((n = getline(&line, &cap, in)) > 0) {
		if (line[n - 1] != '\n')
			continue;
		unsigned long c = strtoul(line, NULL, 10);

		if (c < ncells && j->done[c])
			fputs(line, out);
	}
	if (fflush(out) || fsync(fileno(out)) || fclose(out)) {
		out = NULL;
		snprintf(err, errlen, "cannot write %s: %s", tmp,
			 strerror(errno));
		goto out;
	}
	out = NULL;
	if (rename(tmp, path)) {
		snprintf(err, errlen, "cannot replace %s: %s", path,
			 strerror(errno));
		goto out;
	}
	fsync(j->dirfd);
	if (dropped)
		fprintf(stderr, "futexlab matrix: dropped %lu row%s of "
			"unfinished cells; they run again\n", dropped,
			dropped == 1 ? "" : "s");
	rc = 0;
out:
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	free(line);
	free(data);
	free(rows);
	free(seen);
	free(status);
	return rc;
}

int fl_matrix_job_resume(struct fl_matrix_job *j, const char *dir_arg,
			 const char *file, char *err, size_t errlen)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], base[PATH_MAX], what[1024];
	char hash[32], now_s[32];
	struct fl_matrix now;
	json_error_t jerr;
	struct stat st;

	memset(j, 0, sizeof(*j));
	j->dirfd = -1;
	snprintf(dir, sizeof(dir), "%s", dir_arg);
	for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--)
		dir[n - 1] = '\0';
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--resume: '%s' is not a directory",
			 dir_arg);
		return 2;
	}
	snprintf(base, sizeof(base), "%s", dir);
	const char *b = basename(base);

	snprintf(path, sizeof(path), "%s/matrix.json", dir);
	if (strncmp(b, ".partial-", 9) != 0) {
		snprintf(path, sizeof(path), "%s/meta.json", dir);
		if (access(path, F_OK) == 0)
			snprintf(err, errlen, "--resume: '%s' is a finished "
				 "run: finished runs are never modified",
				 dir_arg);
		else
			snprintf(err, errlen, "--resume: '%s' is not a "
				 "partial run directory (results/.partial-*)",
				 dir_arg);
		return 2;
	}
	if (lock_dir(j, dir, err, errlen))
		return 2;
	j->state = json_load_file(path, 0, &jerr);
	const char *source = json_string_value(json_object_get(j->state,
							       "source"));
	const char *name = json_string_value(json_object_get(j->state,
							     "name"));
	const char *saved = json_string_value(json_object_get(j->state,
							      "fnv1a64"));

	if (!source || !name || !saved) {
		snprintf(err, errlen, "--resume: %s has no valid matrix.json: "
			 "only a matrix run can be resumed", dir_arg);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/matrix.ini", dir);
	if (fl_matrix_load(path, &j->m, err, errlen))
		return 2;
	snprintf(hash, sizeof(hash), "%016" PRIx64, j->m.hash);
	if (strcmp(hash, saved) != 0) {
		snprintf(err, errlen, "--resume: %s was modified after the "
			 "run started: start a new run", path);
		return 2;
	}
	int given = file != NULL;

	if (!file)
		file = source;
	if (given || access(file, F_OK) == 0) {
		if (fl_matrix_load(file, &now, err, errlen)) {
			fl_matrix_free(&now);
			return 2;
		}
		int differs = fl_matrix_diff(&j->m, &now, what, sizeof(what));

		fl_matrix_free(&now);
		if (differs) {
			snprintf(err, errlen, "--resume: %s changed since the "
				 "run started: %s. Restore it, or start a new "
				 "run", file, what);
			return 2;
		}
	} else {
		fprintf(stderr, "futexlab matrix: %s is gone; resuming with "
			"the copy in %s/matrix.ini\n", file, dir);
	}
	j->done = calloc(j->m.ncells, 1);
	if (!j->done) {
		snprintf(err, errlen, "out of memory");
		return 2;
	}
	snprintf(base, sizeof(base), "%s", dir);
	snprintf(j->run.dir, sizeof(j->run.dir), "%s", dirname(base));
	snprintf(j->run.name, sizeof(j->run.name), "%s", name);
	snprintf(j->run.tmp, sizeof(j->run.tmp), "%s", dir);
	if (filter_cells(j, err, errlen))
		return 2;
	snprintf(path, sizeof(path), "%s/cells.csv", dir);
	j->run.cells = fopen(path, "a");
	if (!j->run.cells) {
		snprintf(err, errlen, "cannot write %s: %s", path,
			 strerror(errno));
		return 2;
	}
	fl_utc_now(now_s, sizeof(now_s));
	json_array_append_new(json_object_get(j->state, "resumed"),
			      json_pack("{s:s, s:o, s:I}", "time", now_s,
					"argv", argv_json(), "cells_done",
					(json_int_t)j->ndone));
	if (save_state(j)) {
		snprintf(err, errlen, "cannot write %s/matrix.json", dir);
		return 2;
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

		json_array_append_new(exps, json_pack("{s:s, s:s, s:I, s:I}",
			"name", e->name, "workload", e->spec.workload->name,
			"first_cell", (json_int_t)e->first_cell,
			"cells", (json_int_t)e->ncells));
	}
	json_object_set_new(json_object_get(meta, "matrix"), "experiments",
			    exps);
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
	fl_matrix_free(&j->m);
}
