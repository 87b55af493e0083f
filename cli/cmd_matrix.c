// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab matrix FILE: run every cell of a matrix file (see matrix.h)
 * into one run directory; futexlab matrix --resume DIR finishes a run that
 * was interrupted or killed. The run directory's path is the last line.
 * Exit 0 when every cell ran or was skipped, 1 when a cell failed a check
 * or was aborted, 2 on a bad matrix file or usage, 130 when interrupted.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/estimate.h"
#include "cli/flags.h"
#include "cli/outputs.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/matrix_estimate.h"
#include "cli/matrix_visit.h"
#include "cli/shards.h"
#include "measure/busy_loop.h"
#include "measure/host_load.h"
#include "sweep/cost.h"
#include "sweep/job.h"
#include "measure/overhead.h"
#include "measure/probe.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: futexlab matrix FILE [--results DIR] [--list]\n"
		"                       [--shard K/N] [--label NAME]\n"
		"       futexlab matrix FILE --shard-commands N [--results DIR]\n"
		"       futexlab matrix FILE --estimate [--topology XML]\n"
		"       futexlab matrix --resume PARTIAL-DIR [FILE] [--yes]\n"
		"       futexlab matrix FILE --visit CELL[:N] [--results DIR]\n"
		"       futexlab matrix --resume PARTIAL-DIR [FILE] "
		"--visit CELL[:N] | --finish\n\n"
		"Run every cell of a matrix file (INI: [defaults] and one\n"
		"[experiment NAME] per experiment; see docs/matrix.md and\n"
		"matrix/default.ini) into one run directory under results/.\n\n"
		"  --results DIR   where run directories go (default results)\n"
		"  --list          print the cells and exit; runs nothing\n"
		"  --estimate      print each experiment's thread list, the\n"
		"                  cells, the estimated time and what the\n"
		"                  time budget adds, and exit; runs nothing\n"
		"  --topology XML  with --estimate: plan for the machine an\n"
		"                  hwloc XML file describes (lstopo --of xml;\n"
		"                  tests/topologies/) instead of this one\n"
		"  --shard K/N     run only shard K (0 to N-1) of N: every\n"
		"                  cell is in one shard, the shards balanced\n"
		"                  by estimated time (docs/fleet.md); join\n"
		"                  them with futexlab merge\n"
		"  --shard-commands N  print the N shards' command lines (one\n"
		"                  a line, for GNU parallel) and exit\n"
		"  --label NAME    name this machine in meta.json (letters,\n"
		"                  digits, '-', '_', '.'); a fleet's report\n"
		"                  shows it instead of the host name\n"
		"  --yes           run even when the estimate passes a day;\n"
		"                  with --resume, run the program a partial\n"
		"                  app matrix names (its cmd)\n"
		"  --run-dir-file F  also write the finished run directory's\n"
		"                  path to F (for scripts: stdout stays a\n"
		"                  terminal)\n"
		"  --resume DIR    finish the partial run in DIR (a\n"
		"                  results/.partial-* directory left by an\n"
		"                  interrupted or killed matrix run); only\n"
		"                  cells without all their rows run. Refused\n"
		"                  if the matrix file changed since, or if\n"
		"                  the directory fails a check (not yours,\n"
		"                  writable by others, links, FIFOs, bad\n"
		"                  rows: docs/matrix.md, \"What a resume\n"
		"                  checks\"). A program its cells run runs\n"
		"                  only with --yes or the FILE that names it.\n"
		"  --visit CELL[:N]  make one visit (one repetition, in a\n"
		"                  fresh process) of cell CELL (matrix FILE\n"
		"                  --list numbers them) and leave the run\n"
		"                  partial: a campaign's visit by visit\n"
		"                  (docs/statistics.md). With N, the cell's\n"
		"                  Nth visit: none if it has N already.\n"
		"                  Prints \"visit CELL N ok NAME FIGURE CPU\n"
		"                  CONTAMINATED\" (NAME: ops_per_sec or\n"
		"                  p50_ns; CPU ns/op, 1 or 0, or -) and the\n"
		"                  partial directory\n"
		"  --busy-speed N  with --visit: size the busy loop by N\n"
		"                  loops per microsecond, not by the\n"
		"                  visit's own calibration (a campaign's\n"
		"                  one speed for all its visits)\n"
		"  --finish        with --resume: finish the run with the\n"
		"                  visits it has (a visit a kill cut short\n"
		"                  runs again), planning no more\n"
		"  --help          this help\n");
}

