// SPDX-License-Identifier: GPL-2.0
/* Other processes' share of the CPU time during a matrix run. */
#include "measure/host_load.h"

#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

static int read_stat(uint64_t *busy, uint64_t *total)
{
	unsigned long long v[10] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
		   &v[8], &v[9]);
	fclose(f);
	if (n < 4)
		return -1;
	/* user nice system idle iowait irq softirq steal (guest time is
	 * already inside user and nice) */
	*busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	*total = *busy + v[3] + v[4];
	return 0;
}

static double own_cpu_s(void)
{
	struct rusage self, kids;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec +
			kids.ru_utime.tv_sec + kids.ru_stime.tv_sec) +
	       (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec +
			kids.ru_utime.tv_usec + kids.ru_stime.tv_usec) / 1e6;
}

void fl_host_load_start(struct fl_host_load *b)
{
	b->ok = read_stat(&b->busy, &b->total) == 0;
	b->own_s = own_cpu_s();
}

double fl_host_load_foreign_share(const struct fl_host_load *b)
{
	uint64_t busy, total;
	long hz = sysconf(_SC_CLK_TCK);

	if (!b->ok || hz <= 0 || read_stat(&busy, &total) ||
	    total <= b->total)
		return -1;
	double all = (double)(total - b->total) / (double)hz;
	double others = (double)(busy - b->busy) / (double)hz -
			(own_cpu_s() - b->own_s);

	if (others < 0)
		others = 0;
	return others / all > 1 ? 1 : others / all;
}
