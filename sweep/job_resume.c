// SPDX-License-Identifier: GPL-2.0
/*
 * Resuming a matrix run: reopen its partial directory, check that the
 * matrix file still says the same, and keep the rows of every complete
 * visit so only the missing ones run again.
 */
#include "sweep/job.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rundir/csv.h"
#include "measure/hist.h"
#include "sweep/job_internal.h"
#include "rundir/meta.h"

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

/* The columns of cells.csv a resume reads, named once. */
enum resume_col {
	RC_CELL, RC_WORKLOAD, RC_BACKEND, RC_THREADS, RC_PLACEMENT,
	RC_OPTIONS, RC_STATUS, RC_OPS, RC_P50, RC_NCOLS
};

static const char *const resume_col_names[RC_NCOLS] = {
	[RC_CELL] = "cell", [RC_WORKLOAD] = "workload",
	[RC_BACKEND] = "backend", [RC_THREADS] = "threads",
	[RC_PLACEMENT] = "placement", [RC_OPTIONS] = "options",
	[RC_STATUS] = "status", [RC_OPS] = "ops_per_sec",
	[RC_P50] = "lat_p50_ns",
};

struct resume_rows {
	int col[RC_NCOLS];
	int ncol;
	unsigned int *rows;		/* per visit */
	unsigned long dropped;
};

static enum fl_status status_named(const char *s)
{
	for (int st = FL_STATUS_OK; st <= FL_STATUS_ABORTED; st++)
		if (strcmp(s, fl_status_name((enum fl_status)st)) == 0)
			return (enum fl_status)st;
	return FL_STATUS_FAILED;
}

/* A row of visit c must be the cell the matrix puts at visit c. */
static int check_row(struct fl_matrix_job *j, const struct resume_rows *rr,
		     char **f, unsigned long c, char *err, size_t errlen)
{
	static struct fl_cell cell;
	const int *col = rr->col;
	char th[16];

	if (fl_matrix_visit_cell(&j->m, c, &cell, NULL, err, errlen))
		return -1;
	snprintf(th, sizeof(th), "%u", cell.threads);
	if (strcmp(f[col[RC_WORKLOAD]], cell.workload->name) ||
	    strcmp(f[col[RC_BACKEND]], cell.backend->name) ||
	    strcmp(f[col[RC_THREADS]], th) ||
	    strcmp(f[col[RC_PLACEMENT]], cell.placement) ||
	    strcmp(f[col[RC_OPTIONS]], cell.options)) {
		snprintf(err, errlen, "visit %lu in cells.csv is %s %s "
			 "threads=%s %s %s, but the matrix now gives %s %s "
			 "threads=%u %s %s here: start a new run", c,
			 f[col[RC_WORKLOAD]], f[col[RC_BACKEND]],
			 f[col[RC_THREADS]], f[col[RC_PLACEMENT]],
			 f[col[RC_OPTIONS]], cell.workload->name,
			 cell.backend->name, cell.threads, cell.placement,
			 cell.options);
		return -1;
	}
	return 0;
}

/* Pass 1: count each visit's rows, checking each is the right cell. */
static int count_rows(struct fl_matrix_job *j, FILE *in,
		      struct resume_rows *rr, const char *path, char *err,
		      size_t errlen)
{
	char *f[MAX_COLUMNS], *line = NULL, *data = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = -1;

	while ((n = getline(&line, &cap, in)) > 0) {
		free(data);
		data = line[n - 1] == '\n' ? strdup(line) : NULL;
		if (!data || fl_csv_split(data, f, MAX_COLUMNS) != rr->ncol) {
			rr->dropped++;	/* torn by the kill */
			continue;
		}
		unsigned long c = strtoul(f[rr->col[RC_CELL]], NULL, 10);

		if (c >= j->m.nvisits) {
			snprintf(err, errlen, "%s: row for visit %s: the run "
				 "planned %lu visits", path,
				 f[rr->col[RC_CELL]], j->m.nvisits);
			goto out;
		}
		if (check_row(j, rr, f, c, err, errlen))
			goto out;
		rr->rows[c]++;
	}
	rc = 0;
out:
	free(line);
	free(data);
	return rc;
}

/* Pass 2: write the complete visits' rows to out and tell the planner
 * what they found. */
