// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab core: tables, keys, hashing, the priority-ordered wait queue,
 * and access to the futex word.
 *
 * Where a futex lives depends on the design of the file it is used
 * through:
 *   global   every key in flk_global;
 *   private  private keys in the file's own table, shared keys in
 *            flk_global (two processes never share a private table; this is
 *            also the rule of the 6.16 private futex hash);
 *   numa     the table of the futex's node, private and shared keys
 *            alike. The node is part of the futex's identity and never
 *            changes under a waiter (FUTEX2_NUMA's rule): the node the
 *            caller names with FUTEXLAB_F_NODE, or else the node word that
 *            follows the futex word, {u32 value; u32 node}; a node word of
 *            FUTEXLAB_NO_NODE is filled in at first use with the node of
 *            the word's page. The page itself may move afterwards (a COW,
 *            MADV_DONTNEED, a migration): the futex stays where it is.
 *            A plain u32 futex (FUTEXLAB_F_NODE with FUTEXLAB_NO_NODE, what
 *            the preload shim passes for futex(2)) has no node of its own:
 *            its hash picks one, as the stock futex does without
 *            FUTEX2_NUMA, so every caller finds it in the same table.
 *
 * The queue of a bucket is a priority list of our own (plist is not
 * exported to modules): entries are kept sorted by kernel priority, FIFO
 * among equal priorities. Insertion walks from the tail, so the common
 * case of waiters that share a priority costs O(1).
 */
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/jhash.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/futex.h>

#include "futexlab_compat.h"
#include "futexlab_internal.h"

static u32 flk_hash_seed __read_mostly;

/* The bytes of a table of @slots buckets (what a private table charges). */
size_t flk_table_bytes(u32 slots)
{
	struct flk_table *t;

	return struct_size(t, buckets, slots);
}

struct flk_table *flk_table_alloc(u32 slots, int node)
{
	struct flk_table *t;
	u32 i;

	t = kvzalloc_node(struct_size(t, buckets, slots), GFP_KERNEL_ACCOUNT,
			  node);
	if (!t)
		return NULL;
	if (!flk_hash_seed)
		flk_hash_seed = get_random_u32() | 1;
	t->mask = slots - 1;
	t->node = node;
	for (i = 0; i < slots; i++) {
		spin_lock_init(&t->buckets[i].lock);
		INIT_LIST_HEAD(&t->buckets[i].chain);
		INIT_LIST_HEAD(&t->buckets[i].pi_states);
	}
	return t;
}

void flk_table_free(struct flk_table *t)
{
	kvfree(t);
}

/* flk_ctx_start()'s first call on @ctx: fix its design (global if none). */
void flk_ctx_start_slow(struct flk_ctx *ctx)
{
	mutex_lock(&ctx->lock);
	if (!ctx->design)
		ctx->design = FUTEXLAB_DESIGN_GLOBAL;
	/* publish the design before the flag that says it is fixed */
	smp_store_release(&ctx->started, true);
	mutex_unlock(&ctx->lock);
}

bool flk_key_match(const struct flk_key *a, const struct flk_key *b)
{
	return a->ptr == b->ptr && a->word == b->word &&
	       a->offset == b->offset;
}

/*
 * May the caller signal @p? kill(2)'s rule (kill_ok_by_cred() in
 * kernel/signal.c): its own thread group, a task whose real or saved uid
 * is the caller's real or effective uid, or CAP_KILL over @p's user
 * namespace. Call under RCU.
 */
static bool flk_may_signal(struct task_struct *p)
{
	const struct cred *cred = current_cred();
	const struct cred *tcred = __task_cred(p);

	if (same_thread_group(p, current))
		return true;
	return uid_eq(cred->euid, tcred->suid) ||
	       uid_eq(cred->euid, tcred->uid) ||
	       uid_eq(cred->uid, tcred->suid) ||
	       uid_eq(cred->uid, tcred->uid) ||
	       ns_capable_noaudit(tcred->user_ns, CAP_KILL);
}

/**
 * flk_task_by_tid() - the task a lock word names, as the caller may see it
 * @tid:	the TID in the word, in the caller's PID namespace
 *
 * A task the caller could not signal is reported as absent: a word may be
 * written by anyone, and the lock operations that act on its owner (the
 * adaptive lock's spin and takeover, PI's attach and boost) would
 * otherwise tell any user whether another user's task, or a kernel
 * thread, exists and runs, past hidepid and kill(2)'s rules; such a word
 * behaves as one naming no task (PI: ESRCH; the adaptive lock: the owner
 * is dead, the lock taken over).
 *
 * Return: the task with a reference held, or NULL.
 */