static int __attribute__((format(printf, 1, 2)))
bad_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "futexlab matrix: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	return 2;
}

/* A bad matrix file already reads "FILE:LINE: ..." */
static void print_matrix_error(const struct fl_matrix *m, const char *err)
{
	if (*m->name && strncmp(err, m->name, strlen(m->name)) == 0)
		fprintf(stderr, "%s\n", err);
	else
		fprintf(stderr, "futexlab matrix: %s\n", err);
}

/* The cells, or with --shard the shard's only. */
static int list_cells(const struct fl_matrix *m, const struct fl_shard *sh)
{
	struct fl_cell cell = { 0 };
	const struct fl_matrix_exp *e;
	unsigned char *in = calloc(m->ncells + 1, 1);
	unsigned long listed = 0;
	char err[256];
	double share = 1.0;

	if (!in || (sh->n && fl_shard_cells(m, sh, in, &share, err,
					    sizeof(err)))) {
		fprintf(stderr, "futexlab matrix: %s\n", in ? err :
			"out of memory");
		free(in);
		return 2;
	}
	printf("# cell experiment workload backend threads placement "
	       "options\n");
	for (unsigned long i = 0; i < m->ncells; i++) {
		if (sh->n && !in[i])
			continue;
		listed++;
		if (fl_matrix_cell(m, i, &cell, &e, err, sizeof(err))) {
			fl_cell_free(&cell);
			free(in);
			fprintf(stderr, "futexlab matrix: %s\n", err);
			return 2;
		}
		printf("%lu %s %s %s %u %s %s\n", i, e->name,
		       cell.workload->name, cell.backend->name, cell.threads, cell.placement,
		       cell.options[0] ? cell.options : "-");
	}
	fl_cell_free(&cell);
	if (sh->n)
		printf("# shard %u/%u: %lu of the %lu cells, %.0f%% of the "
		       "nominal time\n", sh->k, sh->n, listed, m->ncells,
		       share * 100);
	printf("# %lu cells in %u experiment(s); their repetitions run as "
	       "interleaved visits, in passes\n", m->ncells, m->nexps);
	free(in);
	return 0;
}

struct matrix_args {
	const char *results, *resume, *file, *dir_file, *label, *topology;
	int results_given, list, yes, estimate, finish;
	struct fl_visit_arg visit;
	unsigned long busy_speed;	/* --busy-speed, or 0 */
	struct fl_shard shard;
	unsigned int shard_commands;	/* N of --shard-commands, or 0 */
};



/* --busy-speed's N (loops per microsecond) into *v; 0, or -1 said */
static int busy_speed_of(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strspn(s, "0123456789") == strlen(s) ? strtoul(s, &end, 10) : 0;
	if (errno || !*v || *v > FL_BUSY_SPEED_MAX)
		return bad_usage("--busy-speed: '%.40s' is not loops per "
				 "microsecond from 1 to %d", s,
				 FL_BUSY_SPEED_MAX);
	return 0;
}

