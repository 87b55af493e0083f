/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a run records of the machine it ran on, as plain data: measure/
 * probes it (probe.h, facts.c, overhead.h), rundir/ writes it into
 * meta.json, and `futexlab list` prints it.
 */
#ifndef FUTEXLAB_BASE_MACHINE_H
#define FUTEXLAB_BASE_MACHINE_H

#include <stdint.h>
#include <stdlib.h>

#define FL_MAX_NODES 64
#define FL_MAX_PACKAGES 64
#define FL_MAX_VULNS 32

/*
 * The node distance table (ACPI's SLIT, as libnuma's numa_distance()
 * or hwloc's "NUMALatency" give it): d[i][j] is the relative cost of
 * node j's memory from node i's CPUs, 10 for the node itself. n is 0
 * when the table is unknown (no libnuma, no table in an XML file).
 */
struct fl_distances {
	unsigned int n;
	unsigned char d[FL_MAX_NODES][FL_MAX_NODES];
};

/*
 * A machine's shape as a plan needs it: this machine's (spec/topology.h,
 * from hwloc and libnuma) or a synthetic one from an hwloc XML file.
 */
struct fl_topology {
	unsigned int ncpus;		/* processing units (hardware threads) */
	unsigned int nnodes;		/* NUMA nodes (1 without NUMA) */
	unsigned int npackages;		/* sockets (0 when hwloc saw none) */
	unsigned int node_ncpus[FL_MAX_NODES];
	unsigned int package_ncpus[FL_MAX_PACKAGES];
	struct fl_distances distances;
};

/* What else a rerun must match, beyond the CPU and kernel
 * (measure/facts.c). */
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
	struct fl_distances distances;	/* libnuma's numa_distance() */
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

/*
 * The sources of the counts a repetition's threads are given
 * (measure/counters.h), in the order meta.json lists them.
 */
enum fl_count_source {
	FL_SRC_TASK_CLOCK, FL_SRC_CTX, FL_SRC_MIGRATIONS, FL_SRC_FAULTS,
	FL_SRC_CYCLES, FL_SRC_INSTRUCTIONS, FL_SRC_REF_CYCLES,
	FL_SRC_SCHEDSTAT, FL_SRC_STEAL,
	FL_NSRC
};

/* Which sources opened at the run's start, and what counting costs. */
struct fl_count_probe {
	char why[FL_NSRC][112];		/* "" counted; else why not */
	double open_ns;			/* a thread's opening, before the
					 * gate (best of a few trials) */
	double read_ns;			/* its reading and closing, after
					 * its loop */
};

/*
 * The harness's own cost, measured at the start of every run: a clock
 * read, an empty iteration of a measured loop (the stop check and the
 * per-thread counter), one histogram record, and the counting.
 */
struct fl_overhead {
	double clock_read_ns;
	double empty_iteration_ns;
	double hist_record_ns;
	uint64_t busy_loops_per_us;
	struct fl_count_probe counting;
};

/* The 1-minute load average now, -1 if unreadable: recorded at a run's
 * start (struct fl_rerun_facts) and end (meta.json's load). */
static inline double fl_loadavg(void)
{
	double v;

	return getloadavg(&v, 1) == 1 ? v : -1.0;
}

#endif
