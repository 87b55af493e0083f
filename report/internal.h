/* SPDX-License-Identifier: GPL-2.0 */
/* What the report's files share and nothing else needs. */
#ifndef FUTEXLAB_REPORT_INTERNAL_H
#define FUTEXLAB_REPORT_INTERNAL_H

#include <stdio.h>

#include "rundir/read.h"

/* A run's text on one line of report.md (a table cell, a heading, a
 * paragraph): '|' escaped, newlines as spaces. */
void report_md(FILE *f, const char *s);
/* tmpl with every {dotted.path} replaced by that value of meta.json,
 * escaped for a table cell. */
void report_meta_text(FILE *f, const struct fl_rd_run *r, const char *tmpl);
/* The template of the machine table's row of this name, or NULL. */
const char *report_machine_template(const char *name);
/* ## Machine and kernel: the facts a rerun must match (machine.c). */
void report_machine(FILE *f, const struct fl_rd_run *r);
/* ## W: the table of one workload's cells and its plots (tables.c). */
void report_workload(FILE *f, const struct fl_rd_run *r, const char *w);
/* cost.c: the workload's cost table (stats/cost.h), or that the run did
 * not count it */
void report_cost(FILE *f, const struct fl_rd_run *r, const char *w);
/* The skipped (or failed and aborted) cells with their reasons. */
void report_not_ok(FILE *f, const struct fl_rd_run *r, int skipped);
/* The cells' notes, one line per distinct note. */
void report_notes(FILE *f, const struct fl_rd_run *r);

#endif
