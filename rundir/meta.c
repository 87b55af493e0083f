// SPDX-License-Identifier: GPL-2.0
/* Building meta.json with jansson. */
#include "rundir/meta.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "buildinfo.h"
#include "base/result.h"
#include "rundir/columns.h"
#include "spec/spec.h"
#include "stats/percentile.h"
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

/* The facts of measure/facts.c, under machine. */
static void add_rerun_facts(json_t *machine, const struct fl_rerun_facts *f)
{
	json_t *vulns = json_object();

	for (unsigned int i = 0; i < f->nvulns; i++)
		json_object_set_new(vulns, f->vuln_name[i],
				    json_string(f->vuln_state[i]));
	json_object_set_new(machine, "libc", json_string(f->libc));
	json_object_set_new(machine, "clock", json_pack("{s:s, s:s, s:I}",
		"read", "CLOCK_MONOTONIC", "source", f->clocksource,
		"resolution_ns", (json_int_t)f->clock_res_ns));
	json_object_set_new(machine, "smt", json_string(f->smt));
	json_object_set_new(machine, "hypervisor",
			    json_boolean(f->hypervisor));
	json_object_set_new(machine, "kernel_cmdline",
			    json_string(f->cmdline));
	json_object_set_new(machine, "vulnerabilities", vulns);
}

