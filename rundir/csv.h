/* SPDX-License-Identifier: GPL-2.0 */
/* RFC 4180 CSV: quoting on write, one record per line on read. */
#ifndef FUTEXLAB_CSV_H
#define FUTEXLAB_CSV_H

#include <stddef.h>
#include <stdio.h>

/* Write one field, quoted if it holds a comma, quote or newline. */
void fl_csv_field(FILE *f, const char *text, int last);

/*
 * Split one line (no embedded newlines) into at most max fields, in place.
 * Returns the field count, or -1 on an unterminated quote.
 */
int fl_csv_split(char *line, char **fields, int max);
/* The same, with each field's first character's column (from 1, in the
 * line as it was) in at[]. */
int fl_csv_split_at(char *line, char **fields, int *at, int max);

#endif