static void keep_complete(struct fl_matrix_job *j, FILE *in, FILE *out,
			  const struct resume_rows *rr)
{
	char *f[MAX_COLUMNS], *line = NULL;
	size_t cap = 0;
	ssize_t n;

	fprintf(out, "%s\n", FL_CELLS_COLUMNS);
	while ((n = getline(&line, &cap, in)) > 0) {
		if (line[n - 1] != '\n')
			continue;
		unsigned long c = strtoul(line, NULL, 10);

		if (c >= j->m.nvisits || !j->done[c])
			continue;
		fputs(line, out);
		if (fl_csv_split(line, f, MAX_COLUMNS) != rr->ncol)
			continue;
		enum fl_status st = status_named(f[rr->col[RC_STATUS]]);
		int col = j->tracks[j->m.visits[c].cell].latency_primary ?
			  rr->col[RC_P50] : rr->col[RC_OPS];

		fl_matrix_job_visited(j, c, st, strtod(f[col], NULL), NULL);
	}
	free(line);
}

/*
 * While a matrix runs, cells.csv is in visit layout: the cell column is
 * the visit's index, each visit has one row and its own histogram. Keep
 * the rows of every complete visit and drop the rest, checking that each
 * kept row is the cell the matrix puts at that visit.
 */
static int filter_cells(struct fl_matrix_job *j, char *err, size_t errlen)
{
	char path[PATH_MAX + 32], tmp[PATH_MAX + 32], *hdr[MAX_COLUMNS];
	char header[] = FL_CELLS_COLUMNS, *line = NULL;
	struct resume_rows rr = { .ncol = 0 };
	size_t cap = 0;
	int rc = -1;
	FILE *in, *out = NULL;

	rr.ncol = fl_csv_split(header, hdr, MAX_COLUMNS);
	for (int i = 0; i < RC_NCOLS; i++)
		rr.col[i] = column(hdr, rr.ncol, resume_col_names[i]);
	rr.rows = calloc(j->m.nvisits + 1, sizeof(*rr.rows));
	snprintf(path, sizeof(path), "%s/cells.csv", j->run.tmp);
	snprintf(tmp, sizeof(tmp), "%s/cells.csv.tmp", j->run.tmp);
	in = fopen(path, "r");
	if (!in || !rr.rows) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (getline(&line, &cap, in) <= 0 ||
	    strcmp(line, FL_CELLS_COLUMNS "\n") != 0) {
		snprintf(err, errlen, "%s: the header is not this futexlab's "
			 "(%s)", path, FL_CELLS_COLUMNS);
		goto out;
	}
	long rows_start = ftell(in);

	if (count_rows(j, in, &rr, path, err, errlen))
		goto out;
	for (unsigned long c = 0; c < j->m.nvisits; c++) {
		if (rr.rows[c] == 1 && hist_ok(j->run.tmp, c)) {
			j->done[c] = 1;
			j->ndone++;
		} else {
			rr.dropped += rr.rows[c];	/* doubled or no hist */
		}
	}
	out = fopen(tmp, "w");
	if (!out) {
		snprintf(err, errlen, "cannot write %s: %s", tmp,
			 strerror(errno));
		goto out;
	}
	fseek(in, rows_start, SEEK_SET);
	keep_complete(j, in, out, &rr);
	if (fflush(out) || fsync(fileno(out)) || fclose(out) ||
	    rename(tmp, path)) {
		out = NULL;
		snprintf(err, errlen, "cannot replace %s: %s", path,
			 strerror(errno));
		goto out;
	}
	out = NULL;
	fsync(j->dirfd);
	if (rr.dropped)
		fprintf(stderr, "futexlab matrix: dropped %lu row%s of "
			"unfinished visits; they run again\n", rr.dropped,
			rr.dropped == 1 ? "" : "s");
	rc = 0;
out:
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	free(line);
	free(rr.rows);
	return rc;
}

/* dir (dir_arg without trailing slashes) is a partial matrix run: lock
 * it and load its matrix.json into j->state. */
static int open_partial(struct fl_matrix_job *j, const char *dir_arg,
			const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX + 32], base[PATH_MAX];
	json_error_t jerr;
	struct stat st;

	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--resume: '%s' is not a directory",
			 dir_arg);
		return -1;
	}
	snprintf(base, sizeof(base), "%s", dir);
	if (strncmp(basename(base), ".partial-", 9) != 0) {
		snprintf(path, sizeof(path), "%s/meta.json", dir);
		if (access(path, F_OK) == 0)
			snprintf(err, errlen, "--resume: '%s' is a finished "
				 "run: finished runs are never modified",
				 dir_arg);
		else
			snprintf(err, errlen, "--resume: '%s' is not a "
				 "partial run directory (results/.partial-*)",
				 dir_arg);
		return -1;
	}
	if (matrix_job_lock_dir(j, dir, err, errlen))
		return -1;
	snprintf(path, sizeof(path), "%s/matrix.json", dir);
	j->state = json_load_file(path, 0, &jerr);
	if (!json_is_string(json_object_get(j->state, "source")) ||
	    !json_is_string(json_object_get(j->state, "name")) ||
	    !json_is_string(json_object_get(j->state, "fnv1a64"))) {
		snprintf(err, errlen, "--resume: %s has no valid matrix.json: "
			 "only a matrix run can be resumed", dir_arg);
		return -1;
	}
	return 0;
}

