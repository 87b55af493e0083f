/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running another program for a campaign (a side's futexlab, vm/run, git,
 * configure.py and ninja): every wait has a deadline, after which the
 * program is ended (SIGTERM, then SIGKILL ten seconds later), and an
 * interrupt of the campaign is passed on to it once, so a matrix leaves
 * its partial run for the campaign's resume.
 */
#ifndef FUTEXLAB_CAMPAIGN_SPAWN_H
#define FUTEXLAB_CAMPAIGN_SPAWN_H

#include <signal.h>
#include <stddef.h>

/* set by SIGINT, SIGTERM and SIGHUP once fl_campaign_catch_signals() */
extern volatile sig_atomic_t fl_campaign_stop;
void fl_campaign_catch_signals(void);

/*
 * argv run in cwd (NULL: here) at niceness nice (0: as is), its stdout on
 * out_fd (-1: this one's), waited for at most deadline_s: the program
 * open at exe_fd (argv[0] only names it), or argv[0] found on PATH when
 * exe_fd is -1. With drop, its stdout is passed on line by line through
 * a pipe, but the lines that begin with drop. Its exit status, 128 + the
 * signal that ended it, or -1 with err (it could not start, or ran past
 * its deadline).
 */
int fl_campaign_spawn(char *const *argv, int exe_fd, const char *cwd,
		      int nice, int out_fd, const char *drop,
		      double deadline_s, char *err, size_t errlen);

#endif
