// SPDX-License-Identifier: GPL-2.0
/*
 * The environment's choice of algorithm and backend, made once, at the
 * first interposed call (which may come before this library's constructor:
 * another library's constructor can lock a static mutex), and the module's
 * descriptor for the kmod-* backends.
 *
 * A bad choice (an unknown name, a variable set to nothing, the adaptive
 * lock on a backend without one, a module that is not loaded) is said once on stderr when it is
 * made, and the first lock, trylock or wait then says it again and aborts
 * the program: a lock that returned an error would be ignored by most
 * programs, which would then run unlocked, and one that fell back to
 * glibc's lock would measure another implementation under this one's name.
 *
 * After fork() the child opens the module again, as the preload shim does
 * (docs/kmod.md): the private design's table belongs to one process.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "interpose/interpose.h"
#include "kmod/uapi/futexlab.h"

/* backends/kmod.h's descriptor: this library's own */
__attribute__((visibility("hidden"))) int fl_kmod_fd = -1;

struct ip_config ip_config;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static char why[256];
static int verbose;
static __thread pid_t tid;
/* in a child of fork(): the TID its thread had in the parent */
static __thread pid_t parent_tid;
/* interpose.h: set in a child of fork(), and kept by its children */
int ip_forked_child;

static const char *const algo_names[IP_NALGOS] = {
	[IP_MUTEX3] = "mutex3",
	[IP_SPIN_THEN_WAIT] = "spin-then-wait",
	[IP_PI] = "pi",
	[IP_ADAPTIVE] = "adaptive",
};

void ip_say(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	/* one write: lines of several threads never interleave */
	if (write(STDERR_FILENO, "futexlab-interpose: ", 20) < 0 ||
	    write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

/* A variable set to nothing is a mistake to say, as an unknown name is,
 * not the default: "" where the name goes says so. */
static const char *empty_said(const char *name)
{
	return *name ? "" : "empty, ";
}

static int choose_algo(const char *name)
{
	if (!name)
		return IP_MUTEX3;
	for (int i = 0; i < IP_NALGOS; i++)
		if (!strcmp(name, algo_names[i]))
			return i;
	snprintf(why, sizeof(why), "FUTEXLAB_ALGO=%s: %snot mutex3, "
		 "spin-then-wait, pi or adaptive", name, empty_said(name));
	return -1;
}

/* "a, b or c": every backend's name, for a message */
static void name_backends(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; ip_backends[i] && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i == 0 ? "" : ip_backends[i + 1] ?
					 ", " : " or ", ip_backends[i]->name);
}

static const struct ip_backend *choose_backend(const char *name)
{
	char names[128];

	if (!name)
		return ip_backends[0];
	for (int i = 0; ip_backends[i]; i++)
		if (!strcmp(name, ip_backends[i]->name))
			return ip_backends[i];
	name_backends(names, sizeof(names));
	snprintf(why, sizeof(why), "FUTEXLAB_BACKEND=%s: %snot %s", name,
		 empty_said(name), names);
	return NULL;
}

/* FUTEXLAB_INTERPOSE_VERBOSE: 0 or 1 (unset: 0), else -1 with why */
static int choose_verbose(const char *value)
{
	if (!value || !strcmp(value, "0"))
		return 0;
	if (!strcmp(value, "1"))
		return 1;
	snprintf(why, sizeof(why), "FUTEXLAB_INTERPOSE_VERBOSE=%s: %snot 0 "
		 "or 1", value, empty_said(value));
	return -1;
}

/* /dev/futexlab set to the backend's design: 0, or -1 with why set. */
static int open_device(const struct ip_backend *b)
{
	struct futexlab_design d = { .design = (uint32_t)b->design };
	int fd = open("/dev/futexlab", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, sizeof(why), "FUTEXLAB_BACKEND=%s: cannot open "
			 "/dev/futexlab: %s (load kmod/futexlab.ko)", b->name,
			 strerror(errno));
		return -1;
	}
	if (ioctl(fd, FUTEXLAB_IOC_SET_DESIGN, &d) < 0) {
		snprintf(why, sizeof(why), "FUTEXLAB_BACKEND=%s: setting the "
			 "design: %s", b->name, strerror(errno));
		close(fd);
		return -1;
	}
	if (fl_kmod_fd >= 0)
		close(fl_kmod_fd);
	fl_kmod_fd = fd;
	return 0;
}

