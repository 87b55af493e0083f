// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the shards to merge and checking that they make one matrix
 * (merge/merge.h): each directory by rundir/'s readers and by its
 * identity (no run twice), then against the first shard (version,
 * matrix, N), then all together (each K once, each cell in one shard),
 * then every file the merge copies.
 */
#include "merge/merge.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rundir/join.h"
#include "rundir/write.h"
#include "rundir/record.h"
#include "rundir/regular.h"
#include "rundir/same_dir.h"
#include "base/hash.h"

/* The directory given is the shard itself: no link, nothing above it. */
static int check_path(const char *path, struct stat *st, char *err,
		      size_t errlen)
{
	char sb[200];
	const char *shown = fl_path_shown(path, sb, 160);
	size_t n = strlen(path);

	for (const char *p = path; (p = strstr(p, "..")); p += 2)
		if ((p == path || p[-1] == '/') && (p[2] == '/' || !p[2])) {
			snprintf(err, errlen, "%s: lies outside the paths "
				 "given (a '..' on it): refused; give the "
				 "shard directory itself", shown);
			return -1;
		}
	while (n > 1 && path[n - 1] == '/')
		n--;
	char *bare = strndup(path, n);

	if (!bare || lstat(bare, st)) {
		snprintf(err, errlen, "%s: no such shard directory: %s", shown,
			 strerror(bare ? errno : ENOMEM));
		free(bare);
		return -1;
	}
	free(bare);
	if (S_ISLNK(st->st_mode)) {
		snprintf(err, errlen, "%s: is a symbolic link: refused (give "
			 "the shard directory itself)", shown);
		return -1;
	}
	if (!S_ISDIR(st->st_mode)) {
		snprintf(err, errlen, "%s: is not a directory", shown);
		return -1;
	}
	return 0;
}

static const char *meta_str(const struct fl_merge_shard *s, const char *key)
{
	const char *v = json_string_value(fl_rd_meta_json(&s->r, key));

	return v ? v : "";
}

/* meta.json's "shard": K, N and the matrix's cell count; every row's
 * cell one of the shard's cells and each of those with rows. */
static int read_shard_record(struct fl_merge_shard *s, const char *shown,
			     char *err, size_t errlen)
{
	json_t *sh = fl_rd_meta_json(&s->r, "shard"), *c;
	json_t *k = json_object_get(sh, "k"), *n = json_object_get(sh, "n");
	json_t *mc = json_object_get(sh, "matrix_cells");
	json_t *cells = json_object_get(sh, "cells");
	size_t i;

	if (!json_is_integer(k) || !json_is_integer(n) ||
	    !json_is_integer(mc) || !json_is_array(cells) ||
	    json_integer_value(n) < 1 || json_integer_value(k) < 0 ||
	    json_integer_value(k) >= json_integer_value(n) ||
	    json_integer_value(mc) < json_integer_value(n) ||
	    json_integer_value(mc) > 10000000) {
		snprintf(err, errlen, "%s: not a shard run (meta.json has no "
			 "shard K/N: futexlab matrix FILE --shard K/N writes "
			 "one)", shown);
		return -1;
	}
	s->k = (unsigned int)json_integer_value(k);
	s->n = (unsigned int)json_integer_value(n);
	s->matrix_cells = (unsigned long)json_integer_value(mc);
	json_array_foreach(cells, i, c) {
		json_int_t v = json_is_integer(c) ? json_integer_value(c) : -1;

		if (v < 0 || (unsigned long)v >= s->matrix_cells ||
		    (i && v <= json_integer_value(json_array_get(cells,
								 i - 1)))) {
			snprintf(err, errlen, "%s/meta.json: shard.cells is "
				 "not a rising list of the matrix's %lu cells",
				 shown, s->matrix_cells);
			return -1;
		}
		if (!fl_record_has_cell(&s->r, (unsigned long)v)) {
			snprintf(err, errlen, "%s/cells.csv: cell %lld of shard "
				 "%u/%u has no rows", shown, (long long)v,
				 s->k, s->n);
			return -1;
		}
	}
	/* both rising, and every listed cell has rows: the first row whose
	 * cell is not the next listed one is a cell of no list */
	for (unsigned long r = 0; r < s->r.ncells; r++) {
		unsigned long want = s->r.cells[r].index;
		json_t *listed = json_array_get(cells, r);

		if (!listed || json_integer_value(listed) != (json_int_t)want) {
			snprintf(err, errlen, "%s/cells.csv: cell %lu is not one "
				 "of shard %u/%u's cells", shown, want, s->k,
				 s->n);
			return -1;
		}
	}
	return 0;
}

