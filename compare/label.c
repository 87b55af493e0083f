// SPDX-License-Identifier: GPL-2.0
/*
 * How a comparison names its cells. A label gives the workload, backend
 * and threads, then the placement and each option, as name=value, that
 * the cells of its workload differ in; what they all share is said once
 * for the workload (cmp_preamble), so "mutex futex-private t1" stands for
 * the cell and the reader still learns that critical=100 for all.
 */
#include <string.h>

#include "compare/internal.h"

/* Does the workload's cells' option `name` (NULL: the placement) take
 * more than one value among the n cells? */
static int varies(const struct fl_rd_cell *const *all, unsigned long n,
		  const struct fl_rd_cell *c, const char *name)
{
	char mine[128], v[128];

	if (name && fl_rd_option(c, name, mine, sizeof(mine)))
		mine[0] = '\0';
	for (unsigned long i = 0; i < n; i++) {
		const struct fl_rd_cell *o = all[i];

		if (!o || strcmp(o->workload, c->workload))
			continue;
		if (!name) {
			if (strcmp(o->placement, c->placement))
				return 1;
			continue;
		}
		if (fl_rd_option(o, name, v, sizeof(v)))
			v[0] = '\0';
		if (strcmp(v, mine))
			return 1;
	}
	return 0;
}

/* The placement and options of c that vary (want 1) or do not (want 0)
 * among its workload's cells, each " name=value". */
static size_t settings(const struct fl_rd_cell *c,
		       const struct fl_rd_cell *const *all, unsigned long n,
		       int want, char *buf, size_t len, size_t used)
{
	struct fl_rd_pair o;

	if (used < len && varies(all, n, c, NULL) == want)
		used += (size_t)snprintf(buf + used, len - used,
					 " placement=%s", c->placement);
	for (const char *p = c->options;
	     used < len && fl_rd_next_pair(&p, &o) == 0;) {
		char name[64];

		if (!o.value)
			continue;
		snprintf(name, sizeof(name), "%.*s", o.name_len, o.name);
		if (varies(all, n, c, name) != want)
			continue;
		used += (size_t)snprintf(buf + used, len - used, " %s=%.*s",
					 name, o.value_len, o.value);
	}
	return used;
}

void cmp_label(const struct fl_rd_cell *c,
	       const struct fl_rd_cell *const *all, unsigned long n,
	       char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "%s %s t%u", c->workload,
				       c->backend, c->threads);

	settings(c, all, n, 1, buf, len, used);
}

void cmp_preamble(const struct fl_rd_cell *const *all, unsigned long n,
		  const char *legend, FILE *out, FILE *md)
{
	fprintf(md, "\n");
	for (unsigned long i = 0; i < n; i++) {
		const struct fl_rd_cell *c = all[i];
		unsigned long j;
		char line[600];
		size_t used;

		for (j = 0; j < i && c; j++)
			if (all[j] && !strcmp(all[j]->workload, c->workload))
				break;
		if (!c || j < i)
			continue;	/* said with its workload's first */
		used = (size_t)snprintf(line, sizeof(line), "%s, every cell:",
					c->workload);
		if (settings(c, all, n, 0, line, sizeof(line), used) == used)
			continue;
		fprintf(out, "  %s\n", line);
		fprintf(md, "- %s\n", line);
	}
	fprintf(out, "  %s\n", legend);
	fprintf(md, "- %s\n", legend);
}
