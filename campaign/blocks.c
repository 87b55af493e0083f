// SPDX-License-Identifier: GPL-2.0
/*
 * A visit campaign's blocks (campaign.h): the schedule planned a round
 * at a time, each block's visits made side after side in its shuffled
 * order, the block recorded in the manifest once every side made its
 * visit, and after each block every cell's paired call from the blocks
 * so far, to stop when they are all decided or the time budget is
 * spent. Progress goes to stderr, a line at most every few seconds.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "campaign/internal.h"
#include "campaign/spawn.h"

/* the least seconds between two progress lines */
#define PROGRESS_EVERY_S	5.0
/* blocks timed before the horizon is fixed from their pace */
#define PACE_BLOCKS		8

int fl_campaign_side_per_visit(const struct fl_campaign_side *s, char *err,
			       size_t errlen)
{
	/* a sysctl's effect can outlast the visit that set it (the
	 * kernel's caches, its background work, a value a process read
	 * at its start): it stays a run's */
	if (*s->kernel || *s->sysctl) {
		snprintf(err, errlen, "side %s has %s=: it cannot change "
			 "between visits (a kernel= side needs a boot, a "
			 "sysctl= one the machine to settle); give --interleave "
			 "run", s->name, *s->kernel ? "kernel" : "sysctl");
		return -1;
	}
	return 0;
}

unsigned int campaign_cell_blocks(const struct fl_campaign *c,
				  unsigned int cell, unsigned int k,
				  double *x)
{
	int dirty = 0, counted = 1;
	unsigned int n = 0;

	/* compare_visits.c's figure: CPU ns/op where the machine denied
	 * a visit CPU and every visit was counted */
	for (unsigned int b = 0; b < c->nblocks; b++) {
		const struct fl_campaign_block *p = &c->block[b];

		if (p->cell != cell)
			continue;
		dirty |= p->contaminated;
		counted &= !isnan(p->cpu[0]) && !isnan(p->cpu[k]);
	}
	for (unsigned int b = 0; b < c->nblocks; b++) {
		const struct fl_campaign_block *p = &c->block[b];

		if (p->cell == cell)
			x[n++] = dirty && counted ? log(p->cpu[k] / p->cpu[0]) :
				 log(p->fig[k] / p->fig[0]);
	}
	return n;
}

enum fl_seq_call campaign_cell_call(const struct fl_campaign *c,
				    unsigned int cell, unsigned int k,
				    struct fl_paired_ci *ci)
{
	static double x[FL_CAMPAIGN_MAX_BLOCKS];
	unsigned int n = campaign_cell_blocks(c, cell, k, x), at;

	return campaign_call_of(c, x, n, ci, &at);
}

/* the cells still visited: a stopped one (its first visit not ok: a
 * backend that cannot run it) is judged never */
static unsigned int live_cells(const struct fl_campaign *c)
{
	unsigned int live = c->ncells;

	for (unsigned int i = 0; i < c->ncells; i++)
		live -= c->stopped[i];
	return live;
}

unsigned int campaign_live_calls(const struct fl_campaign *c)
{
	return live_cells(c) * (c->nsides - 1);
}

unsigned int campaign_family(const struct fl_campaign *c)
{
	unsigned int calls = campaign_live_calls(c);

	return c->family ? c->family : calls ? calls : 1;
}

void campaign_rule(const struct fl_campaign *c, struct fl_seq_rule *r)
{
	fl_seq_rule_default(r, c->delta);
	/* a matrix's user reads every call: the chance that any is wrong
	 * is what the rule's alpha bounds */
	fl_seq_rule_family(r, campaign_family(c));
	/* fixed with the campaign, before its first block: a run keeps
	 * at most its reps-max visits of a cell */
	if (c->horizon < r->max_blocks)
		r->max_blocks = c->horizon;
}