static int open_shard(struct fl_merge_shard *s, const char *path, char *err,
		      size_t errlen)
{
	char sb[200];
	const char *shown = fl_path_shown(path, sb, 160);
	struct stat given, opened;

	s->path = path;
	s->r.dirfd = -1;
	if (check_path(path, &given, err, errlen) ||
	    fl_rd_open(path, &s->r, err, errlen))
		return -1;
	/* what was read is what was checked, not a link put there since */
	if (fstat(s->r.dirfd, &opened) || !fl_same_stat(&opened, &given)) {
		snprintf(err, errlen, "%s: changed while it was read: refused",
			 shown);
		return -1;
	}
	if (!s->r.meta) {
		snprintf(err, errlen, "%s: no meta.json: not a finished shard "
			 "run", shown);
		return -1;
	}
	if (read_shard_record(s, shown, err, errlen))
		return -1;
	s->host = meta_str(s, "machine.label");
	if (!*s->host)
		s->host = meta_str(s, "machine.hostname");
	return fl_join_check_header(&s->r, err, errlen);
}

/* s against the first shard a: one futexlab, one matrix, one N. */
static int same_matrix(const struct fl_merge_shard *a,
		       const struct fl_merge_shard *s, char *err,
		       size_t errlen)
{
	static const char *const keys[][2] = {
		{ "futexlab_version", "futexlab version" },
		{ "git_commit", "futexlab commit" },
		{ "matrix.fnv1a64", "matrix (its hash)" },
	};
	char sa[200], sb[200];
	const char *as = fl_path_shown(a->path, sa, 90);
	const char *bs = fl_path_shown(s->path, sb, 90);

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strcmp(meta_str(a, keys[i][0]), meta_str(s, keys[i][0]))) {
			snprintf(err, errlen, "%s: another %s than %s: '%.40s' "
				 "against '%.40s'", bs, keys[i][1], as,
				 meta_str(s, keys[i][0]),
				 meta_str(a, keys[i][0]));
			return -1;
		}
	}
	if (s->n != a->n || s->matrix_cells != a->matrix_cells) {
		snprintf(err, errlen, "%s: shard %u/%u of %lu cells, but %s is "
			 "shard %u/%u of %lu: the matrix was split otherwise",
			 bs, s->k, s->n, s->matrix_cells, as, a->k, a->n,
			 a->matrix_cells);
		return -1;
	}
	return 0;
}

/* Each K once, then each cell in one shard. */
static int whole_matrix(struct fl_merged *m, char *err, size_t errlen)
{
	unsigned int n = m->shards[0].n;
	struct fl_merge_shard *by_k = calloc(n, sizeof(*by_k));
	unsigned int *owner = calloc(m->ncells + 1, sizeof(*owner));
	char sa[200], sb[200];
	int rc = -1;

	if (!by_k || !owner) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (unsigned int i = 0; i < m->n; i++) {
		struct fl_merge_shard *s = &m->shards[i];

		if (by_k[s->k].path) {
			snprintf(err, errlen, "shard %u/%u given twice: %s and "
				 "%s", s->k, n,
				 fl_path_shown(by_k[s->k].path, sa, 90),
				 fl_path_shown(s->path, sb, 90));
			goto out;
		}
		by_k[s->k] = *s;
	}
	for (unsigned int k = 0; k < n; k++) {
		if (!by_k[k].path) {
			snprintf(err, errlen, "shard %u/%u is missing: %u of "
				 "the matrix's %u shards given", k, n, m->n, n);
			goto out;
		}
	}
	for (unsigned int k = 0; k < n; k++) {
		for (unsigned long i = 0; i < by_k[k].r.ncells; i++) {
			unsigned long c = by_k[k].r.cells[i].index;

			if (owner[c]) {
				snprintf(err, errlen, "cell %lu is in two "
					 "shards: %s and %s", c,
					 fl_path_shown(by_k[owner[c] - 1].path,
						       sa, 90),
					 fl_path_shown(by_k[k].path, sb, 90));
				goto out;
			}
			owner[c] = k + 1;
		}
	}
	for (unsigned long c = 0; c < m->ncells; c++) {
		if (!owner[c]) {
			snprintf(err, errlen, "cell %lu of the matrix's %lu is "
				 "in no shard given", c, m->ncells);
			goto out;
		}
	}
	memcpy(m->shards, by_k, n * sizeof(*by_k));
	rc = 0;
out:
	free(by_k);
	free(owner);
	return rc;
}

