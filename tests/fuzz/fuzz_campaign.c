// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: resuming a campaign folder an adversary made
 * (campaign/campaign.h: fl_campaign_continue). Each input builds, in a
 * scratch folder,
 *
 *   SCRATCH/c/                  the campaign: the input's campaign.json,
 *                               matrix.ini, matrix-A.ini, matrix-B.ini,
 *                               builds/A/futexlab, builds/B/futexlab
 *                               (both a script that makes CANARY)
 *   SCRATCH/evil.sh             the same script, for a manifest's "vm"
 *   SCRATCH/sys/proc/sys/net/x  a sysctl's file (the campaign's sysctl
 *                               and module parameter live under
 *                               SCRATCH/sys: fl_campaign_cmd.sys_root)
 *   SCRATCH/outside/            what must never change
 *
 * The input's first byte spoils the folder (links planted under
 * matrix-B.ini, builds/B/futexlab and builds/B, a FIFO under
 * matrix-A.ini, a folder under runs/01-A, a partial run under work/02)
 * and asks for --restore; the rest is campaign.json. Then the campaign is
 * resumed without --yes. No script may run (nothing the folder names is
 * run without --yes, and the copies are not this program), nothing may
 * wait (seconds for what takes milliseconds), nothing under outside/
 * may change, and nothing may appear in SCRATCH beside what it built.
 * The scaffolding (put, remove_tree, snapshot, only) is fuzz_resume's
 * (resume_scratch.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "campaign/campaign.h"
#include "tests/fuzz/resume_scratch.h"

static const char matrix_text[] =
	"[defaults]\nduration = 0.02\nwarmup = 0\nreps = 2\nseed = 1\n"
	"backend = futex-private\n\n[experiment m]\nworkload = mutex\n"
	"threads = 1\n";
/* a script that says it ran: SCRATCH/CANARY */
static char evil[256];

static void remove_scratch(void)
{
	remove_tree(scratch);
}

static void at(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", scratch, rel);
}

static void side_matrix(const char *cdir, const char *spec)
{
	struct fl_campaign_side s;
	char err[256], name[64], *text;

	if (fl_campaign_parse_side(spec, &s, err, sizeof(err)))
		abort();
	text = fl_campaign_side_matrix(matrix_text, &s);
	snprintf(name, sizeof(name), "matrix-%s.ini", s.name);
	put_str(cdir, name, text);
	free(text);
}

/* the campaign and what lies beside it, spoiled as flags say */
static void build_folder(unsigned int flags, const uint8_t *json, size_t n)
{
	char c[128], p[256], q[256];

	remove_tree(scratch);
	mkdir(scratch, 0755);
	at(c, sizeof(c), "outside");
	mkdir(c, 0755);
	put_str(c, "keep", "outside");
	put_str(scratch, "evil.sh", evil);
	at(p, sizeof(p), "evil.sh");
	chmod(p, 0755);
	at(p, sizeof(p), "sys");
	mkdir(p, 0755);
	at(p, sizeof(p), "sys/proc");
	mkdir(p, 0755);
	at(p, sizeof(p), "sys/proc/sys");
	mkdir(p, 0755);
	at(p, sizeof(p), "sys/proc/sys/net");
	mkdir(p, 0755);
	put_str(p, "x", "64\n");
	at(c, sizeof(c), "c");
	mkdir(c, 0755);
	put(c, FL_CAMPAIGN_MANIFEST, (const char *)json, n);
	put_str(c, "matrix.ini", matrix_text);
	side_matrix(c, "A");
	side_matrix(c, "B:set=critical=1050");
	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/builds", c);
		mkdir(p, 0755);
		snprintf(p, sizeof(p), "%s/builds/%c", c, "AB"[i]);
		mkdir(p, 0755);
		put_str(p, "futexlab", evil);
		snprintf(q, sizeof(q), "%s/futexlab", p);
		chmod(q, 0755);
	}
	if (flags & 1) {
		snprintf(p, sizeof(p), "%s/matrix-B.ini", c);
		unlink(p);
		at(q, sizeof(q), "outside/keep");
		if (symlink(q, p))
			abort();
	}
	if (flags & 2) {
		snprintf(p, sizeof(p), "%s/builds/B/futexlab", c);
		unlink(p);
		at(q, sizeof(q), "evil.sh");
		if (symlink(q, p))
			abort();
	}
	if (flags & 4) {
		snprintf(p, sizeof(p), "%s/matrix-A.ini", c);
		unlink(p);
		mkfifo(p, 0644);
	}
	if (flags & 8) {
		snprintf(p, sizeof(p), "%s/runs", c);
		mkdir(p, 0755);
		snprintf(p, sizeof(p), "%s/runs/01-A", c);
		mkdir(p, 0755);
		put_str(p, "meta.json", "{\"start_time\": \"x\", \"matrix\": "
			"{\"fnv1a64\": \"y\"}}");
		put_str(p, "cells.csv", "workload\n");
		put_str(p, "matrix.ini", matrix_text);
	}
	if (flags & 16) {
		snprintf(p, sizeof(p), "%s/work", c);
		mkdir(p, 0755);
		snprintf(p, sizeof(p), "%s/work/02", c);
		mkdir(p, 0755);
		snprintf(p, sizeof(p), "%s/work/02/.partial-x-1-0", c);
		mkdir(p, 0755);
	}
	if (flags & 32) {
		snprintf(p, sizeof(p), "%s/builds/B", c);
		snprintf(q, sizeof(q), "%s/builds/B.real", c);
		rename(p, q);
		at(q, sizeof(q), "outside");
		if (symlink(q, p))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const top[] = { "c", "evil.sh", "outside", "sys" };
	struct fl_campaign_cmd cmd = { .run_timeout_s = 5 };
	char dir[128], outside[128], canary[128], err[8192];
	char *before, *after;
	time_t t0;

	if (!*scratch) {
		snprintf(scratch, sizeof(scratch), "%s/fuzz_campaign.XXXXXX",
			 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
		if (!mkdtemp(scratch))
			abort();
		atexit(remove_scratch);
		/* the files must be trusted: the user's, no one else's to
		 * write */
		umask(022);
		snprintf(evil, sizeof(evil), "#!/bin/sh\ntouch %s/CANARY\n",
			 scratch);
	}
	if (!size)
		return 0;
	build_folder(data[0], data + 1, size - 1);
	cmd.restore_only = !!(data[0] & 64);
	snprintf(cmd.sys_root, sizeof(cmd.sys_root), "%s/sys", scratch);
	at(dir, sizeof(dir), "c");
	at(outside, sizeof(outside), "outside");
	at(canary, sizeof(canary), "CANARY");
	before = snapshot(outside);
	t0 = time(NULL);
	fl_campaign_continue(dir, &cmd, err, sizeof(err));
	if (time(NULL) - t0 > 5)
		abort();	/* waited on something */
	after = snapshot(outside);
	if (strcmp(before, after))
		abort();	/* written, renamed or removed outside */
	if (access(canary, F_OK) == 0)
		abort();	/* ran what the folder names */
	if (only(scratch, top, sizeof(top) / sizeof(top[0])) < 0)
		abort();	/* wrote beside the campaign */
	free(before);
	free(after);
	return 0;
}