enum fl_seq_call campaign_call_of(const struct fl_campaign *c,
				  const double *x, unsigned int n,
				  struct fl_paired_ci *ci, unsigned int *at)
{
	struct fl_seq_rule r;
	enum fl_seq_call call = FL_SEQ_MORE;

	campaign_rule(c, &r);
	/* the first call at one of the rule's looks is the cell's (its
	 * error bound holds for that one, sequential.h) */
	*at = 0;
	memset(ci, 0, sizeof(*ci));
	for (unsigned int m = fl_seq_next_look(&r, 1); m && m <= n;
	     m = fl_seq_next_look(&r, m + 1)) {
		call = fl_seq_decide(&r, x, m, ci);
		*at = m;
		if (call != FL_SEQ_MORE)
			break;
	}
	return call;
}

/*
 * The rule fixed once the first blocks ran: at least PACE_BLOCKS of
 * them and one of every cell, fewer than the first look's blocks of any
 * cell (a round gives each cell one block), so no look has been made.
 * The family: the cells a first visit did not stop, against each side
 * but the first (a cell stopped later keeps its share: the calls made
 * before it stopped used it). The horizon the time budget holds, from
 * the blocks' pace. The rule's alpha is split over the
 * looks up to its horizon (stats/sequential.h): a horizon the budget
 * cannot reach spends alpha on looks never made (a 2% change at a 1%
 * margin in 1220 blocks is found 67% of the time with the horizon at
 * 2000, 82% with it at 1220: tests/unit/test_sequential_sim.c). The pace
 * is the blocks' time alone, whichever side was faster; 5% is kept for
 * a slower stretch. Never raised.
 */
static void fix_rule(struct fl_campaign *c)
{
	struct fl_seq_rule r;
	double per, fit;
	unsigned int h, live = live_cells(c);

	if ((c->family && !c->horizon_pending) || c->nblocks < PACE_BLOCKS ||
	    c->nblocks < live || !live || !(c->seconds > 0))
		return;
	fl_seq_rule_default(&r, c->delta);
	if (!c->family) {
		c->family = campaign_family(c);
		if (c->family > 1)
			fl_say(c->cmd.say, "futexlab campaign: %u cell%s, %u "
				"side%s against %s: each call at alpha %.2g%%, "
				"so that any of the %u is wrong with a chance "
				"of %g%% at most", live, live == 1 ? "" : "s",
				c->nsides - 1, c->nsides == 2 ? "" : "s",
				c->side[0].name, 100 * r.alpha / c->family,
				c->family, 100 * r.alpha);
	}
	if (!c->horizon_pending)
		return;
	c->horizon_pending = 0;
	per = c->seconds / c->nblocks;
	fit = c->nblocks + 0.95 * (c->time_budget_s - c->seconds) / per;
	fit /= live;
	h = fit < r.min_blocks ? r.min_blocks :
	    fit < c->horizon ? (unsigned int)fit : c->horizon;
	if (h < c->horizon)
		c->horizon = h;
	fl_say(c->cmd.say, "futexlab campaign: %.2f s a block: the time "
		"budget holds %u block%s of each of %u cell%s, the stopping "
		"rule's horizon", per, c->horizon, c->horizon == 1 ? "" : "s",
		live, live == 1 ? "" : "s");
}

/* the cell decided for every side against the first */
static int decided(const struct fl_campaign *c, unsigned int cell)
{
	struct fl_paired_ci ci;

	for (unsigned int k = 1; k < c->nsides; k++)
		if (campaign_cell_call(c, cell, k, &ci) == FL_SEQ_MORE)
			return 0;
	return 1;
}

/* the round of runs the sides' visits go to now */
static unsigned int current_run(const struct fl_campaign *c)
{
	return c->nslots / c->nsides - 1;
}

/*
 * Every side's run of the current round finished (matrix --finish, into
 * runs/NN-SIDE) and a new round of runs begun, the manifest saved after
 * each: a run holds at most per_run visits of a cell. A kill between
 * two of these steps resumes at the next. 0, 130 when interrupted, -1
 * with err.
 */
