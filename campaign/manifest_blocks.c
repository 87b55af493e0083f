// SPDX-License-Identifier: GPL-2.0
/*
 * A visit campaign's part of campaign.json: "interleave", the matrix's
 * cells and each cell's horizon, the schedule of cells in rounds, every
 * block done (its cell, the sides in the order they ran, each side's
 * figure), the cells stopped, the seconds spent; validated on read like
 * the rest, so an edited manifest cannot make a resume visit a cell the
 * matrix lacks, nor pair what its sides did not run.
 */
#include "campaign/internal.h"

#include <math.h>
#include <string.h>

/* the most loops per microsecond a busy_speed may be (a 100 GHz loop) */
#define BUSY_SPEED_MAX	100000

json_t *campaign_blocks_json(const struct fl_campaign *c)
{
	json_t *b = json_pack("{s:s, s:i, s:i, s:b, s:i, s:i, s:I, s:f, "
			      "s:b, s:[], s:[], s:[]}", "interleave", "visit",
			      "cells", c->ncells, "horizon", c->horizon,
			      "horizon_pending", c->horizon_pending, "family",
			      c->family, "per_run",
			      c->per_run, "busy_speed",
			      (json_int_t)c->busy_speed, "seconds", c->seconds,
			      "ended", c->blocks_ended, "schedule", "blocks",
			      "stopped");
	json_t *sched = json_object_get(b, "schedule");
	json_t *blocks = json_object_get(b, "blocks");

	for (unsigned int i = 0; i < c->nsched; i++)
		json_array_append_new(sched, json_integer(c->sched[i]));
	for (unsigned int i = 0; i < c->nblocks; i++) {
		const struct fl_campaign_block *k = &c->block[i];
		json_t *order = json_array(), *fig = json_object();
		json_t *cpu = json_object();

		for (unsigned int s = 0; s < c->nsides; s++) {
			json_array_append_new(order, json_string(
				c->side[k->order[s]].name));
			json_object_set_new(fig, c->side[s].name,
					    json_real(k->fig[s]));
			json_object_set_new(cpu, c->side[s].name,
					    isnan(k->cpu[s]) ? json_null() :
					    json_real(k->cpu[s]));
		}
		json_array_append_new(blocks, json_pack(
			"{s:i, s:i, s:s, s:o, s:o, s:o, s:b}", "cell", k->cell,
			"run", k->run, "figure",
			k->latency ? "p50_ns" : "ops_per_sec",
			"order", order, "values", fig, "cpu_ns_per_op", cpu,
			"contaminated", k->contaminated));
	}
	for (unsigned int i = 0; i < c->ncells; i++)
		if (c->stopped[i])
			json_array_append_new(json_object_get(b, "stopped"),
					      json_integer(i));
	return b;
}

/* A family fixed once counts every cell a first visit did not stop
 * (blocks.c), and a cell stops for good: fewer calls than the cells
 * still visited make would judge each at more than its share of alpha.
 * 1 with err when c's is so. */
static int family_short(const struct fl_campaign *c, const char *file,
			char *err, size_t errlen)
{
	unsigned int calls = campaign_live_calls(c);

	if (!c->family || c->family >= calls)
		return 0;
	snprintf(err, errlen, "%s: family: %u calls, fewer than the %u the "
		 "cells still visited make", file, c->family, calls);
	return 1;
}

/* an integer member of o from lo to hi into *v */
static int get_uint(json_t *o, const char *key, unsigned int lo,
		    unsigned int hi, unsigned int *v)
{
	json_t *x = json_object_get(o, key);

	if (!json_is_integer(x) || json_integer_value(x) < lo ||
	    json_integer_value(x) > hi)
		return -1;
	*v = (unsigned int)json_integer_value(x);
	return 0;
}

