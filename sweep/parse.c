// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing a matrix file into one fl_spec per experiment.
 *
 * libinih does the INI syntax; what it cannot tell us is the line of each
 * key (Debian builds it without INI_HANDLER_LINENO) or that a section with
 * no keys exists, so we feed it through our own reader (ini.c), which
 * counts lines and notes every [section] line as it goes by. Keys are
 * collected first and checked afterwards, so [defaults] may come anywhere in the file;
 * of all the problems found, the one on the earliest line is reported.
 * The common keys are the rows of spec/common_keys.h, the table
 * `futexlab run`'s flags are made from too.
 */
#include "sweep/matrix.h"

#include "spec/common_keys.h"

#include <ctype.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hash.h"
#include "sweep/internal.h"
#include "spec/options.h"

#define MAX_CELLS 100000ul

/* The experiment's name from "experiment NAME", or NULL if not one. */
static const char *experiment_name(const char *raw, char *name, size_t len)
{
	const char *p = raw;

	while (*p == ' ')
		p++;
	if (strncmp(p, "experiment", 10) != 0 || (p[10] != ' ' &&
						  p[10] != '\t'))
		return NULL;
	trimmed(p + 10, name, len);
	return name;
}

/* Two sections that differ only in blanks name one experiment twice:
 * refused (compare would take one for the other). */
static int same_name_before(struct parse *ps, unsigned int i,
			    const char *name)
{
	char other[80];

	for (unsigned int j = 0; j < i; j++) {
		if (experiment_name(ps->sections[j].raw, other, sizeof(other)) &&
		    strcmp(other, name) == 0) {
			problem(ps, ps->sections[i].line, "duplicate experiment "
				"'%s' (first at line %d)", name,
				ps->sections[j].line);
			return 1;
		}
	}
	return 0;
}

static int valid_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' &&
		    *s != '.')
			return 0;
	return 1;
}

static void check_duplicates(struct parse *ps)
{
	const struct fl_matrix *m = ps->m;

	for (unsigned int i = 0; i < ps->nsections; i++)
		for (unsigned int j = 0; j < i; j++)
			if (strcmp(ps->sections[i].raw,
				   ps->sections[j].raw) == 0)
				problem(ps, ps->sections[i].line,
					"duplicate section [%s] (first at "
					"line %d)", ps->sections[i].raw,
					ps->sections[j].line);
	for (unsigned int i = 0; i < m->nentries; i++) {
		const struct fl_matrix_entry *e = &m->entries[i];

		if (!*e->section) {
			problem(ps, e->line, "'%s' is outside any section: "
				"put it under [defaults] or an [experiment "
				"NAME]", e->key);
			continue;
		}
		const struct fl_matrix_entry *first =
			find_entry(m, e->section, e->key);

		if (first != e)
			problem(ps, e->line, "duplicate key '%s' in [%s] "
				"(first at line %d)", e->key, e->section,
				first->line);
	}
}

/*
 * Apply one common key to s: 1 if key is not a common key, 0 when
 * applied, -1 with "KEY: what is wrong" in err.
 */
static int apply_common(struct fl_spec *s, const char *key, const char *val,
			const struct fl_key_ctx *ctx, char *err, size_t errlen)
{
	const struct fl_common_key *k = fl_common_key_find(key);

	if (!k)
		return 1;
	return fl_common_key_apply(k, val, s, ctx, err, errlen);
}

static void parse_defaults(struct parse *ps, const char *raw,
			   struct fl_spec *defs,
			   const struct fl_key_ctx *ctx)
{
	const struct fl_matrix *m = ps->m;
	char err[512], known[512];

	for (unsigned int i = 0; i < m->nentries; i++) {
		const struct fl_matrix_entry *e = &m->entries[i];

		if (strcmp(e->section, raw) != 0)
			continue;
		int rc = strcmp(e->key, "workload") == 0 ? 1 :
			 apply_common(defs, e->key, e->value, ctx, err,
					     sizeof(err));

		if (rc < 0) {
			problem(ps, e->line, "%s", err);
		} else if (rc > 0) {
			fl_common_keys_list(NULL, known, sizeof(known));
			problem(ps, e->line, "unknown key '%s' in [defaults] "
				"(known: %s)", e->key, known);
		}
	}
}

