// SPDX-License-Identifier: GPL-2.0
/* CSV quoting and splitting. */
#include "rundir/csv.h"

#include <string.h>

void fl_csv_field(FILE *f, const char *text, int last)
{
	if (strpbrk(text, ",\"\n\r")) {
		fputc('"', f);
		for (const char *p = text; *p; p++) {
			if (*p == '"')
				fputc('"', f);
			fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
		}
		fputc('"', f);
	} else {
		fputs(text, f);
	}
	fputc(last ? '\n' : ',', f);
}

int fl_csv_split(char *line, char **fields, int max)
{
	return fl_csv_split_at(line, fields, NULL, max);
}

int fl_csv_split_at(char *line, char **fields, int *at, int max)
{
	char *r = line, *w = line;
	int n = 0;

	line[strcspn(line, "\r\n")] = '\0';
	for (;;) {
		if (n == max)
			return -1;
		if (at)
			at[n] = (int)(r - line) + 1;
		fields[n++] = w;
		if (*r == '"') {
			r++;
			for (;;) {
				if (*r == '\0')
					return -1;
				if (*r == '"' && r[1] == '"') {
					*w++ = '"';
					r += 2;
				} else if (*r == '"') {
					r++;
					break;
				} else {
					*w++ = *r++;
				}
			}
		} else {
			while (*r && *r != ',')
				*w++ = *r++;
		}
		if (*r == ',') {
			*w++ = '\0';
			r++;
			continue;
		}
		if (*r != '\0')
			return -1;
		*w = '\0';
		return n;
	}
}
