// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of meta.json's workloads.W.plots: what the writer
 * (rundir/meta.c) records of a workload's own plots is what the reader
 * (rundir/read_plots.c) gives plot and report back, for a workload this
 * binary does not have; a run without the description falls back to the
 * registry for a workload it knows and to none for one it lacks; a newer
 * version is left unread, and a description that is wrong is refused
 * naming the member.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "rundir/meta.h"
#include "rundir/read.h"
#include "spec/workload.h"

static const struct fl_special_plot own = {
	.option = "lock",
	.name = "frob-lock",
	.title = "frob: the lock types",
	.ylabel = "blocked time",
	.panels = {
		{ .fig = FL_FIG_P50, .title = "p50" },
		{ .fig = FL_FIG_EXTRA, .extra = "max_blocked_ns",
		  .title = "longest", .ylabel = "longest block" },
	},
	.caption = "the lock types side by side",
};

/* a workload no futexlab registry has */
static const struct fl_workload frob = {
	.name = "frob",
	.summary = "a workload only this test has",
	.ops_unit = "rounds",
	.latency = "blocked time",
	.plot = &own,
};

/* meta.json's text with frob described as the writer describes it,
 * parsed back as a reader parses it: 0, or -1 with err */
static int written_and_read(const struct fl_workload *w,
			    struct fl_rd_run *r, char *err, size_t errlen)
{
	json_t *meta = json_object();
	char *text;
	int rc;

	fl_meta_add_workload(meta, w);
	text = json_dumps(meta, 0);
	json_decref(meta);
	assert_non_null(text);
	memset(r, 0, sizeof(*r));
	r->dirfd = -1;
	rc = fl_rd_parse_meta(r, "meta.json", text, strlen(text), err,
			      errlen);
	free(text);
	return rc;
}

static void test_written_is_read(void **state)
{
	static struct fl_rd_run r;
	static struct fl_rd_plots p;
	char err[512];

	(void)state;
	assert_null(fl_workload_find("frob"));
	assert_int_equal(written_and_read(&frob, &r, err, sizeof(err)), 0);
	fl_rd_plots(&r, "frob", &p);
	assert_int_equal(p.from, FL_RD_PLOTS_RUN);
	assert_int_equal(p.version, FL_PLOTS_VERSION);
	assert_int_equal(p.n, 1);
	assert_string_equal(p.special[0].name, "frob-lock");
	assert_string_equal(p.special[0].option, "lock");
	assert_string_equal(p.special[0].title, "frob: the lock types");
	assert_string_equal(p.special[0].ylabel, "blocked time");
	assert_string_equal(p.special[0].caption,
			    "the lock types side by side");
	assert_int_equal(p.special[0].npanels, 2);
	assert_int_equal(p.special[0].panels[0].fig, FL_COL_P50);
	assert_string_equal(p.special[0].panels[0].title, "p50");
	assert_string_equal(p.special[0].panels[0].ylabel, "");
	assert_int_equal(p.special[0].panels[1].fig, FL_COL_EXTRA);
	assert_string_equal(p.special[0].panels[1].counter,
			    "max_blocked_ns");
	assert_string_equal(p.special[0].panels[1].ylabel, "longest block");
	fl_rd_close(&r);
}

/* Without a description: the registry's for a workload it has, none for
 * one it lacks. */
static void test_older_run(void **state)
{
	static struct fl_rd_run r;
	static struct fl_rd_plots p;
	const struct fl_workload *pi = fl_workload_find("pi");
	char err[512];
	const char *text = "{\"workloads\": {\"pi\": {\"fairness\": false}}}";

	(void)state;
	assert_non_null(pi);
	assert_non_null(pi->plot);
	memset(&r, 0, sizeof(r));
	r.dirfd = -1;
	assert_int_equal(fl_rd_parse_meta(&r, "meta.json", text, strlen(text),
					  err, sizeof(err)), 0);
	fl_rd_plots(&r, "pi", &p);
	assert_int_equal(p.from, FL_RD_PLOTS_REGISTRY);
	assert_int_equal(p.n, 1);
	assert_string_equal(p.special[0].name, pi->plot->name);
	assert_string_equal(p.special[0].caption, pi->plot->caption);
	fl_rd_plots(&r, "frob", &p);
	assert_int_equal(p.from, FL_RD_PLOTS_NONE);
	assert_int_equal(p.n, 0);
	fl_rd_close(&r);
}

/* A run's meta.json with frob's plots as text: the reader's verdict. */
static int parse(const char *plots, char *err, size_t errlen,
		 struct fl_rd_plots *p)
{
	static struct fl_rd_run r;
	char text[2048];
	int rc;

	snprintf(text, sizeof(text), "{\"workloads\": {\"frob\": "
		 "{\"plots\": %s}}}", plots);
	memset(&r, 0, sizeof(r));
	r.dirfd = -1;
	rc = fl_rd_parse_meta(&r, "RUN/meta.json", text, strlen(text), err,
			      errlen);
	if (rc == 0 && p)
		fl_rd_plots(&r, "frob", p);
	fl_rd_close(&r);
	return rc;
}

static void test_newer_version(void **state)
{
	static struct fl_rd_plots p;
	char err[512];

	(void)state;
	assert_int_equal(parse("{\"version\": 2, \"special\": 7}", err,
			       sizeof(err), &p), 0);
	assert_int_equal(p.from, FL_RD_PLOTS_NEWER);
	assert_int_equal(p.version, 2);
	assert_int_equal(p.n, 0);
}

static void test_refused(void **state)
{
	static const struct {
		const char *plots, *err;
	} cases[] = {
		{ "[]", "RUN/meta.json: workloads.frob.plots: is not an "
		  "object" },
		{ "{\"special\": []}", "RUN/meta.json: workloads.frob.plots."
		  "version: is not a whole number >= 1" },
		{ "{\"version\": 1, \"special\": [{\"name\": \"../x\"}]}",
		  "RUN/meta.json: workloads.frob.plots.special[0].name: "
		  "'../x' is not a name (letters, digits, '-', '_', '.')" },
		{ "{\"version\": 1, \"special\": [{\"name\": \"x\", "
		  "\"option\": \"lock\", \"title\": \"t\", \"caption\": "
		  "\"c\", \"panels\": [{\"figure\": \"lat_max_ns\", "
		  "\"title\": \"t\"}]}]}",
		  "RUN/meta.json: workloads.frob.plots.special[0].panels[0]."
		  "figure: 'lat_max_ns' is not ops_per_sec, lat_p50_ns, "
		  "lat_p99_ns, lat_p999_ns, jain or extra" },
		{ "{\"version\": 1, \"special\": [{\"name\": \"x\", "
		  "\"option\": \"lock\", \"title\": \"a\\u001b[2Jb\", "
		  "\"caption\": \"c\", \"panels\": []}]}",
		  "RUN/meta.json: workloads.frob.plots.special[0].title: "
		  "holds a control character" },
		{ "{\"version\": 1, \"special\": [{\"name\": \"x\", "
		  "\"option\": \"lock\", \"title\": \"t\", \"caption\": "
		  "\"c\", \"panels\": []}]}",
		  "RUN/meta.json: workloads.frob.plots.special[0].panels: "
		  "is not a list of one or two" },
	};
	char err[512];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		err[0] = '\0';
		assert_int_equal(parse(cases[i].plots, err, sizeof(err),
				       NULL), -1);
		assert_string_equal(err, cases[i].err);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_written_is_read),
		cmocka_unit_test(test_older_run),
		cmocka_unit_test(test_newer_version),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests_name("rundir_plots", tests, NULL, NULL);
}
