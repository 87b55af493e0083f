// SPDX-License-Identifier: GPL-2.0
/*
 * The descriptor of one backend. configure.py compiles this file once per
 * backend with `-include backends/<header> -DFL_BACKEND_DESCRIBE`; the
 * backend header supplies the FL_BACKEND_* macros and fl_backend_*()
 * functions used here; configure.py says with -DFL_BACKEND_INTERPOSED=1
 * that the pthread interposer carries it (INTERPOSE_BACKENDS).
 */
#include "backends/backend.h"

#ifndef FL_BACKEND_INTERPOSED
#define FL_BACKEND_INTERPOSED	0
#endif

const struct fl_backend FL_CAT(fl_backend_, FL_BACKEND_ID) = {
	.name = FL_BACKEND_NAME,
	.summary = FL_BACKEND_SUMMARY,
	.mem = FL_BACKEND_MEM,
	.word_bytes = FL_WORD_BYTES,
#if FL_WORD_BYTES == 8
	.node_any = FL_NODE_ANY,
#endif
	.libc = FL_BACKEND_LIBC,
	.needs_module = FL_BACKEND_MODULE,
	.interposed = FL_BACKEND_INTERPOSED,
	.caps = fl_backend_caps,
	.probe = fl_backend_probe,
	.setup = fl_backend_setup,
	.teardown = fl_backend_teardown,
	.spins = FL_BACKEND_SPINS,
};
