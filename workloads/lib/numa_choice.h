/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The numa workload's option values as text: --cpu-nodes and --mem-node
 * parsed into numa_topo.h's choices and printed back the way they would
 * be typed, so a run's options column reads as its command line did.
 * Pure functions of the text, tested with hostile values in
 * tests/unit/test_numa_topo.c; whether a node exists here is the
 * topology's question, asked when a cell is checked.
 *
 *   --cpu-nodes  all | N | N+M+...  (node ids 0..63; '+' joins a set
 *                because ',' separates the values of a sweep)
 *   --mem-node   local | remote | near | far | spread | N | dD
 *                (dD: a node at distance D, 10..255, from the CPU node)
 */
#ifndef FUTEXLAB_WORKLOADS_LIB_NUMA_CHOICE_H
#define FUTEXLAB_WORKLOADS_LIB_NUMA_CHOICE_H

#include <stddef.h>
#include <stdint.h>

#include "workloads/lib/numa_topo.h"

/* --cpu-nodes into *out (the set's mask, as an option value): 0, or -1
 * with a message naming flag and the text. */
int numa_parse_cpu_nodes(const char *flag, const char *text,
			 int64_t *out, char *err, size_t len);

/* A --cpu-nodes value as text: "all" or the nodes joined by '+'. */
void numa_format_cpu_nodes(uint64_t set, char *buf, size_t len);

/* --mem-node into *out (a choice): 0, or -1 with a message naming flag
 * and the text. */
int numa_parse_mem_node(const char *flag, const char *text,
			int64_t *out, char *err, size_t len);

/* A --mem-node value as text. */
void numa_format_mem_node(int choice, char *buf, size_t len);

#endif
