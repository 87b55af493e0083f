// SPDX-License-Identifier: GPL-2.0
/* The names a status has in cells.csv and in every message. */
#include "base/result.h"

const char *fl_status_name(enum fl_status s)
{
	static const char *const names[] = {
		[FL_STATUS_OK] = "ok", [FL_STATUS_FAILED] = "failed",
		[FL_STATUS_SKIPPED] = "skipped", [FL_STATUS_ABORTED] = "aborted",
	};
	return s <= FL_STATUS_ABORTED ? names[s] : "?";
}
