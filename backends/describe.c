// SPDX-License-Identifier: GPL-2.0
/*
 * The descriptor of one backend. configure.py compiles this file once per
 * backend with `-include backends/<header> -DFL_BACKEND_DESCRIBE`; the
 * backend header supplies the FL_BACKEND_* macros and fl_backend_*()
 * functions used here.
 */
#include "backends/backend.h"

const struct fl_backend FL_CAT(fl_backend_, FL_BACKEND_ID) = {
	.name = FL_BACKEND_NAME,
	.summary = FL_BACKEND_SUMMARY,
	.mem = FL_BACKEND_MEM,
	.word_bytes = FL_WORD_BYTES,
	.caps = fl_backend_caps,
	.probe = fl_backend_probe,
	.setup = fl_backend_setup,
	.teardown = fl_backend_teardown,
	.spins = FL_BACKEND_SPINS,
};
