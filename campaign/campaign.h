/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A campaign: several runs of one matrix for each of two or more sides,
 * so that a comparison can take the run as its unit (compare/runs.h).
 *
 * A campaign directory holds:
 *   campaign.json   the manifest: the seed, the sides and why each
 *                   differs (futexlab build, kernel, a declared setting,
 *                   niceness), and the order of the runs, each with the
 *                   host, kernel and build it ran on once it finished;
 *   matrix.ini      the matrix as given; matrix-SIDE.ini the one a side
 *                   runs (the side's setting written into every
 *                   experiment);
 *   builds/SIDE/    the futexlab a side runs: a copy of the binary it was
 *                   given, or a git commit built there (configure.py and
 *                   ninja), so a rebuilt tree cannot change a side midway;
 *   runs/NN-SIDE/   the finished runs: ordinary run directories;
 *   work/NN/        the run of slot NN while it runs (matrix --results),
 *                   its partial directory resumed after a kill.
 * The order interleaves the sides in rounds: each round runs every side
 * once, in an order shuffled from the seed, and the side that leads a
 * round is dealt from a shuffled deck of the sides, so every side leads
 * as often as another and none owns the start of a round.
 *
 * With --interleave visit (the default where every side allows it:
 * no kernel= or sysctl= side) the sides take turns visit by visit
 * instead (blocks.c): a block is one visit of every side for one cell,
 * back to back, the sides in an order shuffled from the seed and the
 * block's number; the blocks come in rounds of every cell still
 * undecided, each round's cells shuffled too. Each side's visits go to
 * its run (work/NN's partial run, `matrix --visit`), finished into
 * runs/NN-SIDE (`matrix --resume --finish`) once the blocks end: every
 * cell decided (--stop-when-decided), the time budget spent, or every
 * cell at its horizon. A run holds at most a cell's reps-max visits:
 * when a cell's next block would pass it, every side's run is finished
 * and a new round of runs begun, each block recording the round its
 * visits went to. The manifest records the schedule
 * and every block done with each side's figure, so a killed campaign
 * resumes at the block it was in (a side that made its visit of it is
 * not visited again: `--visit CELL:N`), and compare pairs the blocks
 * (compare.c).
 *
 * Nothing rewrites a finished run. The manifest is replaced whole after
 * each run (write_at.h), so a kill leaves the old one or the new one;
 * a run that finished but is not in the manifest yet is found in runs/ or
 * work/ and taken in, and a partial one is finished by `matrix --resume`
 * (a guest's run, whose partial stays in the guest, is run again).
 *
 * The directory is read as untrusted (rundir/regular.h): the manifest is
 * validated on every read, a run's name must be the one its slot gives
 * (runs/NN-SIDE, no other path, no link), and a run's meta.json must be
 * the one the manifest recorded when it finished (its start time and
 * matrix), so a manifest edited to name a missing or foreign run is
 * refused, naming it, with nothing deleted.
 */
#ifndef FUTEXLAB_CAMPAIGN_H
#define FUTEXLAB_CAMPAIGN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/say.h"
#include "compare/compare.h"
#include "compare/runs.h"

#define FL_CAMPAIGN_MAX_SIDES	8
#define FL_CAMPAIGN_MAX_ROUNDS	64
#define FL_CAMPAIGN_MAX_SLOTS	(FL_CAMPAIGN_MAX_SIDES * FL_CAMPAIGN_MAX_ROUNDS)
#define FL_CAMPAIGN_MANIFEST	"campaign.json"
#define FL_CAMPAIGN_MAX_BLOCKS	4096
#define FL_CAMPAIGN_MAX_CELLS	1024	/* of a visit campaign's matrix */

/* One side and what sets it apart. */
struct fl_campaign_side {
	char name[33];			/* [A-Za-z0-9_-], 1 to 32 */
	char bin[4096];			/* bin=: the binary copied in */
	char commit[64];		/* commit=: the commit built */
	char kernel[4096];		/* kernel=: a tree, or "debian" */
	char set[256];			/* set=KEY=VALUE: a workload option */
	char sysctl[256];		/* sysctl=KEY=VALUE */
	char modparam[256];		/* modparam=NAME=VALUE */
	int nice;			/* nice=N */
	int hogs;			/* hogs=N: busy loops beside its runs */
	char why[1024];			/* all of it, in words */
};

/* One run of the campaign: which side, and once finished, where. */
struct fl_campaign_slot {
	unsigned int side;
	char run[64];			/* "runs/NN-SIDE", or "" */
	char start_time[64];		/* meta.json's, once finished */
	char matrix_hash[32];		/* meta.json's matrix.fnv1a64 */
	char host[256], kernel[256], build[128];
};

/* One block of a visit campaign: a cell's visit by every side. */
struct fl_campaign_block {
	unsigned int cell;
	unsigned char order[FL_CAMPAIGN_MAX_SIDES];	/* sides, as run */
	double fig[FL_CAMPAIGN_MAX_SIDES];	/* by side: the visit's
						 * primary figure */
	int latency;			/* the figure is a p50 latency (lower
					 * is better), not ops/s */
	double cpu[FL_CAMPAIGN_MAX_SIDES];	/* by side: CPU ns/op, NAN
						 * where not counted */
	int contaminated;		/* the machine denied a visit CPU */
	unsigned int run;		/* the sides' run its visits went to:
					 * the slots' round, from 0 */
};

/* A value a side's setting replaced, kept until it is put back. */
#define FL_CAMPAIGN_SYSCTL	0
#define FL_CAMPAIGN_MODPARAM	1
struct fl_campaign_saved {
	unsigned int side;		/* whose setting */
	int kind;			/* FL_CAMPAIGN_SYSCTL or _MODPARAM */
	char value[256];		/* the value before it */
};

/*
 * Where a campaign's lines go (its progress, the gates it passes, a
 * setting it could not put back, a run it could not start), a line each
 * (base/say.h); set by the command (cli/cmd_campaign.c), NULL: nowhere.
 */
struct fl_say;
extern const struct fl_say *fl_campaign_say;

/* What the command gives, never the manifest. */
struct fl_campaign_cmd {
	double run_timeout_s;		/* a run's deadline */
	int yes;			/* run what the folder names */
	int restore_only;		/* --restore */
	char self_build[128];		/* this futexlab as a run's
					 * meta.json gives it: "VERSION
					 * (git COMMIT)" */
	char sys_root[256];		/* "" (a test's folder standing for
					 * / where proc/sys and sys/module
					 * are) */
	const struct fl_say *say;	/* a visit campaign's progress lines
					 * (NULL: none) */
};

struct fl_campaign {
	uint64_t seed;
	unsigned int rounds;		/* the rounds asked for */
	unsigned int max_rounds;	/* more while cells need more runs */
	double time_budget_s;		/* for the added rounds; 0: none */
	int stop_when_decided;		/* stop before `rounds` when every
					 * cell is decided */
	double delta;			/* the verdicts' margin */
	char setting[64];		/* the option cells may differ by */
	char repo[4096];		/* where commit= builds come from */
	char vm[4096];			/* vm/run, for kernel= sides */
	struct fl_campaign_side side[FL_CAMPAIGN_MAX_SIDES];
	unsigned int nsides;
	struct fl_campaign_slot slot[FL_CAMPAIGN_MAX_SLOTS];
	unsigned int nslots;
	/* --interleave visit (blocks.c); all 0 for a campaign of runs */
	int visit;
	unsigned int ncells;		/* the matrix's cells */
	unsigned int horizon;		/* the most blocks of a cell, over
					 * the sides' runs */
	int horizon_pending;		/* the horizon waits for the first
					 * blocks' pace: what the time
					 * budget holds (blocks.c) */
	unsigned int family;		/* the calls sharing the rule's
					 * alpha: the cells still visited
					 * after the first blocks, times
					 * the sides against the first; 0:
					 * not fixed yet (blocks.c) */
	unsigned int per_run;		/* the most a run holds: the cell's
					 * reps-max; then the sides' runs
					 * are finished and new ones begun */
	uint64_t busy_speed;		/* loops/us every visit's busy loop
					 * is sized by (matrix
					 * --busy-speed); 0: each its own */
	double seconds;			/* spent in blocks, every session */
	int blocks_ended;		/* the runs are being finished */
	unsigned short sched[FL_CAMPAIGN_MAX_BLOCKS];	/* cells, in
							 * rounds */
	unsigned int nsched;
	struct fl_campaign_block block[FL_CAMPAIGN_MAX_BLOCKS];	/* done */
	unsigned int nblocks;
	unsigned char stopped[FL_CAMPAIGN_MAX_CELLS];	/* a visit of the
							 * cell was not ok */
	struct fl_campaign_saved saved[2];	/* "saved": to put back */
	unsigned int nsaved;
	struct fl_campaign_cmd cmd;	/* not saved */
	int is_self[FL_CAMPAIGN_MAX_SIDES];	/* not saved: the side's copy
						 * is this futexlab */
};

/* side.c: "NAME[:KIND=VALUE[,KIND=VALUE...]]" into s; 0, or -1 with
 * err naming what was wrong. */
int fl_campaign_parse_side(const char *spec, struct fl_campaign_side *s,
			   char *err, size_t errlen);
/* side.c: s->why from its fields */
void fl_campaign_side_why(struct fl_campaign_side *s);
/* side.c: the option name of set=KEY=VALUE into key ("" when none) */
void fl_campaign_set_key(const struct fl_campaign_side *s, char *key,
			 size_t len);

/* order.c: `rounds` more rounds appended to c's slots, interleaving the
 * sides from c->seed and the round's number. */
void fl_campaign_add_rounds(struct fl_campaign *c, unsigned int rounds);

/* order.c: the side order of block b (from the seed and b) */
void fl_campaign_block_order(const struct fl_campaign *c, unsigned int b,
			     unsigned char *order);
/* order.c: a round of blocks appended to the schedule: every cell due
 * (due[cell] non-zero) once, shuffled from the seed and the schedule's
 * length */
void fl_campaign_plan_round(struct fl_campaign *c, const int *due);
/* blocks.c: the side of a visit campaign may switch per visit (no
 * kernel= or sysctl=); 0, or -1 with err saying why not */
int fl_campaign_side_per_visit(const struct fl_campaign_side *s, char *err,
			       size_t errlen);

/* manifest.c: the manifest written (replaced whole) in dirfd; 0, or -1
 * with err. */
int fl_campaign_save(int dirfd, const char *dir,
		     const struct fl_campaign *c, char *err, size_t errlen);
/* manifest.c: the manifest of dirfd read and validated; 0, or -1 with
 * err naming what was wrong. */
int fl_campaign_load(int dirfd, const char *dir, struct fl_campaign *c,
		     char *err, size_t errlen);

/* runs.c: the finished runs' paths of side k (dir/runs/NN-SIDE), each
 * checked to be the run its slot recorded; *n of them (at most max).
 * 0, or -1 with err. */
int fl_campaign_side_runs(int dirfd, const char *dir,
			  const struct fl_campaign *c, unsigned int k,
			  char (*paths)[4200], unsigned int max,
			  unsigned int *n, char *err, size_t errlen);

/* prepare.c: the matrix text with side s's setting: its option's own
 * lines dropped and "KEY = VALUE" under every [experiment ...] header.
 * Malloc'd, or NULL. */
char *fl_campaign_side_matrix(const char *text,
			      const struct fl_campaign_side *s);
/* prepare.c: what each side names is there before anything is made:
 * a bin= a regular executable file, a sysctl's or module parameter's
 * file, a commit= in c->repo, the vm/run of kernel= sides. 0, or -1
 * with err naming the side. */
int fl_campaign_check_sides(const struct fl_campaign *c, char *err,
			    size_t errlen);

/* prepare.c: each side's binary (builds/SIDE/futexlab: copied, or built
 * from its commit) and matrix (matrix-SIDE.ini); 0, or -1 with err. */
int fl_campaign_prepare(int dirfd, const char *dir, struct fl_campaign *c,
			const char *matrix_text, char *err, size_t errlen);

/* execute.c: run slot i to the end (resuming its partial run, or taking
 * in one that finished unrecorded), moved to runs/NN-SIDE and recorded
 * in c (not saved). 0; 1 when the run ended with a failed cell (kept);
 * -1 with err; 130 when interrupted. */
int fl_campaign_execute(int dirfd, const char *dir, struct fl_campaign *c,
			unsigned int i, char *err, size_t errlen);

/* compare.c: 1 when dir is a campaign's folder (it has a manifest) */
int fl_campaign_is(const char *dir);
/*
 * compare.c: every side of the campaign in dir against its first, the
 * run as the unit (fl_compare_runs), cells matched with the declared
 * setting left out; each output folder's path on out after its table.
 * A visit campaign's sides are paired by block instead, cell by cell,
 * on out only (compare_visits.c).
 * 0, or as fl_compare_runs() with err (a bad manifest, a missing or
 * foreign run: -EINVAL).
 */
int fl_campaign_compare(const char *dir, const struct fl_compare_opts *o,
			FILE *out, char *err, size_t errlen);

/*
 * drive.c: a new campaign in dir (which must not exist, or be an empty
 * folder, and not be inside a run directory) from c's settings and sides
 * (checked by the caller: fl_campaign_check_sides and the matrix parsed
 * with each side's setting) and the matrix file: the sides prepared, the
 * order drawn, the manifest written. What it made is removed when it
 * fails. 0, or -1 with err.
 */
int fl_campaign_create(const char *dir, struct fl_campaign *c,
		       const char *matrix, char *err, size_t errlen);
/*
 * drive.c: the campaign in dir resumed as cmd says: the folder and its
 * manifest trusted (fl_fd_trusted) and locked against another campaign
 * command, and no run a killed campaign started still going (the lock
 * `matrix` holds on its partial run); a setting a killed campaign left
 * changed put back (only that with cmd->restore_only); every recorded
 * run checked; then, when something runs, what the folder names allowed
 * (campaign_gate) and every run not yet finished run in its order; then,
 * as its settings say, stop early when every cell is decided or add
 * rounds while cells need more runs. 0; 1 when a run had a failed cell
 * (kept, said on stderr); 130 when interrupted (resume with the same
 * call); -1 with err.
 */
int fl_campaign_continue(const char *dir, const struct fl_campaign_cmd *cmd,
			 char *err, size_t errlen);

#endif
