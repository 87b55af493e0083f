// SPDX-License-Identifier: GPL-2.0
/*
 * Writing the merged run (merge/merge.h): a new run directory through
 * rundir/'s writer, the shards' rows in cell order, their histograms and
 * bins copied under the same names, the matrix's copy, and meta.json
 * from the merge's record (rundir/record_merge.c: the first shard's,
 * with the cells counted over all shards, each cell's cells_reps entry
 * naming its host, and "merged" listing the shards).
 * Every shard was read and checked before (merge/read.c): what fails
 * here is a write, and the partial directory goes with it.
 */
#include "merge/merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rundir/join.h"
#include "rundir/record.h"
#include "rundir/regular.h"
#include "rundir/write.h"
#include "rundir/write_at.h"

/* Every shard's rows in cell order (rundir/join.c). */
static int write_rows(const struct fl_merged *m, struct fl_run *run)
{
	const char **texts = calloc(m->n, sizeof(*texts));
	size_t *lens = calloc(m->n, sizeof(*lens));
	int rc = -1;

	if (texts && lens) {
		for (unsigned int i = 0; i < m->n; i++) {
			texts[i] = m->shards[i].r.cells_text;
			lens[i] = m->shards[i].r.cells_len;
		}
		rc = fl_join_rows(run, texts, lens, m->n);
	}
	free((void *)texts);
	free(lens);
	return rc;
}

/* The shards as the merged run's record has them (rundir/record.h). */
static struct fl_record_merge_run *shard_runs(const struct fl_merged *m)
{
	struct fl_record_merge_run *runs = calloc(m->n, sizeof(*runs));

	for (unsigned int i = 0; runs && i < m->n; i++)
		runs[i] = (struct fl_record_merge_run){
			.k = m->shards[i].k, .n = m->shards[i].n,
			.host = m->shards[i].host, .r = &m->shards[i].r,
		};
	return runs;
}

/* A merge that failed to write (a full disk) leaves no partial run: its
 * folders, then the directory, removed through their descriptors. */
static void discard(struct fl_run *run)
{
	char err[256];

	if (run->fd < 0 || run->dir_fd < 0)
		return;
	fl_remove_at(run->fd, "hist", "hist", err, sizeof(err));
	fl_remove_at(run->fd, "bins", "bins", err, sizeof(err));
	fl_remove_at(run->dir_fd, run->entry, run->tmp, err, sizeof(err));
}

int fl_merge_write(const struct fl_merged *m, const char *results, int argc,
		   char **argv, char *final, size_t finallen, char *err,
		   size_t errlen)
{
	char shown[PATH_MAX + 32];
	struct fl_record_merge_run *runs = shard_runs(m);
	struct fl_record rec = {
		.argc = argc, .argv = argv, .ncells = (unsigned int)m->ncells,
		.merged = runs, .nmerged = m->n,
	};
	struct fl_run run;
	json_t *state;
	char *text = NULL;
	int rc = -1;

	if (!runs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (fl_run_open(&run, results, "merged", err, errlen)) {
		free(runs);
		return -1;
	}
	if (write_rows(m, &run)) {
		snprintf(err, errlen, "%s/cells.csv: %s", run.tmp,
			 strerror(errno));
		goto out;
	}
	for (unsigned int i = 0; i < m->n; i++)
		if (fl_join_cell_files(&run, &m->shards[i].r, err, errlen))
			goto out;
	snprintf(shown, sizeof(shown), "%s/matrix.ini", run.tmp);
	if (fl_write_at(run.fd, "matrix.ini", shown, m->ini, m->ini_len, err,
			errlen))
		goto out;
	state = json_pack("{s:O?, s:O?, s:o}", "source",
			  fl_rd_meta_json(&m->shards[0].r, "matrix.source"),
			  "fnv1a64",
			  fl_rd_meta_json(&m->shards[0].r, "matrix.fnv1a64"),
			  "merged_from", fl_record_merge_runs(runs, m->n));
	text = state ? json_dumps(state, JSON_INDENT(2) | JSON_SORT_KEYS) :
	       NULL;
	json_decref(state);
	snprintf(shown, sizeof(shown), "%s/matrix.json", run.tmp);
	if (!text || fl_write_at(run.fd, "matrix.json", shown, text,
				 strlen(text), err, errlen))
		goto out;
	if (fl_run_finish_record(&run, &rec, err, errlen))
		goto out;
	snprintf(final, finallen, "%s", run.final);
	rc = 0;
out:
	free(text);
	free(runs);
	if (rc)
		discard(&run);
	fl_run_close(&run);
	return rc;
}
