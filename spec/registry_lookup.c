// SPDX-License-Identifier: GPL-2.0
/* Finding workloads and their per-backend implementations by name. */
#include "spec/workload.h"

#include <string.h>

const struct fl_workload *fl_workload_find(const char *name)
{
	for (unsigned int i = 0; i < fl_nworkloads; i++)
		if (strcmp(fl_workloads[i]->name, name) == 0)
			return fl_workloads[i];
	return NULL;
}

const struct fl_workload_impl *fl_impl_find(const struct fl_workload *w,
					    const struct fl_backend *b)
{
	for (unsigned int i = 0; i < fl_nimpls; i++)
		if (fl_impls[i]->workload == w && fl_impls[i]->backend == b)
			return fl_impls[i];
	return NULL;
}
