// SPDX-License-Identifier: GPL-2.0
/* The gnuplot script writer and runner shared by plot and compare. */
#include "plot/gp.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
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

/* What an untrusted character becomes in a script: never a backquote
 * (command substitution) nor a control character. */
static int safe_char(char c)
{
	if (c == '`')
		return '\'';
	if ((unsigned char)c < 0x20 || c == 0x7f)
		return ' ';
	return (unsigned char)c;
}

/* Only names the plot code makes: letters, digits, '-', '_', '.'. */
static int file_name_ok(const char *name)
{
	if (!*name || *name == '.' || strlen(name) > 100)
		return 0;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-_.", *p))
			return 0;
	return 1;
}

static void write_style(FILE *f, const char *name, const char *what_for)
{
	fl_gp_comment(f, what_for);
	fprintf(f, "# Written by futexlab; the data are inline. "
		"Restyle and rerun in this\n# directory: gnuplot %s.gp "
		"(writes %s.png and %s.svg)\n\n", name, name, name);
	fprintf(f, "set encoding utf8\nset datafile missing 'NaN'\n");
	for (unsigned int i = 0; i < NCOLOURS; i++)
		fprintf(f, "set linetype %u lc rgb '%s' lw 2 pt %u ps 1.1 "
			"dt %u\n", i + 1, colours[i], (i % 6) * 2 + 5,
			i < 8 ? 1 : 2);
	fprintf(f, "set linetype cycle %zu\n", NCOLOURS);
	fprintf(f, "set grid lc rgb '#dddddd' lw 1\nset border lw 1\n"
		"set key outside right top noenhanced samplen 2.5 spacing 1.1\n"
		"set title noenhanced\nset xlabel noenhanced\n"
		"set ylabel noenhanced\nset tics out nomirror\n"
		"set errorbars small\n\n");
}

int fl_gp_open_at(struct fl_gp *g, const struct fl_gp_dir *dir,
		  const char *name, const char *what_for, char *err,
		  size_t errlen)
{
	static unsigned int serial;
	int fd;

	memset(g, 0, sizeof(*g));
	g->dirfd = -1;
	snprintf(g->dir, sizeof(g->dir), "%s", dir->path);
	snprintf(g->name, sizeof(g->name), "%s", name);
	snprintf(g->path, sizeof(g->path), "%s/%s.gp", dir->path, name);
	if (!file_name_ok(name)) {
		snprintf(err, errlen, "'%s' cannot name a plot file", name);
		return -1;
	}
	snprintf(g->tmp, sizeof(g->tmp), ".%s.gp.%d-%u", name, (int)getpid(),
		 serial++);
	g->dirfd = fcntl(dir->fd, F_DUPFD_CLOEXEC, 0);
	fd = g->dirfd < 0 ? -1 : openat(g->dirfd, g->tmp, O_WRONLY | O_CREAT |
					O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	g->f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!g->f) {
		snprintf(err, errlen, "cannot write %s: %s", g->path,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		fl_gp_release(g);
		return -1;
	}
	write_style(g->f, name, what_for);
	return 0;
}

int fl_gp_open(struct fl_gp *g, const char *dir, const char *name,
	       const char *what_for, char *err, size_t errlen)
{
	struct fl_gp_dir d;
	int rc;

	snprintf(d.path, sizeof(d.path), "%s", dir);
	d.fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d.fd < 0) {
		memset(g, 0, sizeof(*g));
		g->dirfd = -1;
		snprintf(err, errlen, "cannot write in %s: %s", dir,
			 strerror(errno));
		return -1;
	}
	rc = fl_gp_open_at(g, &d, name, what_for, err, errlen);
	close(d.fd);
	return rc;
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
	int bad = ferror(g->f) | fclose(g->f);

	g->f = NULL;
	if (bad || renameat(g->dirfd, g->tmp, g->dirfd, g->path +
			    strlen(g->dir) + 1)) {
		snprintf(err, errlen, "cannot write %s: %s", g->path,
			 strerror(errno));
		unlinkat(g->dirfd, g->tmp, 0);
		fl_gp_release(g);
		return -1;
	}
	return 0;
}

void fl_gp_release(struct fl_gp *g)
{
	if (g->f)
		fclose(g->f);
	g->f = NULL;
	if (g->dirfd >= 0)
		close(g->dirfd);
	g->dirfd = -1;
}