static int next_run(int fd, const char *dir, struct fl_campaign *c,
		    char *err, size_t errlen)
{
	unsigned int first = current_run(c) * c->nsides;

	for (unsigned int i = first; i < first + c->nsides; i++) {
		int r;

		if (*c->slot[i].run)
			continue;
		/* 1: a cell failed in it, kept (its visit said so) */
		r = fl_campaign_execute(fd, dir, c, i, err, errlen);
		if (r < 0 || r == 130)
			return r;
		if (campaign_check_distinct(fd, dir, c, err, errlen) ||
		    fl_campaign_save(fd, dir, c, err, errlen))
			return -1;
	}
	fl_campaign_add_rounds(c, 1);
	return fl_campaign_save(fd, dir, c, err, errlen) ? -1 : 0;
}

/* the round to run another block of cell in is full and no round is
 * left to begin */
static int no_run_left(const struct fl_campaign *c, unsigned int cell)
{
	unsigned int run = current_run(c), n = 0;

	for (unsigned int b = 0; b < c->nblocks; b++)
		n += c->block[b].cell == cell && c->block[b].run == run;
	return n >= c->per_run &&
	       c->nslots + c->nsides > FL_CAMPAIGN_MAX_SLOTS;
}

/* blocks of cell in the schedule */
static unsigned int scheduled(const struct fl_campaign *c, unsigned int cell)
{
	unsigned int n = 0;

	for (unsigned int b = 0; b < c->nsched; b++)
		n += c->sched[b] == cell;
	return n;
}

