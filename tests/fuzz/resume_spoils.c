// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_resume (tests/fuzz/fuzz_resume.c): the spoils an input's bytes
 * choose: a name of the partial directory replaced by a link out, a FIFO,
 * a folder or nothing, or moved out and linked to where it went; bytes
 * appended, cut or overwritten; a field of a row set to a hostile value;
 * a row doubled or dropped; a key of matrix.json set to a hostile value;
 * leftovers of a finalizing; matrix.ini made an app matrix that runs a
 * command, with its hash.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rundir/write.h"
#include "base/hash.h"
#include "tests/fuzz/resume_scratch.h"

static unsigned int take(struct input *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

/* the names of the partial directory a spoil may pick */
static const char *const names[] = {
	"cells.csv", "matrix.json", "matrix.ini", "hist", "bins",
	"hist/cell-0000.csv", "hist/cell-0001-rep-001.csv", "hist.final",
	"hist.visits", ".cells.csv.tmp", ".matrix.json.tmp", "meta.json",
	"hist/.cell-0000.csv.tmp", "bins/cell-0000-rep-000.csv",
	"visits.csv", "hist/cell-0000-rep-000.csv",
	"hist.final/cell-0000.csv", "cells.csv.final",
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

/* values a field of a row or a key of matrix.json may be set to */
static const char *const hostile[] = {
	"", "nan", "inf", "-1", "1e300", "0x10", "18446744073709551616",
	"../../ESCAPED", "/etc/passwd", "a;b", "x`touch CANARY`",
	"hist/cell-0007.csv", "hist/../../x.csv", "99999999999", "0",
	"4", "1", "mutex", "ok", "skipped", "\"quoted, comma\"",
};
#define NHOSTILE (sizeof(hostile) / sizeof(hostile[0]))

static const char *const json_values[] = {
	"\"../../ESCAPED_RUN\"", "\"/\"", "\"relative.ini\"", "true", "null",
	"[]", "{}", "[[0, 1, 2, 3, 99]]", "[[1, 0], [0, 1], [1]]",
	"[[-1]]", "[[\"0\"]]", "[[1.5]]", "1e400", "-5", "\"\"",
	"\"0000000000000000\"", "[[1, 0]]", "\"OUT/fifo\"",
	"\"OUT/victim.txt\"", "[[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]",
};
#define NJSON (sizeof(json_values) / sizeof(json_values[0]))

static const char *const state_keys[] = {
	"source", "fnv1a64", "name", "results", "passes", "seconds_spent",
	"finalizing", "visit_start", "resumed", "start_time",
};
#define NKEYS (sizeof(state_keys) / sizeof(state_keys[0]))

static void name_path(const char *name, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", partial, name);
}

static void replace_with(const char *name, int how)
{
	char path[512], target[512];

	name_path(name, path, sizeof(path));
	remove_tree(path);
	unlink(path);
	switch (how) {
	case 0:
		snprintf(target, sizeof(target), "%s/outside/victim.txt",
			 scratch);
		symlink(target, path);
		break;
	case 1:
		snprintf(target, sizeof(target), "%s/outside/dir", scratch);
		symlink(target, path);
		break;
	case 2:
		mkfifo(path, 0644);
		break;
	case 3:
		mkdir(path, 0755);
		break;
	default:
		break;		/* removed */
	}
}

/* The file's bytes, edited by fn, written back (never through a link:
 * the spoils work on the directory as they find it). */
static char *slurp(const char *name, size_t *len)
{
	char path[512];
	int fd;
	struct stat st;
	char *buf;

	name_path(name, path, sizeof(path));
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > 1 << 20) {
		close(fd);
		return NULL;
	}
	buf = calloc(1, (size_t)st.st_size + 1);
	*len = buf ? (size_t)read(fd, buf, (size_t)st.st_size) : 0;
	close(fd);
	return buf;
}

static void spit(const char *name, const char *text, size_t len)
{
	char path[512];
	int fd;

	name_path(name, path, sizeof(path));
	fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return;
	if (write(fd, text, len) < 0) {
		/* a spoil that cannot be made is no spoil */
	}
	close(fd);
}

/* cells.csv rewritten line by line: edit() writes what becomes of line
 * n (0: the header) to out. */
static void edit_lines(void (*edit)(FILE *out, const char *l, size_t len,
				    unsigned int n, const void *ctx),
		       const void *ctx)
{
	size_t len, olen = 0;
	char *text = slurp("cells.csv", &len), *out = NULL;
	unsigned int n = 0;
	FILE *f;

	if (!text)
		return;
	f = open_memstream(&out, &olen);
	for (char *l = text, *nl; *l; l = nl) {
		nl = strchr(l, '\n');
		nl = nl ? nl + 1 : l + strlen(l);
		edit(f, l, (size_t)(nl - l), n++, ctx);
	}
	fclose(f);
	spit("cells.csv", out, olen);
	free(out);
	free(text);
}

struct field_edit {
	unsigned int row, col;
	const char *value;
};

/* field col of data row `row` set to value */
static void set_field_line(FILE *f, const char *l, size_t len,
			   unsigned int n, const void *ctx)
{
	const struct field_edit *fe = ctx;
	unsigned int c = 0;

	if (n != fe->row + 1) {
		fwrite(l, 1, len, f);
		return;
	}
	for (const char *p = l; p < l + len; p++) {
		if (c == fe->col && (*p == ',' || *p == '\n')) {
			fputs(fe->value, f);
			c++;
		}
		if (c != fe->col)
			fputc(*p, f);
		if (*p == ',')
			c++;
	}
}

static void set_field(unsigned int row, unsigned int col, const char *v)
{
	struct field_edit fe = { row, col, v };

	edit_lines(set_field_line, &fe);
}

/* data row `row` doubled (dup) or dropped */
static void row_line(FILE *f, const char *l, size_t len, unsigned int n,
		     const void *ctx)
{
	const unsigned int *row_dup = ctx;

	if (n != row_dup[0] + 1 || row_dup[1])
		fwrite(l, 1, len, f);
	if (n == row_dup[0] + 1 && row_dup[1])
		fwrite(l, 1, len, f);
}

static void row_edit(unsigned int row, int dup)
{
	unsigned int row_dup[2] = { row, dup != 0 };

	edit_lines(row_line, row_dup);
}

/* "key": VALUE put first in matrix.json (the parse rejects duplicates,
 * so a key there already makes it a duplicate; or replace it) */
static void set_key(const char *key, const char *value, int replace)
{
	size_t len;
	char *text = slurp("matrix.json", &len), *out, outside[128];
	const char *v = value;

	if (!text || text[0] != '{')
		goto out;
	snprintf(outside, sizeof(outside), "\"%s/outside/%s", scratch,
		 strncmp(value, "\"OUT/", 5) == 0 ? value + 5 : "");
	if (strncmp(value, "\"OUT/", 5) == 0)
		v = outside;
	if (replace) {
		char pat[64], *at;

		snprintf(pat, sizeof(pat), "\"%s\":", key);
		at = strstr(text, pat);
		if (at)
			memcpy(at + 1, "zz", 2);	/* renamed away */
	}
	if (asprintf(&out, "{\"%s\": %s, %s", key, v, text + 1) < 0)
		goto out;
	spit("matrix.json", out, strlen(out));
	free(out);
out:
	free(text);
}

/* name in the partial directory a new regular file of text, whatever
 * was there (a FIFO would make the write wait for a reader) */
static void replace_file(const char *name, const char *text)
{
	char path[512];

	name_path(name, path, sizeof(path));
	unlink(path);
	put_str(partial, name, text);
}

/* matrix.ini made an app matrix whose cell runs a command, matrix.json's
 * hash made its, no pass planned and no row: what a resume of it would
 * run is the command */
static void app_matrix(const char *source)
{
	char text[512], hash[32], path[160];

	snprintf(path, sizeof(path), "%s/outside/CANARY", scratch);
	snprintf(text, sizeof(text), "[defaults]\nduration = 0.02\nwarmup = "
		 "0\nreps = 2\nseed = 1\n\n[experiment a]\nworkload = app\n"
		 "backend = futex-private\nthreads = 1\ncmd = touch %s\n",
		 path);
	replace_file("matrix.ini", text);
	snprintf(hash, sizeof(hash), "\"%016llx\"",
		 (unsigned long long)fl_fnv1a64(text, strlen(text)));
	set_key("fnv1a64", hash, 1);
	if (source)
		set_key("source", source, 1);
	/* no pass and no row to betray it: the resume would plan afresh */
	set_key("passes", "[]", 1);
	replace_file("cells.csv", FL_CELLS_COLUMNS "\n");
}

/* name moved out of the directory, a link to it left in its place: what
 * the resume finds there reads as the real thing, wherever it writes */
static void move_out(const char *name, unsigned int n)
{
	char path[512], target[512];

	name_path(name, path, sizeof(path));
	snprintf(target, sizeof(target), "%s/outside/moved-%u", scratch, n);
	if (rename(path, target) == 0)
		symlink(target, path);
}

void spoil(struct input *in)
{
	unsigned int op = take(in) % 14;
	const char *name = names[take(in) % NNAMES];
	size_t len;
	char *text;

	switch (op) {
	case 0: case 1: case 2: case 3: case 4:
		replace_with(name, (int)op);
		break;
	case 5: {		/* bytes appended */
		unsigned int n = take(in) % 64;
		char buf[64];

		text = slurp(name, &len);
		for (unsigned int i = 0; i < n; i++)
			buf[i] = (char)take(in);
		if (text) {
			char *all = malloc(len + n + 1);

			memcpy(all, text, len);
			memcpy(all + len, buf, n);
			spit(name, all, len + n);
			free(all);
		}
		free(text);
		break;
	}
	case 6:			/* cut short, as a kill while writing */
		text = slurp(name, &len);
		if (text && len)
			spit(name, text, len - 1 - take(in) % len);
		free(text);
		break;
	case 7: {		/* bytes overwritten */
		text = slurp(name, &len);
		if (text && len) {
			size_t at = take(in) * len / 256;

			for (size_t i = at; i < len && in->n; i++)
				if (take(in) & 1)
					text[i] = (char)take(in);
			spit(name, text, len);
		}
		free(text);
		break;
	}
	case 8: {
		unsigned int row = take(in) % 5, col = take(in) % 36;

		set_field(row, col, hostile[take(in) % NHOSTILE]);
		break;
	}
	case 9: {
		unsigned int row = take(in) % 5;

		row_edit(row, take(in) & 1);
		break;
	}
	case 10: {
		unsigned int k = take(in) % NKEYS, v = take(in);

		set_key(state_keys[k], json_values[v % NJSON], v & 128);
		break;
	}
	case 12:
		move_out(name, (unsigned int)(in->n % 1000));
		break;
	case 13:		/* the source gone, or still there */
		app_matrix(take(in) & 1 ? "\"/nonexistent/m.ini\"" : NULL);
		break;
	default: {		/* what a killed finalizing leaves */
		char path[512];

		snprintf(path, sizeof(path), "%s/hist.final", partial);
		mkdir(path, 0755);
		put_str(path, "cell-0000.csv", "# count=2 sum=200 min=100 "
			"max=100\nlow_ns,high_ns,count\n100,100,2\n");
		snprintf(path, sizeof(path), "%s/hist.visits", partial);
		mkdir(path, 0755);
		break;
	}
	}
}
