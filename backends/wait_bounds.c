// SPDX-License-Identifier: GPL-2.0
/*
 * The harness's bounds on a wait that user space performs itself
 * (backend.h): no deadline and no abort until a repetition sets them.
 */
#include "backends/backend.h"

uint64_t fl_wait_deadline_ns = UINT64_MAX;
int fl_abort_waits;
