// SPDX-License-Identifier: GPL-2.0
/* A campaign's finished runs: their facts, and each checked to be the
 * run its slot recorded before anything reads it. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "campaign/internal.h"
#include "rundir/regular.h"

#define META_MAX	(64u << 20)
#define MATRIX_MAX	(1u << 20)

static void str_at(json_t *m, const char *a, const char *b, char *buf,
		   size_t len)
{
	json_t *v = json_object_get(m, a);

	if (b)
		v = json_object_get(v, b);
	snprintf(buf, len, "%s", json_is_string(v) ? json_string_value(v) :
		 "");
}

int campaign_run_facts(int dirfd, const char *dir, const char *run,
		       struct fl_campaign_slot *out, char *err,
		       size_t errlen)
{
	char shown[4400], version[64], commit[64], *text = NULL;
	int fd, rc = -1;
	json_t *m;
	size_t len;

	snprintf(shown, sizeof(shown), "%s/%s", dir, run);
	fd = fl_open_folder(dirfd, run, shown, err, errlen);
	if (fd < 0)
		return -1;
	snprintf(shown, sizeof(shown), "%s/%s/meta.json", dir, run);
	if (fl_read_regular(fd, "meta.json", shown, FL_NOFOLLOW, META_MAX,
			    &text, &len, err, errlen))
		goto out;
	m = json_loadb(text, len, 0, NULL);
	if (!json_is_object(m)) {
		snprintf(err, errlen, "%s: not a run's meta.json", shown);
		json_decref(m);
		goto out;
	}
	str_at(m, "start_time", NULL, out->start_time,
	       sizeof(out->start_time));
	str_at(m, "matrix", "fnv1a64", out->matrix_hash,
	       sizeof(out->matrix_hash));
	str_at(m, "machine", "hostname", out->host, sizeof(out->host));
	str_at(m, "machine", "kernel", out->kernel, sizeof(out->kernel));
	str_at(m, "futexlab_version", NULL, version, sizeof(version));
	str_at(m, "git_commit", NULL, commit, sizeof(commit));
	snprintf(out->build, sizeof(out->build), "%s (git %s)", version,
		 commit);
	json_decref(m);
	if (!*out->start_time || !*out->matrix_hash) {
		snprintf(err, errlen, "%s: no start_time or matrix: not a "
			 "matrix run", shown);
		goto out;
	}
	rc = 0;
out:
	free(text);
	close(fd);
	return rc;
}

int campaign_check_run(int dirfd, const char *dir,
		       const struct fl_campaign *c, unsigned int k,
		       unsigned int skip, const char *run,
		       const struct fl_campaign_slot *seen, char *err,
		       size_t errlen)
{
	char shown[4400], *want = NULL, *got = NULL;
	size_t wlen, glen;
	int fd, rc = -1;

	if (campaign_side_matrix(dirfd, dir, &c->side[k], 0, &want, &wlen,
				 err, errlen))
		return -1;
	snprintf(shown, sizeof(shown), "%s/%s", dir, run);
	fd = fl_open_folder(dirfd, run, shown, err, errlen);
	if (fd < 0)
		goto out;
	snprintf(shown, sizeof(shown), "%s/%s/matrix.ini", dir, run);
	if (fl_read_regular(fd, "matrix.ini", shown, FL_NOFOLLOW, MATRIX_MAX,
			    &got, &glen, err, errlen))
		goto out;
	if (glen != wlen || memcmp(got, want, glen)) {
		snprintf(err, errlen, "%s/%s is not a run of side %s's matrix "
			 "(its matrix.ini is not %s/matrix-%s.ini): a foreign "
			 "run", dir, run, c->side[k].name, dir,
			 c->side[k].name);
		goto out;
	}
	if (c->is_self[k] && *c->cmd.self_build &&
	    strcmp(seen->build, c->cmd.self_build)) {
		snprintf(err, errlen, "%s/%s is not a run of side %s: its "
			 "futexlab build %s is not %s, this futexlab, which "
			 "is the side's: a foreign run", dir, run,
			 c->side[k].name, seen->build, c->cmd.self_build);
		goto out;
	}
	for (unsigned int j = 0; j < c->nslots; j++) {
		const struct fl_campaign_slot *o = &c->slot[j];

		if (j == skip || o->side != k || !*o->run)
			continue;
		if (strcmp(o->matrix_hash, seen->matrix_hash) ||
		    strcmp(o->build, seen->build)) {
			snprintf(err, errlen, "%s/%s is not a run of side %s: "
				 "its %s is not that of %s/%s (%s): a foreign "
				 "run", dir, run, c->side[k].name,
				 strcmp(o->build, seen->build) ? "futexlab "
				 "build" : "matrix", dir, o->run,
				 strcmp(o->build, seen->build) ? o->build :
				 o->matrix_hash);
			goto out;
		}
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	free(want);
	free(got);
	return rc;
}

int campaign_check_distinct(int dirfd, const char *dir,
			    const struct fl_campaign *c, char *err,
			    size_t errlen)
{
	static char *rows[FL_CAMPAIGN_MAX_SLOTS];
	static struct stat st[FL_CAMPAIGN_MAX_SLOTS];
	int rc = 0;

	for (unsigned int i = 0; i < c->nslots && !rc; i++) {
		const char *run = c->slot[i].run;
		char shown[4400], name[128], why[4400] = "";
		size_t len;

		rows[i] = NULL;
		if (!*run)
			continue;
		snprintf(shown, sizeof(shown), "%s/%s/cells.csv", dir, run);
		snprintf(name, sizeof(name), "%s/cells.csv", run);
		if (fstatat(dirfd, run, &st[i], AT_SYMLINK_NOFOLLOW) ||
		    fl_read_regular(dirfd, name, shown, FL_NOFOLLOW,
				    FL_MAX_INPUT_BYTES, &rows[i], &len, why,
				    sizeof(why))) {
			if (!*why)
				snprintf(why, sizeof(why), "%s",
					 strerror(errno));
			snprintf(err, errlen, "the manifest names %s, which is "
				 "missing or not a run: %s", run, why);
			free(rows[i]);
			rows[i] = NULL;
			rc = -1;
			break;
		}
		for (unsigned int j = 0; j < i && !rc; j++) {
			if (!rows[j] || ((st[i].st_dev != st[j].st_dev ||
					  st[i].st_ino != st[j].st_ino) &&
					 strcmp(rows[i], rows[j])))
				continue;
			snprintf(err, errlen, "%s/%s is %s/%s again (%s): one "
				 "run counted twice; take out the copy", dir,
				 run, dir, c->slot[j].run,
				 st[i].st_ino == st[j].st_ino ? "one folder" :
				 "the same rows");
			rc = -1;
		}
	}
	for (unsigned int i = 0; i < c->nslots; i++) {
		free(rows[i]);
		rows[i] = NULL;
	}
	return rc;
}

int fl_campaign_side_runs(int dirfd, const char *dir,
			  const struct fl_campaign *c, unsigned int k,
			  char (*paths)[4200], unsigned int max,
			  unsigned int *n, char *err, size_t errlen)
{
	*n = 0;
	for (unsigned int i = 0; i < c->nslots; i++) {
		const struct fl_campaign_slot *s = &c->slot[i];
		struct fl_campaign_slot seen = { 0 };
		char why[4400];

		if (s->side != k || !*s->run)
			continue;
		if (campaign_run_facts(dirfd, dir, s->run, &seen, why,
				       sizeof(why))) {
			snprintf(err, errlen, "the manifest names %s, which is "
				 "missing or not a run: %s", s->run, why);
			return -1;
		}
		if (strcmp(seen.start_time, s->start_time) ||
		    strcmp(seen.matrix_hash, s->matrix_hash)) {
			snprintf(err, errlen, "%s/%s is not the run the "
				 "manifest recorded (started %s with matrix "
				 "%s, the manifest says %s with %s): a foreign "
				 "run", dir, s->run, seen.start_time,
				 seen.matrix_hash, s->start_time,
				 s->matrix_hash);
			return -1;
		}
		if (campaign_check_run(dirfd, dir, c, k, i, s->run, &seen, err,
				       errlen))
			return -1;
		if (*n == max) {
			snprintf(err, errlen, "side %s has more than %u runs",
				 c->side[k].name, max);
			return -1;
		}
		snprintf(paths[(*n)++], 4200, "%s/%s", dir, s->run);
	}
	return 0;
}