/* Is line in the section sec, between its header and the next one? */
static int section_holds(const struct parse *ps, const struct section *sec,
			 int line)
{
	if (line <= sec->line)
		return 0;
	for (unsigned int i = 0; i < ps->nsections; i++)
		if (ps->sections[i].line > sec->line &&
		    ps->sections[i].line <= line)
			return 0;
	return 1;
}

/* The workload an experiment names, or NULL (said, with the known ones). */
static const struct fl_workload *
experiment_workload(struct parse *ps, const struct section *sec,
		    const struct fl_matrix_entry *we)
{
	const struct fl_workload *w;
	char known[512];
	size_t used = 0;

	if (!we) {
		/* "workload mutex" in it is that line's problem, not this */
		if (!section_holds(ps, sec, ps->not_key_line))
			problem(ps, sec->line, "[%s] has no 'workload =' key",
				sec->raw);
		return NULL;
	}
	w = fl_workload_find(we->value);
	if (w)
		return w;
	known[0] = '\0';
	for (unsigned int i = 0; i < fl_nworkloads && used < sizeof(known);
	     i++)
		used += (size_t)snprintf(known + used, sizeof(known) - used,
					 "%s%s", i ? ", " : "",
					 fl_workloads[i]->name);
	problem(ps, we->line, "workload: unknown workload '%s' (known: %s)",
		we->value, known);
	return NULL;
}

/* [defaults]' common fields, every one of them (a key added to the
 * table reaches the experiments unasked); the options stay the
 * workload's own. */
static void spec_from_defaults(struct fl_spec *spec, const struct fl_spec *d,
			       const struct fl_workload *w)
{
	struct fl_opt_values opts[FL_MAX_OPTS];

	fl_spec_init(spec, w);
	memcpy(opts, spec->opts, sizeof(opts));
	*spec = *d;
	spec->workload = w;
	memcpy(spec->opts, opts, sizeof(opts));
	if (w->fixed_threads) {
		/* pi's three roles: [defaults]' thread list is not its */
		spec->threads[0] = w->fixed_threads;
		spec->nthreads = 1;
	}
}

/*
 * One key of an experiment: a common field or one of its workload's
 * options. Return 1 when a bad value leaves an axis empty (that explains
 * an empty product), else 0; problems are said.
 */
static int experiment_key(struct parse *ps, const struct section *sec,
			  const struct fl_matrix_entry *e,
			  struct fl_matrix_exp *x,
			  const struct fl_key_ctx *ctx)
{
	const struct fl_workload *w = x->spec.workload;
	char err[512], known[512];
	const char *v = e->value;
	unsigned int o;
	int rc = apply_common(&x->spec, e->key, e->value, ctx, err,
				     sizeof(err));

	if (rc < 0)
		return problem(ps, e->line, "%s", err), 1;
	if (rc == 0)
		return 0;
	for (o = 0; o < w->noptions; o++)
		if (strcmp(w->options[o].name, e->key) == 0)
			break;
	if (o == w->noptions) {
		fl_common_keys_list(w, known, sizeof(known));
		problem(ps, e->line, "unknown key '%s' in [%s] (known for "
			"workload %s: %s)", e->key, sec->raw, w->name, known);
		return 0;
	}
	while (*v == ' ')
		v++;
	if (!*v) {
		problem(ps, e->line, "%s: empty value: the experiment would "
			"have no cells", e->key);
		return 1;
	}
	if (fl_opt_parse(&w->options[o], v, &x->spec.opts[o], err,
			 sizeof(err))) {
		problem(ps, e->line, "%s", undash(err));
		return 1;
	}
	x->spec.opts[o].given = 1;
	return 0;
}

static void parse_experiment(struct parse *ps, const struct section *sec,
			     const char *name, const struct fl_spec *defs,
			     const struct fl_key_ctx *ctx)
{
	struct fl_matrix *m = ps->m;
	const struct fl_matrix_entry *we = find_entry(m, sec->raw, "workload");
	const struct fl_workload *w = experiment_workload(ps, sec, we);
	struct fl_matrix_exp *x;
	/* an earlier problem may explain an empty product */
	int bad = ps->err_line != 0;

	if (!w)
		return;
	x = &m->exps[m->nexps++];
	snprintf(x->name, sizeof(x->name), "%s", name);
	x->line = sec->line;
	spec_from_defaults(&x->spec, defs, w);
	for (unsigned int i = 0; i < m->nentries; i++) {
		const struct fl_matrix_entry *e = &m->entries[i];

		if (strcmp(e->section, sec->raw) == 0 && e != we)
			bad |= experiment_key(ps, sec, e, x, ctx);
	}
	x->first_cell = m->ncells;
	x->ncells = fl_spec_ncells(&x->spec);
	/* a bad key already explains an empty axis: say that, not this */
	if (x->ncells == 0 && !bad)
		problem(ps, sec->line, "[%s]: empty product: no cells",
			sec->raw);
	m->ncells += x->ncells;
}

