// SPDX-License-Identifier: GPL-2.0
/* The gnuplot script writer and runner shared by plot and compare. */
#include "plot/gp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Colours from the Okabe-Ito and Tableau palettes (distinct for the
 * colour-blind as far as ten lines allow), each with its own point type
 * and, past the first eight, a dash, so lines stay apart in grey too.
 */
static const char *const colours[] = {
	"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9",
	"#000000", "#8c564b", "#7f7f7f", "#bcbd22", "#17becf", "#9467bd",
};
#define NCOLOURS (sizeof(colours) / sizeof(colours[0]))

int fl_gp_open(struct fl_gp *g, const char *dir, const char *name,
	       const char *what_for, char *err, size_t errlen)
{
	memset(g, 0, sizeof(*g));
	snprintf(g->dir, sizeof(g->dir), "%s", dir);
	snprintf(g->name, sizeof(g->name), "%s", name);
	snprintf(g->path, sizeof(g->path), "%s/%s.gp", dir, name);
	g->f = fopen(g->path, "w");
	if (!g->f) {
		snprintf(err, errlen, "cannot write %s: %s", g->path,
			 strerror(errno));
		return -1;
	}
	fputs("# ", g->f);
	for (const char *p = what_for; *p; p++)
		fputs(*p == '\n' ? "\n# " : (char[]){ *p, 0 }, g->f);
	fprintf(g->f, "\n# Written by futexlab; the data are inline. "
		"Restyle and rerun in this\n# directory: gnuplot %s.gp "
		"(writes %s.png and %s.svg)\n\n", name, name, name);
	fprintf(g->f, "set encoding utf8\nset datafile missing 'NaN'\n");
	for (unsigned int i = 0; i < NCOLOURS; i++)
		fprintf(g->f, "set linetype %u lc rgb '%s' lw 2 pt %u ps 1.1 "
			"dt %u\n", i + 1, colours[i], (i % 6) * 2 + 5,
			i < 8 ? 1 : 2);
	fprintf(g->f, "set linetype cycle %zu\n", NCOLOURS);
	fprintf(g->f, "set grid lc rgb '#dddddd' lw 1\nset border lw 1\n"
		"set key outside right top noenhanced samplen 2.5 spacing 1.1\n"
		"set title noenhanced\nset xlabel noenhanced\n"
		"set ylabel noenhanced\nset tics out nomirror\n"
		"set errorbars small\n\n");
	return 0;
}

void fl_gp_block(struct fl_gp *g, const char *name)
{
	fprintf(g->f, "$%s << EOD\n", name);
}

void fl_gp_end_block(struct fl_gp *g)
{
	fprintf(g->f, "EOD\n\n");
}

void fl_gp_begin_draw(struct fl_gp *g, int width, int height)
{
	fprintf(g->f,
		"do for [fmt in 'png svg'] {\n"
		"if (fmt eq 'png') {\n"
		"\tset terminal pngcairo size %d,%d noenhanced font "
		"'Sans,11' background '#ffffff'\n"
		"} else {\n"
		"\tset terminal svg size %d,%d noenhanced font 'Sans,11' "
		"background '#ffffff'\n"
		"}\n"
		"set output '%s.'.fmt\n", width, height, width, height,
		g->name);
}

int fl_gp_close(struct fl_gp *g, char *err, size_t errlen)
{
	fprintf(g->f, "set output\n}\n");
	if (ferror(g->f) | fclose(g->f)) {
		g->f = NULL;
		snprintf(err, errlen, "cannot write %s", g->path);
		return -1;
	}
	g->f = NULL;
	return 0;
}

void fl_gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
	fputc('\'', f);
}

void fl_gp_dstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '\n') {
			fputs("\\n", f);
			continue;
		}
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

int fl_gp_run(const struct fl_gp *g, char *err, size_t errlen)
{
	char script[200], out[1024] = "";
	int pfd[2], status;
	pid_t pid;
	size_t used = 0;
	ssize_t n;

	snprintf(script, sizeof(script), "%s.gp", g->name);
	if (pipe(pfd)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(pfd[1], STDERR_FILENO);
		dup2(pfd[1], STDOUT_FILENO);
		close(pfd[0]);
		close(pfd[1]);
		if (chdir(g->dir))
			_exit(126);
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		fprintf(stderr, "cannot run gnuplot: %s (install the Debian "
			"package gnuplot-nox)\n", strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	/* read to the end, keeping the start: gnuplot must never block on
	 * a full pipe */
	for (;;) {
		char buf[512];
		size_t take;

		n = read(pfd[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		take = (size_t)n < sizeof(out) - 1 - used ? (size_t)n :
		       sizeof(out) - 1 - used;
		memcpy(out + used, buf, take);
		used += take;
	}
	close(pfd[0]);
	out[used] = '\0';
	for (char *p = out; *p; p++)
		if (*p == '\n')
			*p = ' ';	/* its message and caret: one line */
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(err, errlen, "gnuplot %s/%s failed: %s", g->dir,
			 script, *out ? out : "no message");
		return -1;
	}
	if (used)	/* warnings (e.g. an empty range) do not fail a plot */
		fprintf(stderr, "futexlab: gnuplot %s: %s\n", script, out);
	return 0;
}