/* The first shard's matrix.ini, whose bytes must have the matrix's hash. */
static int read_ini(struct fl_merged *m, char *err, size_t errlen)
{
	const struct fl_merge_shard *s = &m->shards[0];
	char sb[200], shown[PATH_MAX + 16], hash[32];

	snprintf(shown, sizeof(shown), "%s/matrix.ini",
		 fl_path_shown(s->path, sb, 160));
	if (fl_read_regular(s->r.dirfd, "matrix.ini", shown, FL_NOFOLLOW,
			    FL_MAX_INPUT_BYTES, &m->ini, &m->ini_len, err,
			    errlen))
		return -1;
	snprintf(hash, sizeof(hash), "%016" PRIx64,
		 fl_fnv1a64(m->ini, m->ini_len));
	if (strcmp(hash, meta_str(s, "matrix.fnv1a64"))) {
		snprintf(err, errlen, "%s: its hash is not meta.json's "
			 "matrix.fnv1a64", shown);
		return -1;
	}
	return 0;
}

/* Shard i is no run given before it, by whatever path. */
static int given_once(const struct fl_merged *m, unsigned int i, char *err,
		      size_t errlen)
{
	const struct fl_merge_shard *s = &m->shards[i];
	char sa[200], sb[200];

	for (unsigned int k = 0; k < i; k++)
		if (fl_rd_same(&m->shards[k].r, &s->r)) {
			snprintf(err, errlen, "%s: the same run directory as "
				 "%s (given twice)",
				 fl_path_shown(s->path, sb, 90),
				 fl_path_shown(m->shards[k].path, sa, 90));
			return -1;
		}
	return 0;
}

/* Every file the merge will copy, read and checked: nothing is created
 * before the last shard passed. */
static int check_files(const struct fl_merged *m, char *err, size_t errlen)
{
	for (unsigned int i = 0; i < m->n; i++)
		if (fl_join_check_cell_files(&m->shards[i].r, err, errlen))
			return -1;
	return 0;
}

int fl_merge_read(struct fl_merged *m, const char *const *paths,
		  unsigned int n, char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	m->shards = calloc(n + 1, sizeof(*m->shards));
	if (!m->shards) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (unsigned int i = 0; i < n; i++) {
		m->n = i + 1;
		if (open_shard(&m->shards[i], paths[i], err, errlen) ||
		    given_once(m, i, err, errlen) ||
		    (i && same_matrix(&m->shards[0], &m->shards[i], err,
				      errlen)))
			return -1;
	}
	m->ncells = n ? m->shards[0].matrix_cells : 0;
	if (!n || whole_matrix(m, err, errlen) || read_ini(m, err, errlen) ||
	    check_files(m, err, errlen))
		return -1;
	return 0;
}

void fl_merge_free(struct fl_merged *m)
{
	for (unsigned int i = 0; m->shards && i < m->n; i++) {
		fl_rd_close(&m->shards[i].r);
	}
	free(m->shards);
	free(m->ini);
	memset(m, 0, sizeof(*m));
}