/* The flags into a; 0, 1 after --help, or 2 after a one-line error. */
static int parse_args(int argc, char **argv, struct matrix_args *a)
{
	static const struct option longopts[] = {
		{ "results", 1, NULL, 'r' },
		{ "resume", 1, NULL, 'R' },
		{ "list", 0, NULL, 'l' },
		{ "run-dir-file", 1, NULL, 'f' },
		{ "yes", 0, NULL, 'y' },
		{ "shard", 1, NULL, 's' },
		{ "shard-commands", 1, NULL, 'S' },
		{ "label", 1, NULL, 'L' },
		{ "estimate", 0, NULL, 'e' },
		{ "topology", 1, NULL, 't' },
		{ "visit", 1, NULL, 'V' },
		{ "finish", 0, NULL, 'F' },
		{ "busy-speed", 1, NULL, 'B' },
		{ "help", 0, NULL, 'h' },
		{ 0 },
	};

	struct fl_shard whole;
	char err[160];

	memset(a, 0, sizeof(*a));
	a->results = "results";
	a->visit.cell = -1;
	fl_getopt_start();
	for (int c; (c = fl_getopt("matrix", argc, argv, longopts)) != -1;) {
		switch (c) {
		case 'r':
			if (fl_check_output("matrix", "--results", optarg,
					    FL_OUT_DIR_TREE))
				return 2;
			a->results = optarg;
			a->results_given = 1;
			break;
		case 'R':
			a->resume = optarg;
			break;
		case 'l':
			a->list = 1;
			break;
		case 'f':
			if (fl_check_output("matrix", "--run-dir-file", optarg,
					    FL_OUT_FILE))
				return 2;
			a->dir_file = optarg;
			break;
		case 'y':
			a->yes = 1;
			break;
		case 'e':
			a->estimate = 1;
			break;
		case 't':
			a->topology = optarg;
			break;
		case 'V':
			if (fl_visit_parse(optarg, &a->visit))
				return 2;
			break;
		case 'F':
			a->finish = 1;
			break;
		case 'B':
			if (busy_speed_of(optarg, &a->busy_speed))
				return 2;
			break;
		case 's':
			if (fl_shard_parse(optarg, &a->shard, err,
					   sizeof(err)))
				return bad_usage("%s", err);
			break;
		case 'S':
			/* N as the N of a first shard "0/N" */
			snprintf(err, sizeof(err), "0/%.20s", optarg);
			if (strlen(optarg) > 20 ||
			    fl_shard_parse(err, &whole, err, sizeof(err)))
				return bad_usage("--shard-commands: '%.40s' is "
						 "not a count of shards from "
						 "1 to %d", optarg,
						 FL_SHARD_MAX);
			a->shard_commands = whole.n;
			break;
		case 'L':
			if (!fl_label_ok(optarg))
				return bad_usage("--label: '%.80s' is not a "
						 "name of 1 to %d letters, "
						 "digits, '-', '_' or '.'",
						 optarg, FL_LABEL_MAX);
			a->label = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:	/* FL_GETOPT_BAD: it said why */
			return 2;
		}
	}
	if (optind < argc)
		a->file = argv[optind++];
	if (optind < argc)
		return bad_usage("unexpected argument '%s'", argv[optind]);
	if (!a->file && !a->resume)
		return bad_usage("give a matrix FILE or --resume DIR (see "
				 "--help)%s", "");
	if (a->resume && a->results_given)
		return bad_usage("--results: a resumed run stays where it "
				 "started (%s); it takes no --results",
				 a->resume);
	if (a->list && (a->resume || !a->file))
		return bad_usage("--list takes a matrix FILE, not --resume%s",
				 "");
	if (a->resume && (a->shard.n || a->shard_commands || a->label))
		return bad_usage("--resume: a resumed run keeps the shard and "
				 "label it started with; give no --shard, "
				 "--shard-commands or --label%s", "");
	if (a->topology && !a->estimate)
		return bad_usage("--topology plans for another machine: give "
				 "it with --estimate; a matrix runs on this "
				 "one%s", "");
	if (a->estimate && (a->resume || !a->file || a->list ||
			    a->shard.n || a->shard_commands))
		return bad_usage("--estimate plans a whole matrix FILE: give "
				 "no --resume, --list, --shard or "
				 "--shard-commands with it%s", "");
	if ((a->visit.cell >= 0 || a->finish) &&
	    (a->list || a->estimate || a->shard.n || a->shard_commands ||
	     a->label))
		return bad_usage("--visit and --finish run or finish a partial "
				 "run: give no --list, --estimate, --shard, "
				 "--shard-commands or --label with them%s", "");
	if (a->busy_speed && a->visit.cell < 0)
		return bad_usage("--busy-speed sizes a visit's busy loop: give "
				 "it with --visit%s", "");
	if (a->finish && (!a->resume || a->visit.cell >= 0))
		return bad_usage("--finish finishes a partial run: give it with "
				 "--resume DIR and without --visit%s", "");
	if (a->shard_commands && (a->shard.n || a->list))
		return bad_usage("--shard-commands prints the shards' command "
				 "lines: give no --shard or --list with it%s",
				 "");
	return 0;
}

