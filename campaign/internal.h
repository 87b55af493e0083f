/* SPDX-License-Identifier: GPL-2.0 */
/* What the campaign's files share and nothing else needs. */
#ifndef FUTEXLAB_CAMPAIGN_INTERNAL_H
#define FUTEXLAB_CAMPAIGN_INTERNAL_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "campaign/campaign.h"
#include "stats/paired.h"
#include "stats/sequential.h"

/* manifest_blocks.c: a visit campaign's part of the manifest, as an
 * object whose members the manifest takes in */
json_t *campaign_blocks_json(const struct fl_campaign *c);
/* manifest_blocks.c: that part of manifest m read into c, each member
 * checked (nothing when m has no "interleave": a campaign of runs); 0,
 * or -1 with err naming file and the member */
int campaign_blocks_load(json_t *m, struct fl_campaign *c, const char *file,
			 char *err, size_t errlen);

/* runs.c: the facts of the run in dirfd/run (a folder, no link on the
 * way) from its meta.json into the slot's start time, matrix, host,
 * kernel and build; 0, or -1 with err (ENOENT: no such run). */
int campaign_run_facts(int dirfd, const char *dir, const char *run,
		       struct fl_campaign_slot *out, char *err,
		       size_t errlen);

/* runs.c: run (a finished run's folder) checked to be one of side k's:
 * its matrix.ini is the side's matrix, its build and matrix those of the
 * side's runs c records (but slot skip's). 0, or -1 with err. */
int campaign_check_run(int dirfd, const char *dir,
		       const struct fl_campaign *c, unsigned int k,
		       unsigned int skip, const char *run,
		       const struct fl_campaign_slot *seen, char *err,
		       size_t errlen);
/* runs.c: no run recorded twice (one folder, or a copy of one run's
 * rows, under two slots); 0, or -1 with err naming both. */
int campaign_check_distinct(int dirfd, const char *dir,
			    const struct fl_campaign *c, char *err,
			    size_t errlen);

/* execute.c: slot i's work/NN (and work/) made if missing and opened,
 * its path (dir/work/NN) into work, what campaign_look_in finds there
 * into finished and partial; the folder's descriptor, or -1 with err */
int campaign_work_open(int dirfd, const char *dir, unsigned int i,
		       char *work, size_t worklen, char *finished,
		       char *partial, size_t len, char *err, size_t errlen);
/* execute.c: in work/NN (open at workfd, shown as shown) the finished
 * run (a folder not starting with '.') and the partial one
 * (.partial-*), "" where none; 0, or -1 with err when there are several */
int campaign_look_in(int workfd, const char *shown, char *finished,
		     char *partial, size_t len, char *err, size_t errlen);
/*
 * execute.c: side k's futexlab on its run in work (its partial run
 * resumed, or a new one there; a guest's boot for a kernel= side), the
 * side's settings, niceness and hogs around it: with visit ("CELL:N")
 * that one visit (`matrix --visit`), its stdout on out_fd; without, the
 * whole run (a visit campaign's: --finish), its stdout on stderr but
 * the line naming its folder. The side's futexlab is run from the
 * descriptor it was checked through, its matrix checked to be the
 * campaign's (trust.c). Its exit status, 128 + a signal, or -1 with err.
 */
int campaign_run_side(int dirfd, const char *dir, struct fl_campaign *c,
		      unsigned int k, const char *work, const char *partial,
		      const char *visit, int out_fd, char *err,
		      size_t errlen);

/* blocks.c: a visit campaign's blocks made until every cell is decided
 * (with stop_when_decided), the time budget is spent or every cell is
 * at its horizon; the manifest saved after each. 0, 130 when
 * interrupted, -1 with err. */
int campaign_blocks(int fd, const char *dir, struct fl_campaign *c,
		    char *err, size_t errlen);
/* blocks.c: the log ratios of cell's blocks, side k against the first,
 * in the order they ran, into x; how many */
unsigned int campaign_cell_blocks(const struct fl_campaign *c,
				  unsigned int cell, unsigned int k,
				  double *x);
/* blocks.c: the calls the cells still visited make: those cells times
 * the sides against the first */
unsigned int campaign_live_calls(const struct fl_campaign *c);
/* blocks.c: the calls that share the rule's alpha: c->family once
 * fixed, before then campaign_live_calls() (at least 1) */
unsigned int campaign_family(const struct fl_campaign *c);
/* what a visit campaign that made no block is: its cells all stopped at
 * their first visit (the campaign's folder for %s) */
#define CAMPAIGN_NO_BLOCK "no block was made: every cell stopped at its " \
			  "first visit (the sides' runs under %s/work say why)"
/* a visit campaign whose blocks ended with none made: no run to finish
 * or compare */
static inline int campaign_no_block(const struct fl_campaign *c)
{
	return c->visit && c->blocks_ended && !c->nblocks;
}
/* blocks.c: the stopping rule of c (stats/sequential.h): its margin,
 * its horizon the cells', its alpha shared by its family */
void campaign_rule(const struct fl_campaign *c, struct fl_seq_rule *r);
/* blocks.c: the call on n blocks' log ratios x (in the order they ran):
 * the first the rule makes at one of its looks up to n (*at: that
 * look's blocks; the last look's when none), ci its interval (of log
 * ratios) */