/* block i of the manifest, its cell the schedule's i-th */
static int load_block(json_t *o, struct fl_campaign *c, unsigned int i,
		      const char *where, char *err, size_t errlen)
{
	struct fl_campaign_block *k = &c->block[i];
	json_t *order = json_object_get(o, "order");
	json_t *vals = json_object_get(o, "values");
	json_t *fig = json_object_get(o, "figure");
	json_t *cpu = json_object_get(o, "cpu_ns_per_op");
	json_t *dirty = json_object_get(o, "contaminated");
	unsigned int seen = 0;

	if (!json_is_object(o) || get_uint(o, "cell", 0, c->ncells - 1,
					   &k->cell) ||
	    k->cell != c->sched[i] || !json_is_string(fig) ||
	    json_array_size(order) != c->nsides ||
	    json_object_size(vals) != c->nsides ||
	    !json_is_object(cpu) || !json_is_boolean(dirty)) {
		snprintf(err, errlen, "%s: not a block of the schedule's cell "
			 "with an order, a value and a CPU time for each side, "
			 "and whether it was contaminated", where);
		return -1;
	}
	/* no "run": a manifest from before runs were rolled over */
	if (json_object_get(o, "run") &&
	    get_uint(o, "run", i ? c->block[i - 1].run : 0,
		     c->nslots / c->nsides - 1, &k->run)) {
		snprintf(err, errlen, "%s.run: not a round of the slots, from "
			 "the block before's on", where);
		return -1;
	}
	k->contaminated = json_is_true(dirty);
	k->latency = !strcmp(json_string_value(fig), "p50_ns");
	if (!k->latency && strcmp(json_string_value(fig), "ops_per_sec")) {
		snprintf(err, errlen, "%s.figure: not ops_per_sec or p50_ns",
			 where);
		return -1;
	}
	for (unsigned int s = 0; s < c->nsides; s++) {
		const char *name = json_string_value(json_array_get(order, s));
		json_t *v = json_object_get(vals, c->side[s].name);
		json_t *u = json_object_get(cpu, c->side[s].name);
		unsigned int t;

		k->cpu[s] = json_is_number(u) ? json_number_value(u) : NAN;
		if (!json_is_null(u) && !(k->cpu[s] > 0 &&
					  isfinite(k->cpu[s]))) {
			snprintf(err, errlen, "%s.cpu_ns_per_op: side %s's is "
				 "not null or a CPU time", where,
				 c->side[s].name);
			return -1;
		}
		for (t = 0; name && t < c->nsides; t++)
			if (!strcmp(c->side[t].name, name))
				break;
		if (!name || t == c->nsides || seen & (1u << t) ||
		    !json_is_number(v) || !isfinite(json_number_value(v)) ||
		    !(json_number_value(v) > 0)) {
			snprintf(err, errlen, "%s: the order is not every side "
				 "once, or the values not a figure for each side",
				 where);
			return -1;
		}
		seen |= 1u << t;
		k->order[s] = (unsigned char)t;
		k->fig[s] = json_number_value(v);
	}
	return 0;
}

/* no run holds more than per_run blocks of cell; 0, or -1 with err */
static int too_many_in_a_run(const struct fl_campaign *c, unsigned int cell,
			     const char *file, char *err, size_t errlen)
{
	unsigned int n = 0, run = 0;

	/* the blocks' runs never go back (load_block) */
	for (unsigned int b = 0; b < c->nblocks; b++) {
		const struct fl_campaign_block *k = &c->block[b];

		if (k->cell != cell)
			continue;
		n = k->run == run ? n + 1 : 1;
		run = k->run;
		if (n > c->per_run) {
			snprintf(err, errlen, "%s: blocks[%u]: run %u holds "
				 "%u visits of cell %u, more than its %u", file,
				 b, k->run, n, cell, c->per_run);
			return -1;
		}
	}
	return 0;
}

