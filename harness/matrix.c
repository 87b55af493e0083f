// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing a matrix file into one fl_spec per experiment.
 *
 * libinih does the INI syntax; what it cannot tell us is the line of each
 * key (Debian builds it without INI_HANDLER_LINENO) or that a section with
 * no keys exists, so we feed it through our own reader, which counts lines
 * and notes every [section] line as it goes by. Keys are collected first
 * and checked afterwards, so [defaults] may come anywhere in the file;
 * of all the problems found, the one on the earliest line is reported.
 */
#include "matrix.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "placement.h"
#include "run_args.h"

#define MAX_SECTIONS (FL_MATRIX_MAX_EXPS + 8)
#define MAX_CELLS 100000ul

struct section {
	char raw[80];		/* between '[' and ']', as inih names it */
	int line;
};

struct parse {
	struct fl_matrix *m;
	const char *p, *end;	/* the reader's position */
	int line;		/* lines handed to inih so far */
	struct section sections[MAX_SECTIONS];
	unsigned int nsections;
	int err_line;		/* the earliest problem so far (0: none) */
	char *err;
	size_t errlen;
};

static const char *const common_keys[] = {
	"workload", "backend", "threads", "placement", "duration", "warmup",
	"reps", "seed", "hash-slots", NULL,
};

