/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * futexlab: the ioctl interface of /dev/futexlab, shared by the module and
 * user space (backends/kmod.h, tests/guest/).
 *
 * Every argument is a struct passed to _IOWR: fixed-width fields, pointers
 * as __u64, explicit padding, and a flags word whose unknown bits (and any
 * non-zero padding) are rejected with EINVAL, so the structs can grow.
 *
 * The hash design belongs to the open file description: FUTEXLAB_IOC_SET_DESIGN
 * before the first futex operation on that description (EBUSY after); an
 * unconfigured description uses FUTEXLAB_DESIGN_GLOBAL. Return values of the
 * futex operations are those of the stock futex(2) for the same situation.
 */
#ifndef _UAPI_LINUX_FUTEXLAB_H
#define _UAPI_LINUX_FUTEXLAB_H

#include <linux/types.h>

/*
 * 2: requeue-PI; 3: numa node words; 4: waitv, the adaptive lock;
 * 5: FUTEXLAB_F_INTERRUPTIBLE
 */
#define FUTEXLAB_VERSION	5

/* Hash designs (struct futexlab_design.design) */
#define FUTEXLAB_DESIGN_GLOBAL	1	/* one table for the machine */
#define FUTEXLAB_DESIGN_PRIVATE	2	/* one table per open description */
#define FUTEXLAB_DESIGN_NUMA	3	/* one table per NUMA node */

/* Operation flags (the flags field of the operation structs) */
#define FUTEXLAB_F_SHARED	(1U << 0)	/* key by page, not by (mm, address) */
#define FUTEXLAB_F_DEADLINE	(1U << 1)	/* deadline_ns is valid */
#define FUTEXLAB_F_NODE		(1U << 2)	/* numa design: use node, not the node word */
#define FUTEXLAB_F_INTERRUPTIBLE (1U << 3)	/* a signal ends the wait: ECANCELED */

/*
 * FUTEXLAB_F_INTERRUPTIBLE: the operations that sleep (WAIT, LOCK_PI,
 * WAIT_REQUEUE_PI, LOCK_ADAPTIVE, and WAITV in the call's flags, not an
 * entry's) return ECANCELED when a signal ends their wait, whatever
 * SA_RESTART says, and are not restarted; the caller then holds nothing
 * (a PI waiter has left the lock's chain, its boost undone, as at a
 * deadline). Without it a signal gives the stock futex's result: EINTR or
 * a restart. A wake (or a lock hand-over) that reached the waiter before
 * it left the queue wins: the call returns 0, as it would with EINTR.
 * The other operations refuse the flag (EINVAL).
 */

/*
 * The numa design without FUTEXLAB_F_NODE reads the futex's node from the
 * u32 after the futex word, as FUTEX2_NUMA does: {u32 value; u32 node}.
 * FUTEXLAB_NO_NODE there is replaced, at first use, by the node of the
 * word's page; any other value must be an online node (else EINVAL).
 * With FUTEXLAB_F_NODE, node FUTEXLAB_NO_NODE names a plain u32 futex with
 * no node word, in every design; the numa design picks its node from its
 * hash, as the kernel spreads futexes without FUTEX2_NUMA over its tables.
 */
#define FUTEXLAB_NO_NODE	0xffffffffU

/* The stock PI word encoding (linux/futex.h) */
#define FUTEXLAB_WAITERS	0x80000000U
#define FUTEXLAB_OWNER_DIED	0x40000000U
#define FUTEXLAB_TID_MASK	0x3fffffffU

#define FUTEXLAB_BITSET_ANY	0xffffffffU

/* The largest private table (8 MiB of buckets); see docs/kmod.md for caps */
#define FUTEXLAB_MAX_PRIVATE_SLOTS	(1U << 16)

/**
 * struct futexlab_design - choose (SET) or report (GET) the hash design
 * @design:	FUTEXLAB_DESIGN_*; GET fills it in
 * @flags:	must be 0
 * @slots:	private design: buckets, a power of two (0: module default);
 *		reported back as the buckets per table of the design in use
 * @nodes:	out: number of tables (NUMA nodes for the numa design, else 1)
 * @version:	out: FUTEXLAB_VERSION
 * @pad:	must be 0
 */
