/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Backend futex-shared: the stock futex(2) without FUTEX_PRIVATE_FLAG, the
 * word in a MAP_SHARED mapping. The kernel keys it by the page's identity
 * (inode or mm-independent page), which costs a page lookup and a reference
 * per operation: the cost the private-futex patch removed for private use.
 */
#ifndef FUTEXLAB_BACKENDS_FUTEX_SHARED_H
#define FUTEXLAB_BACKENDS_FUTEX_SHARED_H

#define FL_BACKEND_NAME		"futex-shared"
#define FL_BACKEND_ID		futex_shared
#define FL_WORD_BYTES		4
#define FL_STOCK_FLAG		0

#include "backends/backend.h"
#include "backends/stock_futex.h"

#ifdef FL_BACKEND_DESCRIBE
#include "backends/describe_common.h"

#define FL_BACKEND_SUMMARY	"stock futex(2), shared keys, word in MAP_SHARED memory"
#define FL_BACKEND_MEM		FL_MEM_SHARED
#define FL_BACKEND_SPINS	0
#define FL_BACKEND_LIBC		FL_LIBC_SHARED
#define FL_BACKEND_MODULE	0

static uint32_t fl_backend_caps(void)
{
	return FL_STOCK_CAPS | FL_CAP_SHARED;
}

#define fl_backend_probe	fl_probe_always

#define fl_backend_setup	fl_setup_no_hash

#define fl_backend_teardown	fl_teardown_nothing
#endif
#endif
