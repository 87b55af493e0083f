// SPDX-License-Identifier: GPL-2.0
/* campaign.json: written whole after every run, validated on every read
 * (campaign.h says what it holds). */
#include "campaign/internal.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rundir/regular.h"
#include "rundir/write_at.h"

#define SCHEMA		"futexlab-campaign/1"
#define MANIFEST_MAX	(4u << 20)

static json_t *side_json(const struct fl_campaign_side *s)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:s}",
			 "name", s->name, "why", s->why, "bin", s->bin,
			 "commit", s->commit, "kernel", s->kernel, "set",
			 s->set, "sysctl", s->sysctl, "nice", s->nice,
			 "hogs", s->hogs, "modparam", s->modparam);
}

static json_t *slot_json(const struct fl_campaign *c,
			 const struct fl_campaign_slot *s)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "side",
			 c->side[s->side].name, "run", s->run, "start_time",
			 s->start_time, "matrix_fnv1a64", s->matrix_hash,
			 "host", s->host, "kernel", s->kernel, "build",
			 s->build);
}

int fl_campaign_save(int dirfd, const char *dir,
		     const struct fl_campaign *c, char *err, size_t errlen)
{
	json_t *m = json_pack("{s:s, s:I, s:i, s:i, s:f, s:b, s:f, s:s, s:s, "
			      "s:s, s:[], s:[]}", "schema", SCHEMA, "seed",
			      (json_int_t)c->seed, "rounds", c->rounds,
			      "max_rounds", c->max_rounds, "time_budget_s",
			      c->time_budget_s, "stop_when_decided",
			      c->stop_when_decided, "delta", c->delta,
			      "setting", c->setting, "repo", c->repo, "vm",
			      c->vm, "sides", "slots");
	char shown[4200], *text;
	int rc = -1;

	if (!m)
		goto out;
	for (unsigned int i = 0; i < c->nsides; i++)
		json_array_append_new(json_object_get(m, "sides"),
				      side_json(&c->side[i]));
	for (unsigned int i = 0; i < c->nslots; i++)
		json_array_append_new(json_object_get(m, "slots"),
				      slot_json(c, &c->slot[i]));
	if (c->visit) {
		json_t *b = campaign_blocks_json(c);

		json_object_update(m, b);
		json_decref(b);
	}
	if (c->nsaved) {
		json_t *saved = json_array();

		for (unsigned int i = 0; i < c->nsaved; i++)
			json_array_append_new(saved, json_pack(
				"{s:s, s:s, s:s}", "side",
				c->side[c->saved[i].side].name, "kind",
				campaign_kind_name(c->saved[i].kind), "value",
				c->saved[i].value));
		json_object_set_new(m, "saved", saved);
	}
	text = json_dumps(m, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	snprintf(shown, sizeof(shown), "%s/%s", dir, FL_CAMPAIGN_MANIFEST);
	if (text) {
		size_t len = strlen(text);

		rc = fl_write_at(dirfd, FL_CAMPAIGN_MANIFEST, shown, text,
				 len, err, errlen);
		free(text);
	}
out:
	if (rc && !*err)
		snprintf(err, errlen, "%s/%s: out of memory", dir,
			 FL_CAMPAIGN_MANIFEST);
	json_decref(m);
	return rc;
}

/* A string member of o of at most len - 1 characters into buf. */
static int get_str(json_t *o, const char *key, char *buf, size_t len,
		   const char *where, char *err, size_t errlen)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_string(v) || json_string_length(v) >= len ||
	    strlen(json_string_value(v)) != json_string_length(v)) {
		snprintf(err, errlen, "%s.%s: not a string of at most %zu "
			 "characters", where, key, len - 1);
		return -1;
	}
	snprintf(buf, len, "%s", json_string_value(v));
	return 0;
}

/* A side as its flag would give it, so that the flag's checks apply. */
static int load_side(json_t *o, struct fl_campaign_side *s,
		     const char *where, char *err, size_t errlen)
{
	static const char *const kinds[] = { "bin", "commit", "kernel",
					     "set", "sysctl", "modparam" };
	char spec[16384], val[4096], name[64], why[512];
	size_t used;
	json_t *nice = json_object_get(o, "nice");
	json_t *hogs = json_object_get(o, "hogs");

	if (!json_is_object(o) || get_str(o, "name", name, sizeof(name),
					  where, err, errlen))
		return -1;
	used = (size_t)snprintf(spec, sizeof(spec), "%s:", name);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (get_str(o, kinds[i], val, sizeof(val), where, err, errlen))
			return -1;
		if (*val && used < sizeof(spec))
			used += (size_t)snprintf(spec + used,
						 sizeof(spec) - used, "%s=%s,",
						 kinds[i], val);
	}
	if (!json_is_integer(nice) || !json_is_integer(hogs)) {
		snprintf(err, errlen, "%s: nice or hogs not an integer",
			 where);
		return -1;
	}
	if (used < sizeof(spec))
		snprintf(spec + used, sizeof(spec) - used, "nice=%lld,hogs=%lld",
			 (long long)json_integer_value(nice),
			 (long long)json_integer_value(hogs));
	if (fl_campaign_parse_side(spec, s, why, sizeof(why))) {
		snprintf(err, errlen, "%s: %s", where, why);
		return -1;
	}
	return 0;
}

