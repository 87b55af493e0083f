// SPDX-License-Identifier: GPL-2.0
/*
 * The members of meta.json that plot, report, compare and merge read,
 * each held to its type when the run is opened, as cells.csv's columns
 * are (columns.c): a member of the wrong type is refused naming its path
 * ("cells_reps[0].rep_start[1] is not a UTC time ..."), so no reader
 * falls back to a default or a "?" for a value that was there. A member
 * that is absent stays accepted: runs written before it existed lack it
 * (results/README.md says which came when). Members no reader reads are
 * not checked. The node distance table and the workloads' plots have
 * checks of their own (read_distances.c, read_plots.c); merge checks the
 * shard record it alone reads (merge/read.c); cells and cells_reps are
 * also held to cells.csv's rows (read_times.c).
 */
#include "rundir/read.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* What a member must be. */
enum want {
	W_OBJECT, W_LIST, W_TEXT,
	W_COUNT,	/* a whole number >= 0 */
	W_INTEGER,	/* a whole number, -1 and below meaning unknown */
	W_NUMBER,	/* any number (JSON has no NaN or infinity) */
	W_SHARE,	/* a number from 0 to 1 */
	W_BOOL,
	W_REPS,		/* a whole number >= 1, or "auto" */
	W_PRIMARY,	/* "throughput" or "latency_p50" */
	W_TIME,		/* a UTC time (fl_rd_utc_seconds), or null */
};

static const char *const wanted[] = {
	[W_OBJECT] = "an object", [W_LIST] = "a list",
	[W_TEXT] = "a string", [W_COUNT] = "a whole number >= 0",
	[W_INTEGER] = "a whole number", [W_NUMBER] = "a number",
	[W_SHARE] = "a share from 0 to 1", [W_BOOL] = "true or false",
	[W_REPS] = "a whole number >= 1 or \"auto\"",
	[W_PRIMARY] = "\"throughput\" or \"latency_p50\"",
	[W_TIME] = "a UTC time YYYY-MM-DDTHH:MM:SS.mmmZ or null",
};

/*
 * A member by its path: names joined by '.', "*" for every member of an
 * object, "[]" for every item of a list. A container comes before its
 * members: a path through a container of the wrong type was refused by
 * the container's own line. required: refused when absent from an
 * object its parent path found.
 */
struct member {
	const char *path;
	enum want want;
	int required;
};

#define M(p, w)		{ (p), (w), 0 }

static const struct member members[] = {
	M("command_line", W_TEXT), M("futexlab_version", W_TEXT),
	M("git_commit", W_TEXT), M("start_time", W_TEXT),
	M("end_time", W_TEXT), M("foreign_cpu_share", W_SHARE),
	M("build", W_OBJECT), M("build.compiler", W_TEXT),
	M("build.cflags", W_TEXT),
	M("machine", W_OBJECT),
	M("machine.hostname", W_TEXT), M("machine.kernel", W_TEXT),
	M("machine.kernel_version", W_TEXT), M("machine.arch", W_TEXT),
	M("machine.cpu_model", W_TEXT), M("machine.governor", W_TEXT),
	M("machine.libc", W_TEXT), M("machine.smt", W_TEXT),
	M("machine.kernel_cmdline", W_TEXT), M("machine.label", W_TEXT),
	M("machine.hypervisor", W_BOOL),
	M("machine.topology", W_OBJECT),
	M("machine.topology.cpus_online", W_COUNT),
	M("machine.topology.cores", W_COUNT),
	M("machine.topology.packages", W_COUNT),
	M("machine.topology.numa_nodes", W_COUNT),
	M("machine.topology.cpus_allowed", W_TEXT),
	M("machine.futex", W_OBJECT),
	M("machine.futex.futex2", W_BOOL),
	M("machine.futex.futex2_numa", W_BOOL),
	M("machine.futex.lock_pi2", W_BOOL),
	M("machine.futex.dev_futexlab", W_BOOL),
	M("machine.futex.private_hash_slots", W_INTEGER),
	M("machine.clock", W_OBJECT), M("machine.clock.read", W_TEXT),
	M("machine.clock.source", W_TEXT),
	M("machine.clock.resolution_ns", W_COUNT),
	M("machine.vulnerabilities", W_OBJECT),
	M("machine.vulnerabilities.*", W_TEXT),
	M("harness_overhead", W_OBJECT),
	M("harness_overhead.clock_read_ns", W_NUMBER),
	M("harness_overhead.empty_iteration_ns", W_NUMBER),
	M("harness_overhead.hist_record_ns", W_NUMBER),
	M("statistics", W_OBJECT),
	M("statistics.confidence", W_SHARE),
	M("statistics.noisy_halfwidth", W_NUMBER),
	M("statistics.percentile_min_beyond", W_COUNT),
	M("load", W_OBJECT), M("load.loadavg_start", W_NUMBER),
	M("load.loadavg_end", W_NUMBER),
	M("cells", W_OBJECT), M("cells.total", W_COUNT),
	M("cells.ok", W_COUNT), M("cells.failed", W_COUNT),
	M("cells.skipped", W_COUNT), M("cells.aborted", W_COUNT),
	M("settings", W_OBJECT), M("settings.duration_ns", W_COUNT),
	M("settings.warmup_ns", W_COUNT), M("settings.reps", W_REPS),
	M("settings.reps_min", W_COUNT), M("settings.reps_max", W_COUNT),
	M("settings.noisy_halfwidth", W_NUMBER),
	M("settings.hash_slots", W_INTEGER),
	M("settings.sample_every", W_COUNT), M("settings.bin_ns", W_COUNT),
	M("cells_reps", W_LIST), M("cells_reps.[]", W_OBJECT),
	{ "cells_reps.[].cell", W_COUNT, 1 },
	M("cells_reps.[].reps", W_COUNT),
	M("cells_reps.[].converged", W_BOOL),
	M("cells_reps.[].host", W_TEXT),
	M("cells_reps.[].rep_start", W_LIST),
	M("cells_reps.[].rep_start.[]", W_TIME),
	M("workloads", W_OBJECT), M("workloads.*", W_OBJECT),
	M("workloads.*.summary", W_TEXT), M("workloads.*.ops_unit", W_TEXT),
	M("workloads.*.latency", W_TEXT), M("workloads.*.fairness", W_BOOL),
	M("workloads.*.primary", W_PRIMARY),
	M("workloads.*.counters", W_LIST),
	M("workloads.*.counters.[]", W_TEXT),
	M("workloads.*.default_sample_every", W_COUNT),
	M("workloads.*.threads", W_TEXT),
	M("workloads.*.latency_is", W_TEXT),
	M("matrix", W_OBJECT), M("matrix.source", W_TEXT),
	M("matrix.fnv1a64", W_TEXT), M("matrix.time_budget_s", W_NUMBER),
	M("matrix.passes", W_COUNT), M("matrix.experiments", W_LIST),
	M("matrix.experiments.[]", W_OBJECT),
	M("matrix.experiments.[].name", W_TEXT),
	M("matrix.experiments.[].settings", W_OBJECT),
	M("merged", W_OBJECT), M("merged.shards", W_COUNT),
	M("merged.runs", W_LIST), M("merged.runs.[]", W_OBJECT),
	M("merged.runs.[].host", W_TEXT),
	M("resumed", W_LIST),
};