uint64_t fl_fnv1a64(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* Keep the problem on the earliest line: that is the one a user fixes
 * first, and it makes the message independent of checking order. */
static void __attribute__((format(printf, 3, 4)))
problem(struct parse *ps, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (ps->err_line && ps->err_line <= line)
		return;
	ps->err_line = line;
	n = snprintf(ps->err, ps->errlen, "%s:%d: ", ps->m->name, line);
	if (n < 0 || (size_t)n >= ps->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

/* Messages from the shared parsers name the flag ("--backend: ..."): in
 * a matrix file the key has no dashes. */
static const char *undash(const char *msg)
{
	return strncmp(msg, "--", 2) == 0 ? msg + 2 : msg;
}

static void note_section(struct parse *ps, const char *line)
{
	while (*line == ' ' || *line == '\t')
		line++;
	if (*line != '[')
		return;
	const char *close = strchr(line, ']');
	size_t n = close ? (size_t)(close - line - 1) : strlen(line + 1);

	if (ps->nsections == MAX_SECTIONS) {
		problem(ps, ps->line, "more than %d sections", MAX_SECTIONS);
		return;
	}
	struct section *s = &ps->sections[ps->nsections++];

	if (n >= 50) {
		/* inih cuts section names at 50 bytes: keys would land in a
		 * section we cannot match */
		problem(ps, ps->line, "section name longer than 49 characters");
		n = sizeof(s->raw) - 1 < n ? sizeof(s->raw) - 1 : n;
	}
	memcpy(s->raw, line + 1, n);
	s->raw[n] = '\0';
	s->raw[strcspn(s->raw, "\r\n")] = '\0';
	s->line = ps->line;
}

/* ini_reader over the file's bytes: one line per call, counted. */
static char *reader(char *str, int num, void *stream)
{
	struct parse *ps = stream;

	if (ps->p >= ps->end)
		return NULL;
	const char *nl = memchr(ps->p, '\n', (size_t)(ps->end - ps->p));
	size_t full = nl ? (size_t)(nl - ps->p) + 1 : (size_t)(ps->end - ps->p);
	size_t n = full;

	ps->line++;
	if (n > (size_t)num - 1) {
		problem(ps, ps->line, "line longer than %d characters",
			num - 2);
		n = (size_t)num - 1;
	}
	memcpy(str, ps->p, n);
	str[n] = '\0';
	if (memchr(str, '\0', n))
		problem(ps, ps->line, "NUL byte in the file");
	ps->p += full;
	note_section(ps, str);
	return str;
}

static int handler(void *user, const char *section, const char *name,
		   const char *value)
{
	struct parse *ps = user;
	struct fl_matrix *m = ps->m;
	struct fl_matrix_entry *e;

	if (m->nentries % 64 == 0) {
		void *p = realloc(m->entries, (m->nentries + 64) * sizeof(*e));

		if (!p) {
			problem(ps, ps->line, "out of memory");
			return 1;
		}
		m->entries = p;
	}
	e = &m->entries[m->nentries++];
	memset(e, 0, sizeof(*e));
	snprintf(e->section, sizeof(e->section), "%s", section);
	snprintf(e->key, sizeof(e->key), "%s", name);
	if (strlen(value) >= sizeof(e->value))
		problem(ps, ps->line, "%s: value longer than %zu characters",
			name, sizeof(e->value) - 1);
	snprintf(e->value, sizeof(e->value), "%s", value);
	e->line = ps->line;
	return 1;
}

static int parse_u(const char *text, uint64_t *v)
{
	while (*text == ' ')
		text++;
	return fl_parse_u64(text, v);
}

/* One term of a thread list: N, cpus, N*cpus, cpus/N. */
static int thread_term(const char *t, unsigned int ncpus, uint64_t *v)
{
	char buf[64], *star, *slash;
	uint64_t k;

	if (strlen(t) >= sizeof(buf))
		return -1;
	strcpy(buf, t);
	if (strcmp(buf, "cpus") == 0) {
		*v = ncpus;
		return 0;
	}
	star = strchr(buf, '*');
	if (star && strcmp(star + 1, "cpus") == 0) {
		*star = '\0';
		if (fl_parse_u64(buf, &k) || k > FL_MAX_THREADS)
			return -1;
		*v = k * ncpus;
		return 0;
	}
	slash = strchr(buf, '/');
	if (slash && strncmp(buf, "cpus/", 5) == 0) {
		if (fl_parse_u64(slash + 1, &k) || k == 0)
			return -1;
		*v = ncpus / k ? ncpus / k : 1;
		return 0;
	}
	return fl_parse_u64(buf, v);
}

static int add_threads(unsigned int *out, int n, unsigned int max,
		       uint64_t v)
{
	for (int i = 0; i < n; i++)
		if (out[i] == v)
			return n;
	if ((unsigned int)n == max)
		return -1;
	out[n++] = (unsigned int)v;
	return n;
}

/*
 * A list value without its blanks, so "1, 2, 4" and "1 .. 2*cpus" read
 * naturally (at most len - 1 characters); -1 with "KEY: empty list" in
 * err when nothing is left.
 */
static int list_without_blanks(const char *key, const char *text, char *buf,
			       size_t len, char *err, size_t errlen)
{
	size_t j = 0;

	for (const char *p = text; *p && j < len - 1; p++)
		if (*p != ' ' && *p != '\t')
			buf[j++] = *p;
	buf[j] = '\0';
	if (!*buf) {
		snprintf(err, errlen, "%s: empty list: the experiment would "
			 "have no cells", key);
		return -1;
	}
	return 0;
}

int fl_matrix_threads(const char *text, unsigned int ncpus,
		      unsigned int *out, unsigned int max, char *err,
		      size_t errlen)
{
	char buf[256], *save = NULL;
	int n = 0;

	if (strlen(text) >= sizeof(buf)) {
		snprintf(err, errlen, "threads: list too long");
		return -1;
	}
	if (list_without_blanks("threads", text, buf, sizeof(buf), err,
				errlen))
		return -1;
	for (char *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *dots = strstr(tok, "..");
		uint64_t a, b;

		if (dots) {
			*dots = '\0';
			if (thread_term(tok, ncpus, &a) ||
			    thread_term(dots + 2, ncpus, &b))
				goto bad;
			*dots = '.';
			if (a < 1 || b < a || b > FL_MAX_THREADS)
				goto bad;
			/* powers of two from a, then b itself */
			for (uint64_t v = a; v <= b; v *= 2) {
				n = add_threads(out, n, max, v);
				if (n < 0)
					goto too_many;
			}
			n = add_threads(out, n, max, b);
		} else {
			if (thread_term(tok, ncpus, &a) || a < 1 ||
			    a > FL_MAX_THREADS)
				goto bad;
			n = add_threads(out, n, max, a);
		}
		if (n < 0)
			goto too_many;
		continue;
bad:
		snprintf(err, errlen, "threads: '%s' is not a thread count "
			 "from 1 to %d (N, cpus, K*cpus, cpus/K, or A..B "
			 "for powers of two)", tok, FL_MAX_THREADS);
		return -1;
	}
	return n;
too_many:
	snprintf(err, errlen, "threads: '%s' gives more than %u values", text,
		 max);
	return -1;
}

static int parse_backends(const char *text, struct fl_spec *s, char *err,
			  size_t errlen)
{
	const char *t = text;

	while (*t == ' ')
		t++;
	if (strcmp(t, "all") == 0 || strcmp(t, "host") == 0) {
		/* host: the backends that need no module; the module's
		 * backends (kmod-*) are for the lab machine and the VM */
		s->nbackends = 0;
		for (unsigned int i = 0; i < fl_nbackends &&
		     s->nbackends < FL_MAX_AXIS; i++) {
			if (t[0] == 'h' &&
			    strncmp(fl_backends[i]->name, "kmod", 4) == 0)
				continue;
			s->backends[s->nbackends++] = fl_backends[i];
		}
		return 0;
	}
	char buf[512];

	if (list_without_blanks("backend", t, buf, sizeof(buf), err, errlen))
		return -1;
	if (fl_parse_backends(buf, s, err, errlen)) {
		memmove(err, undash(err), strlen(undash(err)) + 1);
		return -1;
	}
	return 0;
}

static int parse_placements(const char *text, struct fl_spec *s, char *err,
			    size_t errlen)
{
	char buf[512], *save = NULL;

	if (strlen(text) >= sizeof(buf)) {
		snprintf(err, errlen, "placement: list too long");
		return -1;
	}
	strcpy(buf, text);
	s->nplacements = 0;
	for (char *tok = strtok_r(buf, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		if (strlen(tok) >= sizeof(s->placements[0])) {
			snprintf(err, errlen, "placement: '%s' is too long",
				 tok);
			return -1;
		}
		if (fl_placement_check(tok, err, errlen)) {
			memmove(err, undash(err), strlen(undash(err)) + 1);
			return -1;
		}
		if (s->nplacements == FL_MAX_AXIS) {
			snprintf(err, errlen, "placement: more than %d values",
				 FL_MAX_AXIS);
			return -1;
		}
		snprintf(s->placements[s->nplacements++],
			 sizeof(s->placements[0]), "%s", tok);
	}
	if (!s->nplacements) {
		snprintf(err, errlen, "placement: empty list: the experiment "
			 "would have no cells (give compact, scatter or a CPU "
			 "list; several are separated by spaces)");
		return -1;
	}
	return 0;
}

static int parse_seconds(const char *key, const char *text, uint64_t *out,
			 int allow_zero, char *err, size_t errlen)
{
	while (*text == ' ')
		text++;
	if (fl_parse_seconds_ns(text, out) || (!allow_zero && *out == 0) ||
	    *out > 86400ull * 1000000000ull) {
		snprintf(err, errlen, "%s: '%s' is not a number of seconds "
			 "(e.g. 1 or 0.5, %sat most one day)", key, text,
			 allow_zero ? "" : "above 0, ");
		return -1;
	}
	return 0;
}

/*
 * Apply one common key to s: 1 if key is not a common key, 0 when
 * applied, -1 with err.
 */
static int apply_common(struct fl_spec *s, const char *key, const char *val,
			unsigned int ncpus, char *err, size_t errlen)
{
	uint64_t u;

	if (strcmp(key, "backend") == 0)
		return parse_backends(val, s, err, errlen);
	if (strcmp(key, "threads") == 0) {
		int n = fl_matrix_threads(val, ncpus, s->threads, FL_MAX_AXIS,
					  err, errlen);

		if (n < 0)
			return -1;
		s->nthreads = (unsigned int)n;
		return 0;
	}
	if (strcmp(key, "placement") == 0)
		return parse_placements(val, s, err, errlen);
	if (strcmp(key, "duration") == 0)
		return parse_seconds(key, val, &s->duration_ns, 0, err, errlen);
	if (strcmp(key, "warmup") == 0)
		return parse_seconds(key, val, &s->warmup_ns, 1, err, errlen);
	if (strcmp(key, "reps") == 0) {
		if (parse_u(val, &u) || u < 1 || u > 100) {
			snprintf(err, errlen, "reps: '%s' is not a whole "
				 "number from 1 to 100", val);
			return -1;
		}
		s->reps = (unsigned int)u;
		return 0;
	}
	if (strcmp(key, "seed") == 0) {
		if (parse_u(val, &s->seed)) {
			snprintf(err, errlen, "seed: '%s' is not a "
				 "non-negative integer", val);
			return -1;
		}
		return 0;
	}
	if (strcmp(key, "hash-slots") == 0) {
		if (parse_u(val, &u) || u > (1u << 30)) {
			snprintf(err, errlen, "hash-slots: '%s' is not a "
				 "slot count from 0 to %u", val, 1u << 30);
			return -1;
		}
		s->hash_slots = (long)u;
		return 0;
	}
	return 1;
}

static void list_keys(const struct fl_workload *w, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 1; common_keys[i] && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i > 1 ? ", " : "", common_keys[i]);
	for (unsigned int i = 0; w && i < w->noptions && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, ", %s",
					 w->options[i].name);
}

/* s without the blanks around it, into out. */
static void trimmed(const char *s, char *out, size_t len)
{
	while (*s == ' ' || *s == '\t')
		s++;
	snprintf(out, len, "%s", s);
	size_t n = strlen(out);

	while (n && (out[n - 1] == ' ' || out[n - 1] == '\t'))
		out[--n] = '\0';
}

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

static const struct fl_matrix_entry *find_entry(const struct fl_matrix *m,
						const char *section,
						const char *key)
{
	for (unsigned int i = 0; i < m->nentries; i++)
		if (strcmp(m->entries[i].section, section) == 0 &&
		    strcmp(m->entries[i].key, key) == 0)
			return &m->entries[i];
	return NULL;
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

static void parse_defaults(struct parse *ps, const char *raw,
			   struct fl_spec *defs, unsigned int ncpus)
{
	const struct fl_matrix *m = ps->m;
	char err[512], known[512];

	for (unsigned int i = 0; i < m->nentries; i++) {
		const struct fl_matrix_entry *e = &m->entries[i];

		if (strcmp(e->section, raw) != 0)
			continue;
		int rc = strcmp(e->key, "workload") == 0 ? 1 :
			 apply_common(defs, e->key, e->value, ncpus, err,
				      sizeof(err));

		if (rc < 0) {
			problem(ps, e->line, "%s", err);
		} else if (rc > 0) {
			list_keys(NULL, known, sizeof(known));
			problem(ps, e->line, "unknown key '%s' in [defaults] "
				"(known: %s)", e->key, known);
		}
	}
}

static void parse_experiment(struct parse *ps, const struct section *sec,
			     const char *name, const struct fl_spec *defs,
			     unsigned int ncpus)
{
	struct fl_matrix *m = ps->m;
	const struct fl_matrix_entry *we = find_entry(m, sec->raw, "workload");
	const struct fl_workload *w;
	struct fl_matrix_exp *x;
	char err[512], known[512];
	/* an earlier problem may explain an empty product */
	int bad = ps->err_line != 0;

	if (!we) {
		problem(ps, sec->line, "[%s] has no 'workload =' key",
			sec->raw);
		return;
	}
	w = fl_workload_find(we->value);
	if (!w) {
		size_t used = (size_t)snprintf(known, sizeof(known), "%s",
					       "");
		for (unsigned int i = 0; i < fl_nworkloads &&
		     used < sizeof(known); i++)
			used += (size_t)snprintf(known + used,
				sizeof(known) - used, "%s%s", i ? ", " : "",
				fl_workloads[i]->name);
		problem(ps, we->line, "workload: unknown workload '%s' "
			"(known: %s)", we->value, known);
		return;
	}
	x = &m->exps[m->nexps++];
	snprintf(x->name, sizeof(x->name), "%s", name);
	x->line = sec->line;
	fl_spec_init(&x->spec, w);
	/* the defaults' common fields; options stay the workload's own */
	memcpy(x->spec.backends, defs->backends, sizeof(defs->backends));
	x->spec.nbackends = defs->nbackends;
	memcpy(x->spec.threads, defs->threads, sizeof(defs->threads));
	x->spec.nthreads = defs->nthreads;
	memcpy(x->spec.placements, defs->placements,
	       sizeof(defs->placements));
	x->spec.nplacements = defs->nplacements;
	x->spec.duration_ns = defs->duration_ns;
	x->spec.warmup_ns = defs->warmup_ns;
	x->spec.reps = defs->reps;
	x->spec.seed = defs->seed;
	x->spec.hash_slots = defs->hash_slots;

	for (unsigned int i = 0; i < m->nentries; i++) {
		const struct fl_matrix_entry *e = &m->entries[i];

		if (strcmp(e->section, sec->raw) != 0 || e == we)
			continue;
		int rc = apply_common(&x->spec, e->key, e->value, ncpus, err,
				      sizeof(err));

		if (rc < 0) {
			problem(ps, e->line, "%s", err);
			bad = 1;
			continue;
		}
		if (rc == 0)
			continue;
		unsigned int o;

		for (o = 0; o < w->noptions; o++)
			if (strcmp(w->options[o].name, e->key) == 0)
				break;
		if (o == w->noptions) {
			list_keys(w, known, sizeof(known));
			problem(ps, e->line, "unknown key '%s' in [%s] "
				"(known for workload %s: %s)", e->key, sec->raw,
				w->name, known);
			continue;
		}
		const char *v = e->value;

		while (*v == ' ')
			v++;
		if (!*v) {
			problem(ps, e->line, "%s: empty value: the experiment "
				"would have no cells", e->key);
			bad = 1;
			continue;
		}
		if (fl_opt_parse(&w->options[o], v, &x->spec.opts[o], err,
				 sizeof(err))) {
			problem(ps, e->line, "%s", undash(err));
			bad = 1;
		} else
			x->spec.opts[o].given = 1;
	}
	x->first_cell = m->ncells;
	x->ncells = fl_spec_ncells(&x->spec);
	/* a bad key already explains an empty axis: say that, not this */
	if (x->ncells == 0 && !bad)
		problem(ps, sec->line, "[%s]: empty product: no cells",
			sec->raw);
	m->ncells += x->ncells;
}

/* Pass p visits every cell with more than p repetitions, in cell order. */
static int plan_visits(struct fl_matrix *m)
{
	unsigned int maxreps = 0;
	unsigned long n = 0;

	for (unsigned int x = 0; x < m->nexps; x++) {
		n += m->exps[x].ncells * m->exps[x].spec.reps;
		if (m->exps[x].spec.reps > maxreps)
			maxreps = m->exps[x].spec.reps;
	}
	m->visits = calloc(n ? n : 1, sizeof(*m->visits));
	if (!m->visits)
		return -1;
	for (unsigned int p = 0; p < maxreps; p++)
		for (unsigned int x = 0; x < m->nexps; x++) {
			const struct fl_matrix_exp *e = &m->exps[x];

			if (e->spec.reps <= p)
				continue;
			for (unsigned long i = 0; i < e->ncells; i++)
				m->visits[m->nvisits++] = (struct
					fl_matrix_visit){ e->first_cell + i, p };
		}
	return 0;
}

int fl_matrix_parse(const char *name, const char *text, size_t len,
		    struct fl_matrix *m, char *err, size_t errlen)
{
	static struct parse ps;
	struct fl_spec defs;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int ncpus = online > 0 ? (unsigned int)online : 1;
	char ename[80];
	int rc;

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
	ps.p = m->text;
	ps.end = m->text + len;
	ps.err = err;
	ps.errlen = errlen;
	err[0] = '\0';
	rc = ini_parse_stream(reader, &ps, handler, &ps);
	if (rc > 0)
		problem(&ps, rc, "not a 'key = value' line, a [section] or a "
			"comment");
	else if (rc < 0)
		problem(&ps, 1, "cannot parse (out of memory)");

	check_duplicates(&ps);
	fl_spec_init(&defs, NULL);
	defs.backends[0] = fl_backend_find("futex-private");
	defs.nbackends = 1;
	for (unsigned int i = 0; i < ps.nsections; i++) {
		const struct section *s = &ps.sections[i];

		if (strcmp(s->raw, "defaults") == 0)
			parse_defaults(&ps, s->raw, &defs, ncpus);
	}
	for (unsigned int i = 0; i < ps.nsections; i++) {
		const struct section *s = &ps.sections[i];
		int dup = 0;

		if (strcmp(s->raw, "defaults") == 0)
			continue;
		if (!experiment_name(s->raw, ename, sizeof(ename))) {
			problem(&ps, s->line, "unknown section [%s]: expected "
				"[defaults] or [experiment NAME]", s->raw);
			continue;
		}
		if (!valid_name(ename)) {
			problem(&ps, s->line, "[%s]: name the experiment with "
				"letters, digits, '-', '_' or '.'", s->raw);
			continue;
		}
		for (unsigned int j = 0; j < i; j++)
			dup |= strcmp(ps.sections[j].raw, s->raw) == 0;
		if (dup)
			continue;
		if (m->nexps == FL_MATRIX_MAX_EXPS) {
			problem(&ps, s->line, "more than %d experiments",
				FL_MATRIX_MAX_EXPS);
			break;
		}
		parse_experiment(&ps, s, ename, &defs, ncpus);
	}
	if (!ps.err_line && m->nexps == 0)
		problem(&ps, ps.line ? ps.line : 1, "no [experiment NAME] "
			"section: nothing to run");
	if (!ps.err_line && m->ncells > MAX_CELLS)
		problem(&ps, 1, "%lu cells: at most %lu", m->ncells, MAX_CELLS);
	if (ps.err_line)
		return -1;

	if (plan_visits(m)) {
		problem(&ps, 1, "out of memory");
		return -1;
	}
	/* place every cell now: a bad CPU list fails before anything runs */
	for (unsigned int x = 0; x < m->nexps; x++) {
		static struct fl_cell cell;
		char why[256];

		for (unsigned long i = 0; i < m->exps[x].ncells; i++) {
			if (fl_spec_cell(&m->exps[x].spec, i, &cell, why,
					 sizeof(why))) {
				problem(&ps, m->exps[x].line, "[experiment "
					"%s]: %s", m->exps[x].name, why);
				return -1;
			}
		}
	}
	return 0;
}

int fl_matrix_load(const char *path, struct fl_matrix *m, char *err,
		   size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc;

	memset(m, 0, sizeof(*m));
	if (!f) {
		snprintf(err, errlen, "%s: cannot read: %s", path,
			 strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 8192;
			char *p = cap > (16u << 20) ? NULL : realloc(buf, cap);

			if (!p) {
				snprintf(err, errlen, "%s: too large", path);
				free(buf);
				fclose(f);
				return -1;
			}
			buf = p;
		}
		size_t n = fread(buf + len, 1, cap - len, f);

		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: cannot read: %s", path,
			 strerror(errno));
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	rc = fl_matrix_parse(path, buf ? buf : "", len, m, err, errlen);
	free(buf);
	return rc;
}

void fl_matrix_free(struct fl_matrix *m)
{
	free(m->text);
	free(m->entries);
	free(m->visits);
	m->text = NULL;
	m->entries = NULL;
	m->visits = NULL;
	m->nentries = 0;
	m->nvisits = 0;
}

int fl_matrix_cell(const struct fl_matrix *m, unsigned long i,
		   struct fl_cell *cell, const struct fl_matrix_exp **exp,
		   char *err, size_t errlen)
{
	for (unsigned int x = 0; x < m->nexps; x++) {
		const struct fl_matrix_exp *e = &m->exps[x];

		if (i >= e->first_cell && i < e->first_cell + e->ncells) {
			if (exp)
				*exp = e;
			return fl_spec_cell(&e->spec, i - e->first_cell, cell,
					    err, errlen);
		}
	}
	snprintf(err, errlen, "cell %lu: the matrix has %lu cells", i,
		 m->ncells);
	return -1;
}

int fl_matrix_visit_cell(const struct fl_matrix *m, unsigned long k,
			 struct fl_cell *cell,
			 const struct fl_matrix_exp **exp, char *err,
			 size_t errlen)
{
	if (k >= m->nvisits) {
		snprintf(err, errlen, "visit %lu: the matrix has %lu", k,
			 m->nvisits);
		return -1;
	}
	if (fl_matrix_cell(m, m->visits[k].cell, cell, exp, err, errlen))
		return -1;
	cell->reps = 1;
	cell->seed += m->visits[k].rep;
	return 0;
}

/* The section's first key = value line, or NULL: the section is not there. */
static const struct fl_matrix_entry *
first_in_section(const struct fl_matrix *m, const char *section)
{
	for (unsigned int i = 0; i < m->nentries; i++)
		if (strcmp(m->entries[i].section, section) == 0)
			return &m->entries[i];
	return NULL;
}

/* Append one difference; at most three, then "...". */
static void __attribute__((format(printf, 4, 5)))
add_diff(char *what, size_t len, int *n, const char *fmt, ...)
{
	size_t used = strlen(what);
	va_list ap;

	if (*n == 3) {
		if (used + 6 < len)
			strcat(what, "; ...");
		(*n)++;
		return;
	}
	if (*n > 3)
		return;
	if (*n && used + 2 < len) {
		strcat(what, "; ");
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(what + used, len - used, fmt, ap);
	va_end(ap);
	(*n)++;
}

int fl_matrix_diff(const struct fl_matrix *before,
		   const struct fl_matrix *now, char *what, size_t len)
{
	char a[256], b[256];
	int n = 0;

	what[0] = '\0';
	for (unsigned int i = 0; i < before->nentries; i++) {
		const struct fl_matrix_entry *e = &before->entries[i];
		const struct fl_matrix_entry *f = find_entry(now, e->section,
							     e->key);

		if (find_entry(before, e->section, e->key) != e)
			continue;
		if (!first_in_section(now, e->section)) {
			/* name a removed section once, at its first key */
			if (first_in_section(before, e->section) == e)
				add_diff(what, len, &n, "section [%s] was "
					 "removed", e->section);
			continue;
		}
		if (!f) {
			add_diff(what, len, &n, "[%s] %s was removed (it was "
				 "'%s')", e->section, e->key, e->value);
			continue;
		}
		trimmed(e->value, a, sizeof(a));
		trimmed(f->value, b, sizeof(b));
		if (strcmp(a, b) != 0)
			add_diff(what, len, &n, "[%s] %s: '%s' is now '%s' "
				 "(line %d)", e->section, e->key, a, b,
				 f->line);
	}
	for (unsigned int i = 0; i < now->nentries; i++) {
		const struct fl_matrix_entry *f = &now->entries[i];

		if (find_entry(now, f->section, f->key) != f)
			continue;
		if (!first_in_section(before, f->section)) {
			if (first_in_section(now, f->section) == f)
				add_diff(what, len, &n, "section [%s] was "
					 "added (line %d)", f->section,
					 f->line);
			continue;
		}
		if (!find_entry(before, f->section, f->key))
			add_diff(what, len, &n, "[%s] %s = %s was added "
				 "(line %d)", f->section, f->key, f->value,
				 f->line);
	}
	/* the same keys may still expand differently (e.g. "2*cpus" on a
	 * machine with another CPU count) */
	if (!n && before->ncells != now->ncells)
		add_diff(what, len, &n, "it now expands to %lu cells instead "
			 "of %lu", now->ncells, before->ncells);
	return n ? 1 : 0;
}
