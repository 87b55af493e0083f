// SPDX-License-Identifier: GPL-2.0
/*
 * What compare refuses before it writes anything, because its answer
 * could not mean anything: a run given twice (its figures would count as
 * two runs' evidence, and a run set against itself can only agree with
 * itself), an output folder inside a run it reads (its files would land
 * in a finished run), a --setting no cell has, and runs with no cell in
 * common, where it names the one option the cells differ by, if there
 * is one, for --setting.
 */
#include <stdlib.h>
#include <string.h>

#include "compare/internal.h"
#include "compare/runs_internal.h"
#include "rundir/regular.h"
#include "rundir/same_dir.h"

int cmp_refuse_twice(const struct fl_rd_run *runs, char *const *dirs,
		     unsigned int n, const char *side, char *err,
		     size_t errlen)
{
	char b1[161], b2[161];
	const char *s1, *s2;
	unsigned int i, j;

	if (!fl_rd_repeated(runs, n, &i, &j))
		return 0;
	s1 = fl_path_shown(dirs[i], b1, 160);
	s2 = fl_path_shown(dirs[j], b2, 160);
	if (side)
		snprintf(err, errlen, "side %s gives one run twice ('%s' and "
			 "'%s'): each run is one observation, so a run given "
			 "twice makes up evidence", side, s1, s2);
	else
		snprintf(err, errlen, "'%s' and '%s' are one run%s", s1, s2,
			 i ? ", given twice" : ": a run compared with itself "
			 "can only agree with itself");
	return -1;
}

int cmp_refuse_both_sides(const struct fl_rd_run *a, char *const *da,
			  unsigned int na, const struct fl_rd_run *b,
			  char *const *db, unsigned int nb, char *err,
			  size_t errlen)
{
	char s1[161], s2[161];

	for (unsigned int i = 0; i < na; i++)
		for (unsigned int j = 0; j < nb; j++) {
			if (!fl_rd_same(&a[i], &b[j]))
				continue;
			snprintf(err, errlen, "'%s' of side A and '%s' of side "
				 "B are one run: a run compared with itself "
				 "can only agree with itself",
				 fl_path_shown(da[i], s1, 160),
				 fl_path_shown(db[j], s2, 160));
			return -1;
		}
	return 0;
}

int cmp_refuse_out_inside(const struct fl_rd_run *runs, char *const *dirs,
			  unsigned int n, const char *outdir, int given,
			  char *err, size_t errlen)
{
	char s1[161], s2[161];

	for (unsigned int i = 0; i < n; i++) {
		if (!fl_rd_holds(&runs[i], outdir))
			continue;
		snprintf(err, errlen, "%s '%s' is inside the run '%s': compare "
			 "writes nothing into a finished run (give --out "
			 "another folder)", given ? "--out" : "the output",
			 fl_path_shown(outdir, s1, 160),
			 fl_path_shown(dirs[i], s2, 160));
		return -1;
	}
	return 0;
}

/* Is one an item of the list "x, y, z"? */
static int listed(const char *list, const char *one)
{
	size_t n = strlen(one);

	for (const char *p = list; (p = strstr(p, one)); p += n)
		if ((p == list || p[-1] == ' ') && (!p[n] || p[n] == ','))
			return 1;
	return 0;
}

/* one to the list "x, y" unless it is there */
static size_t add_name(char *buf, size_t len, size_t used, const char *one)
{
	if (!*one || listed(buf, one) || used + 1 >= len)
		return used;
	return used + (size_t)snprintf(buf + used, len - used, "%s%s",
				       used ? ", " : "", one);
}

/* The workloads of r's cells (options 0), or the names of their options
 * (options 1), each once: "mutex, hash". */
static void names_of(const struct fl_rd_run *r, int options, char *buf,
		     size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned long i = 0; i < r->ncells; i++) {
		const char *p = r->cells[i].options;
		struct fl_rd_pair o;
		char one[80];

		if (!options)
			used = add_name(buf, len, used, r->cells[i].workload);
		while (options && !fl_rd_next_pair(&p, &o)) {
			snprintf(one, sizeof(one), "%.*s", o.name_len, o.name);
			used = add_name(buf, len, used, one);
		}
	}
}

int cmp_refuse_setting(const struct fl_rd_run *runs, unsigned int n,
		       const char *setting, char *err, size_t errlen)
{
	char names[256] = "";

	for (unsigned int k = n; k-- > 0;) {
		names_of(&runs[k], 1, names, sizeof(names));
		if (listed(names, setting))
			return 0;
	}
	snprintf(err, errlen, "--setting '%s': no cell of these runs has that "
		 "option (%s%s)", setting, *names ? "theirs: " : "they have "
		 "none", names);
	return -1;
}

typedef char cmp_key[sizeof(((struct runs_cell *)0)->key)];

static int by_key(const void *x, const void *y)
{
	return strcmp(x, y);
}

/* Do some cells of a and b match with the option `ignore` left out?
 * -1: no memory. */
static int match_without(const struct fl_rd_run *a,
			 const struct fl_rd_run *b, const char *ignore)
{
	cmp_key *keys = calloc(b->ncells + 1, sizeof(*keys)), key;
	int found = 0;

	if (!keys)
		return -1;
	for (unsigned long i = 0; i < b->ncells; i++)
		runs_match_key(&b->cells[i], ignore, keys[i], sizeof(key));
	qsort(keys, b->ncells, sizeof(*keys), by_key);
	for (unsigned long i = 0; i < a->ncells && !found; i++) {
		runs_match_key(&a->cells[i], ignore, key, sizeof(key));
		found = bsearch(key, keys, b->ncells, sizeof(*keys),
				by_key) != NULL;
	}
	free(keys);
	return found;
}

int cmp_refuse_apart(const struct fl_rd_run *a, const char *na,
		     const struct fl_rd_run *b, const char *nb,
		     const char *ignore, char *err, size_t errlen)
{
	char wa[128], wb[128], opts[256], one[80], hint[200] = "";
	char diff[400];
	const char *p = opts, *comma;

	/* with the declared setting there is nothing left to suggest */
	names_of(a, 1, opts, sizeof(opts));
	for (; !ignore && *p && !*hint; p = comma ? comma + 2 : "") {
		comma = strchr(p, ',');
		snprintf(one, sizeof(one), "%.*s",
			 comma ? (int)(comma - p) : (int)strlen(p), p);
		if (match_without(a, b, one) == 1)
			snprintf(hint, sizeof(hint), "; their cells differ by "
				 "the option %s alone: --setting %s, with --a "
				 "and --b, compares them", one, one);
	}
	names_of(a, 0, wa, sizeof(wa));
	names_of(b, 0, wb, sizeof(wb));
	/* cells match on their duration and sampling too */
	cmp_settings_diff(a, b, diff, sizeof(diff));
	snprintf(err, errlen, "%s and %s have no cell in common (%s: %s; %s: "
		 "%s%s%s): nothing to compare%s", na, nb, na,
		 *wa ? wa : "no cells", nb, *wb ? wb : "no cells",
		 *diff ? "; settings: " : "", diff, hint);
	return -1;
}