int campaign_blocks_load(json_t *m, struct fl_campaign *c, const char *file,
			 char *err, size_t errlen)
{
	json_t *il = json_object_get(m, "interleave"), *v;
	json_t *sched, *blocks, *stopped, *secs, *ended;
	char where[4300];
	size_t i;

	if (!il)
		return 0;	/* a campaign of runs */
	if (!json_is_string(il) || strcmp(json_string_value(il), "visit")) {
		snprintf(err, errlen, "%s: interleave: not \"visit\"", file);
		return -1;
	}
	c->visit = 1;
	if (c->nslots < c->nsides) {
		snprintf(err, errlen, "%s: slots: a visit campaign has a run "
			 "of every side", file);
		return -1;
	}
	sched = json_object_get(m, "schedule");
	blocks = json_object_get(m, "blocks");
	stopped = json_object_get(m, "stopped");
	secs = json_object_get(m, "seconds");
	ended = json_object_get(m, "ended");
	if (get_uint(m, "cells", 1, FL_CAMPAIGN_MAX_CELLS, &c->ncells) ||
	    get_uint(m, "horizon", 1, FL_CAMPAIGN_MAX_BLOCKS, &c->horizon) ||
	    !json_is_number(secs) || !(json_number_value(secs) >= 0) ||
	    !(json_number_value(secs) < 1e9) || !json_is_boolean(ended) ||
	    !json_is_array(sched) ||
	    json_array_size(sched) > FL_CAMPAIGN_MAX_BLOCKS ||
	    !json_is_array(blocks) ||
	    json_array_size(blocks) > json_array_size(sched) ||
	    !json_is_array(stopped)) {
		snprintf(err, errlen, "%s: cells, horizon, seconds, ended, "
			 "schedule, blocks or stopped missing or out of range",
			 file);
		return -1;
	}
	/* a manifest from before: a run held every block of a cell */
	c->per_run = c->horizon;
	if (json_object_get(m, "per_run") &&
	    get_uint(m, "per_run", 1, FL_CAMPAIGN_MAX_BLOCKS, &c->per_run)) {
		snprintf(err, errlen, "%s: per_run: not a count of visits of "
			 "1 to %d", file, FL_CAMPAIGN_MAX_BLOCKS);
		return -1;
	}
	/* absent in a manifest from before: its horizon was fixed when it
	 * was made */
	v = json_object_get(m, "horizon_pending");
	if (v && !json_is_boolean(v)) {
		snprintf(err, errlen, "%s: horizon_pending: not true or false",
			 file);
		return -1;
	}
	c->horizon_pending = json_is_true(v);
	/* absent in a manifest from before: its cells' calls shared the
	 * alpha of the cells visited (blocks.c counts them) */
	c->family = 0;
	if (json_object_get(m, "family") &&
	    get_uint(m, "family", 0, c->ncells * (c->nsides - 1),
		     &c->family)) {
		snprintf(err, errlen, "%s: family: not a count of calls of 0 "
			 "to %u", file, c->ncells * (c->nsides - 1));
		return -1;
	}
	v = json_object_get(m, "busy_speed");
	if (v && (!json_is_integer(v) || json_integer_value(v) < 0 ||
		  json_integer_value(v) > BUSY_SPEED_MAX)) {
		snprintf(err, errlen, "%s: busy_speed: not loops per us of 0 "
			 "to %d", file, BUSY_SPEED_MAX);
		return -1;
	}
	c->busy_speed = v ? (uint64_t)json_integer_value(v) : 0;
	c->seconds = json_number_value(secs);
	c->blocks_ended = json_is_true(ended);
	json_array_foreach(sched, i, v) {
		unsigned int cell;

		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) >= c->ncells) {
			snprintf(err, errlen, "%s: schedule[%zu]: not a cell "
				 "of the %u", file, i, c->ncells);
			return -1;
		}
		cell = (unsigned int)json_integer_value(v);
		c->sched[i] = (unsigned short)cell;
	}
	c->nsched = (unsigned int)json_array_size(sched);
	json_array_foreach(blocks, i, v) {
		snprintf(where, sizeof(where), "%s: blocks[%zu]", file, i);
		if (load_block(v, c, (unsigned int)i, where, err, errlen))
			return -1;
	}
	c->nblocks = (unsigned int)json_array_size(blocks);
	json_array_foreach(stopped, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) >= c->ncells) {
			snprintf(err, errlen, "%s: stopped[%zu]: not a cell of "
				 "the %u", file, i, c->ncells);
			return -1;
		}
		c->stopped[json_integer_value(v)] = 1;
	}
	if (family_short(c, file, err, errlen))
		return -1;
	/* a cell with more blocks than its horizon, or a run with more
	 * visits of it than a run holds: not the campaign's */
	for (unsigned int cell = 0; cell < c->ncells; cell++) {
		unsigned int n = 0;

		for (unsigned int b = 0; b < c->nsched; b++)
			n += c->sched[b] == cell;
		if (n > c->horizon) {
			snprintf(err, errlen, "%s: schedule: cell %u has %u "
				 "blocks, beyond its horizon of %u", file, cell,
				 n, c->horizon);
			return -1;
		}
		if (too_many_in_a_run(c, cell, file, err, errlen))
			return -1;
	}
	return 0;
}
