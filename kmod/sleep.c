// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab: a queued waiter's sleep until a wake, its deadline or a
 * signal, and its leaving the queue when no waker came; the bound every
 * retry loop goes round under.
 */
#include <linux/hrtimer.h>
#include <linux/sched/signal.h>

#include "futexlab_internal.h"

/**
 * flk_sleep_once() - one turn of a waiter's sleep, its state already set
 * @deadline:	absolute CLOCK_MONOTONIC, or NULL
 * @timed_out:	set when the deadline passed
 *
 * flk_sleep() and the waitv sleep share it: each tests its own queue
 * entries after set_current_state(), then comes here.
 *
 * Return: false when the sleep must end (timed out, or a signal), true
 * after a schedule() from which the caller tests its entries again.
 */
bool flk_sleep_once(ktime_t *deadline, bool *timed_out)
{
	if (*timed_out || signal_pending(current))
		return false;
	if (deadline) {
		if (!schedule_hrtimeout_range(deadline,
					      current->timer_slack_ns,
					      HRTIMER_MODE_ABS))
			*timed_out = true;
	} else {
		schedule();
	}
	return true;
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
		if (!flk_sleep_once(deadline, timed_out))
			break;
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
