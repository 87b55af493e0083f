// SPDX-License-Identifier: GPL-2.0
/*
 * What a pthread mutex costs a program, whichever pthread_mutex_lock the
 * dynamic linker binds it to: glibc's own, or the interposer's under
 * LD_PRELOAD (docs/interpose.md). Each thread, pinned to its CPU from the
 * list, locks a pthread mutex, increments a counter the mutex protects
 * (on a line of its own) and unlocks, until a stop flag is set after a
 * 0.2 s warm-up and SECONDS of timed run. With one CPU that is the
 * uncontended lock and unlock; with two, the contended path with its
 * handoffs. tools/fidelity-mutex3 is the bare loop beside it: the same
 * lock (mutex 3) inline, no call at all.
 *
 *   interpose-cost CPU[,CPU...] SECONDS
 * prints "acquisitions_per_sec N" and "counter_ok 0|1".
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_CPUS	64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Alignas(128) uint64_t guarded;
static _Alignas(128) atomic_int stop;
static _Alignas(128) atomic_int counting;

struct worker {
	pthread_t thread;
	int cpu;
	uint64_t timed;		/* acquisitions while counting was set */
};

static void *work(void *arg)
{
	struct worker *w = arg;
	cpu_set_t set;
	uint64_t n = 0, at_start = 0;
	int was = 0;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		pthread_mutex_lock(&lock);
		guarded++;
		pthread_mutex_unlock(&lock);
		n++;
		if (!was && atomic_load_explicit(&counting,
						 memory_order_relaxed)) {
			was = 1;
			at_start = n;
		}
	}
	w->timed = n - at_start;
	return NULL;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	struct timespec t = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&t, &t))
		;
}

int main(int argc, char **argv)
{
	struct worker w[MAX_CPUS];
	uint64_t all_before, timed_total = 0;
	double seconds, t0, t1;
	int n = 0;
	char *list, *tok, *save = NULL;

	if (argc != 3 || (seconds = atof(argv[2])) <= 0) {
		fprintf(stderr, "usage: interpose-cost CPU[,CPU...] SECONDS\n");
		return 2;
	}
	list = strdup(argv[1]);
	for (tok = strtok_r(list, ",", &save); tok && n < MAX_CPUS;
	     tok = strtok_r(NULL, ",", &save))
		w[n++].cpu = atoi(tok);
	for (int i = 0; i < n; i++)
		pthread_create(&w[i].thread, NULL, work, &w[i]);
	sleep_s(0.2);
	atomic_store(&counting, 1);
	t0 = now();
	sleep_s(seconds);
	atomic_store(&stop, 1);
	t1 = now();
	for (int i = 0; i < n; i++) {
		pthread_join(w[i].thread, NULL);
		timed_total += w[i].timed;
	}
	pthread_mutex_lock(&lock);
	all_before = guarded;
	pthread_mutex_unlock(&lock);
	printf("acquisitions_per_sec %.0f\n", timed_total / (t1 - t0));
	printf("counter_ok %d\n", all_before >= timed_total);
	free(list);
	return 0;
}
