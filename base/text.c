// SPDX-License-Identifier: GPL-2.0
/*
 * Escaping the bytes a terminal acts on (text.h): one rule, applied to
 * a string (fl_text_escape) and to a stream (fl_text_sink, a
 * fopencookie() stream over another).
 */
#include "base/text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* Is c the second byte of a C1 control in UTF-8 (0xc2 0x80-0x9f)? */
static int c1_tail(unsigned char c)
{
	return c >= 0x80 && c <= 0x9f;
}

/*
 * What byte i of s (n bytes) becomes: 0 when it passes as it is, else
 * the length of its escape, written into esc; *used is how many bytes
 * of s the escape stands for. after_lead: the byte before s was a lead
 * 0xc2 that already went out as it is (a sink's earlier write), so a C1
 * tail at s[0] is escaped alone and the terminal sees a broken UTF-8
 * sequence, no control.
 */
static size_t escape_at(const unsigned char *s, size_t n, size_t i,
			int after_lead, char esc[FL_TEXT_ESCAPE_MAX + 1],
			size_t *used)
{
	unsigned char c = s[i];

	*used = 1;
	if (c < 0x20 && c != '\n' && c != '\t')
		return (size_t)snprintf(esc, FL_TEXT_ESCAPE_MAX + 1,
					"\\x%02x", c);
	if (c == 0x7f)
		return (size_t)snprintf(esc, FL_TEXT_ESCAPE_MAX + 1,
					"\\u007f");
	if (c == 0xc2 && i + 1 < n && c1_tail(s[i + 1])) {
		*used = 2;
		return (size_t)snprintf(esc, FL_TEXT_ESCAPE_MAX + 1,
					"\\u00%02x", s[i + 1]);
	}
	if (i == 0 && after_lead && c1_tail(c))
		return (size_t)snprintf(esc, FL_TEXT_ESCAPE_MAX + 1,
					"\\u00%02x", c);
	return 0;
}

char *fl_text_escape(const char *s, char *out, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	char esc[FL_TEXT_ESCAPE_MAX + 1];
	size_t n = strlen(s), j = 0, used;

	if (!len)
		return out;
	for (size_t i = 0; i < n; i += used) {
		size_t k = escape_at(u, n, i, 0, esc, &used);
		const char *piece = k ? esc : s + i;

		if (!k)
			k = 1;
		if (j + k >= len)
			break;
		memcpy(out + j, piece, k);
		j += k;
	}
	out[j] = '\0';
	return out;
}

/* A sink: the stream it writes to, and the list control() looks in.
 * Sinks are made and closed where no other thread writes (main()'s
 * before any, a report's or compare's file by its one writer). */
struct sink {
	FILE *self, *under;
	int after_lead;		/* the last byte out was a lone 0xc2 */
	int owns;		/* closing the sink closes under */
	struct sink *next;
};

static struct sink *sinks;

static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
	const unsigned char *u = (const unsigned char *)buf;
	struct sink *k = cookie;
	char esc[FL_TEXT_ESCAPE_MAX + 1];
	size_t from = 0, used;

	for (size_t i = 0; i < size; i += used) {
		size_t e = escape_at(u, size, i, k->after_lead, esc, &used);

		if (!e)
			continue;
		fwrite(buf + from, 1, i - from, k->under);
		fwrite(esc, 1, e, k->under);
		from = i + used;
	}
	fwrite(buf + from, 1, size - from, k->under);
	k->after_lead = size && u[size - 1] == 0xc2;
	/* the error of a write is the sink's, at the flush that met it
	 * (fopencookie: a short count marks the stream) */
	if (fflush(k->under) || ferror(k->under))
		return 0;
	return (ssize_t)size;
}

static int sink_close(void *cookie)
{
	struct sink *k = cookie;
	int rc = fflush(k->under) || ferror(k->under) ? -1 : 0;

	if (k->owns && fclose(k->under))
		rc = -1;

	for (struct sink **p = &sinks; *p; p = &(*p)->next) {
		if (*p == k) {
			*p = k->next;
			break;
		}
	}
	free(k);
	return rc;
}

FILE *fl_text_sink(FILE *under, int mode)
{
	static const cookie_io_functions_t io = {
		.write = sink_write,
		.close = sink_close,
	};
	struct sink *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->under = under;
	k->self = fopencookie(k, "w", io);
	if (!k->self) {
		free(k);
		return NULL;
	}
	setvbuf(k->self, NULL, mode, mode == _IONBF ? 0 : BUFSIZ);
	k->next = sinks;
	sinks = k;
	return k->self;
}

static struct sink *sink_of(FILE *f)
{
	for (struct sink *k = sinks; k; k = k->next)
		if (k->self == f)
			return k;
	return NULL;
}

FILE *fl_text_file(const char *path)
{
	FILE *under = fopen(path, "w"), *f;
	int e;

	if (!under)
		return NULL;
	f = fl_text_sink(under, _IOFBF);
	if (!f) {
		e = errno;
		fclose(under);
		errno = e;
		return NULL;
	}
	sink_of(f)->owns = 1;
	return f;
}

void fl_text_control(FILE *f, const char *seq)
{
	struct sink *k = sink_of(f);

	if (!k) {
		fputs(seq, f);
		return;
	}
	fflush(f);
	fputs(seq, k->under);
	fflush(k->under);
	k->after_lead = 0;
}

FILE *fl_text_under(FILE *f)
{
	struct sink *k = sink_of(f);

	return k ? k->under : f;
}
