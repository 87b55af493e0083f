// SPDX-License-Identifier: GPL-2.0
/* Each side's futexlab and matrix file, made once, inside the campaign. */
#include "campaign/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/say.h"
#include "campaign/spawn.h"
#include "rundir/regular.h"
#include "rundir/write_at.h"

/* building a commit: configure.py and ninja on a shared 2-CPU machine */
#define BUILD_DEADLINE_S	3600
#define BINARY_MAX		(256u << 20)

/* "  key = value" or "key=value": is the line's key `key`? */
static int line_has_key(const char *line, size_t len, const char *key)
{
	size_t k = strlen(key);

	while (len && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	if (len < k || strncmp(line, key, k))
		return 0;
	line += k;
	len -= k;
	while (len && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	return len && *line == '=';
}

char *fl_campaign_side_matrix(const char *text,
			      const struct fl_campaign_side *s)
{
	size_t n = strlen(text), cap = n * 2 + 4096, used = 0;
	char *out = malloc(cap), key[256];
	const char *eq = strchr(s->set, '=');

	if (!out)
		return NULL;
	fl_campaign_set_key(s, key, sizeof(key));
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (!*key || !line_has_key(p, len, key)) {
			if (used + len + 2 + strlen(s->set) + 8 > cap)
				break;
			memcpy(out + used, p, len);
			used += len;
			out[used++] = '\n';
			if (*key && !strncmp(p, "[experiment", 11))
				used += (size_t)snprintf(out + used,
							 cap - used,
							 "%s = %s\n", key,
							 eq + 1);
		}
		p += len + (nl ? 1 : 0);
	}
	out[used] = '\0';
	return out;
}

/* the binary at path copied to builds/SIDE/futexlab, executable */
static int copy_binary(int dirfd, const char *dir, const char *side,
		       const char *path, char *err, size_t errlen)
{
	char folder[128], shown[4300], *data = NULL;
	size_t len;
	int fd, rc = -1;

	if (fl_read_regular(AT_FDCWD, path, path, 0, BINARY_MAX, &data, &len,
			    err, errlen))
		return -1;
	if (access(path, X_OK)) {
		snprintf(err, errlen, "%s: not executable", path);
		goto out;
	}
	snprintf(folder, sizeof(folder), "builds/%s", side);
	snprintf(shown, sizeof(shown), "%s/%s/futexlab", dir, folder);
	fd = fl_folder_at(dirfd, folder, shown, err, errlen);
	if (fd < 0)
		goto out;
	if (!fl_write_at(fd, "futexlab", shown, data, len, err, errlen)) {
		rc = fchmodat(fd, "futexlab", 0755, 0);
		if (rc)
			snprintf(err, errlen, "%s: %s", shown, strerror(errno));
	}
	close(fd);
out:
	free(data);
	return rc;
}

/* the side's commit built in builds/SIDE/src: a clone sharing the
 * repository's objects (so the build records its commit), checked out
 * at it, configure.py, ninja; its path into bin */
static int build_commit(int dirfd, const char *dir, struct fl_campaign *c,
			struct fl_campaign_side *s, char *bin, size_t len,
			char *err, size_t errlen)
{
	char src[4400], script[9000], shown[4400];
	char *argv[] = { "sh", "-c", script, "build", c->repo, src, NULL };
	int fd, rc;

	snprintf(src, sizeof(src), "%s/builds/%s/src", dir, s->name);
	snprintf(shown, sizeof(shown), "%s/builds/%s", dir, s->name);
	fd = fl_folder_at(dirfd, "builds", shown, err, errlen);
	if (fd < 0)
		return -1;
	close(fd);
	snprintf(shown, sizeof(shown), "builds/%s", s->name);
	fd = fl_folder_at(dirfd, shown, shown, err, errlen);
	if (fd < 0)
		return -1;
	close(fd);
	snprintf(bin, len, "%s/build/futexlab", src);
	/* the commit is [A-Za-z0-9_-] (side.c); the paths are passed as
	 * the script's own arguments, never pasted into it */
	snprintf(script, sizeof(script), "set -e; rm -rf \"$2\"; git clone "
		 "-q --shared --no-checkout \"$1\" \"$2\"; cd \"$2\"; git "
		 "checkout -q %s; ./configure.py >&2; ninja build/futexlab "
		 ">&2", s->commit);
	fl_say(fl_campaign_say, "futexlab campaign: building commit %s of %s "
	       "in %s", s->commit, c->repo, src);
	rc = fl_campaign_spawn(argv, -1, NULL, 0, -1, NULL, BUILD_DEADLINE_S,
			       err, errlen);
	if (rc) {
		if (rc > 0)
			snprintf(err, errlen, "side %s: building commit %s "
				 "failed (exit %d)", s->name, s->commit, rc);
		return -1;
	}
	return 0;
}

/* the commit is one of the repository's: git rev-parse, nothing built */
static int commit_known(const struct fl_campaign *c,
			const struct fl_campaign_side *s, char *err,
			size_t errlen)
{
	char rev[96];
	char *argv[] = { "git", "-C", (char *)c->repo, "rev-parse",
			 "--verify", "--quiet", rev, NULL };
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC), rc;

	snprintf(rev, sizeof(rev), "%s^{commit}", s->commit);
	rc = fl_campaign_spawn(argv, -1, NULL, 0, null, NULL, 60, err,
			       errlen);
	if (null >= 0)
		close(null);
	if (rc > 0)
		snprintf(err, errlen, "side %s: commit=%s: no such commit in "
			 "%s", s->name, s->commit, c->repo);
	return rc ? -1 : 0;
}

