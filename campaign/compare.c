// SPDX-License-Identifier: GPL-2.0
/* A campaign compared: every side against the first, the run as the
 * unit, each into DIR/compare-FIRST-vs-SIDE (or --out, one per side). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "campaign/internal.h"
#include "rundir/write_at.h"

int fl_campaign_is(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int is = fd >= 0 && fl_exists_at(fd, FL_CAMPAIGN_MANIFEST);

	if (fd >= 0)
		close(fd);
	return is;
}

int fl_campaign_compare(const char *dir, const struct fl_compare_opts *o,
			FILE *out, char *err, size_t errlen)
{
	static struct fl_campaign c;
	static char pa[FL_RUNS_MAX_SIDE][4200], pb[FL_RUNS_MAX_SIDE][4200];
	char *a[FL_RUNS_MAX_SIDE], *b[FL_RUNS_MAX_SIDE];
	char outdir[4400], where[4400];
	unsigned int na, nb;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int rc = -EINVAL;

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -ENOENT;
	}
	if (fl_campaign_load(fd, dir, &c, err, errlen) ||
	    campaign_check_distinct(fd, dir, &c, err, errlen))
		goto out;
	if (c.visit) {
		rc = campaign_compare_visits(fd, dir, &c, out, err, errlen) ?
		     -EINVAL : 0;
		goto out;
	}
	if (
	    fl_campaign_side_runs(fd, dir, &c, 0, pa, FL_RUNS_MAX_SIDE, &na,
				  err, errlen))
		goto out;
	for (unsigned int i = 0; i < na; i++)
		a[i] = pa[i];
	for (unsigned int k = 1; k < c.nsides; k++) {
		struct fl_compare_opts ok = *o;

		if (fl_campaign_side_runs(fd, dir, &c, k, pb, FL_RUNS_MAX_SIDE,
					  &nb, err, errlen))
			goto out;
		for (unsigned int i = 0; i < nb; i++)
			b[i] = pb[i];
		if (o->outdir && c.nsides > 2)
			snprintf(where, sizeof(where), "%s/%s", o->outdir,
				 c.side[k].name);
		else if (o->outdir)
			snprintf(where, sizeof(where), "%s", o->outdir);
		else
			snprintf(where, sizeof(where), "%s/compare-%s-vs-%s",
				 dir, c.side[0].name, c.side[k].name);
		ok.outdir = where;
		fprintf(out, "side %s (%s) against side %s (%s), %u and %u "
			"runs:\n", c.side[k].name, c.side[k].why,
			c.side[0].name, c.side[0].why, nb, na);
		/* one run a side, matched on the full setup: the comparison
		 * of two runs, whose intervals are the runs' own */
		if (na == 1 && nb == 1 && !*c.setting) {
			char *pair[2] = { a[0], b[0] };

			fprintf(out, "%s\n", FL_ONE_RUN_NOTE);
			rc = fl_compare(pair, 2, &ok, out, outdir,
					sizeof(outdir), err, errlen);
		} else {
			rc = fl_compare_runs(a, na, b, nb, *c.setting ?
					     c.setting : NULL, &ok, out,
					     outdir, sizeof(outdir), err,
					     errlen);
		}
		if (rc)
			goto out;
		fprintf(out, "%s\n", outdir);
	}
	rc = 0;
out:
	close(fd);
	return rc;
}
