// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's bad-input family: every ioctl's error paths (unknown
 * commands, bad designs, flags, bitsets, misaligned, NULL, unmapped and
 * kernel addresses, padding) give the exact errno, as in ntsync's selftest.
 */
#include <stddef.h>

#include "kmodtest.h"

/*
 * A wait argument whose last field (node) lies on an unmapped page, the
 * rest readable and naming a word that differs: EFAULT, as copy_from_user()
 * of the whole struct gives, never EAGAIN from a read that skipped a field
 * the flags do not use. Return: 0, or -1 with fail() said.
 */
static int wait_arg_tail_unmapped(int fd)
{
	static uint32_t word = 1;
	char *pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct futexlab_wait a = {
		.uaddr = (uintptr_t)&word,
		.val = 2,
		.bitset = ~0u,
	};
	size_t at = 4096 - offsetof(struct futexlab_wait, node);
	int ret = -1;

	if (pages == MAP_FAILED)
		return fail("mmap: %s", strerror(errno)), -1;
	memcpy(pages + at, &a, offsetof(struct futexlab_wait, node));
	munmap(pages + 4096, 4096);
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT, pages + at), -EFAULT,
	       "wait argument with its node field unmapped");
	ret = 0;
out:
	munmap(pages, 4096);
	return ret;
}

/*
 * One function on purpose (about 170 lines): a flat script of bad calls, each
 * EXPECT next to the argument it breaks, read top to bottom like ntsync's
 * selftest; splitting it would scatter the one fixture they share.
 */
