// SPDX-License-Identifier: GPL-2.0
/*
 * A side's build run from a copy of its own, new for each run or visit.
 *
 * Why: a program's code and read-only data are the page cache's pages
 * of its file, so every process of one file runs them at the same
 * physical addresses for as long as the file stays cached, and where
 * they fall (the caches' sets they share, the host's pages behind the
 * guest's) moves a tight loop's figures. Measured on this 2-CPU VM, the
 * condvar spin cell of one thread, two sides both copies of one build
 * (campaign/builds/A and B), 80 blocks a campaign: with one copy a side
 * for the campaign, 6 of 8 campaigns had one side ahead at a sign test's
 * p below 5% (its p50 latency up to 0.71 of the other's); with a copy
 * for every visit, none of 8. A side's copy kept its place for the
 * whole campaign, so no number of blocks
 * told the builds apart from where their copies fell. The paired rule
 * then calls identical builds different (docs/statistics.md, "Where a
 * build's pages fall"). Copied for every visit, a side's code lands
 * somewhere new each time: the placement becomes noise that the
 * blocks' random order shares out, not a difference between sides.
 *
 * The copy is an unnamed file (O_TMPFILE) in the build's own folder, so
 * that the build's /proc/self/exe still names that folder, and nothing
 * is left behind by a kill; it is opened again read-only, as
 * exec refuses a file open for writing. A file system without unnamed
 * files gets a named one, removed as soon as it is open.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "campaign/internal.h"
#include "rundir/regular.h"

#define NAMED_COPY	".futexlab-copy"

/* in's bytes from at to len copied to out by reads and writes; 0, or
 * -1 */
static int copy_plain(int in, int out, off_t at, off_t len)
{
	char buf[1 << 16];

	while (at < len) {
		ssize_t n = pread(in, buf, sizeof(buf), at);

		if (n <= 0 || write(out, buf, (size_t)n) != n)
			return -1;
		at += n;
	}
	return 0;
}

/* len bytes of in copied to out from their starts; 0, or -1 */
static int copy_bytes(int in, int out, off_t len)
{
	off_t at = 0;

	while (at < len) {
		ssize_t n = copy_file_range(in, NULL, out, NULL,
					    (size_t)(len - at), 0);

		if (n > 0) {
			at += n;
			continue;
		}
		if (n == 0 || (errno != EXDEV && errno != ENOSYS &&
			       errno != EOPNOTSUPP && errno != EINVAL))
			return -1;
		/* a file system that cannot: the rest by reads and writes,
		 * not a failed call for every chunk */
		return copy_plain(in, out, at, len);
	}
	return 0;
}

/* a new file in folder open for writing: unnamed where the file system
 * has them, else named and *named set */
static int new_file(int folder, int *named)
{
	int w = openat(folder, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0700);

	*named = 0;
	if (w >= 0 || (errno != EOPNOTSUPP && errno != EISDIR &&
		       errno != EINVAL))
		return w;
	/* a kill's leftover goes first: it is ours, the folder trusted */
	unlinkat(folder, NAMED_COPY, 0);
	*named = 1;
	return openat(folder, NAMED_COPY, O_CREAT | O_EXCL | O_RDWR |
		      O_NOFOLLOW | O_CLOEXEC, 0700);
}

int campaign_fresh_binary(int dirfd, const char *dir,
			  const struct fl_campaign_side *s, int fd, char *err,
			  size_t errlen)
{
	char name[128], shown[4400], self[64];
	int folder, w, r = -1, named;
	struct stat st;

	snprintf(name, sizeof(name), "builds/%s", s->name);
	snprintf(shown, sizeof(shown), "%s/%s", dir, name);
	folder = fl_open_folder(dirfd, name, shown, err, errlen);
	if (folder < 0)
		return -1;
	w = new_file(folder, &named);
	if (w < 0 || fstat(fd, &st) || copy_bytes(fd, w, st.st_size)) {
		snprintf(err, errlen, "%s: cannot copy side %s's build to run "
			 "it: %s", shown, s->name, strerror(errno));
		goto out;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", w);
	r = open(self, O_RDONLY | O_CLOEXEC);
	if (r < 0)
		snprintf(err, errlen, "%s: cannot open side %s's copy of its "
			 "build: %s", shown, s->name, strerror(errno));
out:
	if (named)
		unlinkat(folder, NAMED_COPY, 0);
	if (w >= 0)
		close(w);
	close(folder);
	return r;
}
