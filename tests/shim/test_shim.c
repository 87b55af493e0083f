// SPDX-License-Identifier: GPL-2.0
/*
 * test_shim: libfutexlab-shim.so against the stock futex(2), case by case.
 *
 *   test_shim [--shim PATH] [--designs global,private,numa]
 *   test_shim --case NAME          (one case, in the process run_case made)
 *
 * For each case: its outcome on the stock futex, then with the shim
 * preloaded on each design; they must agree (or the shim must print what
 * the case documents it prints instead). Cases that need the module are
 * skipped with the reason where /dev/futexlab is missing (the host); the
 * others (argument checks, operations the module lacks, calls that pass
 * through) run everywhere, so the host's suite executes cases too.
 *
 * The shim is --shim, else $FUTEXLAB_SHIM, else shim/libfutexlab-shim.so
 * beside this binary (where ninja puts the guest's copy).
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/shim/shimtest.h"

#define MAX_CASES	256
#define MAX_DESIGNS	3

static char shim_path[PATH_MAX];
static const char *designs[MAX_DESIGNS] = { "global", "private", "numa" };
static unsigned int ndesigns = 3;
static int have_device;

static int said_once(const char *err, const char *text)
{
	int n = 0;

	for (const char *p = err; (p = strstr(p, text)); p += strlen(text))
		n++;
	return n == 1;
}

static int agrees(const struct shim_case *c, const char *stock,
		  const char *shim)
{
	if (c->agrees)
		return c->agrees(stock, shim);
	return !strcmp(c->shim_outcome ? c->shim_outcome : stock, shim);
}

/* The shim's run on one design against the stock outcome. */
static void check_design(const struct shim_case *c, const char *design,
			 const char *stock)
{
	char out[OUTCOME_LEN], err[4096];
	int r = run_case(c, shim_path, design, out, sizeof(out), err,
			 sizeof(err));

	if (r || !agrees(c, stock, out)) {
		print_error("%s, design %s:\n  stock: %s\n  shim:  %s\n%s%s%s",
			    c->name, design, stock, out,
			    c->shim_outcome ? "  (documented: " : "",
			    c->shim_outcome ? c->why : "",
			    c->shim_outcome ? ")\n" : "");
		print_error("  shim's stderr: %s\n", err);
		fail();
	}
	if (c->said_once && !said_once(err, c->said_once)) {
		print_error("%s, design %s: the shim did not say \"%s\" "
			    "exactly once; its stderr:\n%s\n", c->name,
			    design, c->said_once, err);
		fail();
	}
}

static void check_case(void **state)
{
	const struct shim_case *c = *state;
	char stock[OUTCOME_LEN], err[4096];

	if ((c->flags & CASE_DEVICE) && !have_device) {
		print_message("# skip: /dev/futexlab missing (load "
			      "kmod/futexlab.ko; the guest suite runs it)\n");
		skip();
	}
	if (run_case(c, NULL, NULL, stock, sizeof(stock), err, sizeof(err))) {
		print_error("%s on the stock futex: %s\n%s\n", c->name, stock,
			    err);
		fail();
	}
	/* a case that never touches the module needs no design of it */
	for (unsigned int i = 0; i < ((c->flags & CASE_DEVICE) ? ndesigns : 1);
	     i++)
		check_design(c, designs[i], stock);
}

static int parse_args(int argc, char **argv)
{
	const char *env = getenv("FUTEXLAB_SHIM");
	char self[PATH_MAX];
	ssize_t n;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	if (strrchr(self, '/'))
		strrchr(self, '/')[1] = '\0';
	snprintf(shim_path, sizeof(shim_path), "%s",
		 env && *env ? env : "");
	if (!shim_path[0])
		snprintf(shim_path, sizeof(shim_path),
			 "%sshim/libfutexlab-shim.so", self);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--shim") && i + 1 < argc) {
			snprintf(shim_path, sizeof(shim_path), "%s",
				 argv[++i]);
		} else if (!strcmp(argv[i], "--designs") && i + 1 < argc) {
			ndesigns = 0;
			for (char *d = strtok(argv[++i], ","); d &&
			     ndesigns < MAX_DESIGNS; d = strtok(NULL, ","))
				designs[ndesigns++] = d;
		} else {
			fprintf(stderr, "usage: %s [--shim PATH] [--designs "
				"LIST] | --case NAME\n", argv[0]);
			return -1;
		}
	}
	if (access(shim_path, R_OK)) {
		fprintf(stderr, "test_shim: no shim at %s (ninja builds it)\n",
			shim_path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct CMUnitTest tests[MAX_CASES];
	size_t n = 0;

	if (argc == 3 && !strcmp(argv[1], "--case"))
		return case_main(argv[2]);
	if (parse_args(argc, argv))
		return 2;
	have_device = access("/dev/futexlab", R_OK | W_OK) == 0;
	for (const struct shim_case *const *t = shim_case_tables(); *t; t++)
		for (const struct shim_case *c = *t; c->name &&
		     n < MAX_CASES; c++)
			tests[n++] = (struct CMUnitTest){
				.name = c->name,
				.test_func = check_case,
				.initial_state = (void *)c,
			};
	return _cmocka_run_group_tests("shim", tests, n, NULL, NULL);
}