static int is_whole(json_t *v, json_int_t min)
{
	return json_is_integer(v) && json_integer_value(v) >= min;
}

static int is_want(json_t *v, enum want w)
{
	double t;

	switch (w) {
	case W_OBJECT:
		return json_is_object(v);
	case W_LIST:
		return json_is_array(v);
	case W_TEXT:
		return json_is_string(v);
	case W_COUNT:
		return is_whole(v, 0);
	case W_INTEGER:
		return json_is_integer(v);
	case W_NUMBER:
		return json_is_number(v);
	case W_SHARE:
		return json_is_number(v) && json_number_value(v) >= 0 &&
		       json_number_value(v) <= 1;
	case W_BOOL:
		return json_is_boolean(v);
	case W_REPS:
		return is_whole(v, 1) || (json_is_string(v) &&
			!strcmp(json_string_value(v), "auto"));
	case W_PRIMARY:
		return json_is_string(v) &&
		       (!strcmp(json_string_value(v), "throughput") ||
			!strcmp(json_string_value(v), "latency_p50"));
	case W_TIME:
		return json_is_null(v) || (json_is_string(v) &&
			fl_rd_utc_seconds(json_string_value(v), &t) == 0);
	}
	return 0;
}

/* A name from the file shown in a one-line message: control characters
 * as '?'. */
static void printable(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

/* The path's next name after *rest, moving *rest past it. */
static void next_name(const char **rest, char *name, size_t len)
{
	size_t n = strcspn(*rest, ".");

	snprintf(name, len, "%.*s", (int)n, *rest);
	*rest += n + ((*rest)[n] == '.');
}

/* The members below v at the path's rest, shown as `shown` so far; 0, or
 * -1 with err. */
static int walk(json_t *v, const char *rest, const struct member *m,
		char *shown, size_t used, size_t len, const char *file,
		char *err, size_t errlen)
{
	char name[64];
	const char *key;
	json_t *x;
	size_t i;

	if (!*rest) {
		if (is_want(v, m->want))
			return 0;
		snprintf(err, errlen, "%s: %s is not %s", file, shown,
			 wanted[m->want]);
		return -1;
	}
	next_name(&rest, name, sizeof(name));
	if (!strcmp(name, "[]")) {
		json_array_foreach(v, i, x) {
			snprintf(shown + used, len - used, "[%zu]", i);
			if (walk(x, rest, m, shown, strlen(shown), len, file,
				 err, errlen))
				return -1;
		}
		return 0;
	}
	if (!strcmp(name, "*")) {
		json_object_foreach(v, key, x) {
			snprintf(shown + used, len - used, ".%.60s", key);
			printable(shown + used);
			if (walk(x, rest, m, shown, strlen(shown), len, file,
				 err, errlen))
				return -1;
		}
		return 0;
	}
	snprintf(shown + used, len - used, "%s%s", used ? "." : "", name);
	x = json_is_object(v) ? json_object_get(v, name) : NULL;
	if (x)
		return walk(x, rest, m, shown, strlen(shown), len, file, err,
			    errlen);
	if (!*rest && m->required && json_is_object(v)) {
		snprintf(err, errlen, "%s: %s is missing (%s)", file, shown,
			 wanted[m->want]);
		return -1;
	}
	return 0;
}

int fl_rd_check_meta(json_t *meta, const char *file, char *err,
		     size_t errlen)
{
	char shown[512];

	for (size_t i = 0; i < sizeof(members) / sizeof(members[0]); i++) {
		*shown = '\0';
		if (walk(meta, members[i].path, &members[i], shown, 0,
			 sizeof(shown), file, err, errlen))
			return -1;
	}
	return 0;
}
