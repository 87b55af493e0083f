// SPDX-License-Identifier: GPL-2.0
/* futexlab matrix --shard-commands N, and --label (cli/shards.h). */
#include "cli/shards.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"

/*
 * s in single quotes, each ' as '\'' : a shell reads it back as is. A
 * control byte (a path's ESC) would reach the terminal as text only
 * escaped, which a shell then reads as other characters: it goes as
 * "$(printf '\033')", which a shell turns back into the byte and a
 * terminal shows as text. A newline stays inside the quotes (command
 * substitution would drop it).
 */
static void print_quoted(const char *s)
{
	putchar('\'');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\'')
			fputs("'\\''", stdout);
		else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
			printf("'\"$(printf '\\%03o')\"'", c);
		else
			putchar(c);
	}
	putchar('\'');
}

/* This binary's path: a shard runs the same futexlab on every node. */
static void self_path(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	if (n <= 0)
		snprintf(buf, len, "%s", fl_main_argv[0]);
	else
		buf[n] = '\0';
}

int fl_print_shard_commands(const char *file, unsigned int n,
			    const char *results)
{
	static struct fl_matrix m;
	char err[2048], bin[PATH_MAX], abs[PATH_MAX];
	unsigned long ncells;

	if (fl_matrix_load(file, &m, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		fl_matrix_free(&m);
		return FL_EXIT_USAGE;
	}
	ncells = m.ncells;
	fl_matrix_free(&m);
	if (n > ncells) {
		fprintf(stderr, "futexlab matrix: --shard-commands %u: the "
			"matrix has %lu cell(s) on this machine, fewer than "
			"%u shards\n", n, ncells, n);
		return FL_EXIT_USAGE;
	}
	self_path(bin, sizeof(bin));
	if (!realpath(file, abs))
		snprintf(abs, sizeof(abs), "%s", file);
	for (unsigned int k = 0; k < n; k++) {
		print_quoted(bin);
		fputs(" matrix ", stdout);
		print_quoted(abs);
		printf(" --shard %u/%u", k, n);
		if (results) {
			fputs(" --results ", stdout);
			print_quoted(results);
		}
		putchar('\n');
	}
	return FL_EXIT_OK;
}

int fl_label_ok(const char *s)
{
	size_t n = strlen(s);

	return n && n <= FL_LABEL_MAX && !strstr(s, "..") &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789-_.") == n;
}

void fl_label_machine(struct fl_machine *m, struct fl_matrix_job *j,
		      const char *label)
{
	json_t *saved = json_object_get(j->state, "label");
	const char *s = json_string_value(saved);

	if (label) {
		json_object_set_new(j->state, "label", json_string(label));
		s = label;
	}
	/* matrix.json came from outside: only a name is taken back */
	if (!s || !fl_label_ok(s))
		return;
	snprintf(m->label, sizeof(m->label), "%s", s);
}
