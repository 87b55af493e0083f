/* SPDX-License-Identifier: GPL-2.0 */
/*
 * futexlab: the module's one internal header, shared by core.c (tables,
 * keys, hashing), tid.c, queue.c, sleep.c, waitwake.c, requeue.c, pi.c,
 * pi_owner.c, stats.c, ioctl.c and main.c. A "__" prefix on a function means the caller holds
 * the bucket lock.
 */
#ifndef _FUTEXLAB_INTERNAL_H
#define _FUTEXLAB_INTERNAL_H

#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uaccess.h>

#include "uapi/futexlab.h"

#define FLK_MAX_SLOTS	(1U << 20)	/* global and node tables (admin) */

/**
 * struct flk_bucket - one hash bucket
 * @lock:	protects every other field except @waiters
 * @waiters:	waiters queued or about to queue (see waitwake.c); lets a
 *		waker skip the lock of an empty bucket
 * @chain:	struct flk_q, ordered by priority, FIFO among equal ones
 * @pi_states:	struct flk_pi_state of the PI futexes hashed here
 * @len:	entries in @chain
 * @max_len:	the longest @chain seen
 * @waits:	waiters queued here
 * @eagain:	waits that found the word changed
 * @woken:	waiters woken from here
 * @requeued:	waiters moved away from here by cmp_requeue
 * @wakes:	wake calls that took the lock
 * @contended:	acquisitions of @lock that found it held
 */
struct flk_bucket {
	spinlock_t lock;
	atomic_t waiters;
	struct list_head chain;
	struct list_head pi_states;
	unsigned int len;
	unsigned int max_len;
	u64 waits;
	u64 eagain;
	u64 woken;
	u64 requeued;
	u64 wakes;
	u64 contended;
} ____cacheline_aligned_in_smp;

/**
 * struct flk_table - a hash table: the global one, a private one or a node's
 * @mask:	buckets - 1 (buckets is a power of two)
 * @node:	the NUMA node its memory is on (NUMA_NO_NODE: any)
 * @timeouts:	waits that ended at their deadline
 * @signals:	waits that a signal ended
 * @pi_locks:	PI locks taken in the kernel path
 * @pi_boosts:	owner boosts applied
 * @spins:	adaptive lock_pi spins (see pi.c)
 * @adaptive:	the adaptive lock's counters (see adaptive.c)
 * @buckets:	the buckets
 */
struct flk_table {
	u32 mask;
	int node;
	atomic64_t timeouts;
	atomic64_t signals;
	atomic64_t pi_locks;
	atomic64_t pi_boosts;
	atomic64_t spins;
	struct {
		atomic64_t locks;
		atomic64_t spins;
		atomic64_t spin_off_cpu;
		atomic64_t spin_bound;
		atomic64_t sleeps;
		atomic64_t owner_died;
	} adaptive;
	struct flk_bucket buckets[];
};

/*
 * struct flk_key - what identifies a futex
 *
 * Private key (the default): @ptr is the mm, @word the user address, @offset
 * 0. No reference is taken on the mm: a waiter is a thread of that mm, so
 * the mm lives at least as long as the waiter sleeps, and a waker can only
 * compare the pointer, never dereference it.
 *
 * Shared key (FUTEXLAB_F_SHARED): the page's identity, so that two
 * processes mapping the same page meet. A file or shmem page (MAP_SHARED)
 * gives @ptr = the inode's futex sequence number, @word = the page's index
 * in the file; an anonymous page gives @ptr = the mm and @word = the
 * address. @offset is the offset in the page with FLK_KEY_SHARED (and
 * FLK_KEY_INODE) set, so a shared and a private key never compare equal.
 *
 * An inode key holds no reference, as the stock futex's: the sequence
 * number (inode->i_sequence, see flk_inode_sequence()) is unique for the
 * life of the machine and cleared when an inode's memory is reused, so a
 * freed file's key can never equal a new file's, and a sleeping waiter
 * pins neither the inode nor its filesystem: the file may be unmapped and
 * its filesystem unmounted under it; it returns at its deadline, a
 * signal, or a wake through another mapping of the same file.
 */