struct futexlab_design {
	__u32 design;
	__u32 flags;
	__u32 slots;
	__u32 nodes;
	__u32 version;
	__u32 pad;
};

/**
 * struct futexlab_wait - sleep while *uaddr == val
 * @uaddr:	the 32-bit futex word, 4-byte aligned
 * @deadline_ns: absolute CLOCK_MONOTONIC deadline when FUTEXLAB_F_DEADLINE
 * @val:	the expected value
 * @bitset:	wake only with wakes whose bitset intersects it (non-zero)
 * @flags:	FUTEXLAB_F_SHARED, FUTEXLAB_F_DEADLINE, FUTEXLAB_F_NODE,
 *		FUTEXLAB_F_INTERRUPTIBLE
 * @node:	with FUTEXLAB_F_NODE: the node whose table holds the futex
 */
struct futexlab_wait {
	__u64 uaddr;
	__u64 deadline_ns;
	__u32 val;
	__u32 bitset;
	__u32 flags;
	__u32 node;
};

/**
 * struct futexlab_wake - wake up to nr_wake waiters whose bitset matches
 * @uaddr:	the futex word
 * @nr_wake:	how many (as the stock futex: an int, 0 wakes one)
 * @bitset:	non-zero
 * @flags:	FUTEXLAB_F_SHARED, FUTEXLAB_F_NODE
 * @node:	with FUTEXLAB_F_NODE
 */
struct futexlab_wake {
	__u64 uaddr;
	__u32 nr_wake;
	__u32 bitset;
	__u32 flags;
	__u32 node;
};

/**
 * struct futexlab_requeue - if *uaddr == val, wake nr_wake waiters of uaddr
 * and move up to nr_requeue more to uaddr2; returns woken + moved
 * @uaddr:	the source futex word
 * @uaddr2:	the target futex word
 * @nr_wake:	non-negative int
 * @nr_requeue:	non-negative int
 * @val:	expected value of *uaddr
 * @flags:	FUTEXLAB_F_SHARED (both words), FUTEXLAB_F_NODE
 * @node:	with FUTEXLAB_F_NODE: node of uaddr
 * @node2:	with FUTEXLAB_F_NODE: node of uaddr2
 * @pad:	must be 0
 */
struct futexlab_requeue {
	__u64 uaddr;
	__u64 uaddr2;
	__u32 nr_wake;
	__u32 nr_requeue;
	__u32 val;
	__u32 flags;
	__u32 node;
	__u32 node2;
	__u32 pad;
	__u32 pad2;
};

/**
 * struct futexlab_pi - lock_pi, trylock_pi, unlock_pi on a TID|WAITERS word
 * @uaddr:	the lock word
 * @deadline_ns: lock_pi: absolute CLOCK_MONOTONIC with FUTEXLAB_F_DEADLINE
 * @flags:	FUTEXLAB_F_SHARED, FUTEXLAB_F_DEADLINE (lock_pi), FUTEXLAB_F_NODE,
 *		FUTEXLAB_F_INTERRUPTIBLE (lock_pi)
 * @node:	with FUTEXLAB_F_NODE
 */
struct futexlab_pi {
	__u64 uaddr;
	__u64 deadline_ns;
	__u32 flags;
	__u32 node;
};

/**
 * struct futexlab_wait_requeue_pi - wait on uaddr for cmp_requeue_pi to
 * take, or queue for, the PI lock uaddr2; returns 0 owning uaddr2
 * @uaddr:	the condition word (non-PI), 4-byte aligned
 * @uaddr2:	the PI lock word, not @uaddr
 * @deadline_ns: absolute CLOCK_MONOTONIC deadline when FUTEXLAB_F_DEADLINE
 * @val:	the expected value of *uaddr
 * @flags:	FUTEXLAB_F_SHARED (both words), FUTEXLAB_F_DEADLINE,
 *		FUTEXLAB_F_NODE, FUTEXLAB_F_INTERRUPTIBLE
 * @node:	with FUTEXLAB_F_NODE: node of uaddr
 * @node2:	with FUTEXLAB_F_NODE: node of uaddr2
 */
struct futexlab_wait_requeue_pi {
	__u64 uaddr;
	__u64 uaddr2;
	__u64 deadline_ns;
	__u32 val;
	__u32 flags;
	__u32 node;
	__u32 node2;
};

