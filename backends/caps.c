// SPDX-License-Identifier: GPL-2.0
/* Capability names and the backend lookup. */
#include "backends/backend.h"

#include <stdio.h>
#include <string.h>

static const char *const cap_names[FL_CAP_COUNT] = {
	"wait", "sleep", "timeout", "bitset", "requeue", "pi", "requeue-pi",
	"shared", "numa", "eintr", "efault", "waitv", "adaptive",
};

const char *fl_cap_name(unsigned int bit)
{
	return bit < FL_CAP_COUNT ? cap_names[bit] : "?";
}

void fl_caps_format(uint32_t caps, char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned int b = 0; b < FL_CAP_COUNT && used < len; b++) {
		if (!(caps & (1u << b)))
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 used ? "," : "", cap_names[b]);
	}
}

const struct fl_backend *fl_backend_find(const char *name)
{
	for (unsigned int i = 0; i < fl_nbackends; i++)
		if (strcmp(fl_backends[i]->name, name) == 0)
			return fl_backends[i];
	return NULL;
}
