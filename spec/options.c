// SPDX-License-Identifier: GPL-2.0
/* Parsing and formatting of workload option values. */
#include "spec/options.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fl_parse_u64(const char *text, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 1;

	if (!text || !*text || *text == '-' || *text == '+' || *text == ' ')
		return -1;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || end == text)
		return -1;
	if (*end == 'k' || *end == 'K')
		mult = 1000, end++;
	else if (*end == 'M')
		mult = 1000000, end++;
	if (*end)
		return -1;
	if (v > UINT64_MAX / mult)
		return -1;
	*out = v * mult;
	return 0;
}

int fl_parse_seconds_ns(const char *text, uint64_t *out)
{
	uint64_t whole = 0, frac = 0, scale = 100000000;
	const char *p = text;

	if (!p || !*p)
		return -1;
	if (*p != '.') {
		if (*p < '0' || *p > '9')
			return -1;
		while (*p >= '0' && *p <= '9') {
			whole = whole * 10 + (uint64_t)(*p - '0');
			if (whole > 1000000000ull)
				return -1;
			p++;
		}
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -1;
		while (*p >= '0' && *p <= '9') {
			frac += (uint64_t)(*p - '0') * scale;
			scale /= 10;
			p++;
		}
	}
	if (*p)
		return -1;
	*out = whole * 1000000000ull + frac;
	return 0;
}

int fl_parse_duration_ns(const char *text, uint64_t *out)
{
	static const struct { const char *suffix; uint64_t mult; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000ull },
	};
	char *end;
	unsigned long long v;

	if (!text || *text < '0' || *text > '9')
		return -1;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno)
		return -1;
	if (!*end) {
		*out = v;
		return 0;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix) == 0) {
			if (v > UINT64_MAX / units[i].mult)
				return -1;
			*out = v * units[i].mult;
			return 0;
		}
	}
	return -1;
}

/* The texts FL_OPT_TEXT options were given, each once. */
#define FL_MAX_TEXTS	64
#define FL_TEXT_MAX	1024

static char *texts[FL_MAX_TEXTS];
static unsigned int ntexts;

const char *fl_opt_text(int64_t v)
{
	return v >= 0 && v < (int64_t)ntexts ? texts[v] : "";
}

static int parse_text(const struct fl_option *opt, const char *text,
		      int64_t *out, char *err, size_t errlen)
{
	unsigned int i;

	if (strlen(text) >= FL_TEXT_MAX) {
		snprintf(err, errlen, "--%s: longer than %d characters",
			 opt->name, FL_TEXT_MAX - 1);
		return -1;
	}
	for (const char *c = text; *c; c++)
		if (*c < 0x20 || *c > 0x7e) {
			snprintf(err, errlen, "--%s: a character that is not "
				 "printable ASCII", opt->name);
			return -1;
		}
	if (opt->check && opt->check(text, err, errlen))
		return -1;
	for (i = 0; i < ntexts && strcmp(texts[i], text); i++)
		;
	if (i == ntexts) {
		if (ntexts == FL_MAX_TEXTS || !(texts[i] = strdup(text))) {
			snprintf(err, errlen, "--%s: too many texts", opt->name);
			return -1;
		}
		ntexts++;
	}
	*out = i;
	return 0;
}

int fl_opt_parse_one(const struct fl_option *opt, const char *text,
		     int64_t *out, char *err, size_t errlen)
{
	uint64_t u;

	switch (opt->type) {
	case FL_OPT_BOOL:
		if (strcmp(text, "1") == 0 || strcmp(text, "yes") == 0) {
			*out = 1;
			return 0;
		}
		if (strcmp(text, "0") == 0 || strcmp(text, "no") == 0) {
			*out = 0;
			return 0;
		}
		snprintf(err, errlen, "--%s: '%s' is not a yes/no value",
			 opt->name, text);
		return -1;
	case FL_OPT_ENUM:
		if (opt->parse)
			return opt->parse(opt, text, out, err, errlen);
		for (int64_t i = 0; opt->choices[i]; i++) {
			if (strcmp(text, opt->choices[i]) == 0) {
				*out = i;
				return 0;
			}
		}
		{
			size_t used = (size_t)snprintf(err, errlen,
				"--%s: unknown value '%s' (choose from",
				opt->name, text);
			for (int i = 0; opt->choices[i] && used < errlen; i++)
				used += (size_t)snprintf(err + used,
					errlen - used, "%s%s", i ? ", " : " ",
					opt->choices[i]);
			if (used < errlen)
				snprintf(err + used, errlen - used, ")");
		}
		return -1;
	case FL_OPT_TEXT:
		return parse_text(opt, text, out, err, errlen);
	case FL_OPT_INT:
	case FL_OPT_NS:
		if ((opt->type == FL_OPT_INT ? fl_parse_u64(text, &u) :
		     fl_parse_duration_ns(text, &u)) || u > INT64_MAX) {
			snprintf(err, errlen, "--%s: '%s' is not a %s",
				 opt->name, text, opt->type == FL_OPT_INT ?
				 "non-negative integer" :
				 "duration (e.g. 100, 100ns, 5us, 2ms)");
			return -1;
		}
		if ((int64_t)u < opt->min ||
		    (opt->max && (int64_t)u > opt->max)) {
			snprintf(err, errlen,
				 "--%s: %s is out of range [%" PRId64 ", %"
				 PRId64 "]", opt->name, text, opt->min,
				 opt->max);
			return -1;
		}
		*out = (int64_t)u;
		return 0;
	}
	snprintf(err, errlen, "--%s: bad option type", opt->name);
	return -1;
}

