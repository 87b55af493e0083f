// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab: the task a lock word's TID names, as the caller may see it:
 * what the PI and adaptive locks act on as a lock's owner.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>

#include "futexlab_internal.h"

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
