// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a matrix file's lines for libinih: every key = value with its
 * line number, every [section] line (even one with no keys), and the
 * problem on the earliest line (a line too long, a NUL byte, a CR that
 * ends no line, an indented line, text after a section's ']', a value
 * too long, too many sections). Lines longer than libinih's own buffer
 * are shortened for it without changing what they say (shorten()).
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
	const char *rest = close ? close + 1 + strspn(close + 1, " \t") : "";

	/* libinih drops what follows the ']': "[experiment a] b" ran as a */
	if (*rest && !strchr(";\r\n", *rest))
		problem(ps, ps->line, "text after the ']' of [%.*s]: a "
			"section's line holds its [name] alone", (int)n,
			line + 1);

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

/* What inih hands the handler as the value of a long key line. */
static const char long_marker[] = "\001";

/* inih's inline comment: a ';' after a blank (ini.h's defaults) */
static size_t before_comment(const char *s)
{
	for (size_t i = 1; s[i]; i++)
		if (s[i] == ';' && (s[i - 1] == ' ' || s[i - 1] == '\t'))
			return i;
	return strlen(s);
}

/*
 * A line longer than libinih's buffer (Debian builds it with 200 bytes,
 * which cut thread lists with a comment after them): a comment line is
 * handed on empty, a [section] line up to its ']', a key line as its key
 * and a marker, its value (inline comment and blanks removed, as inih
 * would) kept in ps for the handler. What is handed on fits.
 */
static void shorten(struct parse *ps, char *line, char *out, int num)
{
	char *p = line + strspn(line, " \t");
	size_t eq = strcspn(p, "=:"), n;

	if (*p == ';' || *p == '#' || *p == '\0') {
		snprintf(out, (size_t)num, "\n");
		return;
	}
	if (*p == '[') {
		/* a name too long is note_section()'s to say */
		n = strcspn(p, "]") + 1;
		if (n > (size_t)num - 2)
			n = (size_t)num - 2;
		snprintf(out, (size_t)num, "%.*s\n", (int)n, p);
		return;
	}
	if (!p[eq] || eq > 63 || before_comment(p) < eq) {
		/* no key = value, or a key no option has: inih says so */
		snprintf(out, (size_t)num, "%.*s\n", num - 2, line);
		return;
	}
	char *v = p + eq + 1;

	v[before_comment(v)] = '\0';
	trimmed(v, ps->long_value, sizeof(ps->long_value));
	ps->long_line = ps->line;
	snprintf(out, (size_t)num, "%.*s %s\n", (int)(eq + 1), p,
		 long_marker);
}

/*
 * A CR ends a line only before its LF. Alone it ends none: a file with
 * old Mac line ends is one line to libinih (which then found no
 * [experiment]), and a stray one in a value is a typo no value means.
 */
static void lone_cr(struct parse *ps, const char *line, size_t n)
{
	const char *cr = memchr(line, '\r', n);
	size_t at = cr ? (size_t)(cr - line) : n;

	if (at >= n || (at + 1 == n && line + n == ps->end) ||
	    (at + 2 == n && line[n - 1] == '\n'))
		return;
	problem(ps, ps->line, "a carriage return (CR) with no line feed "
		"after it: lines end with LF or CR LF, never CR alone");
}

/*
 * A line that starts with a blank continues the value above it in
 * libinih ("  algo = pi" after "workload = mutex" was a second workload
 * key): refused, and handed on unindented so that inih reads it as the
 * key it looks like and says nothing odd of it. Blank lines and comments
 * may be indented.
 */
static void indented(struct parse *ps, char *line)
{
	size_t lead = strspn(line, " \t");
	const char *p = line + lead;

	if (!lead || strchr(";#\r\n", *p))
		return;
	size_t n = strcspn(p, "\r\n");

	problem(ps, ps->line, "'%.*s' is indented: start keys and [sections] "
		"at the line's start (INI reads an indented line after a key "
		"as more of its value)", (int)(n < 40 ? n : 40), p);
	memmove(line, p, strlen(p) + 1);
}

/* ini_reader over the file's bytes: one line per call, counted. */
char *matrix_ini_reader(char *str, int num, void *stream)
{
	struct parse *ps = stream;
	static char full[FL_MATRIX_MAX_LINE + 2];

	if (ps->p >= ps->end)
		return NULL;
	const char *nl = memchr(ps->p, '\n', (size_t)(ps->end - ps->p));
	size_t n = nl ? (size_t)(nl - ps->p) + 1 : (size_t)(ps->end - ps->p);

	ps->line++;
	lone_cr(ps, ps->p, n);
	if (n > FL_MATRIX_MAX_LINE + 1) {
		problem(ps, ps->line, "line longer than %d characters, the most "
			"a matrix file's line may have", FL_MATRIX_MAX_LINE);
		n = FL_MATRIX_MAX_LINE + 1;
	}
	memcpy(full, ps->p, n);
	full[n] = '\0';
	if (memchr(full, '\0', n))
		problem(ps, ps->line, "NUL byte in the file");
	ps->p += nl ? (size_t)(nl - ps->p) + 1 : (size_t)(ps->end - ps->p);
	note_section(ps, full);
	if (n > (size_t)num - 1)
		shorten(ps, full, str, num);
	else
		memcpy(str, full, n + 1);
	indented(ps, str);
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
	if (ps->long_line == ps->line && strcmp(value, long_marker) == 0)
		value = ps->long_value;
	if (strlen(value) >= sizeof(e->value))
		problem(ps, ps->line, "%s: value longer than %d characters, "
			"the most a matrix file's value may have", name,
			FL_MATRIX_MAX_VALUE);
	snprintf(e->value, sizeof(e->value), "%s", value);
	e->line = ps->line;
	return 1;
}