struct task_struct *flk_task_by_tid(pid_t tid)
{
	struct task_struct *p;

	rcu_read_lock();
	p = pid_task(find_vpid(tid), PIDTYPE_PID);
	if (p && !flk_may_signal(p))
		p = NULL;
	if (p)
		get_task_struct(p);
	rcu_read_unlock();
	return p;
}

/*
 * Pin the page of @uaddr: for writing first, so that an untouched private
 * anonymous page is the real page and not the shared zero page.
 */
static int flk_pin_page(unsigned long uaddr, struct page **page)
{
	int ret;

	ret = get_user_pages_fast(uaddr, 1, FOLL_WRITE, page);
	if (ret != 1)
		ret = get_user_pages_fast(uaddr, 1, 0, page);
	return ret == 1 ? 0 : -EFAULT;
}

/*
 * Sequence numbers of inodes the stock futex has not numbered yet: counted
 * from 2^63, so they never meet the kernel's own (a static counter in
 * kernel/futex/core.c that counts from 1); whichever of the two numbers an
 * inode first, both read that number from then on.
 */
static atomic64_t flk_inode_seq = ATOMIC64_INIT(1ULL << 63);

/*
 * The inode's futex sequence number (inode->i_sequence, which
 * inode_init_always() clears, so a freed inode's memory reused by another
 * file starts unnumbered): an identity of the file that holds no
 * reference, as the stock get_inode_sequence_number() gives. Call under
 * RCU: @inode may be being freed, but its memory is not yet reused.
 */
static u64 flk_inode_sequence(struct inode *inode)
{
	u64 old = atomic64_read(&inode->i_sequence);
	u64 new;

	if (likely(old))
		return old;
	new = atomic64_inc_return(&flk_inode_seq);
	if (atomic64_try_cmpxchg_relaxed(&inode->i_sequence, &old, new))
		return new;
	return old;	/* numbered meanwhile: that number */
}

/*
 * The key of a shared futex on @page. A file page is keyed by its inode's
 * sequence number and the page's index in the file, so a waiter pins
 * neither the inode nor, through it, the filesystem (an unmount under a
 * sleeping waiter must not find a busy inode). The folio's mapping is read
 * under RCU (inodes are freed after a grace period), and the folio checked
 * to still belong to that mapping afterwards (it may have been truncated
 * meanwhile), as the stock get_futex_key() rechecks.
 */
static int flk_shared_key(unsigned long uaddr, struct page *page,
			  struct flk_key *key)
{
	struct folio *folio = page_folio(page);
	struct address_space *mapping;
	struct inode *inode = NULL;
	u64 seq = 0;

	key->offset = offset_in_page(uaddr) | FLK_KEY_SHARED;
	if (folio_test_anon(folio)) {
		key->ptr = (unsigned long)current->mm;
		key->word = uaddr;
		return 0;
	}
	rcu_read_lock();
	mapping = READ_ONCE(folio->mapping);
	if (mapping && !((unsigned long)mapping & FLK_MAPPING_FLAGS))
		inode = READ_ONCE(mapping->host);
	if (inode)
		seq = flk_inode_sequence(inode);
	if (READ_ONCE(folio->mapping) != mapping)
		seq = 0;
	rcu_read_unlock();
	if (!seq)
		return -EFAULT;
	key->ptr = seq;
	key->word = flk_page_pgoff(folio, page);
	key->offset |= FLK_KEY_INODE;
	return 0;
}

/*
 * The shared key of @addr into @t. Out of line: the page pointer whose
 * address it takes would otherwise give every flk_target_get(), private
 * ones too, a stack canary to check.
 */
static noinline int flk_shared_target_key(unsigned long addr,
					  struct flk_target *t)
{
	struct page *page;
	int ret;

	ret = flk_pin_page(addr, &page);
	if (ret)
		return ret;
	ret = flk_shared_key(addr, page, &t->key);
	put_page(page);
	return ret;
}

static struct flk_table *flk_node_table(int node)
{
	if (node < 0 || node >= nr_node_ids || !flk_numa[node])
		return NULL;
	return flk_numa[node];
}

/*
 * The node of a plain u32 futex: picked by its hash (scaled, not divided:
 * a division is tens of cycles on the failing wait's path), the next node
 * with a table if that one has none.
 */
static int flk_hash_node(u32 hash)
{
	int node = reciprocal_scale(hash, nr_node_ids);
	int i;

	for (i = 0; i < nr_node_ids; i++, node = (node + 1) % nr_node_ids)
		if (flk_node_table(node))
			return node;
	return first_online_node;
}

