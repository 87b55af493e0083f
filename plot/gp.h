/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing gnuplot scripts. Every plot is one self-contained script,
 * plots/<name>.gp, holding its data as inline datablocks and drawing the
 * same figure twice, as <name>.png (pngcairo) and <name>.svg, so a user
 * can restyle it and rerun `gnuplot <name>.gp` in that directory with
 * nothing else at hand. The scripts are kept next to the plots.
 *
 * What goes into a script comes from run directories, which are untrusted:
 * every string is written through fl_gp_str(), fl_gp_dstr() or
 * fl_gp_comment(), which quote it and replace the backquote (gnuplot runs
 * `...` as a shell command inside double quotes) and control characters.
 * Files are written only inside the output directory, through its
 * descriptor: a script under a temporary name renamed into place, and the
 * PNG and SVG drawn by gnuplot in a fresh private directory below it and
 * renamed from there, so a symbolic link planted under a plot's name is
 * replaced, never followed.
 */
#ifndef FUTEXLAB_PLOT_GP_H
#define FUTEXLAB_PLOT_GP_H

#include <limits.h>
#include <stdio.h>

#include "base/say.h"

/* An output directory: its descriptor, and its path for messages. */
struct fl_gp_dir {
	int fd;
	char path[PATH_MAX];
};

struct fl_gp {
	FILE *f;
	int dirfd;			/* our own copy of the directory's */
	char dir[PATH_MAX];
	char name[128];
	char tmp[192];			/* the script while it is written */
	char path[PATH_MAX + 160];
};

/*
 * Create name.gp in dir with the common style; name must be letters,
 * digits, '-', '_' and '.'. 0 or -1 with err. The _at form writes through
 * an open directory (plot: RUN/plots opened without following links),
 * the other opens the path (compare's --out).
 */
int fl_gp_open_at(struct fl_gp *g, const struct fl_gp_dir *dir,
		  const char *name, const char *what_for, char *err,
		  size_t errlen);
int fl_gp_open(struct fl_gp *g, const char *dir, const char *name,
	       const char *what_for, char *err, size_t errlen);
/* Begin and end a datablock $name; rows go to g->f in between. */
void fl_gp_block(struct fl_gp *g, const char *name);
void fl_gp_end_block(struct fl_gp *g);
/* Open the drawing loop: the commands after it run once per format. */
void fl_gp_begin_draw(struct fl_gp *g, int width, int height);
/* Close the loop and the file and rename it into place; 0, or -1 with
 * err (then g is released). */
int fl_gp_close(struct fl_gp *g, char *err, size_t errlen);
/* Release a closed script that will not be drawn. */
void fl_gp_release(struct fl_gp *g);
/* Write s as a gnuplot single-quoted string (quotes doubled, and the
 * characters enhanced text would eat escaped). */
void fl_gp_str(FILE *f, const char *s);
/* The same as a double-quoted string, where a newline in s starts a new
 * line of the title (gnuplot's "\n"). */
void fl_gp_dstr(FILE *f, const char *s);
/* s as comment lines ("# ..."), one per line of s. */
void fl_gp_comment(FILE *f, const char *s);
/* Draw a closed script: gnuplot in a private directory below dir, its
 * PNG and SVG renamed into dir; g is released. 0 (what gnuplot warned
 * of, which fails no plot, said to say), or -1 with gnuplot's messages
 * in err. */
int fl_gp_run(struct fl_gp *g, const struct fl_say *say, char *err,
	      size_t errlen);

#endif
