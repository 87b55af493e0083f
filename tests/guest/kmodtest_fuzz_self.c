// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's fuzzer (kmodtest_fuzz.c): what a worker does to itself: a
 * hostile worker's own tmpfs, whose file's page it maps as more lock
 * words and unmounts and mounts again under sleeping waiters, and random
 * changes of its own scheduling, checked at the end against what it
 * could have set on its own rights.
 */
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "kmodtest_fuzz.h"

/* Mount the tmpfs and map its file's page at m->words (fixed). */
int fz_map_file(struct fz_mount *m)
{
	char path[96];
	int fd, i, ret = 0;

	if (mount("none", m->dir, "tmpfs", 0, "size=16k"))
		return -errno;
	snprintf(path, sizeof(path), "%s/words", m->dir);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, 4096) ||
	    mmap(m->words, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		 fd, 0) == MAP_FAILED)
		ret = -errno;
	close(fd);
	for (i = 0; !ret && i < FZ_WORDS; i++)
		m->words[2 * i + 1] = FUTEXLAB_NO_NODE;
	return ret;
}

/*
 * Unmount @dir: EBUSY is retried for a second, as the last reference to
 * a file unmapped a moment ago may still be on its way out (a deferred
 * fput()); the module holds no file, so a tmpfs busy for longer is a
 * failure.
 */
static int fz_umount(const char *dir)
{
	uint64_t end = now_ns() + SEC;

	while (umount2(dir, 0)) {
		if (errno != EBUSY || now_ns() > end)
			return -errno;
		usleep(10000);
	}
	return 0;
}

/*
 * Unmap the file and unmount its tmpfs under whatever waits on its words
 * (a waiter pins neither), then mount and map it again. The page is
 * replaced by an inaccessible one, never left a hole (see fz_process()).
 */
int fz_remount(struct fz_worker *w)
{
	struct fz_mount *m = w->mnt;
	int ret = 0;

	if (!m || w->child || fz_pick(&w->rng, 10))
		return 0;
	pthread_mutex_lock(&m->lock);
	if (mmap(m->words, 4096, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		ret = -errno;
	else
		ret = fz_umount(m->dir);
	if (!ret)
		ret = fz_map_file(m);
	pthread_mutex_unlock(&m->lock);
	if (!ret)
		w->c->remounts++;
	return ret;
}

/*
 * May @w, running on w->own, set @a on its own rights? Root: anything.
 * Uid 65534 with RLIMIT_RTPRIO 0 and RLIMIT_NICE 0: no real-time policy
 * and no way out of SCHED_IDLE (the kernel refuses both unboosted; a
 * boosted owner's call may succeed, but must not last past the boost).
 * A lower nice the kernel refuses anyway.
 */
static int fz_entitled(const struct fz_worker *w, const struct sched_attr_k *a)
{
	if (!w->unpriv)
		return 1;
	if (a->sched_policy == SCHED_FIFO || a->sched_policy == SCHED_RR)
		return 0;
	return !(w->own.sched_policy == SCHED_IDLE &&
		 a->sched_policy != SCHED_IDLE);
}

/* A random change of the caller's own scheduling (perhaps while boosted). */
int fz_sched(struct fz_worker *w)
{
	static const uint32_t policies[] = { SCHED_OTHER, SCHED_FIFO,
		SCHED_RR, SCHED_BATCH, SCHED_IDLE };
	struct sched_attr_k a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sched_policy = policies[fz_pick(&w->rng, 5)];
	if (a.sched_policy == SCHED_FIFO || a.sched_policy == SCHED_RR)
		a.sched_priority = 1 + fz_pick(&w->rng, 20);
	else if (a.sched_policy != SCHED_IDLE)
		a.sched_nice = (int32_t)fz_pick(&w->rng, 11) - 5;
	if (!fz_pick(&w->rng, 3))
		a.sched_flags = SCHED_FLAG_RESET_ON_FORK;
	if (syscall(SYS_sched_setattr, 0, &a, 0))
		return -errno;
	if (fz_entitled(w, &a))
		w->own = a;
	return 0;
}

/*
 * After the run, once every waiter's deadline has passed (3 s at most):
 * does the caller run with what it may have on its own rights, with no
 * boost left? Return: 0, or -1 with the difference in *@why.
 */
int fz_sched_check(struct fz_worker *w, char *why, size_t n)
{
	uint64_t end = now_ns() + 3 * SEC;
	const struct sched_attr_k *o = &w->own;
	struct sched_attr_k a;
	int rt = o->sched_policy == SCHED_FIFO || o->sched_policy == SCHED_RR;
	int fair = o->sched_policy == SCHED_OTHER ||
		   o->sched_policy == SCHED_BATCH;

	do {
		if (get_attr(0, &a))
			return 0;
		if (a.sched_policy == o->sched_policy &&
		    (!rt || a.sched_priority == o->sched_priority) &&
		    (!fair || a.sched_nice == o->sched_nice))
			return 0;
		usleep(20000);
	} while (now_ns() < end);
	snprintf(why, n, "a %s worker ends at policy %u prio %u nice %d, its own is policy %u prio %u nice %d",
		 w->unpriv ? "uid 65534" : "root", a.sched_policy,
		 a.sched_priority, a.sched_nice, o->sched_policy,
		 o->sched_priority, o->sched_nice);
	return -1;
}

/*
 * Become a hostile user: uid 65534, RLIMIT_RTPRIO 0, in namespaces of its
 * own with a tmpfs whose file's page gives more lock words (if user
 * namespaces are allowed). Return: its mount, or NULL.
 */
struct fz_mount *fz_unprivileged(struct fz_ctl *c)
{
	static struct fz_mount m = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct rlimit rl = { 0, 0 };

	if (setrlimit(RLIMIT_RTPRIO, &rl) || become_userns_nobody())
		return NULL;
	m.dir = c->dir;
	m.words = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (m.words == MAP_FAILED || fz_map_file(&m))
		return NULL;
	return &m;
}
