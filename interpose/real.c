// SPDX-License-Identifier: GPL-2.0
/*
 * glibc's own pthread functions, found once with dlsym(RTLD_NEXT), for the
 * objects routed to them (robust, process-shared and priority-protect
 * mutexes, process-shared condition variables). The condition variables
 * are taken at the version programs link against today (GLIBC_2.3.2):
 * plain dlsym() may return the 2.2.5 compatibility functions, which lay the
 * object out differently.
 */
#include <dlfcn.h>
#include <stdlib.h>

#include "interpose/interpose.h"

static struct ip_real real;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *find(const char *name, const char *version)
{
	void *f = version ? dlvsym(RTLD_NEXT, name, version) :
			    dlsym(RTLD_NEXT, name);

	if (!f) {
		ip_say("glibc's %s not found: aborting", name);
		abort();
	}
	return f;
}

#define FIND(field, name, version) \
	(*(void **)&real.field = find(name, version))

static void find_all(void)
{
	FIND(mutex_init, "pthread_mutex_init", NULL);
	FIND(mutex_destroy, "pthread_mutex_destroy", NULL);
	FIND(mutex_lock, "pthread_mutex_lock", NULL);
	FIND(mutex_trylock, "pthread_mutex_trylock", NULL);
	FIND(mutex_timedlock, "pthread_mutex_timedlock", NULL);
	FIND(mutex_clocklock, "pthread_mutex_clocklock", NULL);
	FIND(mutex_unlock, "pthread_mutex_unlock", NULL);
	FIND(cond_init, "pthread_cond_init", "GLIBC_2.3.2");
	FIND(cond_destroy, "pthread_cond_destroy", "GLIBC_2.3.2");
	FIND(cond_wait, "pthread_cond_wait", "GLIBC_2.3.2");
	FIND(cond_timedwait, "pthread_cond_timedwait", "GLIBC_2.3.2");
	FIND(cond_clockwait, "pthread_cond_clockwait", NULL);
	FIND(cond_signal, "pthread_cond_signal", "GLIBC_2.3.2");
	FIND(cond_broadcast, "pthread_cond_broadcast", "GLIBC_2.3.2");
}

const struct ip_real *ip_real(void)
{
	pthread_once(&once, find_all);
	return &real;
}
