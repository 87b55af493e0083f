/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What this machine is and which futex features its kernel has, probed at
 * run time (never assumed from the kernel version): for `futexlab list`,
 * for every run's meta.json, and for the backends' probes.
 */
#ifndef FUTEXLAB_PROBE_H
#define FUTEXLAB_PROBE_H

#include <stddef.h>

#define FL_MAX_NODES 64
#define FL_MAX_VULNS 32

/* What else a rerun must match, beyond the CPU and kernel (facts.c). */
struct fl_rerun_facts {
	char libc[32];			/* gnu_get_libc_version() */
	char clocksource[64];		/* the kernel's current clocksource */
	long clock_res_ns;		/* clock_getres(CLOCK_MONOTONIC) */
	char smt[32];			/* smt/control: on, off, notsupported */
	int hypervisor;			/* cpuinfo's "hypervisor" flag */
	char cmdline[1024];		/* /proc/cmdline */
	unsigned int nvulns;		/* cpu/vulnerabilities/<name>: text */
	char vuln_name[FL_MAX_VULNS][48];
	char vuln_state[FL_MAX_VULNS][160];
	double loadavg;			/* 1-minute load average */
};

struct fl_machine {
	char hostname[128];
	char label[64];			/* --label, "" when none given */
	char cpus_allowed[1024];	/* the process's CPU set at start */
	char kernel[128];		/* uname -r */
	char kernel_version[256];	/* uname -v */
	char arch[32];
	char cpu_model[128];
	char governor[64];		/* cpu0's scaling governor or "none" */
	unsigned int ncpus_online;
	unsigned int ncores;		/* hwloc */
	unsigned int npackages;		/* hwloc */
	unsigned int nnodes;		/* libnuma (1 without NUMA) */
	int numa_available;		/* libnuma's numa_available() == 0 */
	char node_cpus[FL_MAX_NODES][128];	/* cpulist per node */
	long long node_mem_mb[FL_MAX_NODES];
	int futex2;			/* futex_wait/wake/requeue syscalls */
	int futex2_numa;		/* FUTEX2_NUMA accepted */
	int futex_lock_pi2;		/* FUTEX_LOCK_PI2 accepted */
	long hash_slots;		/* PR_FUTEX_HASH slots, -1 if no prctl */
	int dev_futexlab;		/* /dev/futexlab exists */
	char kmod_version[32];		/* the module's, "" when not loaded */
	char kmod_params[256];		/* "name=value;..." from sysfs */
	long rt_runtime_us;		/* sched_rt_runtime_us, -2 unknown */
	long rt_period_us;
	struct fl_rerun_facts rerun;
};

void fl_probe_machine(struct fl_machine *m);
void fl_probe_rerun_facts(struct fl_rerun_facts *f);
/* The 1-minute load average now, -1 if unreadable. */
double fl_probe_loadavg(void);
/* The first line of a file without its newline, or fallback. */
void fl_probe_read_line(const char *path, char *buf, size_t len,
			const char *fallback);

int fl_probe_futex2(void);
int fl_probe_futex2_numa(void);
int fl_probe_lock_pi2(void);
/* The private hash's slot count (6.16+), or -1 when the prctl is absent. */
long fl_probe_hash_slots(void);
/* Set this process's private hash size: 0 = global table. */
int fl_probe_set_hash_slots(long slots, char *why, size_t len);

#define FL_PR_FUTEX_HASH		78
#define FL_PR_FUTEX_HASH_SET_SLOTS	1
#define FL_PR_FUTEX_HASH_GET_SLOTS	2

#endif
