/* SPDX-License-Identifier: GPL-2.0 */
/*
 * meta.json: everything needed to reproduce and compare a run. Its
 * parts, put together from a run's record by rundir/record.c alone.
 */
#ifndef FUTEXLAB_META_H
#define FUTEXLAB_META_H

#include <jansson.h>
#include <stdint.h>

#include "base/machine.h"

#define FL_RESULTS_SCHEMA 1
/* meta.json's workloads.W.plots: its format's version (results/README.md).
 * A reader draws the plots of a version it knows, and only the generic
 * ones for any other, so a change that an older reader would misdraw
 * takes a new version. */
#define FL_PLOTS_VERSION 1

json_t *fl_machine_json(const struct fl_machine *m);
/* The start of a run's meta.json: command, version, machine, overhead. */
json_t *fl_meta_new(int argc, char **argv, const struct fl_machine *m,
		    const struct fl_overhead *o, uint64_t seed);
/* A command line as a JSON array of its words. */
json_t *fl_meta_argv_json(int argc, char *const *argv);
/* Its "argv" and "command_line" (a merge's are its own command's). */
void fl_meta_set_command(json_t *meta, int argc, char **argv);
struct fl_workload;
struct fl_spec;
/* The effective settings of a specification (not only its argv):
 * duration, warm-up, the repetition policy, hash slots, sampling. */
json_t *fl_meta_settings(const struct fl_spec *s);
/* The share of CPU time other processes took (-1: unknown) and the load
 * average at the start and the end, under "load". */
void fl_meta_set_load(json_t *meta, double foreign_share,
		      double loadavg_start);
/* Add a workload's description (summary, units, counters, its own plots)
 * under meta.json's "workloads", once: plots and reports read what they
 * know of a workload from it, never from the binary's registry. */
void fl_meta_add_workload(json_t *meta, const struct fl_workload *w);
/* Its "plots": {"version": FL_PLOTS_VERSION, "special": [...]}. */
json_t *fl_meta_plots_json(const struct fl_workload *w);
/* Record the end time and the cell counts by status. */
void fl_meta_finish(json_t *meta, unsigned int ncells, const unsigned int
		    *by_status, int interrupted);
/* "2026-12-03T06:45:12Z" */
void fl_utc_now(char *buf, size_t len);
/* "2026-12-03T06:45:12.345Z": a repetition's start */
void fl_utc_now_ms(char *buf, size_t len);

#endif