/*
 * The first use of a node word holding FUTEXLAB_NO_NODE: replace it with
 * the node of the word's page; a concurrent first use that wrote first
 * wins, and both use its node. Out of line, so that its locals (whose
 * addresses it passes) give no stack canary to flk_word_node()'s callers.
 * Return: the node word's value now, or -EFAULT.
 */
static noinline long flk_word_node_fill(unsigned long addr, u32 __user *naddr)
{
	struct page *page;
	u32 node, cur;
	int ret;

	ret = flk_pin_page(addr, &page);
	if (ret)
		return ret;
	node = page_to_nid(page);
	put_page(page);
	if (!flk_node_table(node))
		node = first_online_node;
	/* faults allowed: no lock held */
	if (futex_atomic_cmpxchg_inatomic(&cur, naddr, FUTEXLAB_NO_NODE, node))
		return -EFAULT;
	return cur != FUTEXLAB_NO_NODE ? cur : node;
}

/*
 * numa design without FUTEXLAB_F_NODE: the node word after the futex word,
 * filled in at first use (flk_word_node_fill()).
 * Return: the node, -EINVAL (not an online node with a table) or -EFAULT.
 */
static int flk_word_node(unsigned long addr)
{
	u32 __user *naddr = (u32 __user *)(addr + sizeof(u32));
	long filled;
	u32 node;

	if (get_user(node, naddr))
		return -EFAULT;
	if (unlikely(node == FUTEXLAB_NO_NODE)) {
		filled = flk_word_node_fill(addr, naddr);
		if (filled < 0)
			return filled;
		node = filled;
	}
	if (node >= nr_node_ids || !node_online(node) || !flk_node_table(node))
		return -EINVAL;
	return node;
}

/**
 * flk_target_get() - resolve a user address to its key, table and bucket
 * @ctx:	the file's context (its design decides the table)
 * @uaddr:	the user address of the futex word
 * @flags:	FUTEXLAB_F_SHARED, FUTEXLAB_F_NODE
 * @node:	with FUTEXLAB_F_NODE: the node
 * @t:		filled in, every field on success (callers need not zero
 *		it); it holds no reference, so nothing is dropped after
 *
 * May sleep (page faults): call with no lock held.
 * Return: 0, -EINVAL (misaligned address, bad node) or -EFAULT.
 */
int flk_target_get(struct flk_ctx *ctx, u64 uaddr, u32 flags, u32 node,
		   struct flk_target *t)
{
	unsigned long addr = (unsigned long)uaddr;
	bool shared = flags & FUTEXLAB_F_SHARED;
	bool numa = ctx->design == FUTEXLAB_DESIGN_NUMA;
	bool node_word = numa && !(flags & FUTEXLAB_F_NODE);
	struct flk_table *table = NULL;
	u32 hash;
	int ret;

	/*
	 * Ordered as the stock futex's private fast path: a private key
	 * outside the numa design takes no branch below but the tests of
	 * its flags, looks at no page and writes nothing but the key.
	 */
	if (unlikely(addr != uaddr || addr % sizeof(u32)))
		return -EINVAL;
	if (unlikely(!access_ok((void __user *)addr,
				node_word ? 2 * sizeof(u32) : sizeof(u32))))
		return -EFAULT;

	if (node_word) {
		ret = flk_word_node(addr);
		if (ret < 0)
			return ret;
		table = flk_numa[ret];
	} else if ((flags & FUTEXLAB_F_NODE) && node != FUTEXLAB_NO_NODE) {
		/* a node outside the numa design is EINVAL */
		if (!numa || node >= nr_node_ids || !node_online(node) ||
		    !flk_node_table(node))
			return -EINVAL;
		table = flk_numa[node];
	}

	if (unlikely(shared)) {
		ret = flk_shared_target_key(addr, t);
		if (ret)
			return ret;
	} else {
		t->key.ptr = (unsigned long)current->mm;
		t->key.word = addr;
		t->key.offset = 0;
	}
	t->key.pad = 0;			/* the hash covers the whole key */

	hash = jhash2((u32 *)&t->key, sizeof(t->key) / sizeof(u32),
		      flk_hash_seed);
	if (!table) {
		if (numa)	/* a plain u32 futex: its node by hash */
			table = flk_numa[flk_hash_node(hash)];
		else if (ctx->design == FUTEXLAB_DESIGN_PRIVATE && !shared)
			table = ctx->priv;
		else
			table = flk_global;
	}
	t->table = table;
	t->hb = &table->buckets[hash & table->mask];
	return 0;
}

