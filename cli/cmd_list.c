// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab list [--json]: the workloads, the backends (with their
 * capabilities and whether they work here), and what this machine and
 * its kernel support, all probed now. A workload's options are in the
 * JSON; an option whose values follow a grammar (its forms: numa's node
 * sets and distances) is also described in the text. With --topology
 * FILE, what futexlab sees of the machine an hwloc XML file describes
 * instead.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/topology_file.h"
#include "rundir/meta.h"
#include "measure/probe.h"
#include "spec/workload.h"

/* An option with forms, one line: its named values, then each form
 * with its syntax and an example. */
static void print_forms(const struct fl_option *o)
{
	const char *sep = "";

	printf("  %-14s --%s ", "", o->name);
	for (int c = 0; o->type == FL_OPT_ENUM && o->choices[c]; c++) {
		printf("%s%s", sep, o->choices[c]);
		sep = ", ";
	}
	if (*sep)
		sep = "; ";
	for (const struct fl_option_form *f = o->forms; f->name; f++) {
		printf("%s%s %s, e.g. %s", sep, f->name, f->syntax,
		       f->example);
		sep = "; ";
	}
	printf("%s\n", o->sweep ? "; a list (a,b) sweeps" : "");
}

static void print_text(const struct fl_machine *m)
{
	char caps[256], why[256];

	printf("workloads:\n");
	for (unsigned int i = 0; i < fl_nworkloads; i++) {
		const struct fl_workload *w = fl_workloads[i];

		printf("  %-14s %s\n", w->name, w->summary);
		for (unsigned int o = 0; o < w->noptions; o++)
			if (w->options[o].forms)
				print_forms(&w->options[o]);
	}
	printf("\nbackends:\n");
	for (unsigned int i = 0; i < fl_nbackends; i++) {
		const struct fl_backend *b = fl_backends[i];
		int ok = b->probe(why, sizeof(why)) == 0;

		fl_caps_format(b->caps(), caps, sizeof(caps));
		printf("  %-14s %s\n  %-14s %s; caps: %s\n", b->name,
		       b->summary, "", ok ? "available" : why, caps);
	}
	printf("\nmachine:\n");
	printf("  host           %s\n", m->hostname);
	printf("  kernel         %s (%s)\n", m->kernel, m->arch);
	printf("  cpu            %s\n", m->cpu_model);
	printf("  cpus           %u online, %u cores, %u packages\n",
	       m->ncpus_online, m->ncores, m->npackages);
	printf("  numa nodes     %u%s\n", m->nnodes,
	       m->numa_available ? "" : " (libnuma: no NUMA support)");
	for (unsigned int n = 0; n < m->nnodes; n++)
		printf("    node %u       cpus %s, %lld MiB\n", n,
		       m->node_cpus[n], m->node_mem_mb[n]);
	fl_print_distances(stdout, &m->distances, 2);
	printf("  governor       %s\n", m->governor);
	printf("\nfutex features:\n");
	printf("  futex2 syscalls      %s\n", m->futex2 ? "yes" : "no");
	printf("  FUTEX2_NUMA          %s\n", m->futex2_numa ? "yes" : "no");
	printf("  FUTEX_LOCK_PI2       %s\n", m->futex_lock_pi2 ? "yes" : "no");
	if (m->hash_slots >= 0)
		printf("  private hash prctl   yes, %ld slots%s\n",
		       m->hash_slots, m->hash_slots == 0 ?
		       " (global table)" : "");
	else
		printf("  private hash prctl   no (PR_FUTEX_HASH needs 6.16+)\n");
	printf("  /dev/futexlab        %s\n", m->dev_futexlab ? "present" :
	       "absent (load kmod/futexlab.ko)");
	if (m->kmod_version[0])
		printf("  futexlab module      version %s, %s\n",
		       m->kmod_version, m->kmod_params[0] ? m->kmod_params :
		       "no parameters");
}

/* What an option takes besides its choices: [] for most. */
static json_t *forms_json(const struct fl_option *o)
{
	json_t *forms = json_array();

	for (const struct fl_option_form *f = o->forms; f && f->name; f++)
		json_array_append_new(forms, json_pack(
			"{s:s, s:s, s:s, s:s}", "name", f->name, "syntax",
			f->syntax, "example", f->example, "help", f->help));
	return forms;
}

/* A workload's options, so tools can drive it without parsing --help:
 * its named choices, and the forms of the values it takes besides. */