/* [defaults] first (its place in the file does not matter), then each
 * experiment in file order. */
static void parse_sections(struct parse *ps, const struct fl_key_ctx *ctx)
{
	struct fl_matrix *m = ps->m;
	struct fl_spec defs;
	char ename[80];

	fl_spec_init(&defs, NULL);
	defs.backends[0] = fl_backend_find("futex-private");
	defs.nbackends = 1;
	for (unsigned int i = 0; i < ps->nsections; i++)
		if (strcmp(ps->sections[i].raw, "defaults") == 0)
			parse_defaults(ps, "defaults", &defs, ctx);
	for (unsigned int i = 0; i < ps->nsections; i++) {
		const struct section *s = &ps->sections[i];
		int dup = 0;

		if (strcmp(s->raw, "defaults") == 0)
			continue;
		if (!experiment_name(s->raw, ename, sizeof(ename))) {
			problem(ps, s->line, "unknown section [%s]: expected "
				"[defaults] or [experiment NAME]", s->raw);
			continue;
		}
		if (!valid_name(ename)) {
			problem(ps, s->line, "[%s]: name the experiment with "
				"letters, digits, '-', '_' or '.'", s->raw);
			continue;
		}
		for (unsigned int j = 0; j < i; j++)
			dup |= strcmp(ps->sections[j].raw, s->raw) == 0;
		if (dup || same_name_before(ps, i, ename))
			continue;
		if (m->nexps == FL_MATRIX_MAX_EXPS) {
			problem(ps, s->line, "more than %d experiments",
				FL_MATRIX_MAX_EXPS);
			break;
		}
		parse_experiment(ps, s, ename, &defs, ctx);
	}
}

/* Place every cell now: a bad CPU list fails before anything runs. */
static int place_cells(struct parse *ps)
{
	struct fl_matrix *m = ps->m;
	struct fl_cell cell = { 0 };
	char why[256];
	int rc = 0;

	for (unsigned int x = 0; x < m->nexps && !rc; x++) {
		for (unsigned long i = 0; i < m->exps[x].ncells; i++) {
			if (fl_spec_cell(&m->exps[x].spec, i, &cell, why,
					 sizeof(why))) {
				problem(ps, m->exps[x].line, "[experiment "
					"%s]: %s", m->exps[x].name, why);
				rc = -1;
				break;
			}
		}
	}
	fl_cell_free(&cell);
	return rc;
}

/* What compare matches a cell of a run on (compare/match.c): its
 * workload, backend, threads, placement, options, duration and sampling. */
static void setup_of(const struct fl_cell *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s, %u threads, %s, %s, %llu ns, 1 in %u",
		 c->workload->name, c->backend->name, c->threads, c->placement,
		 c->options, (unsigned long long)c->duration_ns,
		 c->sample_every);
}

struct setup_hash {
	uint64_t h;
	unsigned long cell;
};

static int by_hash(const void *x, const void *y)
{
	const struct setup_hash *a = x, *b = y;

	if (a->h != b->h)
		return a->h < b->h ? -1 : 1;
	return (a->cell > b->cell) - (a->cell < b->cell);
}

/*
 * Two experiments that give one cell the same setup make a run whose
 * cells compare cannot tell apart (it matches on the setup): refused
 * here, at the later experiment's line, as two experiments of one name
 * are. Hashed and sorted, so 10^5 cells stay quick.
 */
