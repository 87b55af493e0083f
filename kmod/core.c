// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab core: where a futex lives. The tables, and the resolution of a
 * user address to its key, table and bucket (flk_target_get()). A
 * bucket's queue is in queue.c, and a waiter sleeps in sleep.c.
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
 */
#include <linux/fs.h>
#include <linux/jhash.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
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
