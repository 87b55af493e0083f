// SPDX-License-Identifier: GPL-2.0
/* A side's sysctl and module parameter: set for its runs, then put back
 * (they are the machine's, not the run's). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "campaign/internal.h"

static int read_value(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int write_value(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	size_t len = strlen(value);
	int rc;

	if (fd < 0)
		return -1;
	rc = write(fd, value, len) == (ssize_t)len ? 0 : -1;
	if (close(fd))
		rc = -1;
	return rc;
}

/* KEY=VALUE into the file under root (dots of a sysctl's key become
 * slashes) and its old value */
static int set_one(const char *kv, const char *root, int dots,
		   char *path, size_t plen, char *old, size_t olen,
		   char *err, size_t errlen)
{
	const char *eq = strchr(kv, '=');
	size_t used = (size_t)snprintf(path, plen, "%s/%.*s", root,
				       (int)(eq - kv), kv);

	if (dots)
		for (char *p = path + strlen(root); *p && p < path + used; p++)
			if (*p == '.')
				*p = '/';
	if (read_value(path, old, olen) || write_value(path, eq + 1)) {
		snprintf(err, errlen, "cannot set %s to %s: %s", path, eq + 1,
			 strerror(errno));
		path[0] = '\0';
		return -1;
	}
	return 0;
}

int campaign_apply(const struct fl_campaign_side *s,
		   struct campaign_saved *old, char *err, size_t errlen)
{
	memset(old, 0, sizeof(*old));
	if (*s->sysctl &&
	    set_one(s->sysctl, "/proc/sys", 1, old->path[0],
		    sizeof(old->path[0]), old->value[0],
		    sizeof(old->value[0]), err, errlen))
		return -1;
	if (*s->modparam &&
	    set_one(s->modparam, "/sys/module/futexlab/parameters", 0,
		    old->path[1], sizeof(old->path[1]), old->value[1],
		    sizeof(old->value[1]), err, errlen)) {
		campaign_restore(old);
		return -1;
	}
	return 0;
}

void campaign_restore(const struct campaign_saved *old)
{
	for (int i = 0; i < 2; i++)
		if (*old->path[i] && write_value(old->path[i], old->value[i]))
			fprintf(stderr, "futexlab campaign: warning: cannot "
				"put %s back to %s: %s\n", old->path[i],
				old->value[i], strerror(errno));
}
