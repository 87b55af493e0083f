// SPDX-License-Identifier: GPL-2.0
/* A side of a campaign from its flag: NAME[:KIND=VALUE,...]. */
#include "campaign/campaign.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a name that is safe as a file name's part: [A-Za-z0-9_-], 1 to max */
static int plain_name(const char *s, size_t n, size_t max)
{
	if (!n || n > max)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] >= 'a' && s[i] <= 'z') &&
		    !(s[i] >= 'A' && s[i] <= 'Z') &&
		    !(s[i] >= '0' && s[i] <= '9') && s[i] != '_' &&
		    s[i] != '-')
			return 0;
	return 1;
}

/* KEY=VALUE with a KEY of names of [A-Za-z0-9_-] joined by '.' or '/'
 * (a sysctl's path, an option's name: no empty part, so never "." or
 * ".." or a leading '/') and a VALUE of printable characters without
 * quotes or ';' */
static int key_value(const char *s)
{
	const char *eq = strchr(s, '=');

	if (!eq || eq == s || !eq[1])
		return 0;
	for (const char *p = s; p < eq; p++) {
		int sep = *p == '.' || *p == '/';

		if (!sep && !plain_name(p, 1, 1))
			return 0;
		if (sep && (p == s || p + 1 == eq || p[1] == '.' ||
			    p[1] == '/'))
			return 0;
	}
	for (const char *p = eq + 1; *p; p++)
		if (*p < 0x20 || *p > 0x7e || *p == '\'' || *p == '"' ||
		    *p == ';' || *p == '\\')
			return 0;
	return 1;
}

static int one_kind(const char *kv, struct fl_campaign_side *s, char *err,
		    size_t errlen)
{
	const char *v = strchr(kv, '=');
	size_t klen = v ? (size_t)(v - kv) : strlen(kv);
	char *end;

#define IS(k) (klen == strlen(k) && !strncmp(kv, k, klen))
	if (!v || !v[1]) {
		snprintf(err, errlen, "'%s' is not KIND=VALUE", kv);
		return -1;
	}
	v++;
	if ((IS("bin") && *s->bin) || (IS("commit") && *s->commit) ||
	    (IS("kernel") && *s->kernel) || (IS("set") && *s->set) ||
	    (IS("sysctl") && *s->sysctl) ||
	    (IS("modparam") && *s->modparam) || (IS("nice") && s->nice) ||
	    (IS("hogs") && s->hogs)) {
		snprintf(err, errlen, "%.*s= given twice: a side has one of "
			 "each (a campaign declares one setting)", (int)klen,
			 kv);
		return -1;
	}
	if (IS("bin") && strlen(v) < sizeof(s->bin)) {
		snprintf(s->bin, sizeof(s->bin), "%s", v);
	} else if (IS("commit") && *v != '-' &&
		   plain_name(v, strlen(v), sizeof(s->commit) - 1)) {
		/* never an option to git: it is its argument */
		snprintf(s->commit, sizeof(s->commit), "%s", v);
	} else if (IS("kernel") && strlen(v) < sizeof(s->kernel)) {
		snprintf(s->kernel, sizeof(s->kernel), "%s", v);
	} else if (IS("set") && key_value(v) && !strchr(v, '/') &&
		   strlen(v) < sizeof(s->set)) {
		snprintf(s->set, sizeof(s->set), "%s", v);
	} else if (IS("sysctl") && key_value(v) &&
		   strlen(v) < sizeof(s->sysctl)) {
		snprintf(s->sysctl, sizeof(s->sysctl), "%s", v);
	} else if (IS("modparam") && key_value(v) && !strchr(v, '/') &&
		   strlen(v) < sizeof(s->modparam)) {
		snprintf(s->modparam, sizeof(s->modparam), "%s", v);
	} else if (IS("nice")) {
		long n = strtol(v, &end, 10);

		if (*end || n < -20 || n > 19) {
			snprintf(err, errlen, "nice=%s: not a niceness from "
				 "-20 to 19", v);
			return -1;
		}
		s->nice = (int)n;
	} else if (IS("hogs")) {
		long n = strtol(v, &end, 10);

		if (*end || n < 0 || n > 64) {
			snprintf(err, errlen, "hogs=%s: not a count from 0 to "
				 "64", v);
			return -1;
		}
		s->hogs = (int)n;
	} else {
		snprintf(err, errlen, "'%.*s=%s': not one of bin=PATH, "
			 "commit=REV, kernel=TREE|debian, set=OPTION=VALUE, "
			 "sysctl=KEY=VALUE, modparam=NAME=VALUE, nice=N, hogs=N "
			 "(with a value of plain characters)", (int)klen, kv,
			 v);
		return -1;
	}
#undef IS
	return 0;
}

int fl_campaign_parse_side(const char *spec, struct fl_campaign_side *s,
			   char *err, size_t errlen)
{
	const char *colon = strchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
	char buf[8192], *save = NULL;

	memset(s, 0, sizeof(*s));
	if (!plain_name(spec, n, sizeof(s->name) - 1)) {
		snprintf(err, errlen, "side '%s': its name (before ':') must "
			 "be 1 to %zu of A-Z a-z 0-9 _ -", spec,
			 sizeof(s->name) - 1);
		return -1;
	}
	snprintf(s->name, sizeof(s->name), "%.*s", (int)n, spec);
	if (colon && strlen(colon + 1) < sizeof(buf)) {
		snprintf(buf, sizeof(buf), "%s", colon + 1);
		for (char *kv = strtok_r(buf, ",", &save); kv;
		     kv = strtok_r(NULL, ",", &save)) {
			char why[512];

			if (one_kind(kv, s, why, sizeof(why))) {
				snprintf(err, errlen, "side %s: %s", s->name,
					 why);
				return -1;
			}
		}
	}
	if (*s->bin && *s->commit) {
		snprintf(err, errlen, "side %s: give bin= or commit=, not "
			 "both", s->name);
		return -1;
	}
	fl_campaign_side_why(s);
	return 0;
}

void fl_campaign_side_why(struct fl_campaign_side *s)
{
	size_t used = 0, len = sizeof(s->why);

#define SAY(...) (used += used < len ? (size_t)snprintf(s->why + used, \
		  len - used, __VA_ARGS__) : 0)
	s->why[0] = '\0';
	if (*s->bin)
		SAY("futexlab build %s; ", s->bin);
	if (*s->commit)
		SAY("futexlab built from commit %s; ", s->commit);
	if (*s->kernel)
		SAY("kernel %s in the guest (vm/run); ", s->kernel);
	if (*s->set)
		SAY("setting %s in every experiment; ", s->set);
	if (*s->sysctl)
		SAY("sysctl %s; ", s->sysctl);
	if (*s->modparam)
		SAY("module parameter %s; ", s->modparam);
	if (s->nice)
		SAY("at nice %d; ", s->nice);
	if (s->hogs)
		SAY("beside %d CPU hogs at nice -5; ", s->hogs);
	if (!used)
		SAY("this futexlab on this host, nothing changed; ");
#undef SAY
	if (used >= 2 && used < len)
		s->why[used - 2] = '\0';
}

void fl_campaign_set_key(const struct fl_campaign_side *s, char *key,
			 size_t len)
{
	const char *eq = strchr(s->set, '=');

	snprintf(key, len, "%.*s", eq ? (int)(eq - s->set) : 0, s->set);
}