struct flk_key {
	u64 ptr;
	unsigned long word;
	u32 offset;
	u32 pad;
};

#define FLK_KEY_SHARED	1U
#define FLK_KEY_INODE	2U

struct flk_pi_state;

/**
 * struct flk_q - a waiter, on the waiter's stack
 * @list:	in @hb->chain; @hb->lock
 * @prio:	the waiter's kernel priority when it queued (lower is higher)
 * @task:	the waiter
 * @hb:		the bucket it is queued on; changed by requeue under both
 *		locks; a waker sets it to NULL (release) after removing the
 *		entry, and from then on the waker never touches the flk_q
 * @euid:	PI waiter: its effective uid (whose tasks it may boost)
 * @cap_nice:	PI waiter: it has CAP_SYS_NICE (may boost any task)
 * @table:	the table of @hb (for counters)
 * @key:	the futex it waits on; @hb->lock
 * @bitset:	wake only with a matching bitset
 * @pi:		PI waiter: the PI state of the lock; NULL otherwise. Set
 *		under the bucket lock (by cmp_requeue_pi for a waiter it moves)
 * @rq_pi:	wait_requeue_pi waiter: may only be moved to @key2 as a PI
 *		waiter by cmp_requeue_pi (wake and cmp_requeue: -EINVAL)
 * @key2:	with @rq_pi: the PI lock it waits to be requeued to
 */
struct flk_q {
	struct list_head list;
	int prio;
	struct task_struct *task;
	struct flk_bucket *hb;
	struct flk_table *table;
	struct flk_key key;
	u32 bitset;
	kuid_t euid;
	bool cap_nice;
	struct flk_pi_state *pi;
	bool rq_pi;
	struct flk_key key2;
};

/**
 * struct flk_ctx - an open file description of /dev/futexlab
 * @lock:	serializes SET_DESIGN against the first operation
 * @design:	FUTEXLAB_DESIGN_*, fixed once @started
 * @started:	an operation ran; set with release, read with acquire
 * @priv:	the private design's table, freed when the file is released
 * @uid:	the user charged for @priv
 * @charged:	the bytes charged to @uid (flk_charge())
 */
struct flk_ctx {
	struct mutex lock;
	u32 design;
	bool started;
	struct flk_table *priv;
	kuid_t uid;
	size_t charged;
};

/**
 * struct flk_target - a futex resolved for one operation
 * @key:	its key
 * @table:	the table the design puts it in
 * @hb:		its bucket
 */
struct flk_target {
	struct flk_key key;
	struct flk_table *table;
	struct flk_bucket *hb;
};

/* cmpxchg attempts on a word that keeps changing, under a bucket lock */
#define FLK_CMPXCHG_TRIES	16

/* flk_lock_word(): the word was faulted in, resolve the targets again */
#define FLK_RETRY	1

/* Wakes collected under a bucket lock and issued after it is dropped. */
#define FLK_WAKE_BATCH	16
struct flk_wake_batch {
	struct task_struct *task[FLK_WAKE_BATCH];
	unsigned int nr;
};

/* main.c: module-wide tables and parameters */
extern struct flk_table *flk_global;
extern struct flk_table **flk_numa;
extern unsigned int flk_private_default_slots;
extern unsigned int flk_adaptive_spin_us;
int flk_charge(kuid_t uid, size_t bytes);
void flk_uncharge(kuid_t uid, size_t bytes);

/* core.c: tables, keys, hashing */
size_t flk_table_bytes(u32 slots);
struct flk_table *flk_table_alloc(u32 slots, int node);
void flk_table_free(struct flk_table *t);
void flk_ctx_start_slow(struct flk_ctx *ctx);
int flk_target_get(struct flk_ctx *ctx, u64 uaddr, u32 flags, u32 node,
		  struct flk_target *t);
bool flk_key_match(const struct flk_key *a, const struct flk_key *b);

/* tid.c: the task a lock word names */
struct task_struct *flk_task_by_tid(pid_t tid);

