// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab ioctl decoding: copy the argument in, hand it to the operation,
 * copy results out. Validation of flags and values lives with each
 * operation; this file only knows the ABI, and turns a signal's restart
 * code into ECANCELED for the operations that sleep, when their flags ask
 * for it (flk_cancelled(); the wait does that in its own slow path, off
 * the failing wait's).
 */
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#include "futexlab_internal.h"

static int flk_ioc_set_design(struct flk_ctx *ctx, void __user *argp)
{
	struct futexlab_design d;
	struct flk_table *t = NULL, *old;
	kuid_t uid = current_uid();
	size_t bytes = 0, old_bytes;
	kuid_t old_uid;
	u32 slots;

	if (copy_from_user(&d, argp, sizeof(d)))
		return -EFAULT;
	if (d.flags || d.pad || d.nodes || d.version)
		return -EINVAL;
	switch (d.design) {
	case FUTEXLAB_DESIGN_GLOBAL:
	case FUTEXLAB_DESIGN_NUMA:
		if (d.slots)
			return -EINVAL;	/* module parameters size these */
		break;
	case FUTEXLAB_DESIGN_PRIVATE:
		slots = d.slots ? d.slots : flk_private_default_slots;
		if (!is_power_of_2(slots) || slots > FUTEXLAB_MAX_PRIVATE_SLOTS)
			return -EINVAL;
		bytes = flk_table_bytes(slots);
		if (flk_charge(uid, bytes))
			return -ENOMEM;
		t = flk_table_alloc(slots, NUMA_NO_NODE);
		if (!t) {
			flk_uncharge(uid, bytes);
			return -ENOMEM;
		}
		break;
	default:
		return -EINVAL;
	}

	mutex_lock(&ctx->lock);
	if (ctx->started) {
		mutex_unlock(&ctx->lock);
		if (t)
			flk_table_free(t);
		flk_uncharge(uid, bytes);
		return -EBUSY;
	}
	old = ctx->priv;
	old_uid = ctx->uid;
	old_bytes = ctx->charged;
	ctx->priv = t;
	ctx->uid = uid;
	ctx->charged = bytes;
	ctx->design = d.design;
	mutex_unlock(&ctx->lock);
	if (old)
		flk_table_free(old);
	flk_uncharge(old_uid, old_bytes);
	return 0;
}

static int flk_ioc_get_design(struct flk_ctx *ctx, void __user *argp)
{
	struct futexlab_design d;
	int node;

	if (copy_from_user(&d, argp, sizeof(d)))
		return -EFAULT;
	if (d.flags || d.pad)
		return -EINVAL;
	memset(&d, 0, sizeof(d));
	mutex_lock(&ctx->lock);
	d.design = ctx->design ? ctx->design : FUTEXLAB_DESIGN_GLOBAL;
	switch (d.design) {
	case FUTEXLAB_DESIGN_PRIVATE:
		d.slots = ctx->priv->mask + 1;
		d.nodes = 1;
		break;
	case FUTEXLAB_DESIGN_NUMA:
		for_each_online_node(node) {
			if (!flk_numa[node])
				continue;
			d.slots = flk_numa[node]->mask + 1;
			d.nodes++;
		}
		break;
	default:
		d.slots = flk_global->mask + 1;
		d.nodes = 1;
		break;
	}
	mutex_unlock(&ctx->lock);
	d.version = FUTEXLAB_VERSION;
	return copy_to_user(argp, &d, sizeof(d)) ? -EFAULT : 0;
}

static int flk_ioc_set_design_out(struct flk_ctx *ctx, void __user *argp)
{
	int ret = flk_ioc_set_design(ctx, argp);

	return ret ? ret : flk_ioc_get_design(ctx, argp);
}

/*
 * The wait is the hot path (every failing wait comes through here): its
 * argument is read field by field in one user-access section, inline,
 * rather than by copy_from_user(), whose call and copy loop cost about
 * 30 more instructions (docs/kmod.md, the failing wait's cost). Every
 * field is read, so a fault anywhere in the struct is -EFAULT, as with
 * copy_from_user().
 */
static int flk_ioc_wait(struct flk_ctx *ctx, void __user *argp)
{
	struct futexlab_wait __user *u = argp;
	struct futexlab_wait a __uninitialized;	/* every field read below */

	if (!user_access_begin(u, sizeof(*u)))
		return -EFAULT;
	unsafe_get_user(a.uaddr, &u->uaddr, efault);
	unsafe_get_user(a.deadline_ns, &u->deadline_ns, efault);
	unsafe_get_user(a.val, &u->val, efault);
	unsafe_get_user(a.bitset, &u->bitset, efault);
	unsafe_get_user(a.flags, &u->flags, efault);
	unsafe_get_user(a.node, &u->node, efault);
	user_access_end();
	flk_ctx_start(ctx);
	return flk_wait(ctx, &a);

efault:
	user_access_end();
	return -EFAULT;
}

static int flk_ioc_wake(struct flk_ctx *ctx, void __user *argp)
{
	struct futexlab_wake a;

	if (copy_from_user(&a, argp, sizeof(a)))
		return -EFAULT;
	flk_ctx_start(ctx);
	return flk_wake(ctx, &a);
}

static int flk_ioc_cmp_requeue(struct flk_ctx *ctx, void __user *argp)
{
	struct futexlab_requeue a;

	if (copy_from_user(&a, argp, sizeof(a)))
		return -EFAULT;
	flk_ctx_start(ctx);
	return flk_cmp_requeue(ctx, &a);
}

static int flk_ioc_wait_requeue_pi(struct flk_ctx *ctx, void __user *argp)
{
	struct futexlab_wait_requeue_pi a;

	if (copy_from_user(&a, argp, sizeof(a)))
		return -EFAULT;
	flk_ctx_start(ctx);
	return flk_cancelled(a.flags, flk_wait_requeue_pi(ctx, &a));
}

static int flk_ioc_cmp_requeue_pi(struct flk_ctx *ctx, void __user *argp)
{
	struct futexlab_requeue a;

	if (copy_from_user(&a, argp, sizeof(a)))
		return -EFAULT;
	flk_ctx_start(ctx);
	return flk_cmp_requeue_pi(ctx, &a);
}

static int flk_ioc_pi(struct flk_ctx *ctx, void __user *argp, unsigned int cmd)
{
	struct futexlab_pi a;

	if (copy_from_user(&a, argp, sizeof(a)))
		return -EFAULT;
	flk_ctx_start(ctx);
	if (cmd == FUTEXLAB_IOC_UNLOCK_PI)
		return flk_unlock_pi(ctx, &a);
	return flk_cancelled(a.flags, flk_lock_pi(ctx, &a,
						 cmd == FUTEXLAB_IOC_TRYLOCK_PI));
}

static int flk_ioc_waitv(struct flk_ctx *ctx, void __user *argp)
{
	struct futexlab_waitv_args a;

	if (copy_from_user(&a, argp, sizeof(a)))
		return -EFAULT;
	flk_ctx_start(ctx);
	return flk_cancelled(a.flags, flk_waitv(ctx, &a));
}

static int flk_ioc_adaptive(struct flk_ctx *ctx, void __user *argp,
			    unsigned int cmd)
{
	struct futexlab_adaptive a;

	if (copy_from_user(&a, argp, sizeof(a)))
		return -EFAULT;
	flk_ctx_start(ctx);
	if (cmd == FUTEXLAB_IOC_UNLOCK_ADAPTIVE)
		return flk_unlock_adaptive(ctx, &a);
	return flk_cancelled(a.flags, flk_lock_adaptive(ctx, &a));
}

static int flk_ioc_stats(struct flk_ctx *ctx, void __user *argp)
{
	struct futexlab_stats s;
	int ret;

	if (copy_from_user(&s, argp, sizeof(s)))
		return -EFAULT;
	ret = flk_stats(ctx, &s);
	if (ret)
		return ret;
	return copy_to_user(argp, &s, sizeof(s)) ? -EFAULT : 0;
}

long flk_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct flk_ctx *ctx = file->private_data;
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case FUTEXLAB_IOC_SET_DESIGN:
		return flk_ioc_set_design_out(ctx, argp);
	case FUTEXLAB_IOC_GET_DESIGN:
		return flk_ioc_get_design(ctx, argp);
	case FUTEXLAB_IOC_WAIT:
		return flk_ioc_wait(ctx, argp);
	case FUTEXLAB_IOC_WAKE:
		return flk_ioc_wake(ctx, argp);
	case FUTEXLAB_IOC_CMP_REQUEUE:
		return flk_ioc_cmp_requeue(ctx, argp);
	case FUTEXLAB_IOC_LOCK_PI:
	case FUTEXLAB_IOC_TRYLOCK_PI:
	case FUTEXLAB_IOC_UNLOCK_PI:
		return flk_ioc_pi(ctx, argp, cmd);
	case FUTEXLAB_IOC_STATS:
		return flk_ioc_stats(ctx, argp);
	case FUTEXLAB_IOC_WAIT_REQUEUE_PI:
		return flk_ioc_wait_requeue_pi(ctx, argp);
	case FUTEXLAB_IOC_CMP_REQUEUE_PI:
		return flk_ioc_cmp_requeue_pi(ctx, argp);
	case FUTEXLAB_IOC_WAITV:
		return flk_ioc_waitv(ctx, argp);
	case FUTEXLAB_IOC_LOCK_ADAPTIVE:
	case FUTEXLAB_IOC_UNLOCK_ADAPTIVE:
		return flk_ioc_adaptive(ctx, argp, cmd);
	default:
		return -ENOTTY;
	}
}
