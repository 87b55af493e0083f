// SPDX-License-Identifier: GPL-2.0
/*
 * What changed between the matrix a run started with and the one given
 * now: --resume refuses to continue a run whose file says something else.
 */
#include "sweep/matrix.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sweep/internal.h"

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