/* The matrix's size and estimated time before a new run starts: 0, or 2
 * when it is beyond the bound without --yes or the file is bad. */
static int announce(const struct matrix_args *a)
{
	static struct fl_matrix m;
	char err[2048];
	double seconds = 0;
	int rc;

	if (fl_matrix_load(a->file, &m, err, sizeof(err))) {
		print_matrix_error(&m, err);
		fl_matrix_free(&m);
		return 2;
	}
	unsigned long visits = 0;

	/* the minimum visits; --reps auto adds more within the budget */
	for (unsigned int x = 0; x < m.nexps; x++) {
		seconds += fl_spec_minimum_seconds(&m.exps[x].spec);
		visits += m.exps[x].ncells * m.exps[x].spec.reps;
	}
	if (a->shard.n > m.ncells) {
		fprintf(stderr, "futexlab matrix: --shard %u/%u: the matrix "
			"has %lu cell(s) on this machine, fewer than %u "
			"shards\n", a->shard.k, a->shard.n, m.ncells,
			a->shard.n);
		fl_matrix_free(&m);
		return 2;
	}
	if (a->shard.n)
		fprintf(stderr, "futexlab matrix: shard %u/%u runs about "
			"1/%u of the whole matrix's estimate:\n", a->shard.k,
			a->shard.n, a->shard.n);
	rc = fl_announce("matrix", m.ncells, visits, seconds, a->yes) ?
	     2 : 0;
	fl_matrix_free(&m);
	return rc;
}

/* After the visits: the cells in order, meta.json, the rename; 0 or 1. */
static int finish(struct fl_matrix_job *job, const struct fl_host_load *load,
		  const struct fl_machine *machine,
		  const struct fl_overhead *overhead)
{
	char err[2048];

	if (fl_matrix_job_finalize(job, err, sizeof(err))) {
		fprintf(stderr, "futexlab matrix: %s (resume with: futexlab "
			"matrix --resume %s)\n", err, job->run.tmp);
		return 1;
	}
	/* the load of this session, when resumed */
	struct fl_record rec = {
		.argc = fl_main_argc, .argv = fl_main_argv,
		.machine = machine, .overhead = *overhead,
		.foreign_share = fl_host_load_foreign_share(load),
		.loadavg_start = machine->rerun.loadavg,
	};

	if (fl_matrix_job_finish(job, &rec, err, sizeof(err))) {
		fprintf(stderr, "futexlab matrix: %s (resume with: futexlab "
			"matrix --resume %s)\n", err, job->run.tmp);
		return 1;
	}
	return 0;
}

/* The visits stopped early: why, and the command that resumes them. */
static int stopped(const struct fl_matrix_job *job, enum fl_job_outcome why)
{
	int e = errno;

	if (why == FL_JOB_INTERRUPTED) {
		fprintf(stderr, "futexlab matrix: interrupted after %lu of %lu "
			"visits; resume with: futexlab matrix --resume %s\n",
			job->ndone, job->m.nvisits, job->run.tmp);
		return FL_EXIT_INTERRUPTED;
	}
	fprintf(stderr, "futexlab matrix: stopped after %lu of %lu visits: "
		"%s%s; resume with: futexlab matrix --resume %s (or delete "
		"it)\n", job->ndone, job->m.nvisits, ferror(stdout) ?
		"cannot write the progress: " : "a write failed (above)",
		ferror(stdout) ? strerror(e) : "", job->run.tmp);
	return 1;
}

/* The finished run's path on stdout and in --run-dir-file; 0 or 1. */
static int report_done(const struct fl_matrix_job *job, const char *dir_file)
{
	printf("%lu cells: %u ok, %u skipped, %u failed, %u aborted\n",
	       fl_matrix_job_cells(job), job->by_status[FL_STATUS_OK],
	       job->by_status[FL_STATUS_SKIPPED],
	       job->by_status[FL_STATUS_FAILED],
	       job->by_status[FL_STATUS_ABORTED]);
	printf("%s\n", job->run.final);
	return fl_write_dir_file("matrix", dir_file, job->run.final) ? 1 : 0;
}