static json_t *options_json(const struct fl_workload *w)
{
	static const char *const types[] = {
		[FL_OPT_INT] = "int", [FL_OPT_NS] = "ns",
		[FL_OPT_BOOL] = "bool", [FL_OPT_ENUM] = "enum",
		[FL_OPT_TEXT] = "text",
	};
	json_t *opts = json_array();

	for (unsigned int i = 0; i < w->noptions; i++) {
		const struct fl_option *o = &w->options[i];
		json_t *choices = json_array();

		for (int c = 0; o->type == FL_OPT_ENUM && o->choices[c]; c++)
			json_array_append_new(choices,
					      json_string(o->choices[c]));
		json_array_append_new(opts, json_pack(
			"{s:s, s:s, s:s, s:s, s:b, s:o, s:o}", "name", o->name,
			"type", types[o->type], "default", o->def,
			"help", o->help, "sweep", o->sweep,
			"choices", choices, "forms", forms_json(o)));
	}
	return opts;
}

static json_t *to_json(const struct fl_machine *m)
{
	json_t *wl = json_array(), *be = json_array();
	char caps[256], why[256];

	for (unsigned int i = 0; i < fl_nworkloads; i++)
		json_array_append_new(wl, json_pack("{s:s, s:s, s:o, s:o}",
			"name", fl_workloads[i]->name, "summary",
			fl_workloads[i]->summary, "options",
			options_json(fl_workloads[i]), "fixed_threads",
			fl_workloads[i]->fixed_threads ?
			json_integer(fl_workloads[i]->fixed_threads) :
			json_null()));
	for (unsigned int i = 0; i < fl_nbackends; i++) {
		const struct fl_backend *b = fl_backends[i];
		int ok;

		why[0] = '\0';
		ok = b->probe(why, sizeof(why)) == 0;
		fl_caps_format(b->caps(), caps, sizeof(caps));
		json_array_append_new(be, json_pack("{s:s, s:s, s:b, s:s, s:s}",
			"name", b->name, "summary", b->summary,
			"available", ok, "reason", ok ? "" : why,
			"caps", caps));
	}
	return json_pack("{s:o, s:o, s:o}", "workloads", wl, "backends", be,
			 "machine", fl_machine_json(m));
}

/* The machine an XML file describes, as text or JSON: 0 or 2. */
static int list_topology(const char *path, int json)
{
	struct fl_topology t;

	if (fl_topology_file("list", path, &t))
		return 2;
	if (json) {
		json_t *nodes = json_array(), *packages = json_array();
		json_t *dist = json_array();

		for (unsigned int n = 0; n < t.nnodes; n++)
			json_array_append_new(nodes,
					      json_integer(t.node_ncpus[n]));
		for (unsigned int p = 0; p < t.npackages; p++)
			json_array_append_new(packages,
					      json_integer(t.package_ncpus[p]));
		for (unsigned int i = 0; i < t.distances.n; i++) {
			json_t *row = json_array();

			for (unsigned int j = 0; j < t.distances.n; j++)
				json_array_append_new(row, json_integer(
					t.distances.d[i][j]));
			json_array_append_new(dist, row);
		}
		json_t *doc = json_pack("{s:{s:s, s:i, s:o, s:o, s:o}}",
			"topology", "file", path, "cpus", (int)t.ncpus,
			"node_cpus", nodes, "package_cpus", packages,
			"numa_distances", t.distances.n ? dist :
			(json_decref(dist), json_null()));

		json_dumpf(doc, stdout, JSON_INDENT(2));
		printf("\n");
		json_decref(doc);
		return 0;
	}
	printf("machine described by %s:\n", path);
	fl_print_topology(stdout, &t);
	return 0;
}

int fl_cmd_list(int argc, char **argv)
{
	const char *topology = NULL;
	struct fl_machine m;
	int json = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = 1;
		} else if (strcmp(argv[i], "--topology") == 0) {
			if (i + 1 == argc) {
				fprintf(stderr, "futexlab list: --topology "
					"needs a FILE (an hwloc XML "
					"topology)\n");
				return 2;
			}
			if (topology) {
				fl_flag_twice("list", "--topology", topology,
					      argv[i + 1]);
				return 2;
			}
			topology = argv[++i];
		} else if (strcmp(argv[i], "--help") == 0) {
			printf("usage: futexlab list [--json] [--topology "
			       "FILE]\n\n"
			       "Lists the workloads, the backends and what "
			       "this machine supports, probed now.\n"
			       "With --topology FILE (an hwloc XML topology, "
			       "lstopo --of xml), what futexlab sees\n"
			       "of that machine instead: its CPUs, nodes, "
			       "packages and distance table.\n");
			return 0;
		} else {
			fprintf(stderr, "futexlab list: unknown option '%s'\n",
				argv[i]);
			return 2;
		}
	}
	if (topology)
		return list_topology(topology, json);
	fl_probe_machine(&m);
	if (json) {
		json_t *doc = to_json(&m);

		json_dumpf(doc, stdout, JSON_INDENT(2));
		printf("\n");
		json_decref(doc);
	} else {
		print_text(&m);
	}
	return 0;
}
