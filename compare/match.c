// SPDX-License-Identifier: GPL-2.0
/* Matching the cells of two runs, and what differs in their setups. */
#include <stdlib.h>
#include <string.h>

#include "compare/internal.h"
#include "base/result.h"

/* qsort over cell pointers by setup, then index */
static int by_setup(const void *x, const void *y)
{
	const struct fl_rd_cell *a = *(const struct fl_rd_cell *const *)x;
	const struct fl_rd_cell *b = *(const struct fl_rd_cell *const *)y;
	int c = strcmp(a->setup_key, b->setup_key);

	return c ? c : (a->index > b->index) - (a->index < b->index);
}

int cmp_unique_setups(const struct fl_rd_run *r, char *err, size_t errlen)
{
	const struct fl_rd_cell **v = calloc(r->ncells + 1, sizeof(*v));
	int rc = 0;

	if (!v) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (unsigned long i = 0; i < r->ncells; i++)
		v[i] = &r->cells[i];
	/* sorted, alike cells are neighbours: 10^4 cells stay quick */
	qsort(v, r->ncells, sizeof(*v), by_setup);
	for (unsigned long i = 1; i < r->ncells && !rc; i++) {
		if (strcmp(v[i - 1]->setup_key, v[i]->setup_key))
			continue;
		snprintf(err, errlen, "%s: cells %lu and %lu have the same "
			 "setup (%s %s, %u threads, %s, %s): cells match on "
			 "their setup, so compare could not tell them apart",
			 r->dir, v[i - 1]->index, v[i]->index,
			 v[i]->workload, v[i]->backend, v[i]->threads,
			 v[i]->placement, *v[i]->options ? v[i]->options :
			 "no options");
		rc = -1;
	}
	free(v);
	return rc;
}

int cmp_match(struct cmp_pair *p)
{
	const struct fl_rd_run *a = p->a, *b = p->b;

	p->n = 0;
	p->cells = calloc(a->ncells + b->ncells + 1, sizeof(*p->cells));
	if (!p->cells)
		return -1;
	for (unsigned long i = 0; i < a->ncells; i++)
		p->cells[p->n++] = (struct cmp_cell){ .a = &a->cells[i],
			.b = fl_rd_find_setup(b, a->cells[i].setup_key) };
	for (unsigned long i = 0; i < b->ncells; i++)
		if (!fl_rd_find_setup(a, b->cells[i].setup_key))
			p->cells[p->n++] = (struct cmp_cell){
				.b = &b->cells[i] };
	return 0;
}

/* "algo=pi;critical=100" -> "algo,critical" */
static void option_names(const char *opts, char *buf, size_t len)
{
	struct fl_rd_pair o;
	size_t used = 0;

	buf[0] = '\0';
	for (const char *p = opts;
	     used + 1 < len && fl_rd_next_pair(&p, &o) == 0;)
		used += (size_t)snprintf(buf + used, len - used, "%s%.*s",
					 used ? "," : "", o.name_len, o.name);
}

/* What differs between the machines and kernels of two runs. */
static const char *const facts[][2] = {
	{ "machine.hostname", "host" },
	{ "machine.kernel", "kernel" },
	{ "machine.cpu_model", "CPU model" },
	{ "machine.topology.cpus_online", "online CPUs" },
	{ "machine.topology.numa_nodes", "NUMA nodes" },
	{ "machine.governor", "frequency governor" },
	{ "machine.futex.dev_futexlab", "/dev/futexlab" },
	{ "machine.smt", "SMT" },
	{ "machine.hypervisor", "hypervisor" },
	{ "machine.clock.source", "clock source" },
	{ "machine.kernel_cmdline", "kernel command line" },
	{ "machine.libc", "libc" },
	{ "futexlab_version", "futexlab version" },
	{ "build.cflags", "compiler flags" },
	{ "build.compiler", "compiler" },
};

/* settings that are objects: compared key by key, naming what differs */
static const char *const settings[][2] = {
	{ "settings", "settings" },
	{ "matrix.experiments", "the matrix's experiments" },
	{ "sampling", "latency sampling" },
	{ "machine.vulnerabilities", "CPU vulnerability mitigations" },
};

static void warn_one(const struct fl_rd_run *a, const struct fl_rd_run *b,
		     const struct fl_say *say, FILE *md, const char *what,
		     const char *va, const char *vb)
{
	fl_say(say, "futexlab compare: warning: %s and %s differ in %s: "
	       "'%s' against '%s'", a->name, b->name, what, va, vb);
	if (md)
		fprintf(md, "- **warning**: %s differs: `%s` (%s) against "
			"`%s` (%s)\n", what, va, a->name, vb, b->name);
}