/* futexlab matrix FILE | --resume DIR: parse, run every cell, finish the
 * run directory; meta.json also describes each workload (units, counters)
 * so the plots and the report can read the run directory alone. */
int fl_cmd_matrix(int argc, char **argv)
{
	static struct fl_matrix_job job;
	struct matrix_args a;
	struct fl_machine machine;
	struct fl_overhead overhead;
	struct fl_host_load load;
	char err[2048];
	int rc = parse_args(argc, argv, &a);

	if (rc)
		return rc == 1 ? 0 : 2;
	if (a.estimate)
		return fl_matrix_estimate(a.file, a.topology);
	if (a.shard_commands)
		return fl_print_shard_commands(a.file, a.shard_commands,
					       a.results_given ? a.results :
					       NULL);
	if (a.list) {
		if (fl_matrix_load(a.file, &job.m, err, sizeof(err))) {
			print_matrix_error(&job.m, err);
			fl_matrix_free(&job.m);
			return 2;
		}
		rc = list_cells(&job.m, &a.shard);
		fl_matrix_free(&job.m);
		return rc;
	}
	if (!a.resume && (a.visit.cell >= 0 ?
			  fl_visit_check_file(a.file, &a.visit) :
			  announce(&a)))
		return 2;
	rc = a.resume ? fl_matrix_job_resume_cell(&job, fl_main_argc,
						  fl_main_argv, a.resume,
						  a.file, a.yes, a.visit.cell,
						  a.visit.nth, err,
						  sizeof(err)) :
	     fl_matrix_job_start_shard(&job, fl_main_argc, fl_main_argv,
				       a.file, a.results, &a.shard, err,
				       sizeof(err));
	/* what the resume found on its way, before what stopped it */
	fputs(job.notes, stderr);
	if (rc) {
		print_matrix_error(&job.m, err);
		fl_matrix_job_free(&job);
		return 2;
	}
	fl_catch_interrupts();
	if (a.visit.cell >= 0) {
		if (a.busy_speed)
			fl_busy_pin(a.busy_speed);
		rc = fl_visit_run(&job, &a.visit);
		fl_matrix_job_free(&job);
		return rc;
	}
	job.planned_only = a.finish;
	if (a.resume)
		fprintf(stderr, "futexlab matrix: resuming %s: %lu of %lu "
			"visits done\n", job.run.tmp, job.ndone,
			job.m.nvisits);
	else
		fprintf(stderr, "futexlab matrix: %u experiment(s), their "
			"repetitions as interleaved visits in passes (time "
			"budget %.0f s); writing %s\n", job.m.nexps,
			job.budget_s, job.run.tmp);
	fl_probe_machine(&machine);
	fl_label_machine(&machine, &job, a.label);
	fl_measure_overhead(&overhead);
	fl_host_load_start(&load);
	job.say = &fl_say_stderr;
	enum fl_job_outcome outcome = fl_matrix_job_run(&job, stdout,
							isatty(STDOUT_FILENO));
	int worst = outcome == FL_JOB_FAILED ? FL_EXIT_FAILED : FL_EXIT_OK;

	if (outcome == FL_JOB_INTERRUPTED || outcome == FL_JOB_WRITE_FAILED)
		rc = stopped(&job, outcome);
	else if (finish(&job, &load, &machine, &overhead))
		rc = FL_EXIT_FAILED;
	else if (report_done(&job, a.dir_file))
		rc = FL_EXIT_FAILED;
	/* cells that ran before a resume may have failed too */
	else if (worst || job.by_status[FL_STATUS_FAILED] ||
		 job.by_status[FL_STATUS_ABORTED])
		rc = FL_EXIT_FAILED;
	else if (!job.by_status[FL_STATUS_OK]) {
		fprintf(stderr, "futexlab matrix: no cell ran: all %lu were "
			"skipped\n", fl_matrix_job_cells(&job));
		rc = FL_EXIT_NOTHING_RAN;
	} else
		rc = FL_EXIT_OK;
	fl_matrix_job_free(&job);
	return rc;
}
