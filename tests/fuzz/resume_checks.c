// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_resume (tests/fuzz/fuzz_resume.c): what a resume left, for the
 * checks after it: a tree described byte for byte, the entries a folder
 * may hold, and a run renamed into place read back whole.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rundir/read.h"
#include "tests/fuzz/resume_scratch.h"

/* Everything under path, as "name kind content" lines, links unfollowed */
static void describe(const char *path, const char *rel, FILE *out)
{
	struct dirent **e;
	int n = scandir(path, &e, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		char p[1024], r[1024], buf[256];
		struct stat st;

		if (!strcmp(e[i]->d_name, ".") || !strcmp(e[i]->d_name, "..")) {
			free(e[i]);
			continue;
		}
		snprintf(p, sizeof(p), "%s/%s", path, e[i]->d_name);
		snprintf(r, sizeof(r), "%s/%s", rel, e[i]->d_name);
		free(e[i]);
		if (lstat(p, &st))
			continue;
		fprintf(out, "%s %o %lld\n", r, st.st_mode,
			(long long)st.st_size);
		if (S_ISLNK(st.st_mode)) {
			ssize_t l = readlink(p, buf, sizeof(buf) - 1);

			fprintf(out, " -> %.*s\n", (int)(l > 0 ? l : 0), buf);
		} else if (S_ISREG(st.st_mode)) {
			int fd = open(p, O_RDONLY | O_NOFOLLOW);
			ssize_t l = fd < 0 ? 0 : read(fd, buf, sizeof(buf));

			fwrite(buf, 1, l > 0 ? (size_t)l : 0, out);
			if (fd >= 0)
				close(fd);
		} else if (S_ISDIR(st.st_mode)) {
			describe(p, r, out);
		}
	}
	free(e);
}

char *snapshot(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	describe(path, "", f);
	fclose(f);
	return text;
}

/* How many entries dir has, or -1 when one is not among allowed. */
int only(const char *dir, const char *const *allowed, size_t n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int count = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		size_t i;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		for (i = 0; i < n && strcmp(e->d_name, allowed[i]); i++)
			;
		if (i == n)
			count = -1;
		if (count >= 0)
			count++;
	}
	closedir(d);
	return count;
}

/*
 * A run renamed into place is whole: the readers accept it (every row
 * checked, every histogram adds up) and it holds one row for every visit
 * its matrix.json planned. -1 otherwise.
 */
int finished_run_ok(const char *results)
{
	static struct fl_rd_run r;
	char dir[256], path[300], err[1024];
	json_t *state, *pass;
	size_t planned = 0, rows = 0, i;

	snprintf(dir, sizeof(dir), "%s/" NAME, results);
	if (access(dir, F_OK))
		return 0;	/* not finished: nothing to check */
	if (fl_rd_open(dir, &r, err, sizeof(err)))
		return -1;
	for (unsigned long c = 0; c < r.ncells; c++)
		rows += r.cells[c].nrows;
	fl_rd_close(&r);
	snprintf(path, sizeof(path), "%s/matrix.json", dir);
	state = json_load_file(path, 0, NULL);
	json_array_foreach(json_object_get(state, "passes"), i, pass)
		planned += json_array_size(pass);
	json_decref(state);
	return rows == planned ? 0 : -1;
}