/* FUTEXLAB_INTERPOSE_VERBOSE on a module backend: at exit, what the
 * module counted on this process's descriptor, the evidence that the
 * calls arrived there (the private design's table is the process's own
 * and leaves with it, so the debugfs totals never show it) */
static void report_module(void)
{
	struct futexlab_stats st = { 0 };

	if (fl_kmod_fd < 0 || ioctl(fl_kmod_fd, FUTEXLAB_IOC_STATS, &st) < 0)
		return;
	ip_say("pid %d: the module's %s tables: waits=%llu wakes=%llu "
	       "pi_locks=%llu adaptive_locks=%llu", (int)getpid(),
	       ip_config.backend->name, (unsigned long long)st.waits,
	       (unsigned long long)st.wakes, (unsigned long long)st.pi_locks,
	       (unsigned long long)st.adaptive_locks);
}

static void after_fork_child(void)
{
	parent_tid = tid;
	tid = 0;
	ip_forked_child = 1;
	if (ip_config.usable && ip_config.backend->needs_device &&
	    open_device(ip_config.backend) < 0) {
		ip_config.usable = 0;
		ip_say("%s", why);
	}
}

static void setup_once(void)
{
	const struct ip_backend *b;
	int algo;
	int saved = errno;

	verbose = choose_verbose(getenv("FUTEXLAB_INTERPOSE_VERBOSE"));
	algo = verbose < 0 ? -1 : choose_algo(getenv("FUTEXLAB_ALGO"));
	b = algo < 0 ? NULL : choose_backend(getenv("FUTEXLAB_BACKEND"));
	if (b && algo == IP_ADAPTIVE && !b->has_adaptive) {
		snprintf(why, sizeof(why), "FUTEXLAB_ALGO=adaptive: %s has no "
			 "adaptive lock (the module's kmod-* backends do)",
			 b->name);
		b = NULL;
	}
	if (b && b->needs_device && open_device(b) < 0)
		b = NULL;
	ip_config.backend = b ? b : ip_backends[0];
	ip_config.algo = algo < 0 ? IP_MUTEX3 : (enum ip_algo)algo;
	if (!b) {
		ip_say("%s; the program's first pthread lock will abort", why);
	} else {
		pthread_atfork(NULL, NULL, after_fork_child);
		if (verbose > 0)
			ip_say("pid %d: pthread mutexes and condition "
			       "variables: %s on %s", (int)getpid(),
			       algo_names[ip_config.algo], b->name);
		/* where it cannot answer as glibc, it says so */
		if (ip_config.algo == IP_ADAPTIVE)
			ip_say("FUTEXLAB_ALGO=adaptive: a mutex whose owner "
			       "ended holding it is taken over by its next "
			       "locker, where glibc's waits for ever "
			       "(docs/interpose.md)");
		if (verbose > 0 && b->needs_device)
			atexit(report_module);
	}
	__atomic_store_n(&ip_config.usable, b != NULL, __ATOMIC_RELEASE);
	errno = saved;
}

void ip_setup(void)
{
	pthread_once(&once, setup_once);
}

/* the choice is made as the library loads, so its message comes first */
__attribute__((constructor)) static void setup_at_load(void)
{
	ip_setup();
}

const struct ip_backend *ip_backend_or_die(const char *call)
{
	if (__builtin_expect(!__atomic_load_n(&ip_config.usable,
					      __ATOMIC_ACQUIRE), 0)) {
		ip_setup();
		if (!ip_config.usable) {
			ip_say("%s: no usable lock (%s): aborting", call, why);
			abort();
		}
	}
	return ip_config.backend;
}

pid_t ip_tid(void)
{
	if (__builtin_expect(tid == 0, 0))
		tid = (pid_t)syscall(SYS_gettid);
	return tid;
}

pid_t ip_parent_tid(void)
{
	return parent_tid;
}

void ip_routed(unsigned int reason, const char *what)
{
	static unsigned long said;
	unsigned long bit = 1ul << reason;

	if (__atomic_fetch_or(&said, bit, __ATOMIC_RELAXED) & bit)
		return;
	ip_say("%s: glibc's own functions carry it out (said once)", what);
}