/**
 * struct futexlab_stats - counters of the design the description uses
 * @design:	out: FUTEXLAB_DESIGN_*
 * @flags:	must be 0
 * @buckets:	out: buckets summed over the design's tables
 * @nr_counts:	in: entries at @counts_ptr (0: none); out: entries written
 * @counts_ptr:	in: a __u64 array that receives the waits per bucket
 *		(tables one after another, node order for the numa design)
 * @waits:	waits that slept (or would have: queued under the lock)
 * @eagain:	waits that found a changed word
 * @timeouts:	waits that ended at their deadline
 * @signals:	waits that a signal ended
 * @wakes:	wake and requeue calls
 * @woken:	waiters woken
 * @requeued:	waiters moved by cmp_requeue
 * @pi_locks:	PI locks taken (in the kernel path)
 * @pi_boosts:	owner boosts applied
 * @contended:	bucket-lock acquisitions that had to spin
 * @longest_chain: the longest bucket chain seen
 * @live_waiters: waiters queued right now
 * @buckets_used: buckets that ever held a waiter
 * @adaptive_locks: LOCK_ADAPTIVE calls that returned holding the lock
 * @adaptive_spins: spins of LOCK_ADAPTIVE on an owner that was on a CPU
 * @adaptive_spin_off_cpu: spins that ended because the owner left its CPU
 * @adaptive_spin_bound: spins that ended at the adaptive_lock_spin_us bound
 * @adaptive_sleeps: times a LOCK_ADAPTIVE caller queued to sleep
 * @adaptive_owner_died: locks taken over from a dead owner (EOWNERDEAD)
 */
struct futexlab_stats {
	__u32 design;
	__u32 flags;
	__u32 buckets;
	__u32 nr_counts;
	__u64 counts_ptr;
	__u64 waits;
	__u64 eagain;
	__u64 timeouts;
	__u64 signals;
	__u64 wakes;
	__u64 woken;
	__u64 requeued;
	__u64 pi_locks;
	__u64 pi_boosts;
	__u64 contended;
	__u64 longest_chain;
	__u64 live_waiters;
	__u64 buckets_used;
	__u64 adaptive_locks;
	__u64 adaptive_spins;
	__u64 adaptive_spin_off_cpu;
	__u64 adaptive_spin_bound;
	__u64 adaptive_sleeps;
	__u64 adaptive_owner_died;
};

/*
 * futex_waitv: one futex of the vector, the layout and flags of the
 * kernel's struct futex_waitv (linux/futex.h), so a futex_waitv vector is
 * handed over as it is. @flags: FUTEXLAB_WAITV_SIZE_U32 (the only size),
 * FUTEXLAB_WAITV_PRIVATE (else the key is shared, by page), and
 * FUTEXLAB_WAITV_NUMA: the word is {u32 value; u32 node} and the numa
 * design reads its node there (as without FUTEXLAB_F_NODE above); without
 * it the word is a plain u32 (FUTEXLAB_F_NODE with FUTEXLAB_NO_NODE).
 * Any other bit, a non-zero @reserved or a @val beyond 32 bits is EINVAL.
 */
struct futexlab_waitv {
	__u64 val;
	__u64 uaddr;
	__u32 flags;
	__u32 reserved;
};

#define FUTEXLAB_WAITV_SIZE_U32	0x02U
#define FUTEXLAB_WAITV_SIZE_MASK	0x03U
#define FUTEXLAB_WAITV_NUMA	0x04U
#define FUTEXLAB_WAITV_PRIVATE	0x80U
#define FUTEXLAB_WAITV_MAX	128

/**
 * struct futexlab_waitv_args - sleep while every futex of a vector holds
 * its value; returns the index of the futex whose wake ended the wait
 * @waiters:	user address of @nr struct futexlab_waitv
 * @deadline_ns: absolute CLOCK_MONOTONIC deadline when FUTEXLAB_F_DEADLINE
 * @nr:		1..FUTEXLAB_WAITV_MAX
 * @flags:	FUTEXLAB_F_DEADLINE, FUTEXLAB_F_INTERRUPTIBLE (the whole wait:
 *		an entry's @flags keep the kernel's futex_waitv meaning)
 */
