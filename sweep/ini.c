// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a matrix file's lines for libinih: every key = value with its
 * line number, every [section] line (even one with no keys), and the
 * problem on the earliest line (a line too long, a NUL byte, a value
 * too long, too many sections).
 */
#include "sweep/matrix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/internal.h"

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
char *matrix_ini_reader(char *str, int num, void *stream)
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

int matrix_ini_handler(void *user, const char *section, const char *name,
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
