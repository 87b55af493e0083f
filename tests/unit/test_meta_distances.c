// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the node distance table in meta.json: what the writer
 * records of a machine (rundir/meta.c) the reader gives back value for
 * value (rundir/read_distances.c); a run without the table reads, its
 * distances unknown; and every hostile table (not square, rows not one
 * per node, values beyond a byte, negative, not integers, a node not 10
 * from itself) is refused with a message naming meta.json and the
 * member.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "rundir/meta.h"
#include "rundir/read.h"

/* text parsed as a reader parses meta.json: 0, or -1 with err */
static int parsed(const char *text, struct fl_rd_run *r, char *err,
		  size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->dirfd = -1;
	return fl_rd_parse_meta(r, "meta.json", text, strlen(text), err,
				errlen);
}

/* meta.json's text as the writer records machine m (free it) */
static char *written(const struct fl_machine *m)
{
	json_t *doc = json_pack("{s:o}", "machine", fl_machine_json(m));
	char *text = json_dumps(doc, 0);

	json_decref(doc);
	assert_non_null(text);
	return text;
}

static void test_round_trip(void **state)
{
	static struct fl_machine m;
	static struct fl_rd_run r;
	struct fl_distances d;
	char err[512], *text;

	(void)state;
	m.nnodes = 3;
	m.distances.n = 3;
	for (unsigned int i = 0; i < 3; i++)
		for (unsigned int j = 0; j < 3; j++)
			m.distances.d[i][j] = i == j ? 10 :
					      (unsigned char)(20 + i * 3 + j);
	m.distances.d[1][2] = 255;
	text = written(&m);
	assert_non_null(strstr(text, "\"numa_distances\": [[10, 21, 22], "
			       "[23, 10, 255], [26, 27, 10]]"));
	if (parsed(text, &r, err, sizeof(err)))
		fail_msg("%s", err);
	free(text);
	assert_int_equal(fl_rd_distances(&r, &d), 0);
	assert_int_equal(d.n, 3);
	assert_memory_equal(d.d, m.distances.d, sizeof(d.d));
	json_decref(r.meta);
}

static void test_absent_is_unknown(void **state)
{
	static struct fl_machine m;
	static struct fl_rd_run r;
	struct fl_distances d;
	char err[512], *text;

	(void)state;
	/* libnuma gave no table: the key is left out */
	m.nnodes = 1;
	text = written(&m);
	assert_null(strstr(text, "numa_distances"));
	assert_int_equal(parsed(text, &r, err, sizeof(err)), 0);
	free(text);
	assert_int_equal(fl_rd_distances(&r, &d), -1);
	assert_int_equal(d.n, 0);
	json_decref(r.meta);
	/* a run from before the key was written */
	assert_int_equal(parsed("{\"machine\": {\"topology\": "
				"{\"numa_nodes\": 2}}}", &r, err,
				sizeof(err)), 0);
	assert_int_equal(fl_rd_distances(&r, &d), -1);
	json_decref(r.meta);
}

static void test_hostile(void **state)
{
	static const struct {
		const char *nodes, *table, *why;
	} bad[] = {
		{ "2", "[[10, 21], [21]]", "row 1 is not a list of 2" },
		{ "2", "[[10, 21, 30], [21, 10, 30]]", "row 0 is not" },
		{ "1", "[[10, 21], [21, 10]]", "not a list of 1 rows" },
		{ "3", "[[10, 21], [21, 10]]", "not a list of 3 rows" },
		{ "2", "[[10, 256], [21, 10]]", "[0][1] is not a distance" },
		{ "2", "[[10, 21], [-1, 10]]", "[1][0] is not a distance" },
		{ "2", "[[10, 21.5], [21, 10]]", "[0][1] is not a distance" },
		{ "2", "[[10, \"21\"], [21, 10]]", "[0][1] is not a distance" },
		{ "2", "[[10, null], [21, 10]]", "[0][1] is not a distance" },
		{ "2", "[[10, 21], [21, 11]]", "[1][1] is 11" },
		{ "2", "[[10, 21], 21]", "row 1 is not" },
		{ "1", "\"10\"", "not a list of 1 rows" },
		{ "1", "{}", "not a list of 1 rows" },
		{ "1", "[]", "not a list of 1 rows" },
		{ "0", "[]", "without a numa_nodes count" },
		{ "65", "[[10]]", "without a numa_nodes count" },
		{ "\"2\"", "[[10, 21], [21, 10]]", "without a numa_nodes" },
		{ "1e3", "[[10]]", "without a numa_nodes count" },
	};
	static struct fl_rd_run r;
	char text[512], err[512];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "{\"machine\": {\"topology\": "
			 "{\"numa_nodes\": %s, \"numa_distances\": %s}}}",
			 bad[i].nodes, bad[i].table);
		err[0] = '\0';
		if (parsed(text, &r, err, sizeof(err)) != -1)
			fail_msg("accepted %s", text);
		if (strncmp(err, "meta.json: machine.topology.numa_distances",
			    42) || !strstr(err, bad[i].why))
			fail_msg("%s: message '%s' lacks '%s'", text, err,
				 bad[i].why);
		assert_null(r.meta);
	}
	/* unknown entries (libnuma's 0) are not wrong, off the diagonal or
	 * on it */
	assert_int_equal(parsed("{\"machine\": {\"topology\": {\"numa_nodes\": "
				"2, \"numa_distances\": [[0, 0], [0, 10]]}}}",
				&r, err, sizeof(err)), 0);
	json_decref(r.meta);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_absent_is_unknown),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