static void alike_cells(struct parse *ps)
{
	const struct fl_matrix *m = ps->m;
	struct setup_hash *v = calloc(m->ncells + 1, sizeof(*v));
	struct fl_cell a = { 0 }, b = { 0 };
	const struct fl_matrix_exp *ea, *eb;
	char ka[1024], kb[1024], why[256];

	if (!v) {
		problem(ps, 1, "out of memory");
		return;
	}
	for (unsigned long i = 0; i < m->ncells; i++) {
		if (fl_matrix_cell(m, i, &a, NULL, why, sizeof(why)))
			goto out;	/* place_cells() said why */
		setup_of(&a, ka, sizeof(ka));
		v[i] = (struct setup_hash){ fl_fnv1a64(ka, strlen(ka)), i };
	}
	qsort(v, m->ncells, sizeof(*v), by_hash);
	for (unsigned long i = 1; i < m->ncells; i++) {
		if (v[i].h != v[i - 1].h ||
		    fl_matrix_cell(m, v[i - 1].cell, &a, &ea, why,
				   sizeof(why)) ||
		    fl_matrix_cell(m, v[i].cell, &b, &eb, why, sizeof(why)))
			continue;
		setup_of(&a, ka, sizeof(ka));
		setup_of(&b, kb, sizeof(kb));
		if (strcmp(ka, kb) == 0)
			problem(ps, eb->line, "[experiment %s] gives cell %lu "
				"the setup of [experiment %s]'s cell %lu (%s): "
				"compare could not tell them apart; give one "
				"another duration, option or thread count",
				eb->name, v[i].cell, ea->name, v[i - 1].cell,
				ka);
	}
out:
	fl_cell_free(&a);
	fl_cell_free(&b);
	free(v);
}

/* Line n (from 1) of text, blanks around it trimmed, cut to fit buf. */
static const char *line_text(const char *text, int n, char *buf, size_t len)
{
	const char *p = text + (strncmp(text, "\xef\xbb\xbf", 3) ? 0 : 3);

	for (int i = 1; i < n && p; i++)
		if ((p = strchr(p, '\n')))
			p++;
	if (!p) {
		buf[0] = '\0';
		return buf;
	}
	char line[256];

	snprintf(line, sizeof(line), "%.*s", (int)strcspn(p, "\r\n"), p);
	trimmed(line, buf, len);
	return buf;
}

int fl_matrix_parse(const char *name, const char *text, size_t len,
		    struct fl_matrix *m, char *err, size_t errlen)
{
	return fl_matrix_parse_for(name, text, len, NULL, m, err, errlen);
}

int fl_matrix_parse_for(const char *name, const char *text, size_t len,
			const struct fl_topology *t, struct fl_matrix *m,
			char *err, size_t errlen)
{
	static struct parse ps;
	struct fl_key_ctx ctx;
	int rc;

	if (t)
		fl_key_ctx_of(&ctx, t, 1);
	else
		fl_key_ctx_here(&ctx, 1);

	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->text = malloc(len + 1);
	if (!m->text) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -1;
	}
	memcpy(m->text, text, len);
	m->text[len] = '\0';
	m->len = len;
	m->hash = fl_fnv1a64(text, len);

	memset(&ps, 0, sizeof(ps));
	ps.m = m;
	/* an editor's UTF-8 byte order mark is not part of the first line */
	ps.p = m->text + (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0 ?
			  3 : 0);
	ps.end = m->text + len;
	ps.err = err;
	ps.errlen = errlen;
	err[0] = '\0';
	rc = ini_parse_stream(matrix_ini_reader, &ps,
			      matrix_ini_handler, &ps);
	if (rc > 0) {
		char text[64];

		ps.not_key_line = rc;
		problem(&ps, rc, "'%s' is not a 'key = value' line, a [section] "
			"or a comment", line_text(m->text, rc, text,
						  sizeof(text)));
	}
	else if (rc < 0)
		problem(&ps, 1, "cannot parse (out of memory)");

	check_duplicates(&ps);
	parse_sections(&ps, &ctx);
	if (!ps.err_line && m->nexps == 0)
		problem(&ps, ps.line ? ps.line : 1, "no [experiment NAME] "
			"section: nothing to run");
	if (!ps.err_line && m->ncells > MAX_CELLS)
		problem(&ps, 1, "%lu cells: at most %lu", m->ncells, MAX_CELLS);
	if (ps.err_line)
		return -1;
	if (matrix_plan_visits(m)) {
		problem(&ps, 1, "out of memory");
		return -1;
	}
	if (place_cells(&ps))
		return -1;
	alike_cells(&ps);
	return ps.err_line ? -1 : 0;
}