/* the cells still due a block, and how many of them are decided */
static unsigned int due_cells(const struct fl_campaign *c, int *due,
			      unsigned int *ndecided)
{
	unsigned int n = 0;

	*ndecided = 0;
	for (unsigned int i = 0; i < c->ncells; i++) {
		int d = !c->stopped[i] && decided(c, i);

		*ndecided += d;
		due[i] = !c->stopped[i] && scheduled(c, i) < c->horizon &&
			 !no_run_left(c, i) && !(c->stop_when_decided && d);
		n += due[i];
	}
	return n;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void clock_of(double s, char *buf, size_t len)
{
	unsigned long t = s > 0 ? (unsigned long)(s + 0.5) : 0;

	snprintf(buf, len, "%lu:%02lu", t / 60, t % 60);
}

/* blocks done, cells decided, time spent and the most left: the blocks
 * every cell due still may take at this pace, within the budget */
static void progress(const struct fl_campaign *c, unsigned int ndecided,
		     const int *due)
{
	double per = c->nblocks ? c->seconds / c->nblocks : 0, left = 0;
	char spent[32], rest[32];

	for (unsigned int i = 0; i < c->ncells; i++)
		if (due[i])
			left += (c->horizon - scheduled(c, i)) * per;
	if (c->time_budget_s > 0 && left > c->time_budget_s - c->seconds)
		left = c->time_budget_s - c->seconds;
	clock_of(c->seconds, spent, sizeof(spent));
	clock_of(left, rest, sizeof(rest));
	fl_say(c->cmd.say, "futexlab campaign: %u block%s, %u of %u cell%s "
		"decided, %s spent, at most %s left", c->nblocks,
		c->nblocks == 1 ? "" : "s", ndecided, c->ncells,
		c->ncells == 1 ? "" : "s", spent, rest);
}

/* the last round's runs dropped when no block went to them (a kill
 * between beginning them and their first visit): nothing to finish */
static void drop_empty_run(struct fl_campaign *c)
{
	unsigned int run = current_run(c);

	if (!run || (c->nblocks && c->block[c->nblocks - 1].run == run))
		return;
	c->nslots -= c->nsides;
}

/* the schedule's next block taken out */
static void drop_next(struct fl_campaign *c)
{
	memmove(&c->sched[c->nblocks], &c->sched[c->nblocks + 1],
		(c->nsched - c->nblocks - 1) * sizeof(c->sched[0]));
	c->nsched--;
}

/*
 * The next block of the schedule: each side's visit in the block's
 * order (a side that made it before a kill is not visited again: its
 * figure is read back), in the sides' runs of the current round, a new
 * round begun first when the cell's visits fill a run. 0 with the
 * block recorded in c; 1 when a side's visit was not ok (the cell
 * stops, the block is dropped from the schedule); 130 when interrupted;
 * -1 with err.
 */
static int run_block(int fd, const char *dir, struct fl_campaign *c,
		     char *err, size_t errlen)
{
	struct fl_campaign_block *k = &c->block[c->nblocks];
	unsigned int cell = c->sched[c->nblocks], nth = 1;
	unsigned int run = current_run(c);

	for (unsigned int b = 0; b < c->nblocks; b++)
		nth += c->block[b].cell == cell && c->block[b].run == run;
	if (nth > c->per_run) {
		int r = next_run(fd, dir, c, err, errlen);

		if (r)
			return r;
		run = current_run(c);
		nth = 1;
	}
	memset(k, 0, sizeof(*k));
	k->cell = cell;
	k->run = run;
	fl_campaign_block_order(c, c->nblocks, k->order);
	for (unsigned int i = 0; i < c->nsides; i++) {
		unsigned int s = k->order[i];
		struct campaign_visit_fig v;
		int r = campaign_visit(fd, dir, c, s, run, cell, nth, &v, err,
				       errlen);

		if (r == 1) {
			fl_say(c->cmd.say, "futexlab campaign: cell %u stopped: "
				"side %s's visit %u of it %s", cell,
				c->side[s].name, nth, v.idle ?
				"completed no operation (0 ops/s: no ratio to "
				"pair; its blocks before it are kept)" :
				"was not ok (its run says why)");
			c->stopped[cell] = 1;
			drop_next(c);
			return 1;
		}
		if (r)
			return r;
		k->fig[s] = v.fig;
		k->latency = v.latency;
		k->cpu[s] = v.cpu;
		k->contaminated |= v.contaminated;
	}
	c->nblocks++;
	return 0;
}

int campaign_blocks(int fd, const char *dir, struct fl_campaign *c,
		    char *err, size_t errlen)
{
	static int due[FL_CAMPAIGN_MAX_CELLS];
	double said = 0;
	unsigned int ndecided, ndue;

	while (!c->blocks_ended) {
		double t0 = now_s();
		int r;

		ndue = due_cells(c, due, &ndecided);
		if (c->nblocks && t0 - said >= PROGRESS_EVERY_S) {
			progress(c, ndecided, due);
			said = t0;
		}
		if (c->nblocks == c->nsched && ndue)
			fl_campaign_plan_round(c, due);
		if (c->nblocks == c->nsched || c->nblocks ==
		    FL_CAMPAIGN_MAX_BLOCKS || (c->time_budget_s > 0 &&
		    c->seconds >= c->time_budget_s)) {
			progress(c, ndecided, due);
			/* none: no run to finish (drive.c says why) */
			if (c->nblocks)
				fl_say(c->cmd.say, "futexlab campaign: %s after "
					"%u blocks; finishing the sides' runs",
					c->nblocks < c->nsched ?
					"time budget spent" :
					ndecided == c->ncells ?
					"every cell decided" :
					"every cell at its horizon", c->nblocks);
			c->blocks_ended = 1;
			c->nsched = c->nblocks;
			drop_empty_run(c);
		} else if (!due[c->sched[c->nblocks]]) {
			/* decided since its round was planned */
			drop_next(c);
		} else {
			r = run_block(fd, dir, c, err, errlen);
			if (r < 0 || r == 130)
				return r;
			c->seconds += now_s() - t0;
			fix_rule(c);
		}
		if (fl_campaign_save(fd, dir, c, err, errlen))
			return -1;
		if (fl_campaign_stop)
			return 130;
	}
	return 0;
}