/* queue.c: a bucket's queue, the word under its lock */
int flk_hb_waiters_pending(struct flk_bucket *hb);
void __flk_queue(struct flk_bucket *hb, struct flk_table *t, struct flk_q *q);
void __flk_unqueue(struct flk_q *q);
void __flk_wake_q(struct flk_q *q, struct flk_wake_batch *wb);
void flk_wake_flush(struct flk_wake_batch *wb);
bool flk_unqueue_self(struct flk_q *q);
int flk_cmpxchg_value_locked(u32 *cur, u32 __user *uaddr, u32 old, u32 new);
void flk_q_init(struct flk_q *q, struct flk_target *t, u32 bitset);
int flk_lock_word(struct flk_target *t, struct flk_target *dest,
		 u32 __user *uaddr, u32 *uval);
int flk_queue_wait(struct flk_target *t, struct flk_q *q, u32 __user *uaddr,
		  u32 val);

/* sleep.c: a queued waiter's sleep, and the bound of retry loops */
bool flk_sleep_once(ktime_t *deadline, bool *timed_out);
int flk_sleep(struct flk_q *q, ktime_t *deadline, bool *timed_out);
int flk_wait_queued(struct flk_q *q, ktime_t *deadline);
int flk_wait_left(struct flk_q *q, bool timed_out);
int flk_retry_check(ktime_t *deadline);

/*
 * The helpers every operation runs on its way to the word, inline: a
 * failing wait is little more than these, and each out-of-line call costs
 * a call and a return thunk (docs/kmod.md, the failing wait's cost).
 */

/* Fix the design of @ctx at its first operation (global if none chosen). */
static inline void flk_ctx_start(struct flk_ctx *ctx)
{
	/* pairs with the release in flk_ctx_start_slow(): see the design */
	if (unlikely(!smp_load_acquire(&ctx->started)))
		flk_ctx_start_slow(ctx);
}

/* Take a bucket lock, counting the acquisitions that had to wait. */
static inline void flk_hb_lock(struct flk_bucket *hb)
{
	if (likely(spin_trylock(&hb->lock)))
		return;
	spin_lock(&hb->lock);
	hb->contended++;
}

/* Lock two buckets in address order (one lock if they are the same). */
static inline void flk_hb_lock2(struct flk_bucket *a, struct flk_bucket *b)
{
	if (a > b)
		swap(a, b);
	flk_hb_lock(a);
	if (a != b)
		spin_lock_nested(&b->lock, SINGLE_DEPTH_NESTING);
}

static inline void flk_hb_unlock2(struct flk_bucket *a, struct flk_bucket *b)
{
	spin_unlock(&a->lock);
	if (a != b)
		spin_unlock(&b->lock);
}

/*
 * Count a waiter in the bucket of @dest, then lock the buckets of @t and
 * @dest (one lock when they are the same): the waiter's side of the barrier
 * pair in waitwake.c. @dest is the futex that waiters are queued on: @t
 * itself for a wait or a PI lock, the requeue target for a requeue.
 */
static inline void flk_lock_waiting(struct flk_target *t,
				    struct flk_target *dest)
{
	atomic_inc(&dest->hb->waiters);
	smp_mb__after_atomic();		/* A: see waitwake.c */
	flk_hb_lock2(t->hb, dest->hb);
}

/* Undo flk_lock_waiting(): unlock, and uncount the waiter. */
static inline void flk_unlock_waiting(struct flk_target *t,
				      struct flk_target *dest)
{
	flk_hb_unlock2(t->hb, dest->hb);
	atomic_dec(&dest->hb->waiters);
}

/* Read the word under a bucket lock: a fault returns -EFAULT at once. */
static inline int flk_get_value_locked(u32 *dest, u32 __user *uaddr)
{
	int ret;

	pagefault_disable();
	ret = __get_user(*dest, uaddr);
	pagefault_enable();
	return ret ? -EFAULT : 0;
}