static int load_slot(json_t *o, struct fl_campaign *c, unsigned int i,
		     const char *where, char *err, size_t errlen)
{
	struct fl_campaign_slot *s = &c->slot[i];
	char side[64], want[64];

	if (!json_is_object(o) ||
	    get_str(o, "side", side, sizeof(side), where, err, errlen) ||
	    get_str(o, "run", s->run, sizeof(s->run), where, err, errlen) ||
	    get_str(o, "start_time", s->start_time, sizeof(s->start_time),
		    where, err, errlen) ||
	    get_str(o, "matrix_fnv1a64", s->matrix_hash,
		    sizeof(s->matrix_hash), where, err, errlen) ||
	    get_str(o, "host", s->host, sizeof(s->host), where, err,
		    errlen) ||
	    get_str(o, "kernel", s->kernel, sizeof(s->kernel), where, err,
		    errlen) ||
	    get_str(o, "build", s->build, sizeof(s->build), where, err,
		    errlen))
		return -1;
	for (s->side = 0; s->side < c->nsides; s->side++)
		if (!strcmp(c->side[s->side].name, side))
			break;
	if (s->side == c->nsides) {
		snprintf(err, errlen, "%s.side: '%s' is no side of the "
			 "campaign", where, side);
		return -1;
	}
	snprintf(want, sizeof(want), "runs/%02u-%s", i + 1, side);
	if (*s->run && strcmp(s->run, want)) {
		snprintf(err, errlen, "%s.run: '%s' is not %s, the name its "
			 "slot gives", where, s->run, want);
		return -1;
	}
	if (*s->run && (!*s->start_time || !*s->matrix_hash)) {
		snprintf(err, errlen, "%s: a finished run without its start "
			 "time and matrix", where);
		return -1;
	}
	return 0;
}

static int load_sides(json_t *m, struct fl_campaign *c, const char *file,
		      char *err, size_t errlen)
{
	json_t *sides = json_object_get(m, "sides"), *v;
	size_t i;
	char where[4300];

	if (!json_is_array(sides) || json_array_size(sides) < 2 ||
	    json_array_size(sides) > FL_CAMPAIGN_MAX_SIDES) {
		snprintf(err, errlen, "%s: sides: not an array of 2 to %d "
			 "sides", file, FL_CAMPAIGN_MAX_SIDES);
		return -1;
	}
	json_array_foreach(sides, i, v) {
		snprintf(where, sizeof(where), "%s: sides[%zu]", file, i);
		if (load_side(v, &c->side[i], where, err, errlen))
			return -1;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(c->side[j].name, c->side[i].name)) {
				snprintf(err, errlen, "%s: two sides named "
					 "%s", where, c->side[i].name);
				return -1;
			}
	}
	c->nsides = (unsigned int)json_array_size(sides);
	return 0;
}

static int load_settings(json_t *m, struct fl_campaign *c, const char *file,
			 char *err, size_t errlen)
{
	json_t *seed = json_object_get(m, "seed");
	json_t *rounds = json_object_get(m, "rounds");
	json_t *max = json_object_get(m, "max_rounds");
	json_t *budget = json_object_get(m, "time_budget_s");
	json_t *delta = json_object_get(m, "delta");
	json_t *stop = json_object_get(m, "stop_when_decided");

	if (!json_is_integer(seed) || json_integer_value(seed) < 0 ||
	    !json_is_integer(rounds) || json_integer_value(rounds) < 1 ||
	    !json_is_integer(max) ||
	    json_integer_value(max) < json_integer_value(rounds) ||
	    json_integer_value(max) > FL_CAMPAIGN_MAX_ROUNDS ||
	    !json_is_number(budget) || !(json_number_value(budget) >= 0) ||
	    !json_is_number(delta) || !(json_number_value(delta) > 0) ||
	    !(json_number_value(delta) < 1) || !json_is_boolean(stop)) {
		snprintf(err, errlen, "%s: seed, rounds, max_rounds, "
			 "time_budget_s, delta or stop_when_decided missing or "
			 "out of range", file);
		return -1;
	}
	c->seed = (uint64_t)json_integer_value(seed);
	c->rounds = (unsigned int)json_integer_value(rounds);
	c->max_rounds = (unsigned int)json_integer_value(max);
	c->time_budget_s = json_number_value(budget);
	c->delta = json_number_value(delta);
	c->stop_when_decided = json_is_true(stop);
	return get_str(m, "setting", c->setting, sizeof(c->setting), file,
		       err, errlen) ||
	       get_str(m, "repo", c->repo, sizeof(c->repo), file, err,
		       errlen) ||
	       get_str(m, "vm", c->vm, sizeof(c->vm), file, err, errlen);
}

