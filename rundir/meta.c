// SPDX-License-Identifier: GPL-2.0
/* Building meta.json with jansson. */
#include "rundir/meta.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "measure/cell.h"
#include "stats/stats.h"
#include "version.h"
#include "spec/workload.h"

void fl_utc_now(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

json_t *fl_machine_json(const struct fl_machine *m)
{
	json_t *nodes = json_array();

	for (unsigned int n = 0; n < m->nnodes; n++)
		json_array_append_new(nodes, json_pack("{s:i, s:s, s:I}",
			"node", (int)n, "cpus", m->node_cpus[n],
			"mem_mb", (json_int_t)m->node_mem_mb[n]));
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s,"
			 " s:{s:i, s:i, s:i, s:i, s:b, s:o},"
			 " s:{s:b, s:b, s:b, s:I, s:b, s:{s:s, s:s}},"
			 " s:{s:I, s:I}}",
			 "hostname", m->hostname, "kernel", m->kernel,
			 "kernel_version", m->kernel_version, "arch", m->arch,
			 "cpu_model", m->cpu_model, "governor", m->governor,
			 "topology", "cpus_online", (int)m->ncpus_online,
			 "cores", (int)m->ncores, "packages", (int)m->npackages,
			 "numa_nodes", (int)m->nnodes,
			 "numa_available", m->numa_available, "nodes", nodes,
			 "futex", "futex2", m->futex2,
			 "futex2_numa", m->futex2_numa,
			 "lock_pi2", m->futex_lock_pi2,
			 "private_hash_slots", (json_int_t)m->hash_slots,
			 "dev_futexlab", m->dev_futexlab,
			 "futexlab_module", "version", m->kmod_version,
			 "parameters", m->kmod_params,
			 "rt_throttling", "sched_rt_runtime_us",
			 (json_int_t)m->rt_runtime_us,
			 "sched_rt_period_us", (json_int_t)m->rt_period_us);
}

json_t *fl_meta_new(int argc, char **argv, const struct fl_machine *m,
		    const struct fl_overhead *o, uint64_t seed)
{
	json_t *args = json_array();
	char line[4096] = "", start[32];
	size_t used = 0;

	for (int i = 0; i < argc; i++) {
		json_array_append_new(args, json_string(argv[i]));
		if (used < sizeof(line))
			used += (size_t)snprintf(line + used,
						 sizeof(line) - used, "%s%s",
						 i ? " " : "", argv[i]);
	}
	fl_utc_now(start, sizeof(start));
	return json_pack("{s:i, s:s, s:o, s:s, s:s, s:o, s:I, s:s,"
			 " s:{s:f, s:f, s:f, s:I}, s:f}",
			 "schema", FL_RESULTS_SCHEMA,
			 "command_line", line, "argv", args,
			 "futexlab_version", FL_VERSION,
			 "git_commit", FL_GIT_COMMIT,
			 "machine", fl_machine_json(m),
			 "seed", (json_int_t)seed,
			 "start_time", start,
			 "harness_overhead",
			 "clock_read_ns", o->clock_read_ns,
			 "empty_iteration_ns", o->empty_iteration_ns,
			 "hist_record_ns", o->hist_record_ns,
			 "busy_loops_per_us", (json_int_t)o->busy_loops_per_us,
			 "noisy_spread_threshold", FL_NOISY_SPREAD);
}

void fl_meta_finish(json_t *meta, unsigned int ncells,
		    const unsigned int *by_status, int interrupted)
{
	char end[32];

	fl_utc_now(end, sizeof(end));
	json_object_set_new(meta, "end_time", json_string(end));
	json_object_set_new(meta, "interrupted", json_boolean(interrupted));
	json_object_set_new(meta, "cells", json_pack("{s:i, s:i, s:i, s:i, s:i}",
		"total", (int)ncells, "ok", (int)by_status[FL_STATUS_OK],
		"failed", (int)by_status[FL_STATUS_FAILED],
		"skipped", (int)by_status[FL_STATUS_SKIPPED],
		"aborted", (int)by_status[FL_STATUS_ABORTED]));
}

void fl_meta_add_workload(json_t *meta, const struct fl_workload *w)
{
	json_t *all = json_object_get(meta, "workloads");
	json_t *counters;

	if (!all) {
		all = json_object();
		json_object_set_new(meta, "workloads", all);
	}
	if (json_object_get(all, w->name))
		return;
	counters = json_array();
	for (unsigned int c = 0; c < w->ncounters; c++)
		json_array_append_new(counters,
				      json_string(w->counters[c].name));
	json_object_set_new(all, w->name, json_pack(
		"{s:s, s:s, s:s, s:o, s:b, s:i}", "summary", w->summary,
		"ops_unit", w->ops_unit, "latency", w->latency,
		"counters", counters, "fairness", !w->ops_by_one_thread,
		"default_sample_every",
		(int)(w->sample_every ? w->sample_every : 1)));
}