enum fl_seq_call campaign_call_of(const struct fl_campaign *c,
				  const double *x, unsigned int n,
				  struct fl_paired_ci *ci, unsigned int *at);
/* blocks.c: the call on cell, side k's figure against the first's,
 * from its blocks so far */
enum fl_seq_call campaign_cell_call(const struct fl_campaign *c,
				    unsigned int cell, unsigned int k,
				    struct fl_paired_ci *ci);
/* compare_visits.c: a visit campaign compared, fl_campaign_compare's
 * part for it: every side's run against the first's, paired by block */
int campaign_compare_visits(int fd, const char *dir,
			    const struct fl_campaign *c, FILE *out, char *err,
			    size_t errlen);

/* What a visit says of itself. */
struct campaign_visit_fig {
	double fig;		/* its primary figure */
	int latency;		/* fig is a p50 latency (lower is better),
				 * not ops/s */
	double cpu;		/* CPU ns/op; NAN: not counted */
	int contaminated;	/* the machine denied it CPU */
	int idle;		/* ok, but not one operation done: no
				 * ratio to pair (the cell stops) */
};
/* visit.c: side k's nth visit of cell in its run of round run (in the
 * side's work/NN, made by the round's first visit), what it says into
 * *fig; 0, 1 when the visit was not ok or did no operation (fig->idle;
 * the cell stops), 130 when interrupted, -1 with err */
int campaign_visit(int dirfd, const char *dir, struct fl_campaign *c,
		   unsigned int k, unsigned int run, unsigned int cell,
		   unsigned int nth, struct campaign_visit_fig *fig, char *err,
		   size_t errlen);

/* execute.c: 0 when no unfinished slot's partial run is being written
 * (its matrix holds its lock: a killed campaign's run goes on), or -1
 * with err saying to wait */
int campaign_runs_going(int dirfd, const char *dir,
			const struct fl_campaign *c, char *err,
			size_t errlen);

/* settings.c: "sysctl" or "modparam"; a side's KEY=VALUE of that kind
 * ("" when none); its file (under c->cmd.sys_root) into path */
const char *campaign_kind_name(int kind);
const char *campaign_setting(const struct fl_campaign_side *s, int kind);
void campaign_setting_path(const struct fl_campaign *c,
			   const struct fl_campaign_side *s, int kind,
			   char *path, size_t len);
/* settings.c: the side's settings' files there and writable; 0, or -1
 * with err */
int campaign_settings_check(const struct fl_campaign *c,
			    const struct fl_campaign_side *s, char *err,
			    size_t errlen);
/* settings.c: the side's sysctl and module parameter set, their old
 * values saved in the manifest first (c->saved); 0, or -1 with err */
int campaign_apply(int dirfd, const char *dir, struct fl_campaign *c,
		   const struct fl_campaign_side *s, char *err,
		   size_t errlen);
/* settings.c: c->saved put back and the manifest saved without them;
 * 0, or -1 with err (a warning said each that failed; err may be
 * NULL) */
int campaign_restore(int dirfd, const char *dir, struct fl_campaign *c,
		     char *err, size_t errlen);

/* trust.c: dir/name a regular file, no link on the way, the user's and
 * writable by no one else; 0, or -1 with err saying how to trust it */
int campaign_file_trusted(int dirfd, const char *dir, const char *name,
			  char *err, size_t errlen);
/* trust.c: the side's matrix-SIDE.ini (no link, trusted when asked) in
 * *text (free it), checked to be matrix.ini with the side's setting;
 * 0, or -1 with err */
int campaign_side_matrix(int dirfd, const char *dir,
			 const struct fl_campaign_side *s, int trusted,
			 char **text, size_t *len, char *err, size_t errlen);
/* trust.c: builds/SIDE/futexlab opened to run (no link, trusted), *self
 * 1 when it is this futexlab byte for byte (not asked with self NULL:
 * reading both takes milliseconds, and a visit campaign opens it for
 * every visit); the descriptor, or -1 */
int campaign_open_binary(int dirfd, const char *dir,
			 const struct fl_campaign_side *s, int *self,
			 char *err, size_t errlen);
/* fresh_binary.c: side s's build open at fd copied to a new file in its
 * builds folder (its pages new in the page cache), open read-only to
 * run; the descriptor, or -1 with err. fd stays the caller's. */
int campaign_fresh_binary(int dirfd, const char *dir,
			  const struct fl_campaign_side *s, int fd, char *err,
			  size_t errlen);
/* trust.c: 0 when a resume may run every side (each runs this futexlab
 * and changes nothing of the machine, or --yes was given), or -1 with
 * one line naming what it would run */
int campaign_gate(int dirfd, const char *dir, const struct fl_campaign *c,
		  char *err, size_t errlen);

/* hogs.c: n busy loops at nice -5, the i-th pinned to CPU i, their pids
 * into pid; 0, or -1 with err (none left running). */
int campaign_hogs_start(int n, pid_t *pid, char *err, size_t errlen);
/* hogs.c: the n hogs ended and reaped */
void campaign_hogs_stop(int n, const pid_t *pid);

#endif