int t_bad_input(void)
{
	uint32_t w[2] = { 0, 0 };
	struct futexlab_design d;
	struct futexlab_wait wa;
	struct futexlab_wake wk;
	struct futexlab_requeue rq;
	struct futexlab_pi pi;
	struct futexlab_stats st;
	void *unmapped = mmap(NULL, 4096, PROT_NONE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open(DEV, O_RDWR), ret = -1;

	munmap(unmapped, 4096);
	if (fd < 0)
		return fail("open: %s", strerror(errno)), -1;

	EXPECT(xioctl(fd, _IOWR(FUTEXLAB_IOC_MAGIC, 0x7f, struct futexlab_wait),
		      &wa), -ENOTTY, "unknown command");
	EXPECT(xioctl(fd, 0x1234, &wa), -ENOTTY, "foreign command");
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT, unmapped), -EFAULT,
	       "unmapped argument");
	if (wait_arg_tail_unmapped(fd))
		goto out;

	memset(&d, 0xa5, sizeof(d));
	EXPECT(xioctl(fd, FUTEXLAB_IOC_SET_DESIGN, &d), -EINVAL,
	       "design with garbage fields");
	memset(&d, 0, sizeof(d));
	d.design = 0;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_SET_DESIGN, &d), -EINVAL, "design 0");
	d.design = 99;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_SET_DESIGN, &d), -EINVAL, "design 99");
	d.design = FUTEXLAB_DESIGN_PRIVATE;
	d.slots = 3;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_SET_DESIGN, &d), -EINVAL,
	       "3 slots (not a power of two)");
	d.slots = 1u << 31;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_SET_DESIGN, &d), -EINVAL,
	       "2^31 slots (too many)");
	d.slots = 0;
	d.design = FUTEXLAB_DESIGN_GLOBAL;
	d.slots = 64;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_SET_DESIGN, &d), -EINVAL,
	       "slots for the global design");
	memset(&d, 0, sizeof(d));
	d.design = FUTEXLAB_DESIGN_PRIVATE;
	d.slots = 16;
	d.flags = 1;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_SET_DESIGN, &d), -EINVAL,
	       "design flags");
	d.flags = 0;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_SET_DESIGN, &d), 0, "private 16");
	if (d.slots != 16 || d.design != FUTEXLAB_DESIGN_PRIVATE ||
	    d.version != FUTEXLAB_VERSION) {
		fail("SET_DESIGN reported %u/%u/v%u", d.design, d.slots,
		     d.version);
		goto out;
	}

	memset(&wa, 0, sizeof(wa));
	wa.uaddr = (uintptr_t)w;
	wa.val = 1;
	wa.bitset = ~0u;
	wa.flags = 1u << 7;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT, &wa), -EINVAL, "wait flag 1<<7");
	wa.flags = FUTEXLAB_F_NODE;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT, &wa), -EINVAL,
	       "wait with a node outside the numa design");
	wa.flags = 0;
	wa.bitset = 0;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT, &wa), -EINVAL, "wait bitset 0");
	wa.bitset = ~0u;
	wa.uaddr = (uintptr_t)w + 1;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT, &wa), -EINVAL,
	       "misaligned wait");
	wa.uaddr = (uintptr_t)unmapped;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT, &wa), -EFAULT, "unmapped wait");
	wa.uaddr = 0;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT, &wa), -EFAULT, "NULL wait");
	wa.uaddr = ~0ull & ~3ull;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT, &wa), -EFAULT,
	       "kernel-address wait");
	wa.uaddr = (uintptr_t)w;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT, &wa), -EAGAIN, "mismatch");

	/* the design is fixed now */
	memset(&d, 0, sizeof(d));
	d.design = FUTEXLAB_DESIGN_GLOBAL;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_SET_DESIGN, &d), -EBUSY,
	       "design change after first use");
	memset(&d, 0, sizeof(d));
	EXPECT(xioctl(fd, FUTEXLAB_IOC_GET_DESIGN, &d), 0, "get design");
	if (d.design != FUTEXLAB_DESIGN_PRIVATE || d.slots != 16) {
		fail("GET_DESIGN reported %u/%u", d.design, d.slots);
		goto out;
	}

	memset(&wk, 0, sizeof(wk));
	wk.uaddr = (uintptr_t)w;
	wk.nr_wake = 1;
	wk.bitset = ~0u;
	wk.flags = 1u << 9;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAKE, &wk), -EINVAL, "wake flag 1<<9");
	wk.flags = FUTEXLAB_F_DEADLINE;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAKE, &wk), -EINVAL,
	       "wake with a deadline flag");
	wk.flags = 0;
	wk.bitset = 0;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAKE, &wk), -EINVAL, "wake bitset 0");
	wk.bitset = ~0u;
	wk.uaddr = (uintptr_t)w + 2;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAKE, &wk), -EINVAL, "misaligned wake");
	wk.uaddr = (uintptr_t)unmapped;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAKE, &wk), 0,
	       "private wake of an unmapped word (stock: 0)");
	wk.flags = FUTEXLAB_F_SHARED;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAKE, &wk), -EFAULT,
	       "shared wake of an unmapped word");

	memset(&rq, 0, sizeof(rq));
	rq.uaddr = (uintptr_t)&w[0];
	rq.uaddr2 = (uintptr_t)&w[1];
	rq.flags = 1u << 5;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE, &rq), -EINVAL,
	       "requeue flag 1<<5");
	rq.flags = 0;
	rq.pad = 1;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE, &rq), -EINVAL,
	       "requeue padding");
	rq.pad = 0;
	rq.nr_wake = (uint32_t)-1;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE, &rq), -EINVAL,
	       "requeue nr_wake -1");
	rq.nr_wake = 0;
	rq.uaddr2 = (uintptr_t)unmapped;
	rq.val = 1;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE, &rq), -EAGAIN,
	       "requeue mismatch");
	rq.uaddr = (uintptr_t)unmapped;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE, &rq), -EFAULT,
	       "requeue from unmapped");

	memset(&pi, 0, sizeof(pi));
	pi.uaddr = (uintptr_t)w;
	pi.flags = 1u << 4;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_LOCK_PI, &pi), -EINVAL,
	       "lock_pi flag 1<<4");
	pi.flags = FUTEXLAB_F_DEADLINE;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_UNLOCK_PI, &pi), -EINVAL,
	       "unlock_pi with a deadline flag");
	pi.flags = 0;
	pi.uaddr = (uintptr_t)unmapped;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_LOCK_PI, &pi), -EFAULT,
	       "lock_pi unmapped");
	pi.uaddr = (uintptr_t)w + 1;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_TRYLOCK_PI, &pi), -EINVAL,
	       "trylock_pi misaligned");

	memset(&st, 0, sizeof(st));
	st.flags = 2;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_STATS, &st), -EINVAL, "stats flags");
	st.flags = 0;
	st.nr_counts = 4;
	st.counts_ptr = (uintptr_t)unmapped;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_STATS, &st), -EFAULT,
	       "stats to unmapped counts");
	ret = 0;
out:
	close(fd);
	return ret;
}
