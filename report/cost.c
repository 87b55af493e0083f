// SPDX-License-Identifier: GPL-2.0
/*
 * A workload's cost table: what an operation cost the cell's threads in
 * CPU time as the kernel counted it (stats/cost.h), beside the primary
 * figure's table, and how many of each cell's repetitions the machine
 * contaminated. A run without the counters' columns says so once.
 */
#include <stdio.h>
#include <string.h>

#include "report/internal.h"
#include "stats/cost.h"
#include "stats/format.h"
#include "stats/stats.h"

/* Has any ok cell of the workload a counted CPU time? */
static int counted(const struct fl_rd_run *r, const char *w)
{
	for (unsigned long i = 0; i < r->ncells; i++)
		if (!strcmp(r->cells[i].workload, w) &&
		    r->cells[i].cost.fig[FL_COST_CPU].ci.n)
			return 1;
	return 0;
}

static void cost_row(FILE *f, const struct fl_rd_cell *c)
{
	char cpu[128], ctx[96], share[96], cyc[96], ins[96], cont[200];
	const struct fl_cost *k = &c->cost;

	fl_fmt_cost_fig(k, FL_COST_CPU, NULL, cpu, sizeof(cpu));
	fl_fmt_cost_fig(k, FL_COST_CTX, NULL, ctx, sizeof(ctx));
	fl_fmt_cost_fig(k, FL_COST_SHARE, NULL, share, sizeof(share));
	fl_fmt_cost_fig(k, FL_COST_CYCLES, NULL, cyc, sizeof(cyc));
	fl_fmt_cost_fig(k, FL_COST_INSNS, NULL, ins, sizeof(ins));
	fl_fmt_contamination(k, cont, sizeof(cont));
	fprintf(f, "| %lu | %s | %u | ", c->index, c->backend, c->threads);
	report_md(f, c->options);
	fprintf(f, " | %s%s | %s | %s | %s | %s | %s |\n", cpu,
		fl_cost_holds(k, c->noisy) ? " (holds)" : "", ctx, share, cyc,
		ins, *cont ? cont : "not judged");
}

void report_cost(FILE *f, const struct fl_rd_run *r, const char *w)
{
	const struct fl_rd_cell *first = fl_rd_first_of(r, w);
	const char *per = first && first->lower_is_better ? "round" : "op";
	unsigned int contaminated = 0, reps = 0;

	if (!counted(r, w)) {
		fprintf(f, "Cost per operation: not counted (the run's "
			"cells.csv has no CPU time of the threads: a run from "
			"before futexlab counted it, or the kernel refused the "
			"counters).\n\n");
		return;
	}
	fprintf(f, "Cost per %s as the kernel counted it for the cell's "
		"threads: CPU time (a busy machine takes CPU from the threads "
		"but does not make an operation cost more of it), context "
		"switches, the CPU share the threads received (their CPU time "
		"over the time they were runnable), and cycles and "
		"instructions where the PMU counts them; medians with their "
		"95%% intervals (docs/statistics.md). \"(holds)\": the "
		"throughput is NOISY on a contaminated machine while the cost "
		"is within +-%.0f%%.\n\n", per, FL_NOISY_HALFWIDTH * 100);
	fprintf(f, "| cell | backend | threads | options | CPU/%s: median "
		"[95%% CI] | switches/%s | CPU share | cycles/%s | "
		"instructions/%s | contaminated |\n"
		"|---:|---|---:|---|---:|---:|---:|---:|---:|---|\n", per, per,
		per, per);
	for (unsigned long i = 0; i < r->ncells; i++) {
		const struct fl_rd_cell *c = &r->cells[i];

		if (strcmp(c->workload, w) || strcmp(c->status, "ok") ||
		    !c->nok)
			continue;
		cost_row(f, c);
		contaminated += c->cost.ncontaminated;
		reps += c->cost.njudged;
	}
	if (reps)
		fprintf(f, "\nContamination: %u of the %u judged repetitions "
			"of %s were contaminated (their threads were denied "
			"more CPU than their own oversubscription explains, "
			"or the machine's steal was high); they stay in every "
			"figure and interval.\n\n", contaminated, reps, w);
	else
		fprintf(f, "\n");
}
