// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab campaign DIR --matrix FILE --side SPEC --side SPEC ...: several
 * runs of one matrix per side, interleaved, into a campaign directory
 * (campaign/campaign.h); futexlab campaign DIR resumes one. Exit 0, 1
 * when a run had a failed cell or a file could not be written, 2 on bad
 * usage or a bad campaign directory, 130 when interrupted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaign/campaign.h"
#include "campaign/spawn.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "compare/compare.h"
#include "compare/runs.h"
#include "measure/busy_loop.h"
#include "stats/sequential.h"
#include "sweep/matrix.h"
#include "version.h"

#define RUN_TIMEOUT_DEFAULT_S	3600
/* a visit campaign's time budget unless --time-budget says otherwise */
#define VISIT_BUDGET_DEFAULT_S	600
/* the busy loop's speed measured this often (about 12 ms each) for a
 * visit campaign, the fastest kept: the CPU's speed flips between two
 * levels for 0.1 to 36 ms at a time (docs/measurement.md) */
#define BUSY_TRIES		40

static void usage(FILE *f)
{
	fprintf(f,
		"usage: futexlab campaign DIR --matrix FILE --side SPEC "
		"--side SPEC [...]\n"
		"                [--rounds N] [--seed N] [--max-rounds N] "
		"[--time-budget S]\n"
		"                [--stop-when-decided] [--delta PCT] "
		"[--run-timeout S]\n"
		"                [--vm PATH] [--repo PATH] [--interleave "
		"visit|run]\n"
		"                [--max-blocks N]\n"
		"       futexlab campaign DIR [--run-timeout S] [--yes]   "
		"(resume)\n"
		"       futexlab campaign DIR --restore\n\n"
		"Run one matrix several times per side, the sides interleaved "
		"in rounds (each\nround every side once, in an order shuffled "
		"from the seed; every side leads\nas many rounds as another), "
		"into DIR: a manifest (campaign.json: which run\nis which "
		"side and why), the sides' futexlab and matrix, and runs/NN-"
		"SIDE,\nordinary run directories. Killed, `futexlab campaign "
		"DIR` continues: no\nfinished run is lost, a partial one is "
		"resumed (matrix --resume).\nCompare with `futexlab compare "
		"DIR` (the run as the unit).\n\n"
		"A SPEC is NAME or NAME:KIND=VALUE[,KIND=VALUE...]:\n"
		"  bin=PATH          this futexlab binary (copied into DIR)\n"
		"  commit=REV        futexlab of this git commit of --repo, "
		"built in DIR\n"
		"  kernel=TREE       in a QEMU guest booting this kernel "
		"build tree\n"
		"                    (vm/run --kernel), or kernel=debian for "
		"Debian's\n"
		"  set=OPTION=VALUE  a workload option in every experiment; "
		"cells that\n"
		"                    differ only by it are compared\n"
		"  sysctl=KEY=VALUE  a sysctl set for the side's runs, then "
		"put back\n"
		"  modparam=NAME=VALUE  the futexlab module's parameter, the "
		"same way\n"
		"  nice=N            the side's runs at niceness N\n"
		"  hogs=N            N busy loops at nice -5 beside the side's "
		"runs, one\n"
		"                    pinned to each of CPUs 0 to N-1\n"
		"A side without bin= or commit= runs this futexlab (copied in "
		"too).\n\n"
		"  --matrix FILE       the matrix file every side runs\n"
		"  --interleave visit  (the default, unless a side has "
		"kernel= or sysctl=\n"
		"                      or --rounds is given) the sides take "
		"turns visit by\n"
		"                      visit: blocks of one visit of every side "
		"for one cell,\n"
		"                      judged on their paired ratios, until "
		"every cell is\n"
		"                      decided (--stop-when-decided) or the "
		"--time-budget\n"
		"                      (default %d s) is spent; a run a side "
		"holds its\n"
		"                      visits, a new round of runs begun when "
		"a cell's\n"
		"                      visits reach its reps-max "
		"(docs/statistics.md)\n"
		"  --max-blocks N      a visit campaign's most blocks of a "
		"cell, the\n"
		"                      stopping rule's horizon (default: what "
		"the time\n"
		"                      budget holds at the first blocks' pace, "
		"at most\n"
		"                      2000 or the reps-max of 64 runs)\n"
		"  --interleave run    rounds of whole runs, the run as the "
		"unit\n"
		"  --rounds N          rounds, runs per side (default 5)\n"
		"  --seed N            the order's seed (default 1)\n"
		"  --stop-when-decided stop before --rounds once every cell "
		"is decided\n"
		"                      (from round 4, the first with "
		"intervals)\n"
		"  --max-rounds N      after --rounds, add rounds up to N "
		"while cells need\n"
		"                      more runs (default: --rounds)\n"
		"  --time-budget S     add no round after S seconds of this "
		"command\n"
		"  --delta PCT         the margin those verdicts use "
		"(default 2)\n"
		"  --run-timeout S     a run's deadline (default %d; a "
		"guest's gets 600 more)\n"
		"  --vm PATH           vm/run, for kernel= sides (default "
		"vm/run)\n"
		"  --repo PATH         the git repository of commit= "
		"(default .)\n"
		"  --yes               resuming, run what the folder names: "
		"a side's own\n"
		"                      build (bin=, commit=, or a copy that is "
		"not this\n"
		"                      futexlab), the --vm of kernel= sides, a "
		"side's sysctl=\n"
		"                      or modparam=; without it the resume "
		"names them and\n"
		"                      stops (exit 2)\n"
		"  --restore           only put back the sysctl or module "
		"parameter a killed\n"
		"                      campaign left changed (a resume does it "
		"first too)\n"
		"DIR must be yours and writable by no one else to be resumed "
		"(as ssh asks\nof its configuration).\n",
		VISIT_BUDGET_DEFAULT_S, RUN_TIMEOUT_DEFAULT_S);
}

