// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's unmount family: a waiter sleeping on a shared futex in a file
 * whose mapping is gone and whose filesystem is unmounted under it. A
 * shared key of a file page must hold nothing that the unmount needs: a
 * reference on the inode left the superblock with a busy inode ("VFS:
 * Busy inodes after unmount", then a kernel BUG and, at the waiter's
 * deadline, a NULL dereference in evict()). The stock futex keys such a
 * page by the inode's sequence number and pins nothing; so must we.
 *
 * One process queues four waiters on words of one tmpfs file, one per
 * kind of sleep that keys a shared word (WAIT, LOCK_PI, LOCK_ADAPTIVE and
 * WAITV, whose entries are shared unless marked private), unmaps the file
 * and unmounts the tmpfs while all four sleep, and expects each to return
 * ETIMEDOUT at its deadline, the unmount to succeed, and the kernel log to
 * say nothing of it:
 *   shared-unmount         as root, the administrator's unmount under a
 *                          user's waiter;
 *   shared-unmount-userns  as uid 65534 in a user namespace of its own
 *                          (Debian's default allows it), where any user
 *                          may mount and unmount a tmpfs.
 */
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "kmodtest.h"

/* the waiters' deadline, from the moment they start: covers a slow guest */
#define SLEEP_FOR	(3000 * MS)

enum { W_WAIT, W_PI, W_ADAPTIVE, W_WAITV, NR_KINDS };

static const char *const kind_name[NR_KINDS] = {
	"WAIT", "LOCK_PI", "LOCK_ADAPTIVE", "WAITV",
};

struct unmount_waiter {
	pthread_t th;
	int fd;
	int kind;
	uint32_t *w;		/* {value, node} */
	uint64_t deadline;
	_Atomic pid_t tid;
	_Atomic int ret;
	_Atomic int done;
};

static void *unmount_waiter_main(void *p)
{
	struct unmount_waiter *u = p;
	uint32_t f = FUTEXLAB_F_SHARED | FUTEXLAB_F_DEADLINE;
	struct futexlab_pi pi = { .uaddr = (uintptr_t)u->w,
				  .deadline_ns = u->deadline, .flags = f };
	struct futexlab_adaptive ad = { .uaddr = (uintptr_t)u->w,
					.deadline_ns = u->deadline,
					.flags = f };
	struct futexlab_waitv v = { .val = u->w[0],
				    .uaddr = (uintptr_t)u->w,
				    .flags = FUTEXLAB_WAITV_SIZE_U32 };
	struct futexlab_waitv_args va = { .waiters = (uintptr_t)&v,
					  .deadline_ns = u->deadline,
					  .flags = FUTEXLAB_F_DEADLINE,
					  .nr = 1 };

	u->tid = (pid_t)syscall(SYS_gettid);
	switch (u->kind) {
	case W_WAIT:
		u->ret = k_wait(u->fd, u->w, u->w[0], u->deadline, ~0u,
				FUTEXLAB_F_SHARED);
		break;
	case W_PI:
		u->ret = xioctl(u->fd, FUTEXLAB_IOC_LOCK_PI, &pi);
		break;
	case W_ADAPTIVE:
		u->ret = xioctl(u->fd, FUTEXLAB_IOC_LOCK_ADAPTIVE, &ad);
		break;
	default:
		u->ret = xioctl(u->fd, FUTEXLAB_IOC_WAITV, &va);
		break;
	}
	u->done = 1;
	return NULL;
}

/*
 * How many times the kernel log holds one of the lines a busy inode, a
 * BUG or a WARNING prints: compared before and after, so that earlier
 * lines (and a ring buffer that dropped some) cannot fail the test.
 */
static int klog_splats(void)
{
	static const char *const needles[] = {
		"Busy inodes", "BUG", "WARNING",
	};
	static char buf[1 << 18];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, sizeof(buf) - 1);
	int count = 0;
	size_t i;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (i = 0; i < sizeof(needles) / sizeof(needles[0]); i++)
		for (char *p = buf; (p = strstr(p, needles[i])); p++)
			count++;
	return count;
}

/*
 * In the calling process: mount a tmpfs on @dir, queue the four waiters on
 * a file in it, unmap, unmount, and check what each returned. Exit status
 * for the parent: 0, or 1 with the reason on stdout.
 */
