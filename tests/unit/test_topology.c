// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of synthetic machines (spec/topology.c) on the fixtures in
 * tests/topologies/ (read from the source tree, where tests run): each
 * loads with its CPUs, nodes, packages and distance table; the thread
 * grammar's node-cpus and package-cpus stand for their counts, a value
 * two items give is kept once; matrix/default.ini's thread list for each
 * machine is the powers of two to twice its CPUs plus one node's, one
 * package's and all its CPUs; and a bad document is refused with a
 * message naming it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/common_keys.h"
#include "spec/topology.h"
#include "sweep/matrix.h"

/* A whole file of the source tree, NUL-terminated (free it). */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *text;
	long n;

	if (!f)
		fail_msg("cannot open %s (tests run from the source tree)",
			 path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = malloc((size_t)n + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	text[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return text;
}

static void load(const char *name, struct fl_topology *t)
{
	char path[256], err[512];
	size_t len;
	char *xml;

	snprintf(path, sizeof(path), "tests/topologies/%s.xml", name);
	xml = slurp(path, &len);
	if (fl_topology_from_xml(xml, len, path, t, err, sizeof(err)))
		fail_msg("%s", err);
	free(xml);
}

/* Every node of t holds node_cpus CPUs and every package package_cpus;
 * distance 10 to itself, near within a package, far across. */
static void check_machine(const struct fl_topology *t, unsigned int cpus,
			  unsigned int nodes, unsigned int packages,
			  unsigned int near, unsigned int far)
{
	unsigned int per_package = nodes / packages;

	assert_int_equal(t->ncpus, cpus);
	assert_int_equal(t->nnodes, nodes);
	assert_int_equal(t->npackages, packages);
	for (unsigned int n = 0; n < nodes; n++)
		assert_int_equal(t->node_ncpus[n], cpus / nodes);
	for (unsigned int p = 0; p < packages; p++)
		assert_int_equal(t->package_ncpus[p], cpus / packages);
	assert_int_equal(fl_topology_node_cpus(t), cpus / nodes);
	assert_int_equal(fl_topology_package_cpus(t), cpus / packages);
	assert_int_equal(t->distances.n, nodes);
	for (unsigned int i = 0; i < nodes; i++)
		for (unsigned int j = 0; j < nodes; j++)
			assert_int_equal(t->distances.d[i][j], i == j ? 10 :
					 i / per_package == j / per_package ?
					 near : far);
}

static void test_fixtures(void **state)
{
	struct fl_topology t;

	(void)state;
	load("2cpu-1node", &t);
	check_machine(&t, 2, 1, 1, 0, 0);
	load("64cpu-4node", &t);
	check_machine(&t, 64, 4, 2, 12, 32);
	load("112cpu-2node", &t);
	check_machine(&t, 112, 2, 2, 0, 32);
	load("256cpu-8node", &t);
	check_machine(&t, 256, 8, 2, 12, 32);
}

/* The list text expands on t to want (n values). */
static void expect_list(const struct fl_topology *t, const char *text,
			const unsigned int *want, int n)
{
	struct fl_key_ctx ctx;
	unsigned int got[FL_MAX_AXIS];
	char err[256];
	int k;

	fl_key_ctx_of(&ctx, t, 1);
	k = fl_parse_thread_list(text, &ctx, got, FL_MAX_AXIS, err,
				 sizeof(err));
	if (k < 0)
		fail_msg("'%s': %s", text, err);
	assert_int_equal(k, n);
	for (int i = 0; i < n; i++)
		if (got[i] != want[i])
			fail_msg("'%s': value %d is %u, not %u", text, i,
				 got[i], want[i]);
}

static void test_grammar_words(void **state)
{
	static const unsigned int w64[] = { 16, 32, 64, 8 };
	static const unsigned int w2[] = { 2 };
	static const unsigned int r64[] = { 1, 2, 4, 8, 16 };
	static const unsigned int k256[] = { 16, 256, 64 };
	struct fl_topology t;
	struct fl_key_ctx ctx;
	unsigned int got[FL_MAX_AXIS];
	char err[256];

	(void)state;
	load("64cpu-4node", &t);
	/* each word, K*W and W/K; a value given again is kept once */
	expect_list(&t, "node-cpus, package-cpus, cpus, node-cpus/2, "
		    "2*package-cpus", w64, 4);
	expect_list(&t, "1..node-cpus", r64, 5);
	load("256cpu-8node", &t);
	expect_list(&t, "package-cpus/8, 2*package-cpus, 2*node-cpus", k256,
		    3);
	/* on one node of one package the three words coincide: no error */
	load("2cpu-1node", &t);
	expect_list(&t, "cpus, node-cpus, package-cpus", w2, 1);
	/* the same item twice is still a typo, and an unknown word wrong */
	fl_key_ctx_of(&ctx, &t, 1);
	assert_int_equal(fl_parse_thread_list("node-cpus,node-cpus", &ctx,
					      got, FL_MAX_AXIS, err,
					      sizeof(err)), -1);
	assert_non_null(strstr(err, "node-cpus"));
	assert_int_equal(fl_parse_thread_list("node-cpu", &ctx, got,
					      FL_MAX_AXIS, err, sizeof(err)),
			 -1);
	assert_int_equal(fl_parse_thread_list("cpus-node/2", &ctx, got,
					      FL_MAX_AXIS, err, sizeof(err)),
			 -1);
	assert_int_equal(fl_parse_thread_list("node-cpus/0", &ctx, got,
					      FL_MAX_AXIS, err, sizeof(err)),
			 -1);
}

/* matrix/default.ini's mutex experiment's threads on machine name. */
static void expect_default(const char *name, const unsigned int *want,
			   unsigned int n)
{
	static struct fl_matrix m;
	struct fl_topology t;
	char err[2048];
	size_t len;
	char *text = slurp("matrix/default.ini", &len);

	load(name, &t);
	if (fl_matrix_parse_for("default.ini", text, len, &t, &m, err,
				sizeof(err)))
		fail_msg("%s: %s", name, err);
	free(text);
	assert_string_equal(m.exps[0].name, "mutex");
	assert_int_equal(m.exps[0].spec.nthreads, n);
	for (unsigned int i = 0; i < n; i++)
		if (m.exps[0].spec.threads[i] != want[i])
			fail_msg("%s: thread count %u is %u, not %u", name, i,
				 m.exps[0].spec.threads[i], want[i]);
	fl_matrix_free(&m);
}

static void test_default_threads(void **state)
{
	static const unsigned int t2[] = { 1, 2, 4 };
	static const unsigned int t64[] = { 1, 2, 4, 8, 16, 32, 64, 128 };
	static const unsigned int t112[] = { 1, 2, 4, 8, 16, 32, 64, 128,
					     224, 56, 112 };
	static const unsigned int t256[] = { 1, 2, 4, 8, 16, 32, 64, 128,
					     256, 512 };

	(void)state;
	expect_default("2cpu-1node", t2, 3);
	expect_default("64cpu-4node", t64, 8);
	expect_default("112cpu-2node", t112, 11);
	expect_default("256cpu-8node", t256, 10);
}

/* text with the first from replaced by to, into a new string. */
static char *edited(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	size_t n = strlen(text) - strlen(from) + strlen(to);
	char *s = malloc(n + 1);

	assert_non_null(at);
	assert_non_null(s);
	snprintf(s, n + 1, "%.*s%s%s", (int)(at - text), text, to,
		 at + strlen(from));
	return s;
}

static void expect_refused(const char *xml, const char *why)
{
	struct fl_topology t;
	char err[512] = "";

	assert_int_equal(fl_topology_from_xml(xml, strlen(xml), "t.xml", &t,
					      err, sizeof(err)), -1);
	if (strncmp(err, "t.xml: ", 7) || !strstr(err, why))
		fail_msg("message '%s' does not name t.xml and '%s'", err,
			 why);
}

static void test_bad_documents(void **state)
{
	size_t len;
	char *xml = slurp("tests/topologies/64cpu-4node.xml", &len);
	char *bad;

	(void)state;
	expect_refused("", "empty");
	expect_refused("<topology>", "cannot load");
	expect_refused("not xml at all", "cannot load");
	/* cut in the middle */
	bad = strndup(xml, len / 2);
	expect_refused(bad, "cannot load");
	free(bad);
	/* a distance no SLIT byte can hold */
	bad = edited(xml, "<u64values length=\"30\">10 12",
		     "<u64values length=\"31\">10 300");
	expect_refused(bad, "not a distance from 0 to 255");
	free(bad);
	free(xml);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_grammar_words),
		cmocka_unit_test(test_default_threads),
		cmocka_unit_test(test_bad_documents),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
