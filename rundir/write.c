// SPDX-License-Identifier: GPL-2.0
/* Run directories: creation, rows, histograms, the final rename; every
 * file through the run's descriptor (write_at.h). */
#include "rundir/write.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rundir/columns.h"
#include "rundir/csv.h"
#include "rundir/hist_file.h"
#include "rundir/keep.h"
#include "rundir/same_dir.h"
#include "rundir/visits.h"
#include "rundir/write_at.h"
#include "stats/figures.h"
#include "spec/placement.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE 1
#endif

static int mkdir_p(const char *path)
{
	char buf[PATH_MAX];

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return -1;
	return 0;
}

/* A folder of the run synced, so the renames in it last */
static void fsync_at(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int fl_run_open(struct fl_run *run, const char *results_dir,
		const char *hostname, char *err, size_t errlen)
{
	char host[64], stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	size_t j = 0;

	memset(run, 0, sizeof(*run));
	run->dir_fd = run->fd = -1;
	for (size_t i = 0; hostname[i] && j < sizeof(host) - 1; i++) {
		char c = hostname[i];

		host[j++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9') || c == '-' ? c : '_';
	}
	host[j] = '\0';
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(run->name, sizeof(run->name), "%s-%s", stamp, host);
	snprintf(run->dir, sizeof(run->dir), "%s", results_dir);
	if (mkdir_p(results_dir) ||
	    (run->dir_fd = open(results_dir, O_RDONLY | O_DIRECTORY |
				O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "--results: cannot create '%s': %s",
			 results_dir, strerror(errno));
		return -1;
	}
	/* pid and a per-process count: one process may open several runs */
	static unsigned int opened;

	snprintf(run->entry, sizeof(run->entry), ".partial-%s-%d-%u",
		 run->name, (int)getpid(), opened++);
	if (snprintf(run->tmp, sizeof(run->tmp), "%s/%s", results_dir,
		     run->entry) >= (int)sizeof(run->tmp) ||
	    mkdirat(run->dir_fd, run->entry, 0755) ||
	    (run->fd = openat(run->dir_fd, run->entry, O_RDONLY | O_DIRECTORY |
			      O_NOFOLLOW | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "--results: cannot write in '%s': %s",
			 results_dir, strerror(errno));
		fl_run_close(run);
		return -1;
	}
	if (mkdirat(run->fd, "bins", 0755) == 0 &&
	    mkdirat(run->fd, "hist", 0755) == 0)
		run->cells = fl_create_at(run->fd, "cells.csv",
					  FL_CELLS_COLUMNS);
	if (!run->cells) {
		snprintf(err, errlen, "--results: cannot write in '%s': %s",
			 run->tmp, strerror(errno));
		fl_run_close(run);
		return -1;
	}
	fl_keep_into(run->fd);
	return 0;
}

void fl_run_close(struct fl_run *run)
{
	if (run->cells)
		fclose(run->cells);
	run->cells = NULL;
	if (run->visits)
		fclose(run->visits);
	run->visits = NULL;
	if (run->fd >= 0) {
		fl_keep_into(-1);
		close(run->fd);
	}
	if (run->dir_fd >= 0)
		close(run->dir_fd);
	run->fd = run->dir_fd = -1;
}

static void extra_text(const struct fl_workload *w, const uint64_t *counters,
		       char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < w->ncounters && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used,
					 "%s%s=%" PRIu64, i ? ";" : "",
					 w->counters[i].name, counters[i]);
}

/* bins/cell-<i>-rep-<r>.csv: a repetition's operations over time, one
 * row per bin (results/README.md). */
static int write_bins(const struct fl_run *run, unsigned long cell,
		      unsigned int rep, const struct fl_bins *b, char *err,
		      size_t errlen)
{
	char name[64], shown[PATH_MAX + 64];
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc = -1;

	snprintf(name, sizeof(name), "bins/cell-%04lu-rep-%03u.csv", cell,
		 rep);
	snprintf(shown, sizeof(shown), "%s/%s", run->tmp, name);
	if (f) {
		fprintf(f, "# bin_ns=%" PRIu64 "\nend_ns,ops\n", b->bin_ns);
		for (unsigned int i = 0; i < b->n && i < FL_MAX_BINS; i++)
			fprintf(f, "%" PRIu64 ",%" PRIu64 "\n", b->end_ns[i],
				b->ops[i]);
		if (fclose(f) == 0)
			rc = fl_write_at(run->fd, name, shown, text, len, err,
					 errlen);
		else
			snprintf(err, errlen, "%s: out of memory", shown);
	} else {
		snprintf(err, errlen, "%s: out of memory", shown);
	}
	free(text);
	return rc;
}

static void field_u64(FILE *f, uint64_t v)
{
	fprintf(f, "%" PRIu64 ",", v);
}

/* The kernel's counts, each empty where it was not counted. */
static void counts_fields(FILE *f, const struct fl_rep_counts *c)
{
	for (int i = 0; i < FL_NCOUNT_COLS; i++) {
		const struct fl_count_col *k = &fl_count_cols[i];

		if (c->have & k->have)
			fprintf(f, "%" PRIu64, *(const uint64_t *)
				((const char *)c + k->offset));
		fputc(',', f);
	}
	if (c->have & FL_HAVE_CONTAMINATION)
		fprintf(f, "%d", c->contaminated);
	fputc('\n', f);
}

int fl_run_write_cell(struct fl_run *run, const struct fl_cell *cell,
		      const struct fl_cell_result *res, char *err,
		      size_t errlen)
{
	struct fl_row_place at = { run->ncells, run->ncells, 0 };

	run->ncells++;
	return fl_run_write_visit(run, &at, cell, res, err, errlen);
}

int fl_run_write_visit(struct fl_run *run, const struct fl_row_place *at,
		       const struct fl_cell *cell,
		       const struct fl_cell_result *res, char *err,
		       size_t errlen)
{
	const struct fl_workload *w = cell->workload;
	unsigned long idx = at->cell;
	/* a CPU's number and its comma for each thread: the buffer
	 * follows the cell's table, which its threads sized */
	size_t cpus_len = (size_t)cell->nplaced * 12 + 1;
	char *cpus = malloc(cpus_len), hist[64], own[64];
	char path[PATH_MAX + 64];
	char extra[512];
	FILE *f = run->cells;

	if (!cpus) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(hist, sizeof(hist), "hist/cell-%04lu.csv", idx);
	/* a journalled visit's histogram is its own until the finalizing
	 * merges its cell's (visits.h) */
	if (run->visits)
		fl_visit_hist_name(own, sizeof(own), at->cell, at->rep);
	else
		snprintf(own, sizeof(own), "%s", hist);
	fl_cpulist_format(cell->cpus, (int)cell->nplaced, cpus, cpus_len);
	for (unsigned int r = 0; r < res->nreps; r++) {
		const struct fl_rep_result *rr = &res->reps[r];
		struct fl_rep_figures rf;
		enum fl_status st = rr->done ? rr->status : res->status;

		fl_rep_figures(rr, &rf);
		fprintf(f, "%lu,", idx);
		fl_csv_field(f, w->name, 0);
		fl_csv_field(f, cell->backend->name, 0);
		fprintf(f, "%u,", cell->threads);
		fl_csv_field(f, cell->placement, 0);
		fl_csv_field(f, cpus, 0);
		fl_csv_field(f, cell->options, 0);
		fprintf(f, "%u,", at->rep + r);
		fl_csv_field(f, fl_status_name(st), 0);
		fl_csv_field(f, rr->done ? rr->reason : res->reason, 0);
		fl_csv_field(f, res->note, 0);
		field_u64(f, cell->duration_ns);
		field_u64(f, rr->elapsed_ns);
		field_u64(f, rr->ops);
		fprintf(f, "%.1f,%.1f,", rf.ops_per_sec,
			rf.ops_per_sec_per_thread);
		field_u64(f, rf.lat_count);
		field_u64(f, rf.p50);
		field_u64(f, rf.p90);
		field_u64(f, rf.p99);
		field_u64(f, rf.p999);
		field_u64(f, rf.max);
		field_u64(f, rf.mean);
		fprintf(f, "%.4f,", rf.jain);
		field_u64(f, rf.thread_ops_min);
		field_u64(f, rf.thread_ops_max);
		extra_text(w, rr->counters, extra, sizeof(extra));
		fl_csv_field(f, extra, 0);
		fl_csv_field(f, hist, 0);
		fprintf(f, "%ld,", rr->done ? rr->hash_slots : -1L);
		fprintf(f, "%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",",
			cell->sample_every, rr->bins.bin_ns, res->busy_start,
			res->busy_end);
		/* not probed: empty, as a count not counted */
		if (res->idle_wake.not_probed)
			fputs(",,", f);
		else
			fprintf(f, "%" PRIu64 ",%" PRIu64 ",",
				res->idle_wake.short_ns,
				res->idle_wake.long_ns);
		fprintf(f, "%" PRIu64 ",", res->busy_used);
		counts_fields(f, rr->done ? &rr->counts :
			      &(struct fl_rep_counts){ 0 });
		if (rr->done && rr->bins.n &&
		    write_bins(run, at->cell, at->rep + r, &rr->bins, err,
			       errlen)) {
			free(cpus);
			return -1;
		}
	}
	free(cpus);
	snprintf(path, sizeof(path), "%s/%s", run->tmp, own);
	if (fl_hist_save_at(run->fd, own, path, &res->merged, err, errlen))
		return -1;
	if (fflush(f) || fsync(fileno(f))) {
		snprintf(err, errlen, "cannot write cells.csv: %s",
			 strerror(errno));
		return -1;
	}
	return run->visits ? fl_visits_note(run, at, err, errlen) : 0;
}

/* The partial directory is still the entry it was opened as: nothing
 * swapped another directory in under its name meanwhile. */
static int still_ours(const struct fl_run *run)
{
	struct stat a, b;

	return fstat(run->fd, &a) == 0 &&
	       fstatat(run->dir_fd, run->entry, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	       fl_same_stat(&a, &b);
}

int fl_run_finish(struct fl_run *run, json_t *meta, char *err, size_t errlen)
{
	char shown[PATH_MAX + 64], final[256];
	char *text;
	int rc;

	if (run->cells && fclose(run->cells)) {
		run->cells = NULL;
		snprintf(err, errlen, "cells.csv: %s", strerror(errno));
		return -1;
	}
	run->cells = NULL;
	snprintf(shown, sizeof(shown), "%s/meta.json", run->tmp);
	text = json_dumps(meta, JSON_INDENT(2) | JSON_SORT_KEYS);
	if (!text) {
		snprintf(err, errlen, "cannot write %s: out of memory", shown);
		return -1;
	}
	rc = fl_write_at(run->fd, "meta.json", shown, text, strlen(text), err,
			 errlen);
	free(text);
	if (rc)
		return -1;
	fsync_at(run->fd, "hist");
	fsync(run->fd);
	if (!still_ours(run)) {
		snprintf(err, errlen, "%s is not the directory this run wrote "
			 "any more: not renamed", run->tmp);
		return -1;
	}
	/* inside the results directory, under the run's own name: the
	 * rename cannot take the run anywhere else */
	for (int n = 1; n < 1000; n++) {
		if (n == 1)
			snprintf(final, sizeof(final), "%s", run->name);
		else
			snprintf(final, sizeof(final), "%s-%d", run->name, n);
		if (syscall(SYS_renameat2, run->dir_fd, run->entry, run->dir_fd,
			    final, RENAME_NOREPLACE) == 0) {
			snprintf(run->final, sizeof(run->final), "%s/%s",
				 run->dir, final);
			fsync(run->dir_fd);
			fl_run_close(run);
			return 0;
		}
		if (errno != EEXIST && errno != ENOTEMPTY)
			break;
	}
	snprintf(err, errlen, "cannot rename %s into place: %s", run->tmp,
		 strerror(errno));
	return -1;
}
