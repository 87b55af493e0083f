// SPDX-License-Identifier: GPL-2.0
/* The numa workload's option values as text (numa_choice.h), compiled
 * once for every build of the workload. */
#include <stdio.h>
#include <string.h>

#include "workloads/lib/numa_choice.h"

static const struct {
	const char *name;
	int choice;
} numa_mem_names[] = {
	{ "local", NUMA_LOCAL }, { "remote", NUMA_REMOTE },
	{ "spread", NUMA_SPREAD }, { "near", NUMA_NEAR }, { "far", NUMA_FAR },
};

/* Decimal digits text[0..n) as a number up to max: 0, or -1. */
static int numa_parse_number(const char *text, size_t n, int max,
			     int *out)
{
	int v = 0;

	if (!n || n > 3)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (text[i] < '0' || text[i] > '9')
			return -1;
		v = v * 10 + (text[i] - '0');
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

/* --cpu-nodes into *out (the set's mask, as an option value): 0, or -1
 * with a message naming flag and the text. */
int numa_parse_cpu_nodes(const char *flag, const char *text,
			 int64_t *out, char *err, size_t len)
{
	uint64_t set = 0;
	const char *p = text;

	if (strcmp(text, "all") == 0) {
		*out = (int64_t)NUMA_ALL;
		return 0;
	}
	for (;;) {
		size_t n = strcspn(p, "+");
		int node;

		if (numa_parse_number(p, n, NUMA_MAX_NODES - 1, &node)) {
			snprintf(err, len, "--%s: '%s' is not all, a node "
				 "(0-%d) or nodes joined by '+' (e.g. 0+2+5)",
				 flag, text, NUMA_MAX_NODES - 1);
			return -1;
		}
		if (set & numa_bit(node)) {
			snprintf(err, len, "--%s: '%s' names node %d twice",
				 flag, text, node);
			return -1;
		}
		set |= numa_bit(node);
		if (!p[n])
			break;
		p += n + 1;
	}
	*out = (int64_t)set;
	return 0;
}

void numa_format_cpu_nodes(uint64_t set, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	if (set == NUMA_ALL) {
		snprintf(buf, len, "all");
		return;
	}
	for (int node = 0; node < NUMA_MAX_NODES && used < len; node++)
		if (set & numa_bit(node))
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%d", used ? "+" : "", node);
}

/* --mem-node into *out (a choice): 0, or -1 with a message naming flag
 * and the text. */
int numa_parse_mem_node(const char *flag, const char *text,
			int64_t *out, char *err, size_t len)
{
	int v;

	for (size_t i = 0; i < sizeof(numa_mem_names) /
			       sizeof(numa_mem_names[0]); i++)
		if (strcmp(text, numa_mem_names[i].name) == 0) {
			*out = numa_mem_names[i].choice;
			return 0;
		}
	if (text[0] == 'd' &&
	    !numa_parse_number(text + 1, strlen(text + 1), 255, &v) &&
	    v >= NUMA_LOCAL_DISTANCE) {
		*out = NUMA_AT_DISTANCE(v);
		return 0;
	}
	if (!numa_parse_number(text, strlen(text), NUMA_MAX_NODES - 1, &v)) {
		*out = v;
		return 0;
	}
	snprintf(err, len, "--%s: '%s' is not local, remote, near, far, "
		 "spread, a node (0-%d) or a distance (d10-d255)", flag, text,
		 NUMA_MAX_NODES - 1);
	return -1;
}

void numa_format_mem_node(int choice, char *buf, size_t len)
{
	if (choice >= 0) {
		snprintf(buf, len, "%d", choice);
		return;
	}
	if (NUMA_IS_DISTANCE(choice)) {
		snprintf(buf, len, "d%d", NUMA_DISTANCE_OF(choice));
		return;
	}
	for (size_t i = 0; i < sizeof(numa_mem_names) /
			       sizeof(numa_mem_names[0]); i++)
		if (numa_mem_names[i].choice == choice) {
			snprintf(buf, len, "%s", numa_mem_names[i].name);
			return;
		}
	snprintf(buf, len, "?");
}
