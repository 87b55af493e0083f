/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a library has to say beyond its result: a warning, a note, a
 * cell that failed while a run goes on. Only cli/ prints (docs/
 * architecture.md), so a library hands each line to a callback its
 * caller supplies, and the command decides where it goes (cli/main.c's
 * fl_say_stderr: a line on stderr, as it was always printed). A line is
 * whole, without its newline.
 */
#ifndef FUTEXLAB_BASE_SAY_H
#define FUTEXLAB_BASE_SAY_H

struct fl_say {
	void (*line)(void *arg, const char *text);
	void *arg;
};

/* The line fmt makes handed to to->line; nothing when to (or its line)
 * is NULL: a caller that supplies none hears nothing. */
void fl_say(const struct fl_say *to, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