struct futexlab_waitv_args {
	__u64 waiters;
	__u64 deadline_ns;
	__u32 nr;
	__u32 flags;
};

/**
 * struct futexlab_adaptive - the adaptive lock on a TID|WAITERS word
 * @uaddr:	the lock word: 0 free, else the owner's TID, with
 *		FUTEXLAB_WAITERS while someone sleeps on it (no boosting)
 * @deadline_ns: lock: absolute CLOCK_MONOTONIC with FUTEXLAB_F_DEADLINE
 * @flags:	FUTEXLAB_F_SHARED, FUTEXLAB_F_DEADLINE (lock), FUTEXLAB_F_NODE,
 *		FUTEXLAB_F_INTERRUPTIBLE (lock)
 * @node:	with FUTEXLAB_F_NODE
 *
 * User space takes 0 -> TID and releases TID -> 0 itself; the ioctls are
 * for contention. LOCK_ADAPTIVE spins while the owner is on a CPU (at most
 * the module parameter adaptive_lock_spin_us), then sleeps; it returns 0
 * holding the lock, EOWNERDEAD holding a lock whose owner died with it
 * (the word then carries FUTEXLAB_OWNER_DIED), EDEADLK (we own it),
 * ETIMEDOUT, EINTR or ECANCELED. UNLOCK_ADAPTIVE wakes one sleeper (EPERM
 * if the word does not name the caller).
 */
struct futexlab_adaptive {
	__u64 uaddr;
	__u64 deadline_ns;
	__u32 flags;
	__u32 node;
};

#define FUTEXLAB_IOC_MAGIC	0xF7

#define FUTEXLAB_IOC_SET_DESIGN	_IOWR(FUTEXLAB_IOC_MAGIC, 0x00, struct futexlab_design)
#define FUTEXLAB_IOC_GET_DESIGN	_IOWR(FUTEXLAB_IOC_MAGIC, 0x01, struct futexlab_design)
#define FUTEXLAB_IOC_WAIT	_IOWR(FUTEXLAB_IOC_MAGIC, 0x02, struct futexlab_wait)
#define FUTEXLAB_IOC_WAKE	_IOWR(FUTEXLAB_IOC_MAGIC, 0x03, struct futexlab_wake)
#define FUTEXLAB_IOC_CMP_REQUEUE _IOWR(FUTEXLAB_IOC_MAGIC, 0x04, struct futexlab_requeue)
#define FUTEXLAB_IOC_LOCK_PI	_IOWR(FUTEXLAB_IOC_MAGIC, 0x05, struct futexlab_pi)
#define FUTEXLAB_IOC_TRYLOCK_PI	_IOWR(FUTEXLAB_IOC_MAGIC, 0x06, struct futexlab_pi)
#define FUTEXLAB_IOC_UNLOCK_PI	_IOWR(FUTEXLAB_IOC_MAGIC, 0x07, struct futexlab_pi)
#define FUTEXLAB_IOC_STATS	_IOWR(FUTEXLAB_IOC_MAGIC, 0x08, struct futexlab_stats)
#define FUTEXLAB_IOC_WAIT_REQUEUE_PI \
	_IOWR(FUTEXLAB_IOC_MAGIC, 0x09, struct futexlab_wait_requeue_pi)
/*
 * CMP_REQUEUE_PI takes struct futexlab_requeue with nr_wake 1: it takes
 * uaddr2 for the top waiter if it is free, and queues it (and up to
 * nr_requeue more) on uaddr2 if not.
 */
#define FUTEXLAB_IOC_CMP_REQUEUE_PI \
	_IOWR(FUTEXLAB_IOC_MAGIC, 0x0a, struct futexlab_requeue)
#define FUTEXLAB_IOC_WAITV	_IOWR(FUTEXLAB_IOC_MAGIC, 0x0b, struct futexlab_waitv_args)
#define FUTEXLAB_IOC_LOCK_ADAPTIVE \
	_IOWR(FUTEXLAB_IOC_MAGIC, 0x0c, struct futexlab_adaptive)
#define FUTEXLAB_IOC_UNLOCK_ADAPTIVE \
	_IOWR(FUTEXLAB_IOC_MAGIC, 0x0d, struct futexlab_adaptive)

#endif /* _UAPI_LINUX_FUTEXLAB_H */
