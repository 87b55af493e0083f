// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab: a futex implementation as a misc device, /dev/futexlab, whose
 * hash design (global, private, numa) is chosen per open file description.
 * See docs/kmod.md for building, loading and the statistics, and
 * uapi/futexlab.h for the interface.
 *
 * The fops carry .owner = THIS_MODULE, so the module cannot be unloaded
 * while a file is open; a sleeping waiter holds the file (the ioctl is in
 * progress), so no waiter outlives the module, and no restart block points
 * into it (a signal returns -ERESTARTSYS and the ioctl is re-issued, or
 * -ECANCELED with FUTEXLAB_F_INTERRUPTIBLE).
 */
#include <linux/fs.h>
#include <linux/log2.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/stringify.h>

#include "futexlab_internal.h"

static unsigned int global_slots;
module_param(global_slots, uint, 0444);
MODULE_PARM_DESC(global_slots,
		 "buckets of the global table, a power of two (0: 256 per possible CPU)");

static unsigned int numa_slots;
module_param(numa_slots, uint, 0444);
MODULE_PARM_DESC(numa_slots,
		 "buckets of each node's table, a power of two (0: 256 per CPU of the node)");

unsigned int flk_private_default_slots = 256;
module_param_named(private_slots, flk_private_default_slots, uint, 0444);
MODULE_PARM_DESC(private_slots,
		 "default buckets of a private table, a power of two");

unsigned int flk_adaptive_spin_us;
module_param_named(adaptive_spin_us, flk_adaptive_spin_us, uint, 0644);
MODULE_PARM_DESC(adaptive_spin_us,
		 "lock_pi spins up to this long while the owner runs, before queueing (0: off)");

static unsigned int flk_private_mib_per_user = 64;
module_param_named(private_mib_per_user, flk_private_mib_per_user, uint, 0644);
MODULE_PARM_DESC(private_mib_per_user,
		 "MiB of private tables one user may hold open in all");

struct flk_table *flk_global;
struct flk_table **flk_numa;

/*
 * The memory of private tables, charged per user: a user can open the
 * device many times, so the cap per file (FUTEXLAB_MAX_PRIVATE_SLOTS) alone
 * does not bound what one user pins. One entry per user holding tables.
 */
struct flk_user {
	struct list_head list;
	kuid_t uid;
	size_t bytes;
};

static LIST_HEAD(flk_users);
static DEFINE_MUTEX(flk_users_lock);

static struct flk_user *flk_user_find(kuid_t uid)
{
	struct flk_user *u;

	list_for_each_entry(u, &flk_users, list)
		if (uid_eq(u->uid, uid))
			return u;
	return NULL;
}

/* Charge @bytes of private tables to @uid: 0, or -ENOMEM beyond the cap. */
int flk_charge(kuid_t uid, size_t bytes)
{
	size_t cap = (size_t)READ_ONCE(flk_private_mib_per_user) << 20;
	struct flk_user *u;
	int ret = 0;

	mutex_lock(&flk_users_lock);
	u = flk_user_find(uid);
	if ((u ? u->bytes : 0) + bytes > cap) {
		ret = -ENOMEM;
		goto out;
	}
	if (!u) {
		u = kzalloc(sizeof(*u), GFP_KERNEL_ACCOUNT);
		if (!u) {
			ret = -ENOMEM;
			goto out;
		}
		u->uid = uid;
		list_add(&u->list, &flk_users);
	}
	u->bytes += bytes;
out:
	mutex_unlock(&flk_users_lock);
	return ret;
}

void flk_uncharge(kuid_t uid, size_t bytes)
{
	struct flk_user *u;

	if (!bytes)
		return;
	mutex_lock(&flk_users_lock);
	u = flk_user_find(uid);
	if (u) {
		u->bytes -= min(u->bytes, bytes);
		if (!u->bytes) {
			list_del(&u->list);
			kfree(u);
		}
	}
	mutex_unlock(&flk_users_lock);
}

static int flk_open(struct inode *inode, struct file *file)
{
	struct flk_ctx *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return -ENOMEM;
	mutex_init(&ctx->lock);
	file->private_data = ctx;
	return nonseekable_open(inode, file);
}

/* The last reference to the description is gone: no waiter can be queued. */
static int flk_release(struct inode *inode, struct file *file)
{
	struct flk_ctx *ctx = file->private_data;

	if (ctx->priv)
		flk_table_free(ctx->priv);
	flk_uncharge(ctx->uid, ctx->charged);
	mutex_destroy(&ctx->lock);
	kfree(ctx);
	return 0;
}

static const struct file_operations flk_fops = {
	.owner = THIS_MODULE,
	.open = flk_open,
	.release = flk_release,
	.unlocked_ioctl = flk_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice flk_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "futexlab",
	.fops = &flk_fops,
	.mode = 0666,
};

static u32 flk_slots(unsigned int param, unsigned int cpus)
{
	if (param)
		return param;
	return roundup_pow_of_two(256 * max(cpus, 1U));
}

static void flk_tables_free(void)
{
	int node;

	if (flk_numa) {
		for (node = 0; node < nr_node_ids; node++)
			if (flk_numa[node])
				flk_table_free(flk_numa[node]);
		kfree(flk_numa);
		flk_numa = NULL;
	}
	if (flk_global)
		flk_table_free(flk_global);
	flk_global = NULL;
}

static int flk_tables_alloc(void)
{
	int node;

	flk_global = flk_table_alloc(flk_slots(global_slots,
					    num_possible_cpus()),
				   NUMA_NO_NODE);
	if (!flk_global)
		return -ENOMEM;
	flk_numa = kcalloc(nr_node_ids, sizeof(*flk_numa), GFP_KERNEL);
	if (!flk_numa)
		return -ENOMEM;
	for_each_online_node(node) {
		u32 cpus = cpumask_weight(cpumask_of_node(node));

		flk_numa[node] = flk_table_alloc(flk_slots(numa_slots, cpus),
					       node);
		if (!flk_numa[node])
			return -ENOMEM;
	}
	return 0;
}

static int __init flk_init(void)
{
	int ret;

	if ((global_slots && !is_power_of_2(global_slots)) ||
	    (numa_slots && !is_power_of_2(numa_slots)) ||
	    !is_power_of_2(flk_private_default_slots) ||
	    global_slots > FLK_MAX_SLOTS || numa_slots > FLK_MAX_SLOTS ||
	    flk_private_default_slots > FUTEXLAB_MAX_PRIVATE_SLOTS)
		return -EINVAL;

	flk_pi_boost_init();
	ret = flk_tables_alloc();
	if (ret)
		goto out_free;
	ret = misc_register(&flk_misc);
	if (ret)
		goto out_free;
	flk_debugfs_init();
	return 0;

out_free:
	flk_tables_free();
	return ret;
}

static void __exit flk_exit(void)
{
	flk_debugfs_exit();
	misc_deregister(&flk_misc);
	flk_tables_free();
}

module_init(flk_init);
module_exit(flk_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("futexlab");
MODULE_DESCRIPTION("futex designs for measurement: global, private and per-node hash, PI");
MODULE_VERSION(__stringify(FUTEXLAB_VERSION));
