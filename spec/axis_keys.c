// SPDX-License-Identifier: GPL-2.0
/*
 * The common keys whose values are lists, each value an axis of the
 * cells: backends and placements (the thread counts have a grammar of
 * their own, threads.c).
 */
#include "spec/common_keys.h"

#include <stdio.h>
#include <string.h>

#include "spec/placement.h"

static int unknown_backend(const char *name, char *err, size_t errlen)
{
	size_t used = (size_t)snprintf(err, errlen, "--backend: unknown "
				       "backend '%s' (known:", name);

	for (unsigned int i = 0; i < fl_nbackends && used < errlen; i++)
		used += (size_t)snprintf(err + used, errlen - used, "%s%s",
					 i ? ", " : " ", fl_backends[i]->name);
	if (used < errlen)
		snprintf(err + used, errlen - used, ")");
	return -1;
}

/* One name of the list into s: known, not given before. */
static int add_backend(struct fl_spec *s, const char *text, const char *tok,
		       char *err, size_t errlen)
{
	const struct fl_backend *b = fl_backend_find(tok);

	if (!*tok) {
		snprintf(err, errlen, "--backend: '%s': an empty name in the "
			 "list", text);
		return -1;
	}
	if (!b)
		return unknown_backend(tok, err, errlen);
	for (unsigned int i = 0; i < s->nbackends; i++) {
		if (s->backends[i] == b) {
			snprintf(err, errlen, "--backend: '%s' is given twice "
				 "in '%s'", tok, text);
			return -1;
		}
	}
	if (s->nbackends == FL_MAX_AXIS) {
		snprintf(err, errlen, "--backend: more than %d names",
			 FL_MAX_AXIS);
		return -1;
	}
	s->backends[s->nbackends++] = b;
	return 0;
}

/* all: every backend; host: those that need no module (the module's,
 * kmod-*, are for the lab machine and the VM: their descriptors say
 * needs_module). */
static void every_backend(struct fl_spec *s, int host)
{
	s->nbackends = 0;
	for (unsigned int i = 0; i < fl_nbackends &&
	     s->nbackends < FL_MAX_AXIS; i++) {
		if (host && fl_backends[i]->needs_module)
			continue;
		s->backends[s->nbackends++] = fl_backends[i];
	}
}

int fl_key_backends(const struct fl_common_key *k, const char *text,
		    struct fl_spec *s, const struct fl_key_ctx *ctx,
		    char *err, size_t errlen)
{
	char buf[512];

	(void)ctx;
	if (strlen(text) >= sizeof(buf)) {
		snprintf(err, errlen, "--%s: list too long", k->name);
		return -1;
	}
	if (fl_list_items(k->name, text, buf, sizeof(buf), err, errlen))
		return -1;
	if (strcmp(buf, "all") == 0 || strcmp(buf, "host") == 0) {
		every_backend(s, buf[0] == 'h');
		return 0;
	}
	s->nbackends = 0;
	/* every item, the empty ones too: "spin,,futex2" is a mistake */
	for (char *tok = buf, *next; tok; tok = next) {
		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		if (add_backend(s, text, tok, err, errlen))
			return -1;
	}
	return 0;
}

int fl_key_threads(const struct fl_common_key *k, const char *text,
		   struct fl_spec *s, const struct fl_key_ctx *ctx,
		   char *err, size_t errlen)
{
	int n = fl_parse_thread_list(text, ctx, s->threads, FL_MAX_AXIS, err,
				     errlen);

	(void)k;
	if (n < 0)
		return -1;
	s->nthreads = (unsigned int)n;
	return fl_spec_check_fixed_threads(s, err, errlen);
}

/* One placement of the list into s: valid, not given before. */
static int add_placement(struct fl_spec *s, const char *tok, char *err,
			 size_t errlen)
{
	if (strlen(tok) >= sizeof(s->placements[0])) {
		snprintf(err, errlen, "--placement: '%s' is too long", tok);
		return -1;
	}
	if (fl_placement_check(tok, err, errlen))
		return -1;
	for (unsigned int i = 0; i < s->nplacements; i++) {
		if (strcmp(s->placements[i], tok) == 0) {
			snprintf(err, errlen, "--placement: '%s' is given "
				 "twice", tok);
			return -1;
		}
	}
	if (s->nplacements == FL_MAX_AXIS) {
		snprintf(err, errlen, "--placement: more than %d values",
			 FL_MAX_AXIS);
		return -1;
	}
	snprintf(s->placements[s->nplacements++], sizeof(s->placements[0]),
		 "%s", tok);
	return 0;
}

int fl_key_placements(const struct fl_common_key *k, const char *text,
		      struct fl_spec *s, const struct fl_key_ctx *ctx,
		      char *err, size_t errlen)
{
	char buf[512], *save = NULL;

	(void)ctx;
	if (strlen(text) >= sizeof(buf)) {
		snprintf(err, errlen, "--%s: list too long", k->name);
		return -1;
	}
	strcpy(buf, text);
	s->nplacements = 0;
	for (char *tok = strtok_r(buf, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save))
		if (add_placement(s, tok, err, errlen))
			return -1;
	if (!s->nplacements) {
		snprintf(err, errlen, "--%s: empty list: the experiment would "
			 "have no cells (give compact, scatter or a CPU list; "
			 "several are separated by spaces)", k->name);
		return -1;
	}
	return 0;
}
