/* SPDX-License-Identifier: GPL-2.0 */
/* What the campaign's files share and nothing else needs. */
#ifndef FUTEXLAB_CAMPAIGN_INTERNAL_H
#define FUTEXLAB_CAMPAIGN_INTERNAL_H

#include <stddef.h>
#include <sys/types.h>

#include "campaign/campaign.h"

/* runs.c: the facts of the run in dirfd/run (a folder, no link on the
 * way) from its meta.json into the slot's start time, matrix, host,
 * kernel and build; 0, or -1 with err (ENOENT: no such run). */
int campaign_run_facts(int dirfd, const char *dir, const char *run,
		       struct fl_campaign_slot *out, char *err,
		       size_t errlen);

/* settings.c: the side's sysctl and module parameter written, their old
 * values kept in old (restore them with campaign_restore); 0, or -1
 * with err. */
struct campaign_saved {
	char path[2][512];
	char value[2][256];
};
int campaign_apply(const struct fl_campaign_side *s,
		   struct campaign_saved *old, char *err, size_t errlen);
void campaign_restore(const struct campaign_saved *old);

/* hogs.c: n busy loops at nice -5, the i-th pinned to CPU i, their pids
 * into pid; 0, or -1 with err (none left running). */
int campaign_hogs_start(int n, pid_t *pid, char *err, size_t errlen);
/* hogs.c: the n hogs ended and reaped */
void campaign_hogs_stop(int n, const pid_t *pid);

#endif
