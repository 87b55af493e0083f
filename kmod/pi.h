/* SPDX-License-Identifier: GPL-2.0 */
/*
 * futexlab PI internals shared by pi.c (lock, unlock), pi_boost.c (the
 * owner's boost) and pi_chain.c (who is blocked on what, who is boosted,
 * the chain walk).
 */
#ifndef _FUTEXLAB_PI_H
#define _FUTEXLAB_PI_H

#include <linux/cred.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "futexlab_internal.h"

/**
 * struct flk_pi_path - whose rights a boost carries
 * @has_uid:	some waiter on the path lacks CAP_SYS_NICE: the boosted
 *		task must have @euid (as its euid or uid), and no more than
 *		its RLIMIT_RTPRIO applies
 * @conflict:	two such waiters with different euids: nobody may be
 *		boosted through this path
 * @euid:	with @has_uid: that euid
 *
 * A boost that crossed several locks may only reach a task that every
 * waiter on its way could have boosted itself with sched_setattr(): the
 * path keeps the intersection of their rights, which fits in these fields.
 */
struct flk_pi_path {
	bool has_uid;
	bool conflict;
	kuid_t euid;
};

/**
 * struct flk_sched_own - a task's scheduling attributes, as sched_setattr()
 * takes them
 * @policy:	SCHED_*
 * @rt_priority: its real-time priority (0 unless SCHED_FIFO/RR)
 * @nice:	its nice value
 * @reset_on_fork: its SCHED_FLAG_RESET_ON_FORK
 */
struct flk_sched_own {
	u32 policy;
	u32 rt_priority;
	int nice;
	bool reset_on_fork;
};

/**
 * struct flk_pi_state - the kernel side of one contended PI lock
 * @list:	in @hb->pi_states; @hb->lock
 * @key:	the lock's futex key (constant)
 * @hb:		its bucket (constant: PI waiters are never requeued)
 * @table:	the table of @hb (constant)
 * @refs:	queued waiters plus transient users; @hb->lock; 0 once freed
 *		(the memory lasts an RCU grace period longer, see pi_chain.c)
 * @nr_waiters:	queued waiters; @hb->lock
 * @owner:	the task the word names, a reference held; @hb->lock
 * @boost_lock:	serializes boosting and restoring (they sleep)
 * @boosted:	the task we boosted, a reference held; @boost_lock
 * @boost_prio:	the SCHED_FIFO priority applied; @boost_lock, and
 *		flk_chain_lock while @boost_node is hashed
 * @boost_path:	the rights @boost_prio came with; as @boost_prio
 * @boost_node:	in the boosted-task index while @boosted is set
 * @own:	@boosted's own scheduling, what it goes back to when no boost
 *		remains: the same in every state that boosts that task
 *		(pi_boost.c); written under the task's boost mutex and
 *		flk_chain_lock, read under either
 * @applied:	the SCHED_FIFO priority the module last set on @boosted, 0
 *		while it runs on @own; as @own
 * @rcu:	frees it after the chain walkers that may still look at it
 */
struct flk_pi_state {
	struct list_head list;
	struct flk_key key;
	struct flk_bucket *hb;
	struct flk_table *table;
	unsigned int refs;
	unsigned int nr_waiters;
	struct task_struct *owner;
	struct mutex boost_lock;
	struct task_struct *boosted;
	unsigned int boost_prio;
	struct flk_pi_path boost_path;
	struct hlist_node boost_node;
	struct flk_sched_own own;
	u32 applied;
	struct rcu_head rcu;
};

/**
 * struct flk_pi_blocked - "@task is blocked on @pi": on the stack of a
 * LOCK_PI waiter, hashed by task while it is queued
 * @node:	in the blocked-task index; flk_chain_lock
 * @task:	the waiter (compared, never dereferenced by others)
 * @pi:		the lock it waits for; its waiter reference keeps it alive
 *		while this record is hashed
 */
struct flk_pi_blocked {
	struct hlist_node node;
	struct task_struct *task;
	struct flk_pi_state *pi;
};

/* pi_chain.c */
void flk_pi_block(struct flk_pi_blocked *b, struct flk_pi_state *pi);
void flk_pi_unblock(struct flk_pi_blocked *b);
void flk_pi_boost_publish(struct flk_pi_state *pi, unsigned int prio,
			  const struct flk_pi_path *path);
void flk_pi_boost_unpublish(struct flk_pi_state *pi);
unsigned int flk_pi_boost_scan(struct task_struct *p,
			       const struct flk_pi_state *skip,
			       struct flk_sched_own *own, u32 *applied,
			       unsigned int *top);
void flk_pi_boost_store(struct task_struct *p, const struct flk_sched_own *own,
			u32 applied);
unsigned int __flk_pi_chain_value(struct flk_q *q, struct task_struct *owner,
				  struct flk_pi_path *path);
int flk_pi_chain_walk(struct flk_pi_state *start, struct task_struct *origin);

/* pi_boost.c */
unsigned int flk_rt_prio(struct task_struct *p);
struct flk_q *__flk_pi_top(struct flk_bucket *hb, struct flk_key *key);
void flk_pi_restore(struct flk_pi_state *pi);
bool flk_pi_adjust_one(struct flk_pi_state *pi, struct task_struct **ownerp);

#endif /* _FUTEXLAB_PI_H */
