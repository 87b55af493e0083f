// SPDX-License-Identifier: GPL-2.0
/* How much work a --metric expression may cost (regex_bound.h),
 * compiled once for every build of the app workload. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "workloads/lib/regex_bound.h"

struct fl_regex_scan {
	const char *p;
	const char *why;	/* set on refusal */
};

static int fl_regex_is_dup(const char *p)
{
	return *p == '*' || *p == '+' || *p == '?' ||
	       (*p == '{' && isdigit((unsigned char)p[1]));
}

/* A bracket expression from its '[': past its ']' (a ']' first is a
 * member, as are [:class:], [.x.] and [=x=]). */
static const char *fl_regex_skip_bracket(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	while (*p && *p != ']') {
		if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			const char *end = strchr(p + 2, p[1]);

			if (!end || end[1] != ']')
				return p + strlen(p);
			p = end + 2;
			continue;
		}
		p++;
	}
	return *p ? p + 1 : p;
}

/* The factor of one duplication at s->p (past it on return): 1 for *, +
 * and ?, which glibc builds as a loop, else the interval's largest
 * count; 0 refused. */
static unsigned long fl_regex_dup_factor(struct fl_regex_scan *s)
{
	unsigned long lo = 0, hi;

	if (*s->p != '{') {
		s->p++;
		return 1;
	}
	s->p++;
	while (isdigit((unsigned char)*s->p) && lo <= FL_REGEX_MAX_COUNT)
		lo = lo * 10 + (unsigned long)(*s->p++ - '0');
	hi = lo;
	if (*s->p == ',') {
		s->p++;
		hi = lo + 1;	/* {m,}: m copies and a loop */
		if (isdigit((unsigned char)*s->p)) {
			hi = 0;
			while (isdigit((unsigned char)*s->p) &&
			       hi <= FL_REGEX_MAX_COUNT)
				hi = hi * 10 + (unsigned long)(*s->p++ - '0');
		}
	}
	if (lo > FL_REGEX_MAX_COUNT || hi > FL_REGEX_MAX_COUNT + 1) {
		s->why = "a count above 255 (POSIX's RE_DUP_MAX)";
		return 0;
	}
	while (*s->p && *s->p != '}')
		s->p++;
	if (*s->p)
		s->p++;
	return hi ? hi : 1;
}

/* The parts of a sequence up to ')' or the end, its counts multiplied
 * out; 0 refused (s->why says why). */
static unsigned long fl_regex_parts(struct fl_regex_scan *s, int depth)
{
	unsigned long total = 0;

	while (*s->p && *s->p != ')') {
		unsigned long part = 1, factor;

		if (*s->p == '(') {
			s->p++;
			if (depth > 32) {
				s->why = "groups nested deeper than 32";
				return 0;
			}
			part = fl_regex_parts(s, depth + 1);
			if (!part)
				return 0;
			if (*s->p == ')')
				s->p++;
		} else if (*s->p == '[') {
			s->p = fl_regex_skip_bracket(s->p);
		} else if (*s->p == '\\' && s->p[1]) {
			s->p += 2;
		} else {
			s->p++;
		}
		if (fl_regex_is_dup(s->p)) {
			factor = fl_regex_dup_factor(s);
			if (!factor)
				return 0;
			if (fl_regex_is_dup(s->p)) {
				s->why = "a repetition repeated (like a++ or "
					 "a*{2}), undefined in POSIX";
				return 0;
			}
			part *= factor;
		}
		total += part;
		if (total > FL_REGEX_MAX_PARTS) {
			s->why = "more than 4096 parts once its counts are "
				 "multiplied out";
			return 0;
		}
	}
	return total ? total : 1;
}

/* 0 when text is within the bound, else -1 with why set. */
int fl_regex_bounded(const char *text, const char **why)
{
	struct fl_regex_scan s = { text, NULL };

	if (strlen(text) > FL_REGEX_MAX_LEN) {
		*why = "longer than 256 characters";
		return -1;
	}
	while (*s.p) {
		if (!fl_regex_parts(&s, 0)) {
			*why = s.why;
			return -1;
		}
		if (*s.p == ')')
			s.p++;	/* an unmatched ')': regcomp's to judge */
	}
	return 0;
}