/* Waker side of the barrier pair in waitwake.c: full barrier, then read. */
int flk_hb_waiters_pending(struct flk_bucket *hb)
{
	/* B: order the user's store to the word before reading waiters */
	smp_mb();
	return atomic_read(&hb->waiters);
}

/* The priority list: sorted by prio, FIFO among equal priorities. */
static void __flk_prio_insert(struct flk_bucket *hb, struct flk_q *q)
{
	struct flk_q *pos;

	list_for_each_entry_reverse(pos, &hb->chain, list) {
		if (pos->prio <= q->prio) {
			list_add(&q->list, &pos->list);
			return;
		}
	}
	list_add(&q->list, &hb->chain);
}

/* Set up the waiter @q of the futex @t, not queued yet. */
void flk_q_init(struct flk_q *q, struct flk_target *t, u32 bitset)
{
	memset(q, 0, sizeof(*q));
	INIT_LIST_HEAD(&q->list);
	q->task = current;
	q->prio = current->prio;
	q->key = t->key;
	q->bitset = bitset;
}

/* Queue @q on @hb; the caller counted it in @hb->waiters already. */
void __flk_queue(struct flk_bucket *hb, struct flk_table *t, struct flk_q *q)
{
	lockdep_assert_held(&hb->lock);
	q->hb = hb;
	q->table = t;
	__flk_prio_insert(hb, q);
	hb->len++;
	if (hb->len > hb->max_len)
		hb->max_len = hb->len;
	hb->waits++;
}

/* Remove @q from its bucket; @q->hb stays set (the waker clears it). */
void __flk_unqueue(struct flk_q *q)
{
	struct flk_bucket *hb = q->hb;

	lockdep_assert_held(&hb->lock);
	list_del_init(&q->list);
	hb->len--;
	atomic_dec(&hb->waiters);
}

static void flk_wake_issue(struct flk_wake_batch *wb)
{
	unsigned int i;

	for (i = 0; i < wb->nr; i++) {
		wake_up_process(wb->task[i]);
		put_task_struct(wb->task[i]);
	}
	wb->nr = 0;
}

/*
 * Dequeue @q for waking. After the release store of NULL the waiter may
 * return and its stack (and @q) be gone: take the task reference first.
 * A full batch is woken right away, under the lock: correct, if slower.
 */
void __flk_wake_q(struct flk_q *q, struct flk_wake_batch *wb)
{
	struct task_struct *p = q->task;

	get_task_struct(p);
	__flk_unqueue(q);
	q->hb->woken++;
	/* release: the dequeue is visible before the waiter may leave */
	smp_store_release(&q->hb, NULL);
	if (wb->nr == FLK_WAKE_BATCH)
		flk_wake_issue(wb);
	wb->task[wb->nr++] = p;
}

void flk_wake_flush(struct flk_wake_batch *wb)
{
	flk_wake_issue(wb);
}

/*
 * The waiter leaves the queue by itself (timeout, signal, error).
 * Return: true if it was still queued and is now removed, false if a waker
 * dequeued it first (the wake, or the PI lock hand-over, is ours).
 */
bool flk_unqueue_self(struct flk_q *q)
{
	struct flk_bucket *hb;

	for (;;) {
		/* acquire: pairs with the waker's release of NULL */
		hb = smp_load_acquire(&q->hb);
		if (!hb)
			return false;
		spin_lock(&hb->lock);
		/* a requeue may have moved us, a waker may have taken us */
		if (likely(hb == q->hb))
			break;
		spin_unlock(&hb->lock);
	}
	__flk_unqueue(q);
	if (q->pi)
		__flk_pi_waiter_left(q->pi);	/* in the same critical section */
	spin_unlock(&hb->lock);
	return true;
}

/**
 * flk_lock_word() - flk_lock_waiting(), then read the word of @t
 * @t:		the futex whose word is read
 * @dest:	as for flk_lock_waiting()
 * @uaddr:	the word of @t
 * @uval:	the value read
 *
 * Return: 0 with the bucket locks held; else flk_unlock_waiting() was done
 * and the word faulted: FLK_RETRY if it was faulted in (resolve the targets
 * again and retry), -EFAULT if it cannot be read.
 */
int flk_lock_word(struct flk_target *t, struct flk_target *dest,
		 u32 __user *uaddr, u32 *uval)
{
	flk_lock_waiting(t, dest);
	if (!flk_get_value_locked(uval, uaddr))
		return 0;
	flk_unlock_waiting(t, dest);
	return get_user(*uval, uaddr) ? -EFAULT : FLK_RETRY;
}