/* Load the run's copy of its matrix file, unmodified, and check that
 * file (NULL: the source recorded) still defines the same matrix. */
static int same_matrix(struct fl_matrix_job *j, const char *dir,
		       const char *file, char *err, size_t errlen)
{
	const char *saved = json_string_value(json_object_get(j->state,
							      "fnv1a64"));
	char path[PATH_MAX + 32], hash[32], what[1024];
	struct fl_matrix now;
	int given = file != NULL;

	snprintf(path, sizeof(path), "%s/matrix.ini", dir);
	if (fl_matrix_load(path, &j->m, err, errlen))
		return -1;
	snprintf(hash, sizeof(hash), "%016" PRIx64, j->m.hash);
	if (strcmp(hash, saved) != 0) {
		snprintf(err, errlen, "--resume: %s was modified after the "
			 "run started: start a new run", path);
		return -1;
	}
	if (!file)
		file = json_string_value(json_object_get(j->state, "source"));
	if (!given && access(file, F_OK) != 0) {
		fprintf(stderr, "futexlab matrix: %s is gone; resuming with "
			"the copy in %s/matrix.ini\n", file, dir);
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

/* The visits planned before, the rows of those complete, and cells.csv
 * open for more. */
static int reopen_rows(struct fl_matrix_job *j, const char *dir, char *err,
		       size_t errlen)
{
	char path[PATH_MAX + 32], base[PATH_MAX];

	j->done = calloc(1, 1);
	if (!j->done) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (matrix_job_init_tracks(j, err, errlen) ||
	    matrix_job_replay_passes(j, err, errlen))
		return -1;
	snprintf(base, sizeof(base), "%s", dir);
	snprintf(j->run.dir, sizeof(j->run.dir), "%s", dirname(base));
	snprintf(j->run.name, sizeof(j->run.name), "%s",
		 json_string_value(json_object_get(j->state, "name")));
	snprintf(j->run.tmp, sizeof(j->run.tmp), "%s", dir);
	if (json_is_true(json_object_get(j->state, "finalizing"))) {
		/* killed while putting the rows in cell order: every visit
		 * ran; fl_matrix_job_finalize() completes what it began (the
		 * tracks count the visits; their figures are not reread) */
		memset(j->done, 1, j->m.nvisits);
		j->ndone = j->m.nvisits;
		for (unsigned long k = 0; k < j->m.nvisits; k++)
			j->tracks[j->m.visits[k].cell].visits++;
	} else if (filter_cells(j, err, errlen)) {
		return -1;
	}
	snprintf(path, sizeof(path), "%s/cells.csv", dir);
	j->run.cells = fopen(path, "a");
	if (!j->run.cells) {
		snprintf(err, errlen, "cannot write %s: %s", path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

int fl_matrix_job_resume(struct fl_matrix_job *j, int argc, char **argv,
			 const char *dir_arg, const char *file, char *err,
			 size_t errlen)
{
	char dir[PATH_MAX], now_s[32];

	memset(j, 0, sizeof(*j));
	j->dirfd = -1;
	j->argc = argc;
	j->argv = argv;
	snprintf(dir, sizeof(dir), "%s", dir_arg);
	for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--)
		dir[n - 1] = '\0';
	if (open_partial(j, dir_arg, dir, err, errlen) ||
	    same_matrix(j, dir, file, err, errlen) ||
	    reopen_rows(j, dir, err, errlen))
		return -1;
	fl_utc_now(now_s, sizeof(now_s));
	json_array_append_new(json_object_get(j->state, "resumed"),
			      json_pack("{s:s, s:o, s:I}", "time", now_s,
					"argv", matrix_job_argv_json(j),
					"cells_done", (json_int_t)j->ndone));
	if (matrix_job_save_state(j)) {
		snprintf(err, errlen, "cannot write %s/matrix.json", dir);
		return -1;
	}
	return 0;
}
