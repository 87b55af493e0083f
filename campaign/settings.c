// SPDX-License-Identifier: GPL-2.0
/*
 * A side's sysctl and module parameter: set for its runs, then put back
 * (they are the machine's, not the run's). The old value is written into
 * the manifest before the new one is set, so a campaign killed meanwhile
 * leaves it where its resume, or `futexlab campaign DIR --restore`, finds
 * it and puts it back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/say.h"
#include "campaign/internal.h"

static const char *const kind_name[] = { "sysctl", "modparam" };

const char *campaign_kind_name(int kind)
{
	return kind_name[kind];
}

const char *campaign_setting(const struct fl_campaign_side *s, int kind)
{
	return kind == FL_CAMPAIGN_SYSCTL ? s->sysctl : s->modparam;
}

void campaign_setting_path(const struct fl_campaign *c,
			   const struct fl_campaign_side *s, int kind,
			   char *path, size_t len)
{
	const char *kv = campaign_setting(s, kind), *eq = strchr(kv, '=');
	size_t at = (size_t)snprintf(path, len, "%s%s/", c->cmd.sys_root,
				     kind == FL_CAMPAIGN_SYSCTL ? "/proc/sys" :
				     "/sys/module/futexlab/parameters");

	snprintf(path + (at < len ? at : len - 1), len - (at < len ? at :
		 len - 1), "%.*s", eq ? (int)(eq - kv) : 0, kv);
	/* a sysctl's dots are folders (side.c keeps '.' and '/' apart
	 * from every other character and from each other) */
	if (kind == FL_CAMPAIGN_SYSCTL)
		for (char *p = path + at; at < len && *p; p++)
			if (*p == '.')
				*p = '/';
}

/* the open file of path, a regular file, for reading or writing */
static int open_setting(const char *path, int mode)
{
	int fd = open(path, mode | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

static int read_value(const char *path, char *buf, size_t len)
{
	int fd = open_setting(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len);
	close(fd);
	if (n < 0)
		return -1;
	/* a value cut short could not be put back as it was */
	if ((size_t)n == len) {
		errno = EFBIG;
		return -1;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int write_value(const char *path, const char *value)
{
	int fd = open_setting(path, O_WRONLY);
	size_t len = strlen(value);
	int rc;

	if (fd < 0)
		return -1;
	rc = write(fd, value, len) == (ssize_t)len ? 0 : -1;
	if (close(fd))
		rc = -1;
	return rc;
}

int campaign_settings_check(const struct fl_campaign *c,
			    const struct fl_campaign_side *s, char *err,
			    size_t errlen)
{
	for (int k = 0; k < 2; k++) {
		char path[600];
		int fd;

		if (!*campaign_setting(s, k))
			continue;
		campaign_setting_path(c, s, k, path, sizeof(path));
		fd = open_setting(path, O_RDONLY);
		if (fd < 0 || access(path, W_OK)) {
			snprintf(err, errlen, "side %s: %s=%s: %s: %s", s->name,
				 kind_name[k], campaign_setting(s, k), path,
				 fd < 0 && errno == EINVAL ?
				 "not a regular file" : strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		close(fd);
	}
	return 0;
}

int campaign_apply(int dirfd, const char *dir, struct fl_campaign *c,
		   const struct fl_campaign_side *s, char *err, size_t errlen)
{
	char path[2][600];
	int k;

	c->nsaved = 0;
	for (k = 0; k < 2; k++) {
		struct fl_campaign_saved *v = &c->saved[c->nsaved];

		if (!*campaign_setting(s, k))
			continue;
		campaign_setting_path(c, s, k, path[k], sizeof(path[k]));
		if (read_value(path[k], v->value, sizeof(v->value))) {
			snprintf(err, errlen, "cannot read %s: %s", path[k],
				 strerror(errno));
			c->nsaved = 0;
			return -1;
		}
		v->side = (unsigned int)(s - c->side);
		v->kind = k;
		c->nsaved++;
	}
	if (!c->nsaved)
		return 0;
	/* the old values on disk before any is changed */
	if (fl_campaign_save(dirfd, dir, c, err, errlen))
		return -1;
	for (k = 0; k < 2; k++) {
		const char *kv = campaign_setting(s, k);

		if (*kv && write_value(path[k], strchr(kv, '=') + 1)) {
			snprintf(err, errlen, "cannot set %s to %s: %s",
				 path[k], strchr(kv, '=') + 1,
				 strerror(errno));
			campaign_restore(dirfd, dir, c, NULL, 0);
			return -1;
		}
	}
	return 0;
}

int campaign_restore(int dirfd, const char *dir, struct fl_campaign *c,
		     char *err, size_t errlen)
{
	char path[600], why[600];
	int rc = 0;

	if (!c->nsaved)
		return 0;
	for (unsigned int i = 0; i < c->nsaved; i++) {
		const struct fl_campaign_saved *v = &c->saved[i];

		campaign_setting_path(c, &c->side[v->side], v->kind, path,
				      sizeof(path));
		if (write_value(path, v->value)) {
			fl_say(fl_campaign_say, "futexlab campaign: warning: "
			       "cannot put %s back to %s: %s", path, v->value,
			       strerror(errno));
			rc = -1;
		}
	}
	/* kept in the manifest while any failed, so a resume tries again */
	if (rc) {
		if (err)
			snprintf(err, errlen, "cannot put a setting back "
				 "(said above): %s/%s keeps its old value",
				 dir, FL_CAMPAIGN_MANIFEST);
		return -1;
	}
	c->nsaved = 0;
	if (fl_campaign_save(dirfd, dir, c, err ? err : why,
			     err ? errlen : sizeof(why)))
		return -1;
	return 0;
}