struct args {
	const char *dir, *matrix;
	struct fl_campaign_cmd cmd;
	int given;		/* any option that only a new campaign takes */
	int interleave;		/* 0: the default, 'v' visit, 'r' run */
	int rounds_given, budget_given;
	unsigned int max_blocks;	/* --max-blocks, or 0 */
};

static int bad(const char *fmt, const char *what)
{
	fprintf(stderr, "futexlab campaign: ");
	fprintf(stderr, fmt, what);
	fprintf(stderr, "\n");
	return 2;
}

static int number(const char *flag, const char *s, double lo, double hi,
		  double *v)
{
	char *end;

	*v = strtod(s, &end);
	if (*end || end == s || !(*v >= lo) || !(*v <= hi)) {
		fprintf(stderr, "futexlab campaign: %s: '%s' is not a number "
			"from %g to %g\n", flag, s, lo, hi);
		return -1;
	}
	return 0;
}

/* the declared setting: the set= option, the same on every side that
 * has one */
static int declared_setting(struct fl_campaign *c)
{
	for (unsigned int i = 0; i < c->nsides; i++) {
		char key[256];

		fl_campaign_set_key(&c->side[i], key, sizeof(key));
		if (!*key)
			continue;
		if (*c->setting && strcmp(c->setting, key)) {
			fprintf(stderr, "futexlab campaign: the sides set "
				"different options (%s and %s): a campaign "
				"declares one setting\n", c->setting, key);
			return -1;
		}
		snprintf(c->setting, sizeof(c->setting), "%s", key);
	}
	return 0;
}

