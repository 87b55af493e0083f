/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the matrix files share and nothing else needs: the parse state and
 * its problem report, small string helpers used by both the parser and the
 * --resume diff, and the visit plan the parser builds last.
 */
#ifndef FUTEXLAB_SWEEP_INTERNAL_H
#define FUTEXLAB_SWEEP_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sweep/matrix.h"

#define MAX_SECTIONS (FL_MATRIX_MAX_EXPS + 8)

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
	int not_key_line;	/* the first line inih could not parse */
	/* a key line longer than libinih's line buffer: its value, split
	 * off by the reader, stands in for the marker inih hands on */
	int long_line;
	char long_value[FL_MATRIX_MAX_LINE];
	char *err;
	size_t errlen;
};

/* Keep the problem on the earliest line: that is the one a user fixes
 * first, and it makes the message independent of checking order. */
static inline void __attribute__((format(printf, 3, 4)))
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

/* libinih's reader and handler, in sweep/ini.c */
char *matrix_ini_reader(char *str, int num, void *stream);
int matrix_ini_handler(void *user, const char *section, const char *name,
		       const char *value);

/* Messages from the shared parsers name the flag ("--backend: ..."): in
 * a matrix file the key has no dashes. */
static inline const char *undash(const char *msg)
{
	return strncmp(msg, "--", 2) == 0 ? msg + 2 : msg;
}

/* s without the blanks around it, into out. */
static inline void trimmed(const char *s, char *out, size_t len)
{
	while (*s == ' ' || *s == '\t')
		s++;
	snprintf(out, len, "%s", s);
	size_t n = strlen(out);

	while (n && (out[n - 1] == ' ' || out[n - 1] == '\t'))
		out[--n] = '\0';
}

static inline const struct fl_matrix_entry *
find_entry(const struct fl_matrix *m, const char *section, const char *key)
{
	for (unsigned int i = 0; i < m->nentries; i++)
		if (strcmp(m->entries[i].section, section) == 0 &&
		    strcmp(m->entries[i].key, key) == 0)
			return &m->entries[i];
	return NULL;
}

/* Plan m->visits from its experiments; -1 when out of memory
 * (sweep/cells.c). */
int matrix_plan_visits(struct fl_matrix *m);

#endif
