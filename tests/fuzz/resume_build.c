// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_resume (tests/fuzz/fuzz_resume.c): a whole partial directory in
 * SCRATCH, as a matrix killed after its last visit leaves it, and what
 * must never change beside it (SCRATCH/outside/).
 */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rundir/write.h"
#include "spec/placement.h"
#include "sweep/job.h"
#include "tests/fuzz/resume_scratch.h"

static const char matrix_text[] =
	"[defaults]\nduration = 0.02\nwarmup = 0\nreps = 2\nseed = 1\n"
	"backend = futex-private\n\n[experiment m]\nworkload = mutex\n"
	"threads = 1,2\n";
/* the visits of the two passes: cell 1, cell 0, then cell 0, cell 1,
 * and which repetition of its cell each is */
static const unsigned long pass_cells[4] = { 1, 0, 0, 1 };
static const unsigned int pass_reps[4] = { 0, 0, 1, 1 };
char scratch[64];
char partial[200];

void put(const char *dir, const char *name, const char *text,
		size_t len)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return;
	if (write(fd, text, len) < 0)
		abort();
	close(fd);
}

void put_str(const char *dir, const char *name, const char *text)
{
	put(dir, name, text, strlen(text));
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void remove_tree(const char *path)
{
	nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The rows of the four visits, each the matrix's cell at that visit,
 * and the journal of them (rundir/visits.h). */
static void write_rows(const struct fl_matrix *m)
{
	static struct fl_cell cell;
	char *text = NULL, err[256], cpus[64];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	fprintf(f, "%s\n", FL_CELLS_COLUMNS);
	for (unsigned long k = 0; k < 4; k++) {
		if (fl_matrix_cell(m, pass_cells[k], &cell, NULL, err,
				   sizeof(err)))
			abort();	/* a good matrix places its cells */
		/* a CPU for each thread, as the readers want */
		fl_cpulist_format(cell.cpus, (int)cell.nplaced, cpus,
				  sizeof(cpus));
		fprintf(f, "%lu,%s,%s,%u,%s,\"%s\",%s,%u,ok,,,%llu,20000000,"
			"100,5000.0,5000.0,2,100,100,100,100,100,100,1.0000,"
			"100,100,violations=0,hist/cell-%04lu.csv,16,512,"
			"10000000,3000,3000,30000,30000,3000\n", pass_cells[k],
			cell.workload->name, cell.backend->name, cell.threads,
			cell.placement, cpus, cell.options, pass_reps[k],
			(unsigned long long)cell.duration_ns, pass_cells[k]);
	}
	fclose(f);
	put(partial, "cells.csv", text, len);
	free(text);
	put_str(partial, "visits.csv", "visit,cell,rep\n0,1,0\n1,0,0\n"
		"2,0,1\n3,1,1\n");
}

void build(void)
{
	static struct fl_matrix m;
	char path[512], err[512], *state;

	remove_tree(scratch);
	mkdir(scratch, 0755);
	snprintf(path, sizeof(path), "%s/outside", scratch);
	mkdir(path, 0755);
	put_str(path, "victim.txt", "precious\n");
	snprintf(path, sizeof(path), "%s/outside/dir", scratch);
	mkdir(path, 0755);
	put_str(path, "cell-0000.csv", "precious too\n");
	snprintf(path, sizeof(path), "%s/outside/fifo", scratch);
	mkfifo(path, 0644);
	put_str(scratch, "m.ini", matrix_text);
	snprintf(path, sizeof(path), "%s/results", scratch);
	mkdir(path, 0755);
	mkdir(partial, 0755);
	put_str(partial, "matrix.ini", matrix_text);
	if (fl_matrix_parse("m.ini", matrix_text, strlen(matrix_text), &m, err,
			    sizeof(err)))
		abort();
	write_rows(&m);
	if (asprintf(&state, "{\"source\": \"%s/m.ini\", \"fnv1a64\": "
		     "\"%016llx\", \"name\": \"" NAME "\", \"results\": "
		     "\"%s/results\", \"start_time\": \"2026-12-06T00:00:00Z\", "
		     "\"cells\": 2, \"argv\": [], \"resumed\": [], \"passes\": "
		     "[[1, 0], [0, 1]], \"visit_start\": {}, \"seconds_spent\": "
		     "0.5, \"budget_s\": 1}", scratch,
		     (unsigned long long)m.hash, scratch) < 0)
		abort();
	put_str(partial, "matrix.json", state);
	free(state);
	fl_matrix_free(&m);
	snprintf(path, sizeof(path), "%s/hist", partial);
	mkdir(path, 0755);
	for (int k = 0; k < 4; k++) {
		char name[32];

		snprintf(name, sizeof(name), "cell-%04lu-rep-%03u.csv",
			 pass_cells[k], pass_reps[k]);
		put_str(path, name, "# count=2 sum=200 min=100 max=100\n"
			"low_ns,high_ns,count\n100,100,2\n");
	}
	snprintf(path, sizeof(path), "%s/bins", partial);
	mkdir(path, 0755);
	put_str(path, "cell-0000-rep-000.csv", "# bin_ns=10000000\n"
		"end_ns,ops\n20000000,100\n");
}
