// SPDX-License-Identifier: GPL-2.0
/*
 * The facts a rerun must reproduce beyond CPU and kernel (Hoefler and
 * Belli's rule 9, "document all varying factors"): libc, the clock the
 * measurements read and its resolution, SMT, the CPU vulnerability
 * mitigations in force, whether a hypervisor is underneath, the kernel
 * command line and the load when the run began.
 */
#include "measure/probe.h"

#include <dirent.h>
#include <gnu/libc-version.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void probe_vulnerabilities(struct fl_rerun_facts *f)
{
	const char *dir = "/sys/devices/system/cpu/vulnerabilities";
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];

	if (!d)
		return;
	while ((e = readdir(d)) && f->nvulns < FL_MAX_VULNS) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(f->vuln_name[f->nvulns], sizeof(f->vuln_name[0]),
			 "%s", e->d_name);
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		fl_probe_read_line(path, f->vuln_state[f->nvulns],
				   sizeof(f->vuln_state[0]), "?");
		f->nvulns++;
	}
	closedir(d);
}

/* cpuinfo's flags line holds " hypervisor" under a virtual machine */
static int probe_hypervisor(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (strncmp(line, "flags", 5) == 0)
			found = strstr(line, " hypervisor") != NULL ? 1 : -1;
	fclose(f);
	return found > 0;
}

void fl_probe_rerun_facts(struct fl_rerun_facts *f)
{
	struct timespec res;

	memset(f, 0, sizeof(*f));
	snprintf(f->libc, sizeof(f->libc), "glibc %s",
		 gnu_get_libc_version());
	fl_probe_read_line("/sys/devices/system/clocksource/clocksource0/"
			   "current_clocksource", f->clocksource,
			   sizeof(f->clocksource), "?");
	f->clock_res_ns = clock_getres(CLOCK_MONOTONIC, &res) ? -1 :
			  res.tv_sec * 1000000000L + res.tv_nsec;
	fl_probe_read_line("/sys/devices/system/cpu/smt/control", f->smt,
			   sizeof(f->smt), "?");
	f->hypervisor = probe_hypervisor();
	fl_probe_read_line("/proc/cmdline", f->cmdline, sizeof(f->cmdline),
			   "?");
	probe_vulnerabilities(f);
	f->loadavg = fl_loadavg();
}
