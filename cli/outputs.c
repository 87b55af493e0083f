// SPDX-License-Identifier: GPL-2.0
/* Checking an output path before any work: see outputs.h. */
#include "cli/outputs.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rundir/regular.h"

static int refuse(const char *cmd, const char *flag, const char *path,
		  const char *why)
{
	char sb[161];

	fprintf(stderr, "futexlab %s: %s: '%s' %s\n", cmd, flag,
		fl_path_shown(path, sb, 160), why);
	return -1;
}

/*
 * Can an entry be made in dir? Tried, not guessed: access() says yes to
 * root on a read-only file system and in /proc. 0, or an errno.
 */
static int probe_dir(const char *dir)
{
	char probe[PATH_MAX];

	if (snprintf(probe, sizeof(probe), "%s/.futexlab-probe-XXXXXX",
		     dir) >= (int)sizeof(probe))
		return ENAMETOOLONG;
	if (!mkdtemp(probe))
		return errno;
	rmdir(probe);
	return 0;
}

/* The directory a new entry path would go in: writable, or refused. */
static int parent_writable(const char *cmd, const char *flag,
			   const char *path, int any_depth)
{
	char buf[PATH_MAX], why[300];
	struct stat st;

	snprintf(buf, sizeof(buf), "%s", path);
	char *parent = dirname(buf);

	/* mkdir -p creates what is missing: the nearest that exists counts */
	while (any_depth && stat(parent, &st) && errno == ENOENT &&
	       strcmp(parent, ".") && strcmp(parent, "/"))
		parent = dirname(parent);
	if (stat(parent, &st)) {
		snprintf(why, sizeof(why), "cannot be created: %s: %s", parent,
			 strerror(errno));
		return refuse(cmd, flag, path, why);
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, sizeof(why), "cannot be created: %s is not a "
			 "directory", parent);
		return refuse(cmd, flag, path, why);
	}
	int e = probe_dir(parent);

	if (e) {
		snprintf(why, sizeof(why), "cannot be created in %s: %s",
			 parent, strerror(e));
		return refuse(cmd, flag, path, why);
	}
	return 0;
}

int fl_check_output(const char *cmd, const char *flag, const char *path,
		    enum fl_output_kind kind)
{
	struct stat st;
	char why[300];

	if (!*path)
		return refuse(cmd, flag, path, kind == FL_OUT_FILE ?
			      "is empty: name a file" :
			      "is empty: name a directory");
	if (strlen(path) >= PATH_MAX)
		return refuse(cmd, flag, path, "is longer than PATH_MAX");
	if (stat(path, &st)) {
		if (errno != ENOENT) {
			snprintf(why, sizeof(why), "cannot be used: %s",
				 strerror(errno));
			return refuse(cmd, flag, path, why);
		}
		return parent_writable(cmd, flag, path,
				       kind == FL_OUT_DIR_TREE);
	}
	if (kind == FL_OUT_FILE && S_ISDIR(st.st_mode))
		return refuse(cmd, flag, path, "is a directory, not a file");
	if (kind != FL_OUT_FILE && !S_ISDIR(st.st_mode))
		return refuse(cmd, flag, path, "exists and is not a directory");
	int e = kind == FL_OUT_FILE ? (access(path, W_OK) ? errno : 0) :
		probe_dir(path);

	if (e) {
		snprintf(why, sizeof(why), "cannot be written: %s",
			 strerror(e));
		return refuse(cmd, flag, path, why);
	}
	return 0;
}

int fl_write_dir_file(const char *cmd, const char *file, const char *dir)
{
	FILE *f;

	if (!file)
		return 0;
	f = fopen(file, "w");
	if (!f || fprintf(f, "%s\n", dir) < 0 || fclose(f)) {
		fprintf(stderr, "futexlab %s: cannot write %s: %s\n", cmd, file,
			strerror(errno));
		return -1;
	}
	return 0;
}
