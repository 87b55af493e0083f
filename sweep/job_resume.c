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

/*
 * While a matrix runs, cells.csv is in visit layout: the cell column is
 * the visit's index, each visit has one row (rep 0) and its own
 * histogram. Keep the rows of every complete visit and drop the rest,
 * checking that each kept row is the cell the matrix puts at that visit.
 */
static int filter_cells(struct fl_matrix_job *j, char *err, size_t errlen)
{
	char path[PATH_MAX + 32], tmp[PATH_MAX + 32];
	char *hdr_fields[MAX_COLUMNS], *f[MAX_COLUMNS];
	char *data = NULL, *line = NULL;
	size_t cap = 0;
	unsigned long ncells = j->m.nvisits, dropped = 0;
	unsigned int *rows = calloc(ncells ? ncells : 1, sizeof(*rows));
	unsigned char *seen = calloc(ncells ? ncells : 1, 13);	/* rep bits */
	int rc = -1, ncol, col[9];
	static struct fl_cell cell;
	FILE *in, *out = NULL;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/cells.csv", j->run.tmp);
	snprintf(tmp, sizeof(tmp), "%s/cells.csv.tmp", j->run.tmp);
	in = fopen(path, "r");
	if (!in || !rows || !seen) {
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
			snprintf(err, errlen, "%s: row for visit %s, rep %s: "
				 "the matrix has %lu visits", path, f[col[0]],
				 f[col[6]], ncells);
			goto out;
		}
		if (fl_matrix_visit_cell(&j->m, c, &cell, NULL, err, errlen))
			goto out;
		char th[16];

		snprintf(th, sizeof(th), "%u", cell.threads);
		if (strcmp(f[col[1]], cell.workload->name) ||
		    strcmp(f[col[2]], cell.backend->name) ||
		    strcmp(f[col[3]], th) ||
		    strcmp(f[col[4]], cell.placement) ||
		    strcmp(f[col[5]], cell.options)) {
			snprintf(err, errlen, "visit %lu in cells.csv is %s %s "
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
	}
	for (unsigned long c = 0; c < ncells; c++) {
		if (fl_matrix_visit_cell(&j->m, c, &cell, NULL, err, errlen))
			goto out;
		if (rows[c] == cell.reps && hist_ok(j->run.tmp, c)) {
			j->done[c] = 1;
			j->ndone++;
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
	return rc;
}

int fl_matrix_job_resume(struct fl_matrix_job *j, int argc, char **argv,
			 const char *dir_arg, const char *file, char *err,
			 size_t errlen)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], base[PATH_MAX], what[1024];
	char hash[32], now_s[32];
	struct fl_matrix now;
	json_error_t jerr;
	struct stat st;

	memset(j, 0, sizeof(*j));
	j->dirfd = -1;
	j->argc = argc;
	j->argv = argv;
	snprintf(dir, sizeof(dir), "%s", dir_arg);
	for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--)
		dir[n - 1] = '\0';
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--resume: '%s' is not a directory",
			 dir_arg);
		return -1;
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
		return -1;
	}
	if (matrix_job_lock_dir(j, dir, err, errlen))
		return -1;
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
		return -1;
	}
	snprintf(path, sizeof(path), "%s/matrix.ini", dir);
	if (fl_matrix_load(path, &j->m, err, errlen))
		return -1;
	snprintf(hash, sizeof(hash), "%016" PRIx64, j->m.hash);
	if (strcmp(hash, saved) != 0) {
		snprintf(err, errlen, "--resume: %s was modified after the "
			 "run started: start a new run", path);
		return -1;
	}
	int given = file != NULL;

	if (!file)
		file = source;
	if (given || access(file, F_OK) == 0) {
		if (fl_matrix_load(file, &now, err, errlen)) {
			fl_matrix_free(&now);
			return -1;
		}
		int differs = fl_matrix_diff(&j->m, &now, what, sizeof(what));

		fl_matrix_free(&now);
		if (differs) {
			snprintf(err, errlen, "--resume: %s changed since the "
				 "run started: %s. Restore it, or start a new "
				 "run", file, what);
			return -1;
		}
	} else {
		fprintf(stderr, "futexlab matrix: %s is gone; resuming with "
			"the copy in %s/matrix.ini\n", file, dir);
	}
	j->done = calloc(j->m.nvisits ? j->m.nvisits : 1, 1);
	if (!j->done) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(base, sizeof(base), "%s", dir);
	snprintf(j->run.dir, sizeof(j->run.dir), "%s", dirname(base));
	snprintf(j->run.name, sizeof(j->run.name), "%s", name);
	snprintf(j->run.tmp, sizeof(j->run.tmp), "%s", dir);
	if (json_is_true(json_object_get(j->state, "finalizing"))) {
		/* killed while putting the rows in cell order: every visit
		 * ran; fl_matrix_job_finalize() completes what it began */
		memset(j->done, 1, j->m.nvisits);
		j->ndone = j->m.nvisits;
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