int fl_campaign_check_sides(const struct fl_campaign *c, char *err,
			    size_t errlen)
{
	for (unsigned int i = 0; i < c->nsides; i++) {
		const struct fl_campaign_side *s = &c->side[i];
		char why[4400];
		int fd;

		if (*s->bin) {
			fd = fl_open_regular(AT_FDCWD, s->bin, s->bin, 0, why,
					     sizeof(why));
			if (fd < 0 || access(s->bin, X_OK)) {
				snprintf(err, errlen, "side %s: bin=%s",
					 s->name, fd < 0 ? why :
					 "not executable");
				if (fd >= 0)
					close(fd);
				return -1;
			}
			close(fd);
		}
		if (*s->kernel && access(c->vm, X_OK)) {
			snprintf(err, errlen, "side %s: kernel= runs %s "
				 "(--vm), which is not an executable file",
				 s->name, c->vm);
			return -1;
		}
		if ((*s->commit && commit_known(c, s, err, errlen)) ||
		    campaign_settings_check(c, s, err, errlen))
			return -1;
	}
	return 0;
}

int fl_campaign_prepare(int dirfd, const char *dir, struct fl_campaign *c,
			const char *matrix_text, char *err, size_t errlen)
{
	char shown[4300], name[64], bin[4500];
	int fd = fl_folder_at(dirfd, "builds", "builds", err, errlen);

	if (fd < 0)
		return -1;
	close(fd);
	for (unsigned int i = 0; i < c->nsides; i++) {
		struct fl_campaign_side *s = &c->side[i];
		char *text = fl_campaign_side_matrix(matrix_text, s);

		if (!text) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		snprintf(name, sizeof(name), "matrix-%s.ini", s->name);
		snprintf(shown, sizeof(shown), "%s/%s", dir, name);
		if (fl_write_at(dirfd, name, shown, text, strlen(text), err,
				errlen)) {
			free(text);
			return -1;
		}
		free(text);
		if (*s->commit) {
			if (build_commit(dirfd, dir, c, s, bin, sizeof(bin),
					 err, errlen) ||
			    copy_binary(dirfd, dir, s->name, bin, err, errlen))
				return -1;
		} else if (!*s->kernel &&
			   copy_binary(dirfd, dir, s->name, *s->bin ? s->bin :
				       "/proc/self/exe", err, errlen)) {
			/* a side without a build of its own runs this one,
			 * frozen: a rebuild midway cannot change it */
			return -1;
		}
	}
	return 0;
}
