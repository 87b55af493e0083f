/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The 64-bit FNV-1a hash of a byte string: what names a matrix file
 * (meta.json's matrix.fnv1a64) and keys its setups. One function, so the
 * run that records a hash and the merge or resume that checks it cannot
 * disagree.
 */
#ifndef FUTEXLAB_BASE_HASH_H
#define FUTEXLAB_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

uint64_t fl_fnv1a64(const void *data, size_t len);

#endif