/**
 * flk_queue_wait() - queue @q on @t if the word still holds @val
 * @t:		the futex
 * @q:		the waiter, from flk_q_init()
 * @uaddr:	the word
 * @val:	the value the caller saw
 *
 * Return: 0 once @q is queued (the bucket unlocked); else nothing is held:
 * -EAGAIN (the word changed, counted), -EFAULT or FLK_RETRY (flk_lock_word()).
 */
int flk_queue_wait(struct flk_target *t, struct flk_q *q, u32 __user *uaddr,
		  u32 val)
{
	u32 uval;
	int ret;

	ret = flk_lock_word(t, t, uaddr, &uval);
	if (ret)
		return ret;
	if (uval != val) {
		t->hb->eagain++;
		flk_unlock_waiting(t, t);
		return -EAGAIN;
	}
	__flk_queue(t->hb, t->table, q);
	spin_unlock(&t->hb->lock);
	return 0;
}

int flk_cmpxchg_value_locked(u32 *cur, u32 __user *uaddr, u32 old, u32 new)
{
	int ret;

	pagefault_disable();
	ret = futex_atomic_cmpxchg_inatomic(cur, uaddr, old, new);
	pagefault_enable();
	return ret;
}

/**
 * flk_sleep() - sleep until a waker dequeues @q, the deadline, or a signal
 * @q:		the queued waiter
 * @deadline:	absolute CLOCK_MONOTONIC, or NULL
 * @timed_out:	set when the deadline passed
 *
 * The state is set before @q->hb is tested: a waker clears @q->hb before
 * wake_up_process(), so either we see NULL or the wakeup finds us
 * sleeping. Spurious wakeups go back to sleep.
 *
 * Return: 0 if a waker dequeued us, else 1 (the caller unqueues itself).
 */
int flk_sleep(struct flk_q *q, ktime_t *deadline, bool *timed_out)
{
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		/* acquire: pairs with the waker's release of NULL */
		if (!smp_load_acquire(&q->hb))
			break;
		if (*timed_out || signal_pending(current))
			break;
		if (deadline) {
			if (!schedule_hrtimeout_range(deadline,
						      current->timer_slack_ns,
						      HRTIMER_MODE_ABS))
				*timed_out = true;
		} else {
			schedule();
		}
	}
	__set_current_state(TASK_RUNNING);
	/* acquire: pairs with the waker's release of NULL */
	return smp_load_acquire(&q->hb) ? 1 : 0;
}

/**
 * flk_wait_queued() - sleep as the queued waiter @q, then leave the queue
 * @q:		the queued waiter
 * @deadline:	absolute CLOCK_MONOTONIC, or NULL
 *
 * Counts a timeout or a signal in @q's table.
 *
 * Return: 0 if a waker dequeued @q, -ETIMEDOUT, or -ERESTARTSYS (a signal:
 * the caller may turn it into its own restart rule).
 */
int flk_wait_queued(struct flk_q *q, ktime_t *deadline)
{
	bool timed_out = false;
	int ret = 0;

	if (flk_sleep(q, deadline, &timed_out))
		ret = flk_wait_left(q, timed_out);
	return ret;
}

/*
 * A sleep of @q ended by its deadline (@timed_out) or a signal: leave the
 * queue, unless a waker dequeued @q first (then the wake, or the PI lock
 * handed over, is ours), and count why in @q's table.
 *
 * Return: 0 if a waker came first, -ETIMEDOUT, or -ERESTARTSYS.
 */
int flk_wait_left(struct flk_q *q, bool timed_out)
{
	if (!flk_unqueue_self(q))
		return 0;
	if (timed_out) {
		atomic64_inc(&q->table->timeouts);
		return -ETIMEDOUT;
	}
	atomic64_inc(&q->table->signals);
	return -ERESTARTSYS;
}

/**
 * flk_retry_check() - between two passes of a retry loop
 * @deadline:	the operation's absolute deadline, or NULL
 *
 * A user can make any retry loop go round again and again (a word that
 * keeps changing or faulting, an owner that keeps running): every loop
 * calls this, so it yields the CPU and ends at a signal or the deadline.
 *
 * Return: 0 to go round again, -ERESTARTSYS (a signal) or -ETIMEDOUT.
 */
int flk_retry_check(ktime_t *deadline)
{
	if (signal_pending(current))
		return -ERESTARTSYS;
	if (deadline && ktime_compare(ktime_get(), *deadline) >= 0)
		return -ETIMEDOUT;
	cond_resched();
	return 0;
}
