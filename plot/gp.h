/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing gnuplot scripts. Every plot is one self-contained script,
 * plots/<name>.gp, holding its data as inline datablocks and drawing the
 * same figure twice, as <name>.png (pngcairo) and <name>.svg, so a user
 * can restyle it and rerun `gnuplot <name>.gp` in that directory with
 * nothing else at hand. The scripts are kept next to the plots.
 */
#ifndef FUTEXLAB_PLOT_GP_H
#define FUTEXLAB_PLOT_GP_H

#include <limits.h>
#include <stdio.h>

struct fl_gp {
	FILE *f;
	char dir[PATH_MAX];
	char name[128];
	char path[PATH_MAX + 160];
};

/* Create dir/name.gp with the common style; 0 or -1 with err. */
int fl_gp_open(struct fl_gp *g, const char *dir, const char *name,
	       const char *what_for, char *err, size_t errlen);
/* Begin and end a datablock $name; rows go to g->f in between. */
void fl_gp_block(struct fl_gp *g, const char *name);
void fl_gp_end_block(struct fl_gp *g);
/* Open the drawing loop: the commands after it run once per format. */
void fl_gp_begin_draw(struct fl_gp *g, int width, int height);
/* Close the loop and the file; 0 or -1 with err. */
int fl_gp_close(struct fl_gp *g, char *err, size_t errlen);
/* Write s as a gnuplot single-quoted string (quotes doubled, and the
 * characters enhanced text would eat escaped). */
void fl_gp_str(FILE *f, const char *s);
/* The same as a double-quoted string, where a newline in s starts a new
 * line of the title (gnuplot's "\n"). */
void fl_gp_dstr(FILE *f, const char *s);
/* Run gnuplot on dir/name.gp in dir; 0, or -1 with its stderr's first
 * line in err. */
int fl_gp_run(const struct fl_gp *g, char *err, size_t errlen);

#endif