int fl_list_items(const char *name, const char *text, char *buf, size_t len,
		  char *err, size_t errlen)
{
	static const char blanks[] = " \t";
	size_t j = 0;

	for (const char *p = text;; p++) {
		size_t n = strcspn(p, ","), lead = strspn(p, blanks);
		const char *end = p + n;

		while (end > p + lead && strchr(blanks, end[-1]))
			end--;
		if (strcspn(p + lead, blanks) < (size_t)(end - p - lead)) {
			snprintf(err, errlen, "--%s: '%.*s' holds a blank: "
				 "separate items with commas", name,
				 (int)(end - p - lead), p + lead);
			return -1;
		}
		for (const char *c = p + lead; c < end && j < len - 1; c++)
			buf[j++] = *c;
		p += n;
		if (!*p)
			break;
		if (j < len - 1)
			buf[j++] = ',';
	}
	buf[j] = '\0';
	if (!*buf) {
		snprintf(err, errlen, "--%s: empty list: the experiment would "
			 "have no cells", name);
		return -1;
	}
	return 0;
}

int fl_opt_parse(const struct fl_option *opt, const char *text,
		 struct fl_opt_values *vals, char *err, size_t errlen)
{
	char buf[512];
	char *save = NULL, *tok;

	vals->n = 0;
	if (opt->type == FL_OPT_TEXT) {
		if (parse_text(opt, text, &vals->v[0], err, errlen))
			return -1;
		vals->n = 1;
		vals->given = 1;
		return 0;
	}
	if (strlen(text) >= sizeof(buf)) {
		snprintf(err, errlen, "--%s: value too long", opt->name);
		return -1;
	}
	/* "mutex3, pi" is two values, "mutex3 pi" a mistake said so */
	if (opt->sweep && strpbrk(text, " \t")) {
		if (fl_list_items(opt->name, text, buf, sizeof(buf), err,
				  errlen))
			return -1;
	} else {
		strcpy(buf, text);
	}
	if (!opt->sweep && strchr(buf, ',')) {
		snprintf(err, errlen, "--%s: '%s': takes one value, not a list",
			 opt->name, text);
		return -1;
	}
	if (!*buf || buf[strlen(buf) - 1] == ',' || buf[0] == ',' ||
	    strstr(buf, ",,")) {
		snprintf(err, errlen, "--%s: '%s': empty value", opt->name,
			 text);
		return -1;
	}
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (vals->n == FL_MAX_SWEEP) {
			snprintf(err, errlen, "--%s: more than %u values",
				 opt->name, FL_MAX_SWEEP);
			return -1;
		}
		if (fl_opt_parse_one(opt, tok, &vals->v[vals->n], err, errlen))
			return -1;
		for (unsigned int i = 0; i < vals->n; i++) {
			if (vals->v[i] == vals->v[vals->n]) {
				/* the same cell twice */
				snprintf(err, errlen, "--%s: '%s' in '%s' "
					 "repeats a value given before it",
					 opt->name, tok, text);
				return -1;
			}
		}
		vals->n++;
	}
	vals->given = 1;
	return 0;
}

void fl_opt_format(const struct fl_option *opt, int64_t v, char *buf,
		   size_t len)
{
	switch (opt->type) {
	case FL_OPT_ENUM:
		if (opt->format)
			opt->format(v, buf, len);
		else
			snprintf(buf, len, "%s", opt->choices[v]);
		break;
	case FL_OPT_BOOL:
		snprintf(buf, len, "%s", v ? "yes" : "no");
		break;
	case FL_OPT_TEXT: {
		/* FNV-1a: the same text has the same name in every run */
		uint32_t h = 2166136261u;

		/* no text (app's --metric unset): no name to hash */
		if (!*fl_opt_text(v)) {
			snprintf(buf, len, "none");
			break;
		}

		for (const char *c = fl_opt_text(v); *c; c++)
			h = (h ^ (unsigned char)*c) * 16777619u;
		snprintf(buf, len, "%08x", h);
		break;
	}
	default:
		snprintf(buf, len, "%" PRId64, v);
		break;
	}
}
