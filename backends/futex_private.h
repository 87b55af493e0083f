/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Backend futex-private: the stock futex(2) with FUTEX_PRIVATE_FLAG. The
 * kernel keys the word by (mm, address) without touching the page or the
 * mm's locks. On 6.16+ the process's private hash size is a knob
 * (--hash-slots, through prctl(PR_FUTEX_HASH)); 0 selects the global table.
 */
#ifndef FUTEXLAB_BACKENDS_FUTEX_PRIVATE_H
#define FUTEXLAB_BACKENDS_FUTEX_PRIVATE_H

#define FL_BACKEND_NAME		"futex-private"
#define FL_BACKEND_ID		futex_private
#define FL_WORD_BYTES		4
#define FL_STOCK_FLAG		FUTEX_PRIVATE_FLAG

#include "backends/backend.h"
#include "backends/stock_futex.h"

#ifdef FL_BACKEND_DESCRIBE
#include "backends/kernel_probe.h"
#include "backends/describe_common.h"

#define FL_BACKEND_SUMMARY	"stock futex(2), private keys (mm, address)"
#define FL_BACKEND_MEM		FL_MEM_PRIVATE
#define FL_BACKEND_SPINS	0
#define FL_BACKEND_LIBC		FL_LIBC_PRIVATE
#define FL_BACKEND_MODULE	0

static uint32_t fl_backend_caps(void)
{
	return FL_STOCK_CAPS;
}

#define fl_backend_probe	fl_probe_always

static int fl_backend_setup(long hash_slots, char *why, size_t len)
{
	if (hash_slots < 0)
		return 0;
	return fl_probe_set_hash_slots(hash_slots, why, len);
}

#define fl_backend_teardown	fl_teardown_nothing
#endif
#endif