/* v as compact JSON into buf ("-" when absent) */
static void json_shown(const json_t *v, char *buf, size_t len)
{
	char *t = v ? json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS |
				 JSON_ENCODE_ANY) : NULL;

	snprintf(buf, len, "%s", t ? t : "-");
	free(t);
}

/* one difference, "path A against B", onto the list in buf */
static void add_diff(const char *path, const json_t *a, const json_t *b,
		     char *buf, size_t len)
{
	size_t used = strlen(buf);
	char va[96], vb[96];

	json_shown(a, va, sizeof(va));
	json_shown(b, vb, sizeof(vb));
	if (used + 1 < len)
		snprintf(buf + used, len - used, "%s%s%s%s against %s",
			 used ? ", " : "", path, *path ? " " : "", va, vb);
}

/*
 * Where a and b differ, each difference named by its path below the
 * object (objects by key, arrays of one length by index) with both
 * values: "sample_every 512 against 64".
 */
static void json_diff(const char *path, const json_t *a, const json_t *b,
		      char *buf, size_t len, int depth)
{
	char sub[160];
	const char *k;
	json_t *v;
	size_t i;

	if (a && b && json_equal((json_t *)a, (json_t *)b))
		return;
	if (depth < 4 && json_is_object(a) && json_is_object(b)) {
		json_object_foreach((json_t *)a, k, v) {
			snprintf(sub, sizeof(sub), "%s%s%s", path,
				 *path ? "." : "", k);
			json_diff(sub, v, json_object_get(b, k), buf, len,
				  depth + 1);
		}
		json_object_foreach((json_t *)b, k, v) {
			snprintf(sub, sizeof(sub), "%s%s%s", path,
				 *path ? "." : "", k);
			if (!json_object_get(a, k))
				add_diff(sub, NULL, v, buf, len);
		}
		return;
	}
	if (depth < 4 && json_is_array(a) && json_is_array(b) &&
	    json_array_size(a) == json_array_size(b)) {
		json_array_foreach((json_t *)a, i, v) {
			snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
			json_diff(sub, v, json_array_get(b, i), buf, len,
				  depth + 1);
		}
		return;
	}
	add_diff(path, a, b, buf, len);
}

void cmp_settings_diff(const struct fl_rd_run *a, const struct fl_rd_run *b,
		       char *buf, size_t len)
{
	buf[0] = '\0';
	json_diff("", fl_rd_meta_json(a, "settings"),
		  fl_rd_meta_json(b, "settings"), buf, len, 0);
}

/*
 * Facts older runs lack: a machine's label (two labels on one host are
 * two machines of a fleet) differs when either run has one; the CPUs a
 * run was allowed only when both say. A merged run whose shards ran on
 * several hosts is warned about on its own: its cells are of different
 * machines even where the hosts of the two runs agree.
 */
static int machine_names_differ(const struct fl_rd_run *a,
				const struct fl_rd_run *b,
				const struct fl_say *say, FILE *md)
{
	static const char *const keys[][2] = {
		{ "machine.label", "machine label" },
		{ "machine.topology.cpus_allowed", "CPUs allowed" },
	};
	int n = 0;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *va = json_string_value(fl_rd_meta_json(a,
							keys[i][0]));
		const char *vb = json_string_value(fl_rd_meta_json(b,
							keys[i][0]));

		if ((i ? va && vb : va || vb) &&
		    strcmp(va ? va : "", vb ? vb : "")) {
			warn_one(a, b, say, md, keys[i][1], va ? va : "",
				 vb ? vb : "");
			n++;
		}
	}
	for (int k = 0; k < 2; k++) {
		const struct fl_rd_run *x = k ? b : a;
		json_t *runs = fl_rd_meta_json(x, "merged.runs"), *e;
		char hosts[256] = "";
		size_t i, used = 0;
		int many = 0;

		json_array_foreach(runs, i, e) {
			const char *h = json_string_value(json_object_get(e,
								"host"));

			int seen = 0;

			for (size_t j = 0; h && j < i && !seen; j++) {
				const char *o = json_string_value(
					json_object_get(json_array_get(runs, j),
							"host"));

				seen = o && !strcmp(h, o);
			}
			if (!h || seen)
				continue;
			many += used > 0;
			if (used < sizeof(hosts))
				used += (size_t)snprintf(hosts + used,
					sizeof(hosts) - used, "%s%s",
					used ? ", " : "", h);
		}
		if (!many)
			continue;
		fl_say(say, "futexlab compare: warning: %s is merged from "
		       "shards that ran on different hosts (%s): its cells "
		       "are of different machines (meta.json cells_reps "
		       "names each cell's)", x->name, hosts);
		if (md)
			fprintf(md, "- **warning**: %s is merged from shards "
				"that ran on different hosts (%s)\n", x->name,
				hosts);
		n++;
	}
	return n;
}

