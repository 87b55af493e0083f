// SPDX-License-Identifier: GPL-2.0
/* Run directories: creation, rows, histograms, the final rename. */
#include "rundir/write.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rundir/csv.h"
#include "stats/figures.h"
#include "measure/placement.h"

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

static void fsync_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int fl_run_open(struct fl_run *run, const char *results_dir,
		const char *hostname, char *err, size_t errlen)
{
	char host[64], stamp[32], path[PATH_MAX + 64];
	time_t now = time(NULL);
	struct tm tm;
	size_t j = 0;

	memset(run, 0, sizeof(*run));
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
	if (mkdir_p(results_dir)) {
		snprintf(err, errlen, "--results: cannot create '%s': %s",
			 results_dir, strerror(errno));
		return -1;
	}
	/* pid and a per-process count: one process may open several runs */
	static unsigned int opened;

	if (snprintf(run->tmp, sizeof(run->tmp), "%s/.partial-%s-%d-%u",
		     results_dir, run->name, (int)getpid(), opened++) >=
	    (int)sizeof(run->tmp) || mkdir(run->tmp, 0755)) {
		snprintf(err, errlen, "--results: cannot write in '%s': %s",
			 results_dir, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/bins", run->tmp);
	if (mkdir(path, 0755) == 0)
		snprintf(path, sizeof(path), "%s/hist", run->tmp);
	if (mkdir(path, 0755) == 0) {
		snprintf(path, sizeof(path), "%s/cells.csv", run->tmp);
		run->cells = fopen(path, "w");
	}
	if (!run->cells) {
		snprintf(err, errlen, "--results: cannot write in '%s': %s",
			 run->tmp, strerror(errno));
		return -1;
	}
	fprintf(run->cells, "%s\n", FL_CELLS_COLUMNS);
	fflush(run->cells);
	return 0;
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
		      unsigned int rep, const struct fl_bins *b)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/bins/cell-%04lu-rep-%03u.csv",
		 run->tmp, cell, rep);
	f = fopen(path, "w");
	if (!f)
		goto fail;
	fprintf(f, "# bin_ns=%" PRIu64 "\nend_ns,ops\n", b->bin_ns);
	for (unsigned int i = 0; i < b->n && i < FL_MAX_BINS; i++)
		fprintf(f, "%" PRIu64 ",%" PRIu64 "\n", b->end_ns[i],
			b->ops[i]);
	if (fclose(f) == 0)
		return 0;
fail:
	fprintf(stderr, "futexlab: cannot write %s: %s\n", path,
		strerror(errno));
	return -1;
}

static void field_u64(FILE *f, uint64_t v)
{
	fprintf(f, "%" PRIu64 ",", v);
}

int fl_run_write_cell(struct fl_run *run, const struct fl_cell *cell,
		      const struct fl_cell_result *res)
{
	const struct fl_workload *w = cell->workload;
	unsigned int idx = run->ncells++;
	unsigned int n = w->nthreads ? w->nthreads(cell) : cell->threads;
	char cpus[FL_MAX_THREADS * 5], hist[64], path[PATH_MAX + 64];
	char extra[512];
	FILE *f = run->cells;

	snprintf(hist, sizeof(hist), "hist/cell-%04u.csv", idx);
	fl_cpulist_format(cell->cpus, (int)(n < FL_MAX_THREADS ? n :
					    FL_MAX_THREADS), cpus, sizeof(cpus));
	for (unsigned int r = 0; r < res->nreps; r++) {
		const struct fl_rep_result *rr = &res->reps[r];
		struct fl_rep_figures rf;
		enum fl_status st = rr->done ? rr->status : res->status;

		fl_rep_figures(rr, &rf);
		fprintf(f, "%u,", idx);
		fl_csv_field(f, w->name, 0);
		fl_csv_field(f, cell->backend->name, 0);
		fprintf(f, "%u,", cell->threads);
		fl_csv_field(f, cell->placement, 0);
		fl_csv_field(f, cpus, 0);
		fl_csv_field(f, cell->options, 0);
		fprintf(f, "%u,", r);
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
		fprintf(f, "%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 "\n", cell->sample_every,
			rr->bins.bin_ns, res->busy_start, res->busy_end,
			res->idle_wake.short_ns, res->idle_wake.long_ns,
			res->busy_used);
		if (rr->done && rr->bins.n &&
		    write_bins(run, run->bins_as.set ? run->bins_as.cell : idx,
			       run->bins_as.set ? run->bins_as.rep + r : r,
			       &rr->bins))
			return -1;
	}
	snprintf(path, sizeof(path), "%s/%s", run->tmp, hist);
	FILE *h = fopen(path, "w");

	if (!h || fl_hist_write_csv(&res->merged, h) || fclose(h)) {
		fprintf(stderr, "futexlab: cannot write %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	if (fflush(f) || fsync(fileno(f))) {
		fprintf(stderr, "futexlab: cannot write cells.csv: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

int fl_run_finish(struct fl_run *run, json_t *meta, char *err, size_t errlen)
{
	char path[PATH_MAX + 64];

	if (fclose(run->cells)) {
		snprintf(err, errlen, "cells.csv: %s", strerror(errno));
		return -1;
	}
	run->cells = NULL;
	snprintf(path, sizeof(path), "%s/meta.json", run->tmp);
	errno = 0;
	if (json_dump_file(meta, path, JSON_INDENT(2) | JSON_SORT_KEYS)) {
		snprintf(err, errlen, "cannot write %s: %s", path,
			 errno ? strerror(errno) : "failed");
		return -1;
	}
	fsync_path(path);
	snprintf(path, sizeof(path), "%s/hist", run->tmp);
	fsync_path(path);
	fsync_path(run->tmp);
	for (int n = 1; n < 1000; n++) {
		if (n == 1)
			snprintf(run->final, sizeof(run->final), "%s/%s",
				 run->dir, run->name);
		else
			snprintf(run->final, sizeof(run->final), "%s/%s-%d",
				 run->dir, run->name, n);
		if (syscall(SYS_renameat2, AT_FDCWD, run->tmp, AT_FDCWD,
			    run->final, RENAME_NOREPLACE) == 0) {
			fsync_path(run->dir);
			return 0;
		}
		if (errno != EEXIST && errno != ENOTEMPTY)
			break;
	}
	snprintf(err, errlen, "cannot rename %s into place: %s", run->tmp,
		 strerror(errno));
	return -1;
}