/* The absolute deadline of an operation: NULL without FUTEXLAB_F_DEADLINE. */
static inline ktime_t *flk_deadline(u32 flags, u64 deadline_ns, ktime_t *buf)
{
	if (!(flags & FUTEXLAB_F_DEADLINE))
		return NULL;
	*buf = deadline_ns > KTIME_MAX ? KTIME_MAX : (ktime_t)deadline_ns;
	return buf;
}

/*
 * The result of an operation whose wait a signal ended (@ret: a restart
 * code, -ERESTARTSYS or -ERESTARTNOINTR, which become EINTR or a restart
 * on the way out): -ECANCELED with FUTEXLAB_F_INTERRUPTIBLE, so the call
 * is not restarted whatever SA_RESTART says. Nothing but a pending signal
 * makes the module return a restart code.
 */
static inline int flk_cancelled(u32 flags, int ret)
{
	if ((ret == -ERESTARTSYS || ret == -ERESTARTNOINTR) &&
	    (flags & FUTEXLAB_F_INTERRUPTIBLE))
		return -ECANCELED;
	return ret;
}

/* waitwake.c */
int flk_wait(struct flk_ctx *ctx, struct futexlab_wait *a);
int flk_wake(struct flk_ctx *ctx, struct futexlab_wake *a);

/* requeue.c */
int flk_cmp_requeue(struct flk_ctx *ctx, struct futexlab_requeue *a);
int flk_wait_requeue_pi(struct flk_ctx *ctx,
		       struct futexlab_wait_requeue_pi *a);
int flk_cmp_requeue_pi(struct flk_ctx *ctx, struct futexlab_requeue *a);

/* pi.c */
int flk_lock_pi(struct flk_ctx *ctx, struct futexlab_pi *a, bool trylock);
int flk_unlock_pi(struct flk_ctx *ctx, struct futexlab_pi *a);
struct flk_pi_state *flk_pi_alloc(void);
int __flk_pi_attach(struct flk_target *t, u32 tid,
		   struct flk_pi_state **prealloc, struct flk_pi_state **out,
		   struct task_struct **old_owner);
void __flk_pi_get(struct flk_pi_state *pi);
void __flk_pi_add_waiter(struct flk_pi_state *pi, struct flk_q *q);
void __flk_pi_waiter_left(struct flk_pi_state *pi);
void flk_pi_waiter_gone(struct flk_pi_state *pi);
void flk_pi_wait_done(struct flk_q *q, bool owner);
int __flk_pi_claim(u32 __user *uaddr, u32 *uval, struct flk_pi_state *pi,
		  u32 tid, bool waiters, bool mark);
struct flk_pi_state *__flk_pi_find(struct flk_bucket *hb, struct flk_key *key);
void flk_pi_adjust(struct flk_pi_state *pi);
void flk_pi_put(struct flk_pi_state *pi);
void flk_q_init_pi(struct flk_q *q);
int flk_fault_in_writeable(u32 __user *uaddr);
struct task_struct *__flk_pi_owner(struct flk_pi_state *pi);
struct flk_q *__flk_pi_top_waiter(struct flk_bucket *hb, struct flk_key *key);
struct task_struct *__flk_pi_hand_to(struct flk_pi_state *pi,
				     struct flk_q *top,
				     struct flk_wake_batch *wb);

/* pi_boost.c: the per-task locks boosts are applied under */
void flk_pi_boost_init(void);

/* pi_owner.c: a PI waiter's sleep, which notices an owner's death */
int flk_pi_wait_queued(struct flk_q *q, ktime_t *deadline,
		       struct flk_ctx *ctx, u64 uaddr, u32 flags, u32 node);

/* waitv.c */
int flk_waitv(struct flk_ctx *ctx, struct futexlab_waitv_args *a);

/* adaptive.c */
int flk_lock_adaptive(struct flk_ctx *ctx, struct futexlab_adaptive *a);
int flk_unlock_adaptive(struct flk_ctx *ctx, struct futexlab_adaptive *a);

/* stats.c */
int flk_stats(struct flk_ctx *ctx, struct futexlab_stats *s);
void flk_debugfs_init(void);
void flk_debugfs_exit(void);

/* ioctl.c */
long flk_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

#endif /* _FUTEXLAB_INTERNAL_H */