/* "saved": the values a killed campaign left to put back, each of a
 * setting its side declares (so no other file is ever written) and a
 * value of printable characters or tabs, as the file gave it */
static int load_saved(json_t *m, struct fl_campaign *c, const char *file,
		      char *err, size_t errlen)
{
	json_t *saved = json_object_get(m, "saved"), *v;
	char where[4300], side[64], kind[16];
	size_t i;

	c->nsaved = 0;
	if (!saved)
		return 0;
	if (!json_is_array(saved) || json_array_size(saved) > 2) {
		snprintf(err, errlen, "%s: saved: not an array of at most 2 "
			 "values", file);
		return -1;
	}
	json_array_foreach(saved, i, v) {
		struct fl_campaign_saved *s = &c->saved[i];
		unsigned int k;

		snprintf(where, sizeof(where), "%s: saved[%zu]", file, i);
		if (!json_is_object(v) ||
		    get_str(v, "side", side, sizeof(side), where, err,
			    errlen) ||
		    get_str(v, "kind", kind, sizeof(kind), where, err,
			    errlen) ||
		    get_str(v, "value", s->value, sizeof(s->value), where,
			    err, errlen))
			return -1;
		for (k = 0; k < c->nsides && strcmp(c->side[k].name, side);)
			k++;
		s->side = k;
		s->kind = !strcmp(kind, "modparam") ? FL_CAMPAIGN_MODPARAM :
			  FL_CAMPAIGN_SYSCTL;
		if (k == c->nsides || (strcmp(kind, "sysctl") &&
				       strcmp(kind, "modparam")) ||
		    !*campaign_setting(&c->side[k], s->kind)) {
			snprintf(err, errlen, "%s: not a sysctl or modparam "
				 "of a side of the campaign", where);
			return -1;
		}
		for (const char *p = s->value; *p; p++)
			if ((*p < 0x20 && *p != '\t') || *p > 0x7e) {
				snprintf(err, errlen, "%s.value: not printable",
					 where);
				return -1;
			}
	}
	c->nsaved = (unsigned int)json_array_size(saved);
	return 0;
}

int fl_campaign_load(int dirfd, const char *dir, struct fl_campaign *c,
		     char *err, size_t errlen)
{
	char file[4200], where[4300], *text = NULL;
	json_t *m = NULL, *slots, *schema, *v;
	json_error_t je;
	size_t len, i;
	struct fl_campaign_cmd cmd = c->cmd;	/* the command's stays */
	int rc = -1;

	memset(c, 0, sizeof(*c));
	c->cmd = cmd;
	snprintf(file, sizeof(file), "%s/%s", dir, FL_CAMPAIGN_MANIFEST);
	if (fl_read_regular(dirfd, FL_CAMPAIGN_MANIFEST, file, FL_NOFOLLOW,
			    MANIFEST_MAX, &text, &len, err, errlen))
		return -1;
	m = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!json_is_object(m)) {
		snprintf(err, errlen, "%s:%d: not a campaign manifest: %s",
			 file, je.line, m ? "not an object" : je.text);
		goto out;
	}
	schema = json_object_get(m, "schema");
	if (!json_is_string(schema) ||
	    strcmp(json_string_value(schema), SCHEMA)) {
		snprintf(err, errlen, "%s: schema is not %s", file, SCHEMA);
		goto out;
	}
	if (load_settings(m, c, file, err, errlen) ||
	    load_sides(m, c, file, err, errlen) ||
	    load_saved(m, c, file, err, errlen))
		goto out;
	slots = json_object_get(m, "slots");
	if (!json_is_array(slots) ||
	    json_array_size(slots) > FL_CAMPAIGN_MAX_SLOTS ||
	    json_array_size(slots) % c->nsides) {
		snprintf(err, errlen, "%s: slots: not an array of whole "
			 "rounds of the %u sides", file, c->nsides);
		goto out;
	}
	json_array_foreach(slots, i, v) {
		snprintf(where, sizeof(where), "%s: slots[%zu]", file, i);
		if (load_slot(v, c, (unsigned int)i, where, err, errlen))
			goto out;
	}
	c->nslots = (unsigned int)json_array_size(slots);
	/* after the slots: a block names the round of runs it went to */
	if (campaign_blocks_load(m, c, file, err, errlen))
		goto out;
	rc = 0;
out:
	json_decref(m);
	free(text);
	return rc;
}
