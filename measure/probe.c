// SPDX-License-Identifier: GPL-2.0
/* Machine and kernel-feature probes. */
#include "measure/probe.h"
#include "spec/hwloc_here.h"
#include "spec/placement.h"
#include "spec/topology.h"

#include <dirent.h>
#include <errno.h>
#include <hwloc.h>
#include <linux/futex.h>
#include <numa.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

void fl_probe_read_line(const char *path, char *buf, size_t len,
			const char *fallback)
{
	FILE *f = fopen(path, "r");

	snprintf(buf, len, "%s", fallback);
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	else
		snprintf(buf, len, "%s", fallback);
	fclose(f);
}

static long read_long(const char *path, long fallback)
{
	char buf[64];
	long v;

	fl_probe_read_line(path, buf, sizeof(buf), "");
	return sscanf(buf, "%ld", &v) == 1 ? v : fallback;
}

static void probe_cpu_model(struct fl_machine *m)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(m->cpu_model, sizeof(m->cpu_model), "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon || strncmp(line, "model name", 10) != 0)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(m->cpu_model, sizeof(m->cpu_model), "%s", colon);
		break;
	}
	fclose(f);
}

static void probe_topology(struct fl_machine *m)
{
	hwloc_topology_t topo = fl_hwloc_here();

	m->ncores = m->npackages = 0;
	if (topo) {
		int c = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
		int p = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);

		m->ncores = c > 0 ? (unsigned int)c : 0;
		m->npackages = p > 0 ? (unsigned int)p : 0;
	}
	m->numa_available = numa_available() == 0;
	m->nnodes = 1;
	snprintf(m->node_cpus[0], sizeof(m->node_cpus[0]), "0-%u",
		 m->ncpus_online ? m->ncpus_online - 1 : 0);
	m->node_mem_mb[0] = -1;
	if (!m->numa_available)
		return;
	int maxnode = numa_max_node();

	m->nnodes = (unsigned int)(maxnode + 1);
	if (m->nnodes > FL_MAX_NODES)
		m->nnodes = FL_MAX_NODES;
	for (unsigned int n = 0; n < m->nnodes; n++) {
		struct bitmask *cpus = numa_allocate_cpumask();
		size_t used = 0;
		long long freemem;

		m->node_cpus[n][0] = '\0';
		if (numa_node_to_cpus((int)n, cpus) == 0) {
			for (unsigned int c = 0; c < cpus->size &&
			     used < sizeof(m->node_cpus[n]); c++) {
				if (!numa_bitmask_isbitset(cpus, c))
					continue;
				used += (size_t)snprintf(m->node_cpus[n] + used,
					sizeof(m->node_cpus[n]) - used, "%s%u",
					used ? "," : "", c);
			}
		}
		numa_free_cpumask(cpus);
		long long size = numa_node_size64((int)n, &freemem);

		m->node_mem_mb[n] = size < 0 ? -1 : size >> 20;
	}
	fl_numa_distances(&m->distances, m->nnodes);
}

/* The loaded module's version and parameters, from sysfs. */
static void probe_kmod(struct fl_machine *m)
{
	const char *dir = "/sys/module/futexlab/parameters";
	char path[512], value[64];
	size_t used = 0;
	DIR *d;

	fl_probe_read_line("/sys/module/futexlab/version", m->kmod_version,
		  sizeof(m->kmod_version), "");
	d = opendir(dir);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		fl_probe_read_line(path, value, sizeof(value), "?");
		if (used < sizeof(m->kmod_params))
			used += (size_t)snprintf(m->kmod_params + used,
				sizeof(m->kmod_params) - used, "%s%s=%s",
				used ? ";" : "", e->d_name, value);
	}
	closedir(d);
}

void fl_probe_machine(struct fl_machine *m)
{
	struct utsname u;

	memset(m, 0, sizeof(*m));
	if (uname(&u) == 0) {
		snprintf(m->kernel, sizeof(m->kernel), "%s", u.release);
		snprintf(m->kernel_version, sizeof(m->kernel_version), "%s",
			 u.version);
		snprintf(m->arch, sizeof(m->arch), "%s", u.machine);
	}
	if (gethostname(m->hostname, sizeof(m->hostname) - 1) != 0)
		snprintf(m->hostname, sizeof(m->hostname), "unknown");
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	m->ncpus_online = n > 0 ? (unsigned int)n : 1;
	fl_allowed_cpus(m->cpus_allowed, sizeof(m->cpus_allowed));
	probe_cpu_model(m);
	fl_probe_read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
		  m->governor, sizeof(m->governor), "none");
	probe_topology(m);
	m->futex2 = fl_probe_futex2();
	m->futex2_numa = m->futex2 && fl_probe_futex2_numa();
	m->futex_lock_pi2 = fl_probe_lock_pi2();
	m->hash_slots = fl_probe_hash_slots();
	m->dev_futexlab = access("/dev/futexlab", F_OK) == 0;
	probe_kmod(m);
	m->rt_runtime_us = read_long("/proc/sys/kernel/sched_rt_runtime_us",
				     -2);
	m->rt_period_us = read_long("/proc/sys/kernel/sched_rt_period_us", -2);
	fl_probe_rerun_facts(&m->rerun);
}