void fl_utc_now_ms(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	char s[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03ldZ", s, ts.tv_nsec / 1000000);
}

static json_t *distances_json(const struct fl_distances *d)
{
	json_t *rows = json_array();

	for (unsigned int i = 0; i < d->n; i++) {
		json_t *row = json_array();

		for (unsigned int j = 0; j < d->n; j++)
			json_array_append_new(row, json_integer(d->d[i][j]));
		json_array_append_new(rows, row);
	}
	return rows;
}

json_t *fl_machine_json(const struct fl_machine *m)
{
	json_t *nodes = json_array(), *machine;

	for (unsigned int n = 0; n < m->nnodes; n++)
		json_array_append_new(nodes, json_pack("{s:i, s:s, s:I}",
			"node", (int)n, "cpus", m->node_cpus[n],
			"mem_mb", (json_int_t)m->node_mem_mb[n]));
	machine = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s,"
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
	add_rerun_facts(machine, &m->rerun);
	/* what the cells were placed in (absent in older runs) */
	json_object_set_new(json_object_get(machine, "topology"),
			    "cpus_allowed", json_string(m->cpus_allowed));
	/* the node distance table, a row per node (absent when unknown,
	 * and in older runs) */
	if (m->distances.n)
		json_object_set_new(json_object_get(machine, "topology"),
				    "numa_distances",
				    distances_json(&m->distances));
	if (m->label[0])
		json_object_set_new(machine, "label", json_string(m->label));
	return machine;
}

json_t *fl_meta_argv_json(int argc, char *const *argv)
{
	json_t *args = json_array();

	for (int i = 0; i < argc; i++)
		json_array_append_new(args, json_string(argv[i]));
	return args;
}

void fl_meta_set_command(json_t *meta, int argc, char **argv)
{
	char line[4096] = "";
	size_t used = 0;

	for (int i = 0; i < argc; i++) {
		if (used < sizeof(line))
			used += (size_t)snprintf(line + used,
						 sizeof(line) - used, "%s%s",
						 i ? " " : "", argv[i]);
	}
	json_object_set_new(meta, "argv", fl_meta_argv_json(argc, argv));
	json_object_set_new(meta, "command_line", json_string(line));
}

json_t *fl_meta_new(int argc, char **argv, const struct fl_machine *m,
		    const struct fl_overhead *o, uint64_t seed)
{
	char start[32];
	json_t *meta;

	fl_utc_now(start, sizeof(start));
	meta = json_pack("{s:i, s:s, s:s, s:{s:s, s:s}, s:o, s:I,"
			 " s:s, s:{s:f, s:f, s:f, s:I, s:f, s:f},"
			 " s:{s:f, s:f, s:i, s:i, s:s}}",
			 "schema", FL_RESULTS_SCHEMA,
			 "futexlab_version", FL_VERSION,
			 "git_commit", FL_GIT_COMMIT,
			 "build", "compiler", __VERSION__,
			 "cflags", FL_BUILD_CFLAGS,
			 "machine", fl_machine_json(m),
			 "seed", (json_int_t)seed,
			 "start_time", start,
			 "harness_overhead",
			 "clock_read_ns", o->clock_read_ns,
			 "empty_iteration_ns", o->empty_iteration_ns,
			 "hist_record_ns", o->hist_record_ns,
			 "busy_loops_per_us", (json_int_t)o->busy_loops_per_us,
			 "counting_open_ns", o->counting.open_ns,
			 "counting_read_ns", o->counting.read_ns,
			 "statistics", "confidence", FL_CONFIDENCE,
			 "noisy_halfwidth", FL_NOISY_HALFWIDTH,
			 "ci_min_reps", FL_CI_MIN_N,
			 "percentile_min_beyond", FL_PCT_MIN_BEYOND,
			 "percentile", "nearest rank of the merged histogram");
	if (meta)
		fl_meta_set_command(meta, argc, argv);
	return meta;
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

/* A descriptor's figure as the cells.csv column it is read from. */
static const enum fl_col figure_column[] = {
	[FL_FIG_OPS] = FL_COL_OPS_PER_SEC,
	[FL_FIG_P50] = FL_COL_P50,
	[FL_FIG_P99] = FL_COL_P99,
	[FL_FIG_P999] = FL_COL_P999,
	[FL_FIG_JAIN] = FL_COL_JAIN,
	[FL_FIG_EXTRA] = FL_COL_EXTRA,
};

/* Set key to s, unless s is NULL (the reader's default then holds). */
static void set_str(json_t *o, const char *key, const char *s)
{
	if (s)
		json_object_set_new(o, key, json_string(s));
}

static json_t *special_json(const struct fl_special_plot *sp)
{
	json_t *panels = json_array(), *o;

	for (unsigned int i = 0; i < 2; i++) {
		const struct fl_plot_panel *pn = &sp->panels[i];

		o = json_pack("{s:s, s:s}", "figure",
			      fl_col_name(figure_column[pn->fig]),
			      "title", pn->title);
		if (pn->fig == FL_FIG_EXTRA)
			set_str(o, "counter", pn->extra);
		set_str(o, "ylabel", pn->ylabel);
		json_array_append_new(panels, o);
	}
	o = json_pack("{s:s, s:s, s:s, s:o, s:s}", "name", sp->name,
		      "option", sp->option, "title", sp->title,
		      "panels", panels, "caption", sp->caption);
	set_str(o, "ylabel", sp->ylabel);
	return o;
}

json_t *fl_meta_plots_json(const struct fl_workload *w)
{
	json_t *special = json_array();

	if (w->plot)
		json_array_append_new(special, special_json(w->plot));
	return json_pack("{s:i, s:o}", "version", FL_PLOTS_VERSION,
			 "special", special);
}

void fl_meta_add_workload(json_t *meta, const struct fl_workload *w)
{
	json_t *all = json_object_get(meta, "workloads");
	json_t *counters, *entry;

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
	entry = json_pack("{s:s, s:s, s:s, s:o, s:b, s:i, s:s, s:o}",
		"summary", w->summary,
		"ops_unit", w->ops_unit, "latency", w->latency,
		"counters", counters, "fairness", !w->ops_by_one_thread,
		"default_sample_every",
		(int)(w->sample_every ? w->sample_every : 1),
		"primary", w->primary == FL_PRIMARY_LATENCY_P50 ?
		"latency_p50" : "throughput", "plots", fl_meta_plots_json(w));
	if (entry && w->threads_are)
		json_object_set_new(entry, "threads",
				    json_string(w->threads_are));
	if (entry && w->latency_is)
		json_object_set_new(entry, "latency_is",
				    json_string(w->latency_is));
	json_object_set_new(all, w->name, entry);
}

json_t *fl_meta_settings(const struct fl_spec *s)
{
	json_t *reps = s->reps_auto ? json_string("auto") :
		       json_integer(s->reps);

	return json_pack("{s:I, s:I, s:o, s:i, s:i, s:f, s:I, s:i, s:I}",
			 "duration_ns", (json_int_t)s->duration_ns,
			 "warmup_ns", (json_int_t)s->warmup_ns,
			 "reps", reps, "reps_min", (int)s->reps,
			 "reps_max", (int)(s->reps_auto ? s->reps_max :
					   s->reps),
			 "noisy_halfwidth", FL_NOISY_HALFWIDTH,
			 "hash_slots", (json_int_t)s->hash_slots,
			 "sample_every", (int)fl_spec_sample_every(s),
			 "bin_ns", (json_int_t)s->bin_ns);
}

void fl_meta_set_load(json_t *meta, double foreign_share,
		      double loadavg_start)
{
	if (foreign_share >= 0)
		json_object_set_new(meta, "foreign_cpu_share",
				    json_real(foreign_share));
	json_object_set_new(meta, "load", json_pack("{s:f, s:f}",
		"loadavg_start", loadavg_start,
		"loadavg_end", fl_loadavg()));
}
