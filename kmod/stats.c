// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab statistics: FUTEXLAB_IOC_STATS for the design of a file, and
 * /sys/kernel/debug/futexlab/stats for the module-wide tables (global and
 * one per node). Per-bucket counters are updated under the bucket lock, so
 * they cost the measured path nothing but a cache line it owns anyway;
 * reading them takes each bucket lock in turn, so a snapshot is consistent
 * per bucket, not across the table.
 */
#include <linux/debugfs.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "futexlab_internal.h"

static struct dentry *flk_debugfs_dir;

/* Add the counters of @t to @s; waits per bucket go to @counts[@off..]. */
static void flk_table_sum(struct flk_table *t, struct futexlab_stats *s,
			 u64 *counts, u32 off, u32 nr_counts)
{
	u32 i;

	for (i = 0; i <= t->mask; i++) {
		struct flk_bucket *hb = &t->buckets[i];

		spin_lock(&hb->lock);
		s->waits += hb->waits;
		s->eagain += hb->eagain;
		s->woken += hb->woken;
		s->requeued += hb->requeued;
		s->wakes += hb->wakes;
		s->contended += hb->contended;
		s->live_waiters += hb->len;
		if (hb->max_len > s->longest_chain)
			s->longest_chain = hb->max_len;
		if (hb->waits)
			s->buckets_used++;
		if (counts && off + i < nr_counts)
			counts[off + i] = hb->waits;
		spin_unlock(&hb->lock);
	}
	s->timeouts += atomic64_read(&t->timeouts);
	s->signals += atomic64_read(&t->signals);
	s->pi_locks += atomic64_read(&t->pi_locks);
	s->pi_boosts += atomic64_read(&t->pi_boosts);
	s->adaptive_locks += atomic64_read(&t->adaptive.locks);
	s->adaptive_spins += atomic64_read(&t->adaptive.spins);
	s->adaptive_spin_off_cpu += atomic64_read(&t->adaptive.spin_off_cpu);
	s->adaptive_spin_bound += atomic64_read(&t->adaptive.spin_bound);
	s->adaptive_sleeps += atomic64_read(&t->adaptive.sleeps);
	s->adaptive_owner_died += atomic64_read(&t->adaptive.owner_died);
	s->buckets += t->mask + 1;
}

/* The buckets of @design's tables: what a STATS counts array can hold. */
static u32 flk_design_buckets(struct flk_ctx *ctx, u32 design)
{
	u32 n = 0;
	int node;

	switch (design) {
	case FUTEXLAB_DESIGN_PRIVATE:
		return ctx->priv->mask + 1;
	case FUTEXLAB_DESIGN_NUMA:
		for_each_online_node(node)
			if (flk_numa[node])
				n += flk_numa[node]->mask + 1;
		return n;
	default:
		return flk_global->mask + 1;
	}
}

int flk_stats(struct flk_ctx *ctx, struct futexlab_stats *s)
{
	u64 __user *ucounts = u64_to_user_ptr(s->counts_ptr);
	u32 nr_counts = s->nr_counts;
	u64 *counts = NULL;
	u32 design;
	int node, ret = 0;

	if (s->flags)
		return -EINVAL;
	if (nr_counts && !s->counts_ptr)
		return -EFAULT;

	mutex_lock(&ctx->lock);
	design = ctx->design ? ctx->design : FUTEXLAB_DESIGN_GLOBAL;
	/*
	 * Never more than the design has buckets: the caller's count is
	 * only the size of its array, and an allocation it could size
	 * freely would be a user-triggered gigabyte (and a WARN).
	 */
	nr_counts = min(nr_counts, flk_design_buckets(ctx, design));
	if (nr_counts) {
		counts = kvcalloc(nr_counts, sizeof(u64), GFP_KERNEL_ACCOUNT);
		if (!counts) {
			mutex_unlock(&ctx->lock);
			return -ENOMEM;
		}
	}
	memset(s, 0, sizeof(*s));
	s->design = design;
	switch (design) {
	case FUTEXLAB_DESIGN_PRIVATE:
		flk_table_sum(ctx->priv, s, counts, 0, nr_counts);
		break;
	case FUTEXLAB_DESIGN_NUMA:
		for_each_online_node(node)
			if (flk_numa[node])
				flk_table_sum(flk_numa[node], s, counts,
					      s->buckets, nr_counts);
		break;
	default:
		flk_table_sum(flk_global, s, counts, 0, nr_counts);
		break;
	}
	mutex_unlock(&ctx->lock);

	s->nr_counts = nr_counts;
	s->counts_ptr = (u64)(unsigned long)ucounts;
	if (counts && copy_to_user(ucounts, counts,
				   s->nr_counts * sizeof(u64)))
		ret = -EFAULT;
	kvfree(counts);
	return ret;
}

static void flk_seq_table(struct seq_file *m, const char *name, int node,
			 struct flk_table *t)
{
	struct futexlab_stats s = { 0 };

	flk_table_sum(t, &s, NULL, 0, 0);
	seq_printf(m, "%s node=%d buckets=%u waits=%llu eagain=%llu timeouts=%llu signals=%llu wakes=%llu woken=%llu requeued=%llu pi_locks=%llu pi_boosts=%llu pi_spins=%lld contended=%llu longest_chain=%llu live_waiters=%llu buckets_used=%llu",
		   name, node, s.buckets, s.waits, s.eagain, s.timeouts,
		   s.signals, s.wakes, s.woken, s.requeued, s.pi_locks,
		   s.pi_boosts, atomic64_read(&t->spins), s.contended,
		   s.longest_chain, s.live_waiters, s.buckets_used);
	seq_printf(m, " adaptive_locks=%llu adaptive_spins=%llu adaptive_spin_off_cpu=%llu adaptive_spin_bound=%llu adaptive_sleeps=%llu adaptive_owner_died=%llu\n",
		   s.adaptive_locks, s.adaptive_spins, s.adaptive_spin_off_cpu,
		   s.adaptive_spin_bound, s.adaptive_sleeps,
		   s.adaptive_owner_died);
}

static int flk_stats_show(struct seq_file *m, void *v)
{
	int node;

	flk_seq_table(m, "global", NUMA_NO_NODE, flk_global);
	for_each_online_node(node)
		if (flk_numa[node])
			flk_seq_table(m, "numa", node, flk_numa[node]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(flk_stats);

void flk_debugfs_init(void)
{
	flk_debugfs_dir = debugfs_create_dir("futexlab", NULL);
	debugfs_create_file("stats", 0444, flk_debugfs_dir, NULL,
			    &flk_stats_fops);
}

void flk_debugfs_exit(void)
{
	debugfs_remove_recursive(flk_debugfs_dir);
}
