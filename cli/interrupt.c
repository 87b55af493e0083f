// SPDX-License-Identifier: GPL-2.0
/* SIGINT, SIGTERM and SIGHUP set fl_interrupted: see interrupt.h. */
#include "cli/interrupt.h"

#include <signal.h>
#include <string.h>

#include "measure/cell.h"

static void on_signal(int sig)
{
	(void)sig;
	fl_interrupted = 1;
}

void fl_catch_interrupts(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* a reader that went away (`| head`) is a write error to report */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}