static int setup_differs(const struct fl_rd_run *a,
			 const struct fl_rd_run *b, const struct fl_say *say,
			 FILE *md)
{
	char va[256], vb[256];
	int n = 0;

	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		fl_rd_meta(a, facts[i][0], va, sizeof(va));
		fl_rd_meta(b, facts[i][0], vb, sizeof(vb));
		if (strcmp(va, vb) == 0)
			continue;
		warn_one(a, b, say, md, facts[i][1], va, vb);
		n++;
	}
	n += machine_names_differ(a, b, say, md);
	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++) {
		const json_t *ja = fl_rd_meta_json(a, settings[i][0]);
		const json_t *jb = fl_rd_meta_json(b, settings[i][0]);
		char diff[1024] = "";

		if (!ja && !jb)
			continue;
		json_diff("", ja, jb, diff, sizeof(diff), 0);
		if (!*diff)
			continue;
		fl_say(say, "futexlab compare: warning: %s and %s differ in "
		       "%s: %s", a->name, b->name, settings[i][1], diff);
		if (md)
			fprintf(md, "- **warning**: %s differ between %s and "
				"%s: %s\n", settings[i][1], a->name, b->name,
				diff);
		n++;
	}
	return n;
}

/*
 * A machine that changed speed under a run: another guest on the host, or
 * a frequency change, that no process inside this machine shows. Its
 * repetitions' busy-loop calibrations say so; when more than
 * FL_BUSY_WARN of them drifted, the run's figures are of a machine in
 * another state, which no interval inside the run accounts for.
 */
static int drift_warnings(const struct fl_rd_run *a, const struct fl_rd_run *b,
			  const struct fl_say *say, FILE *md)
{
	int n = 0;

	for (int k = 0; k < 2; k++) {
		const struct fl_rd_run *x = k ? b : a;
		unsigned long drifted, reps;

		if (!fl_rd_busy_host(x, &drifted, &reps))
			continue;
		fl_say(say, "futexlab compare: warning: the CPU's speed "
		       "moved by more than %.0f%% during %lu of %lu "
		       "repetitions of %s (a busy host?): its verdicts and "
		       "summaries may reflect the machine, not the code",
		       FL_BUSY_DRIFT_MAX * 100, drifted, reps, x->name);
		if (md)
			fprintf(md, "- **warning**: the CPU's speed moved by "
				"more than %.0f%% during %lu of %lu repetitions "
				"of %s\n", FL_BUSY_DRIFT_MAX * 100, drifted,
				reps, x->name);
		n++;
	}
	return n;
}

int cmp_setup_warnings(const struct fl_rd_run *a, const struct fl_rd_run *b,
		       const struct fl_say *say, FILE *md)
{
	int n = setup_differs(a, b, say, md);

	/* a workload that gained an option in between: none of its cells
	 * can match, which the one-run-only lists would leave unexplained */
	for (unsigned long i = 0; i < a->ncells; i++) {
		const struct fl_rd_cell *bc;
		char na[512], nb[512];

		if (fl_rd_first_of(a, a->cells[i].workload) != &a->cells[i])
			continue;
		bc = fl_rd_first_of(b, a->cells[i].workload);
		if (!bc)
			continue;
		option_names(a->cells[i].options, na, sizeof(na));
		option_names(bc->options, nb, sizeof(nb));
		if (!strcmp(na, nb))
			continue;
		fl_say(say, "futexlab compare: warning: workload %s has "
		       "options '%s' in %s but '%s' in %s (another futexlab "
		       "version?): its cells cannot match",
		       a->cells[i].workload, na, a->name, nb, b->name);
		if (md)
			fprintf(md, "- **warning**: workload %s has options "
				"`%s` in %s but `%s` in %s\n",
				a->cells[i].workload, na, a->name, nb, b->name);
		n++;
	}
	n += drift_warnings(a, b, say, md);
	/* the intervals inside a run cannot show another user's load that
	 * came or went between the runs */
	for (int k = 0; k < 2; k++) {
		const struct fl_rd_run *x = k ? b : a;
		double fs;

		if (fl_rd_foreign_share(x, &fs) || fs <= FL_BUSY_WARN)
			continue;
		fl_say(say, "futexlab compare: warning: other processes used "
		       "%.0f%% of the CPU time during %s: verdicts may "
		       "reflect that load", fs * 100, x->name);
		if (md)
			fprintf(md, "- **warning**: other processes used "
				"%.0f%% of the CPU time during %s\n",
				fs * 100, x->name);
		n++;
	}
	return n;
}