static int unmount_under_waiters(uint32_t design, const char *dir)
{
	struct unmount_waiter u[NR_KINDS];
	char path[256];
	uint32_t *m;
	int fd, dev, i, bad = 0;

	if (mount("none", dir, "tmpfs", 0, "size=64k"))
		return printf("# mount tmpfs: %s\n", strerror(errno)), 1;
	snprintf(path, sizeof(path), "%s/words", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || ftruncate(fd, 4096))
		return printf("# %s: %s\n", path, strerror(errno)), 1;
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return printf("# mmap: %s\n", strerror(errno)), 1;
	dev = open_design(design, 0);
	if (dev < 0)
		return printf("# open %s: %s\n", DEV, strerror(-dev)), 1;
	/* WAIT, WAITV: a value; LOCK_PI, LOCK_ADAPTIVE: held by us, asleep */
	for (i = 0; i < NR_KINDS; i++) {
		uint32_t *w = &m[16 * i];

		w[0] = (i == W_PI || i == W_ADAPTIVE) ?
		       (uint32_t)syscall(SYS_gettid) : 7;
		w[1] = FUTEXLAB_NO_NODE;
		u[i] = (struct unmount_waiter){
			.fd = dev, .kind = i, .w = w,
			.deadline = now_ns() + SLEEP_FOR,
		};
		pthread_create(&u[i].th, NULL, unmount_waiter_main, &u[i]);
		while (!u[i].tid)
			usleep(1000);
		if (wait_sleeping(u[i].tid) || u[i].done) {
			printf("# the %s waiter did not sleep (returned %d)\n",
			       kind_name[i], u[i].ret);
			bad = 1;
		}
	}
	munmap(m, 4096);
	if (!bad && umount2(dir, 0)) {
		printf("# umount: %s\n", strerror(errno));
		bad = 1;
	}
	for (i = 0; i < NR_KINDS; i++) {
		uint64_t end = u[i].deadline + 10 * SEC;

		while (!u[i].done && now_ns() < end)
			usleep(10000);
		if (!u[i].done) {
			printf("# the %s waiter is still asleep 10 s after its deadline\n",
			       kind_name[i]);
			fflush(stdout);
			_exit(1);
		}
		pthread_join(u[i].th, NULL);
		/*
		 * The word is gone with its mapping: a sleep that looks at the
		 * word again on its own (the adaptive lock, each slice; PI,
		 * to notice a dead owner) may return EFAULT before its
		 * deadline. Either is a clean return.
		 */
		if (!bad && u[i].ret != -ETIMEDOUT &&
		    !(u[i].ret == -EFAULT &&
		      (i == W_ADAPTIVE || i == W_PI))) {
			printf("# %s returned %d (%s), want ETIMEDOUT\n",
			       kind_name[i], u[i].ret, strerror(-u[i].ret));
			bad = 1;
		}
	}
	close(dev);
	umount2(dir, MNT_DETACH);	/* after a failure above */
	return bad;
}

static int shared_unmount(uint32_t design, int userns)
{
	char dir[] = "/tmp/kmodtest-mnt-XXXXXX";
	int splats = klog_splats();
	uint64_t end;
	int st, ret = -1;
	pid_t kid;

	if (!mkdtemp(dir) || chmod(dir, 0777))
		return fail("mkdtemp: %s", strerror(errno)), -1;
	fflush(stdout);
	kid = fork();
	if (kid == 0) {
		if (userns && become_userns_nobody())
			_exit(1);
		_exit(unmount_under_waiters(design, dir));
	}
	/* the waiters' deadline plus a margin: a child past it is hung */
	end = now_ns() + SLEEP_FOR + 20000 * MS;
	for (;;) {
		pid_t r = waitpid(kid, &st, WNOHANG);

		if (r == kid)
			break;
		if (now_ns() > end) {
			kill(kid, SIGKILL);
			waitpid(kid, &st, 0);
			fail("the waiters outlived their deadline by 20 s");
			goto out;
		}
		usleep(10000);
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fail("see the lines above (status %#x)", st);
		goto out;
	}
	if (klog_splats() > splats) {
		fail("the kernel log says Busy inodes, BUG or WARNING");
		goto out;
	}
	ret = 0;
out:
	rmdir(dir);
	return ret;
}

int t_shared_unmount(uint32_t design)
{
	return shared_unmount(design, 0);
}

int t_shared_unmount_userns(uint32_t design)
{
	return shared_unmount(design, 1);
}
