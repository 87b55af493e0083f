// SPDX-License-Identifier: GPL-2.0
/* The FNV-1a hash (base/hash.h). */
#include "base/hash.h"

uint64_t fl_fnv1a64(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}
