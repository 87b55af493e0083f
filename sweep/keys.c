// SPDX-License-Identifier: GPL-2.0
/*
 * The keys every section may hold (backend, threads, placement, duration,
 * warmup, reps, seed, hash-slots, sample, bin): parsing one value into an fl_spec, and
 * listing the known keys for an "unknown key" message.
 */
#include "sweep/matrix.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sweep/internal.h"
#include "spec/options.h"
#include "spec/placement.h"
#include "spec/spec.h"
#include "sweep/passes.h"

static const char *const common_keys[] = {
	"workload", "backend", "threads", "placement", "duration", "warmup",
	"reps", "reps-max", "time-budget", "seed", "hash-slots", "sample",
	"bin", NULL,
};

static int parse_u(const char *text, uint64_t *v)
{
	while (*text == ' ')
		text++;
	return fl_parse_u64(text, v);
}

static int parse_backends(const char *text, struct fl_spec *s, char *err,
			  size_t errlen)
{
	const char *t = text;

	while (*t == ' ')
		t++;
	if (strcmp(t, "all") == 0 || strcmp(t, "host") == 0) {
		/* host: the backends that need no module; the module's
		 * backends (kmod-*) are for the lab machine and the VM */
		s->nbackends = 0;
		for (unsigned int i = 0; i < fl_nbackends &&
		     s->nbackends < FL_MAX_AXIS; i++) {
			if (t[0] == 'h' &&
			    strncmp(fl_backends[i]->name, "kmod", 4) == 0)
				continue;
			s->backends[s->nbackends++] = fl_backends[i];
		}
		return 0;
	}
	char buf[512];

	if (list_without_blanks("backend", t, buf, sizeof(buf), err, errlen))
		return -1;
	if (fl_parse_backends(buf, s, err, errlen)) {
		memmove(err, undash(err), strlen(undash(err)) + 1);
		return -1;
	}
	return 0;
}

static int parse_placements(const char *text, struct fl_spec *s, char *err,
			    size_t errlen)
{
	char buf[512], *save = NULL;

	if (strlen(text) >= sizeof(buf)) {
		snprintf(err, errlen, "placement: list too long");
		return -1;
	}
	strcpy(buf, text);
	s->nplacements = 0;
	for (char *tok = strtok_r(buf, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		if (strlen(tok) >= sizeof(s->placements[0])) {
			snprintf(err, errlen, "placement: '%s' is too long",
				 tok);
			return -1;
		}
		if (fl_placement_check(tok, err, errlen)) {
			memmove(err, undash(err), strlen(undash(err)) + 1);
			return -1;
		}
		for (unsigned int i = 0; i < s->nplacements; i++) {
			if (strcmp(s->placements[i], tok) == 0) {
				snprintf(err, errlen, "placement: '%s' is "
					 "given twice", tok);
				return -1;
			}
		}
		if (s->nplacements == FL_MAX_AXIS) {
			snprintf(err, errlen, "placement: more than %d values",
				 FL_MAX_AXIS);
			return -1;
		}
		snprintf(s->placements[s->nplacements++],
			 sizeof(s->placements[0]), "%s", tok);
	}
	if (!s->nplacements) {
		snprintf(err, errlen, "placement: empty list: the experiment "
			 "would have no cells (give compact, scatter or a CPU "
			 "list; several are separated by spaces)");
		return -1;
	}
	return 0;
}

static int parse_seconds(const char *key, const char *text, uint64_t *out,
			 int allow_zero, char *err, size_t errlen)
{
	while (*text == ' ')
		text++;
	if (fl_parse_seconds_ns(text, out) || (!allow_zero && *out == 0) ||
	    *out > 86400ull * 1000000000ull) {
		snprintf(err, errlen, "%s: '%s' is not a number of seconds "
			 "(e.g. 1 or 0.5, %sat most one day)", key, text,
			 allow_zero ? "" : "above 0, ");
		return -1;
	}
	return 0;
}

/*
 * Apply one common key to s: 1 if key is not a common key, 0 when
 * applied, -1 with err.
 */
int matrix_apply_common(struct fl_spec *s, const char *key, const char *val,
			unsigned int ncpus, char *err, size_t errlen)
{
	uint64_t u;

	if (strcmp(key, "backend") == 0)
		return parse_backends(val, s, err, errlen);
	if (strcmp(key, "threads") == 0) {
		int n = fl_matrix_threads(val, ncpus, s->threads, FL_MAX_AXIS,
					  err, errlen);

		if (n < 0)
			return -1;
		s->nthreads = (unsigned int)n;
		if (fl_spec_check_fixed_threads(s, err, errlen)) {
			memmove(err, undash(err), strlen(undash(err)) + 1);
			return -1;
		}
		return 0;
	}
	if (strcmp(key, "placement") == 0)
		return parse_placements(val, s, err, errlen);
	if (strcmp(key, "duration") == 0)
		return parse_seconds(key, val, &s->duration_ns, 0, err, errlen);
	if (strcmp(key, "warmup") == 0)
		return parse_seconds(key, val, &s->warmup_ns, 1, err, errlen);
	if (strcmp(key, "reps") == 0)
		return fl_parse_reps(val, s, err, errlen);
	if (strcmp(key, "reps-max") == 0) {
		if (parse_u(val, &u) || u < FL_REPS_MIN || u > FL_REPS_LIMIT) {
			snprintf(err, errlen, "reps-max: '%s' is not a whole "
				 "number from %d to %d", val, FL_REPS_MIN,
				 FL_REPS_LIMIT);
			return -1;
		}
		s->reps_max = (unsigned int)u;
		return 0;
	}
	if (strcmp(key, "time-budget") == 0) {
		uint64_t ns;

		if (parse_seconds(key, val, &ns, 0, err, errlen))
			return -1;
		s->budget_s = (double)ns / 1e9;
		return 0;
	}
	if (strcmp(key, "seed") == 0) {
		if (parse_u(val, &s->seed)) {
			snprintf(err, errlen, "seed: '%s' is not a "
				 "non-negative integer", val);
			return -1;
		}
		return 0;
	}
	if (strcmp(key, "hash-slots") == 0) {
		if (parse_u(val, &u) || u > (1u << 30)) {
			snprintf(err, errlen, "hash-slots: '%s' is not a "
				 "slot count from 0 to %u", val, 1u << 30);
			return -1;
		}
		s->hash_slots = (long)u;
		return 0;
	}
	if (strcmp(key, "sample") == 0 || strcmp(key, "bin") == 0) {
		while (*val == ' ')
			val++;
		if ((key[0] == 's' ? fl_parse_sample : fl_parse_bin)(val, s,
								   err,
								   errlen)) {
			memmove(err, undash(err), strlen(undash(err)) + 1);
			return -1;
		}
		return 0;
	}
	return 1;
}

void matrix_list_keys(const struct fl_workload *w, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 1; common_keys[i] && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i > 1 ? ", " : "", common_keys[i]);
	for (unsigned int i = 0; w && i < w->noptions && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, ", %s",
					 w->options[i].name);
}