void fl_gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		int c = safe_char(*s);

		if (c == '\'')
			fputc('\'', f);
		fputc(c, f);
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
		int c = safe_char(*s);

		if (c == '"' || c == '\\')
			fputc('\\', f);
		fputc(c, f);
	}
	fputc('"', f);
}

void fl_gp_comment(FILE *f, const char *s)
{
	fputs("# ", f);
	for (; *s; s++) {
		if (*s == '\n')
			fputs("\n# ", f);
		else
			fputc(safe_char(*s), f);
	}
	fputc('\n', f);
}

/* A fresh directory below g's, only ours, for gnuplot to draw in: its
 * descriptor and name, or -1. */
static int render_dir(struct fl_gp *g, char *name, size_t len)
{
	static unsigned int serial;
	int fd;

	snprintf(name, len, ".render-%s-%d-%u", g->name, (int)getpid(),
		 serial++);
	if (mkdirat(g->dirfd, name, 0700))
		return -1;
	fd = openat(g->dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd < 0)
		unlinkat(g->dirfd, name, AT_REMOVEDIR);
	return fd;
}

/* Empty and remove the drawing directory. */
static void remove_render_dir(struct fl_gp *g, int fd, const char *name)
{
	int dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(fd, e->d_name, 0);
	if (d)
		closedir(d);
	else if (dfd >= 0)
		close(dfd);
	close(fd);
	unlinkat(g->dirfd, name, AT_REMOVEDIR);
}

/*
 * gnuplot on ../script from the directory fd; its exit status (or -1 with
 * err), its stdout and stderr as one line in out.
 */
static int run_gnuplot(int fd, const char *script, char *out, size_t len,
		       char *err, size_t errlen)
{
	int pfd[2], status;
	size_t used = 0;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC)) {
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
		if (fchdir(fd))
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
		ssize_t n = read(pfd[0], buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		size_t take = (size_t)n < len - 1 - used ? (size_t)n :
			      len - 1 - used;

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
	return status;
}

/* gnuplot's words for a series it found nothing in */
static int lacks_data(const char *out)
{
	return strstr(out, "no valid points") != NULL;
}

/*
 * Is every warning in out one that says gnuplot widened a range of
 * equal values ("empty y range [30:30], adjusting to [29.7:30.3]")? The
 * plot is then what it should be: every point drawn, at one height.
 */
static int only_widened(const char *out)
{
	const char *p = out;
	int any = 0;

	while ((p = strcasestr(p, "warning:"))) {
		p += strlen("warning:");
		p += strspn(p, " ");
		if (strncmp(p, "empty ", 6) || !strstr(p, " range"))
			return 0;
		any = 1;
	}
	return any;
}

int fl_gp_run(struct fl_gp *g, const struct fl_say *say, char *err,
	      size_t errlen)
{
	char script[200], rname[200], out[1024] = "";
	int fd = render_dir(g, rname, sizeof(rname)), status, rc = 0;

	if (fd < 0) {
		snprintf(err, errlen, "cannot draw in %s: %s", g->dir,
			 strerror(errno));
		fl_gp_release(g);
		return -1;
	}
	snprintf(script, sizeof(script), "../%s.gp", g->name);
	status = run_gnuplot(fd, script, out, sizeof(out), err, errlen);
	if (status != -1 && (!WIFEXITED(status) || WEXITSTATUS(status))) {
		snprintf(err, errlen, "gnuplot %s/%s.gp failed: %s", g->dir,
			 g->name, *out ? out : "no message");
		status = -1;
	}
	for (int i = 0; status != -1 && i < 2; i++) {
		char file[160];

		snprintf(file, sizeof(file), "%s.%s", g->name,
			 i ? "svg" : "png");
		if (renameat(fd, file, g->dirfd, file)) {
			snprintf(err, errlen, "gnuplot drew no %s/%s: %s",
				 g->dir, file, strerror(errno));
			status = -1;
		}
	}
	if (status == -1)
		rc = -1;
	else if (lacks_data(out))
		fl_say(say, "futexlab: %s/%s.png: a series has no point to "
		       "draw", g->dir, g->name);
	else if (*out && !only_widened(out))
		fl_say(say, "futexlab: gnuplot %s.gp: %s", g->name, out);
	remove_render_dir(g, fd, rname);
	fl_gp_release(g);
	return rc;
}