static int parse(int argc, char **argv, struct args *a, struct fl_campaign *c)
{
	static const struct option longopts[] = {
		{ "matrix", 1, NULL, 'm' }, { "side", 1, NULL, 's' },
		{ "rounds", 1, NULL, 'r' }, { "seed", 1, NULL, 'S' },
		{ "max-rounds", 1, NULL, 'M' },
		{ "time-budget", 1, NULL, 'b' },
		{ "stop-when-decided", 0, NULL, 'x' },
		{ "delta", 1, NULL, 'd' }, { "run-timeout", 1, NULL, 't' },
		{ "vm", 1, NULL, 'v' }, { "repo", 1, NULL, 'R' },
		{ "yes", 0, NULL, 'y' }, { "restore", 0, NULL, 'X' },
		{ "interleave", 1, NULL, 'i' },
		{ "max-blocks", 1, NULL, 'B' },
		{ "help", 0, NULL, 'h' }, { 0 },
	};
	double v, max = 0;
	char err[1024];

	fl_getopt_start();
	for (;;) {
		int o = fl_getopt("campaign", argc, argv, longopts);

		if (o == -1)
			break;
		a->given |= o != 't' && o != 'h' && o != 'y' && o != 'X';
		switch (o) {
		case 'm':
			a->matrix = optarg;
			break;
		case 's':
			if (c->nsides == FL_CAMPAIGN_MAX_SIDES)
				return bad("--side: at most %s sides", "8");
			if (fl_campaign_parse_side(optarg,
						   &c->side[c->nsides], err,
						   sizeof(err)))
				return bad("--side: %s", err);
			c->nsides++;
			break;
		case 'r':
		case 'M':
			if (number(o == 'r' ? "--rounds" : "--max-rounds",
				   optarg, 1, FL_CAMPAIGN_MAX_ROUNDS, &v) ||
			    v != (unsigned int)v)
				return 2;
			*(o == 'r' ? &c->rounds : &c->max_rounds) =
				(unsigned int)v;
			a->rounds_given = 1;
			max = o == 'M' ? v : max;
			break;
		case 'S':
			if (number("--seed", optarg, 0, 1e15, &v))
				return 2;
			c->seed = (uint64_t)v;
			break;
		case 'b':
			if (number("--time-budget", optarg, 0, 1e9,
				   &c->time_budget_s))
				return 2;
			a->budget_given = 1;
			break;
		case 'x':
			c->stop_when_decided = 1;
			break;
		case 'B':
			if (number("--max-blocks", optarg, 1,
				   FL_CAMPAIGN_MAX_BLOCKS, &v))
				return 2;
			if (v != (unsigned int)v)
				return bad("--max-blocks: '%.40s' is not a "
					   "whole number", optarg);
			a->max_blocks = (unsigned int)v;
			break;
		case 'i':
			if (strcmp(optarg, "visit") && strcmp(optarg, "run"))
				return bad("--interleave: '%.40s' is not visit "
					   "or run", optarg);
			a->interleave = optarg[0];
			break;
		case 'd':
			if (number("--delta", optarg, 0.01, 99, &v))
				return 2;
			c->delta = v / 100;
			break;
		case 't':
			if (number("--run-timeout", optarg, 1, 1e7,
				   &a->cmd.run_timeout_s))
				return 2;
			break;
		case 'y':
			a->cmd.yes = 1;
			break;
		case 'X':
			a->cmd.restore_only = 1;
			break;
		case 'v':
		case 'R':
			if (!realpath(optarg, o == 'v' ? c->vm : c->repo))
				return bad("%s: no such path", optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:	/* FL_GETOPT_BAD: it said why */
			return 2;
		}
	}
	if (optind != argc - 1)
		return bad("give one campaign folder%s (see --help)",
			   optind < argc ? ", once" : "");
	a->dir = argv[optind];
	if (!c->max_rounds)
		c->max_rounds = c->rounds;
	if (max && max < c->rounds)
		return bad("--max-rounds is below --rounds%s", "");
	if (a->cmd.restore_only && a->given)
		return bad("--restore takes only the campaign's folder%s", "");
	return -1;	/* parsed: go on */
}

/* a visit campaign's cells, how many visits of a cell a run holds (the
 * least reps-max of the matrix's experiments) and its horizon (the
 * stopping rule's, within the runs a campaign may hold) from m, file's;
 * 0, or -1 said on stderr */
static int visit_cells(const char *file, const struct fl_matrix *m,
		       struct fl_campaign *c)
{
	struct fl_seq_rule rule;

	if (!m->ncells || m->ncells > FL_CAMPAIGN_MAX_CELLS) {
		fprintf(stderr, "futexlab campaign: %s has %lu cells on this "
			"machine: a visit campaign takes 1 to %d\n", file,
			m->ncells, FL_CAMPAIGN_MAX_CELLS);
		return -1;
	}
	c->ncells = (unsigned int)m->ncells;
	c->per_run = FL_CAMPAIGN_MAX_BLOCKS;
	for (unsigned int x = 0; x < m->nexps; x++) {
		const struct fl_spec *s = &m->exps[x].spec;
		unsigned int most = s->reps_auto ? s->reps_max : s->reps;

		if (most < c->per_run)
			c->per_run = most;
	}
	fl_seq_rule_default(&rule, c->delta);
	c->horizon = rule.max_blocks < FL_CAMPAIGN_MAX_BLOCKS ?
		     rule.max_blocks : FL_CAMPAIGN_MAX_BLOCKS;
	if (c->per_run * FL_CAMPAIGN_MAX_ROUNDS < c->horizon)
		c->horizon = c->per_run * FL_CAMPAIGN_MAX_ROUNDS;
	return 0;
}

/* visit or run: as asked, or visit where every side can switch per
 * visit and no --rounds counts runs; 0, or -1 said on stderr */
static int interleave(const struct args *a, struct fl_campaign *c)
{
	char err[512];

	c->visit = a->interleave == 'v' ||
		   (!a->interleave && !a->rounds_given);
	for (unsigned int i = 0; i < c->nsides && c->visit; i++) {
		if (!fl_campaign_side_per_visit(&c->side[i], err,
						sizeof(err)))
			continue;
		if (a->interleave) {
			fprintf(stderr, "futexlab campaign: --interleave visit: "
				"%s\n", err);
			return -1;
		}
		c->visit = 0;
	}
	if (c->visit && a->rounds_given) {
		fprintf(stderr, "futexlab campaign: --rounds and --max-rounds "
			"count runs: a visit campaign's blocks go on until "
			"its cells are decided or --time-budget is spent\n");
		return -1;
	}
	if (!c->visit && a->max_blocks) {
		fprintf(stderr, "futexlab campaign: --max-blocks counts a "
			"visit campaign's blocks: give no --interleave run or "
			"--rounds with it\n");
		return -1;
	}
	if (c->visit) {
		c->rounds = c->max_rounds = 1;
		if (!a->budget_given)
			c->time_budget_s = VISIT_BUDGET_DEFAULT_S;
	}
	return 0;
}

/*
 * The matrix as each side runs it: parsed with the side's setting, so a
 * misspelt or bad set= is named with its side before anything is made.
 * 0, or -1 said on stderr.
 */
static int check_matrix(const char *file, struct fl_campaign *c)
{
	static struct fl_matrix m, ms;
	char err[4096], name[64];
	int rc = fl_matrix_load(file, &m, err, sizeof(err));

	if (rc)
		fprintf(stderr, "futexlab campaign: %s\n", err);
	else if (c->visit)
		rc = visit_cells(file, &m, c);
	for (unsigned int i = 0; i < c->nsides && !rc; i++) {
		const struct fl_campaign_side *s = &c->side[i];
		char *text, *why;

		if (!*s->set)
			continue;
		text = fl_campaign_side_matrix(m.text, s);
		snprintf(name, sizeof(name), "matrix-%s.ini", s->name);
		rc = text ? fl_matrix_parse(name, text, strlen(text), &ms, err,
					    sizeof(err)) : -1;
		/* a visit names a cell by its number: the same on every
		 * side */
		if (!rc && c->visit && ms.ncells != m.ncells) {
			fprintf(stderr, "futexlab campaign: --side %s: set=%s "
				"makes %lu cells of the matrix's %lu: a visit "
				"campaign's sides have the same cells\n",
				s->name, s->set, ms.ncells, m.ncells);
			fl_matrix_free(&ms);
			free(text);
			fl_matrix_free(&m);
			return -1;
		}
		fl_matrix_free(&ms);
		free(text);
		if (rc) {
			/* the line is the side's copy's: name the flag */
			why = strstr(err, ": ");
			fprintf(stderr, "futexlab campaign: --side %s: set=%s: "
				"%s\n", s->name, s->set, text && why ?
				why + 2 : "out of memory");
		}
	}
	fl_matrix_free(&m);
	return rc ? -1 : 0;
}

/* the defaults a new campaign takes where the flags say nothing, every
 * flag, side and matrix key checked, then the campaign made */
static int new_campaign(struct args *a, struct fl_campaign *c)
{
	char err[8192];

	if (!a->matrix)
		return bad("a new campaign needs --matrix FILE (to resume "
			   "%s, give only the folder)", a->dir);
	if (c->nsides < 2)
		return bad("a new campaign needs two --side or more (%s)",
			   "e.g. --side A --side B:set=critical=1050");
	for (unsigned int i = 0; i < c->nsides; i++)
		for (unsigned int j = 0; j < i; j++)
			if (!strcmp(c->side[i].name, c->side[j].name))
				return bad("two sides named %s",
					   c->side[i].name);
	if (declared_setting(c) || interleave(a, c))
		return 2;
	if (!*c->vm && !realpath("vm/run", c->vm))
		snprintf(c->vm, sizeof(c->vm), "vm/run");
	if (!*c->repo && !realpath(".", c->repo))
		return bad("cannot resolve the current folder%s", "");
	if (fl_campaign_check_sides(c, err, sizeof(err)))
		return bad("%s", err);
	if (check_matrix(a->matrix, c))
		return 2;
	if (a->max_blocks && a->max_blocks < c->horizon)
		c->horizon = a->max_blocks;
	/* else the blocks the time budget holds, from the first blocks'
	 * pace (campaign/blocks.c) */
	c->horizon_pending = c->visit && c->time_budget_s > 0 &&
			     !a->max_blocks;
	/* every visit of every side sizes its busy loop by this one
	 * speed, so a critical section is the same work in all of them
	 * (a visit's own calibration may catch the CPU's slow level) */
	if (c->visit)
		c->busy_speed = fl_busy_speed_best(BUSY_TRIES);
	if (fl_campaign_create(a->dir, c, a->matrix, err, sizeof(err))) {
		fprintf(stderr, "futexlab campaign: %s\n", err);
		return 2;
	}
	return -1;
}

int fl_cmd_campaign(int argc, char **argv)
{
	static struct fl_campaign c;
	struct args a = { .cmd.run_timeout_s = RUN_TIMEOUT_DEFAULT_S,
			  .cmd.say = &fl_say_stderr };
	char err[8192];
	int rc;

	c = (struct fl_campaign){ .seed = 1, .rounds = 5,
				  .delta = FL_DELTA_DEFAULT };
	/* the lines the campaign says go to stderr */
	fl_campaign_say = &fl_say_stderr;
	snprintf(a.cmd.self_build, sizeof(a.cmd.self_build), "%s (git %s)",
		 FL_VERSION, FL_GIT_COMMIT);
	rc = parse(argc, argv, &a, &c);
	if (rc >= 0)
		return rc;
	if (a.given) {
		rc = new_campaign(&a, &c);
		if (rc >= 0)
			return rc;
		/* what it runs the command line named */
		a.cmd.yes = 1;
	}
	fl_campaign_catch_signals();
	rc = fl_campaign_continue(a.dir, &a.cmd, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "futexlab campaign: %s\n", err);
		return 2;
	}
	if (rc == 130) {
		fprintf(stderr, "futexlab campaign: interrupted; continue "
			"with: futexlab campaign %s\n", a.dir);
		return 130;
	}
	printf("%s\n", a.dir);
	return rc;
}
