// SPDX-License-Identifier: GPL-2.0
/* The program-output hook (keeper.h): unset until a run is open. */
#include "base/keeper.h"

int (*fl_program_keeper)(const char *name, const void *data, size_t len,
			 char *err, size_t errlen);
