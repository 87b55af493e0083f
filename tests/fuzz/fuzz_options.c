// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: `futexlab run`'s option parser (cli/run_args.h) and
 * through it the list and value parsers of spec/. The input is argv:
 * arguments separated by NUL bytes, the first the workload.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/run_args.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fl_run_args a;
	char *text = malloc(size + 1), *argv[MAX_ARGS + 1];
	int argc = 0;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (char *p = text; argc < MAX_ARGS && p <= text + size;
	     p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	if (fl_run_args_parse(argc, argv, &a) == 0) {
		/* what a run would do next with a spec it accepted */
		if (!fl_spec_ncells(&a.spec) || !a.spec.nbackends ||
		    !a.spec.nthreads)
			abort();
	}
	free(text);
	return 0;
}
