// SPDX-License-Identifier: GPL-2.0
/*
 * A dynamically linked program that ends one thread with pthread_exit()
 * and cancels another blocked in a cancellation point, run in the guest
 * (tests/guest/run-all.sh). Both unwind the thread's stack, for which
 * glibc loads libgcc_s.so.1 with dlopen() at that moment: ldd does not
 * list it, so a guest whose initramfs lacks it aborts the program
 * ("libgcc_s.so.1 must be installed for pthread_exit to work", status
 * 134). vm/run puts it there; this is the program that says it did.
 * Prints one PASS or FAIL line and exits 0 only on PASS.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int cleaned_up;

static void note_cleanup(void *arg)
{
	(void)arg;
	cleaned_up++;
}

/* ends by pthread_exit() from inside a cleanup handler's scope */
static void *exits(void *arg)
{
	pthread_cleanup_push(note_cleanup, NULL);
	pthread_exit(arg);
	pthread_cleanup_pop(0);
	return NULL;
}

/* waits in pause(), a cancellation point, until it is cancelled */
static void *waits(void *arg)
{
	pthread_cleanup_push(note_cleanup, NULL);
	for (;;)
		pause();
	pthread_cleanup_pop(0);
	return arg;
}

int main(void)
{
	static int token;
	pthread_t a, b;
	void *ra = NULL, *rb = NULL;
	int e;

	if ((e = pthread_create(&a, NULL, exits, &token)) ||
	    (e = pthread_join(a, &ra))) {
		printf("FAIL pthread-exit-cancel: pthread_exit: %s\n",
		       strerror(e));
		return 1;
	}
	if ((e = pthread_create(&b, NULL, waits, NULL)) ||
	    (e = pthread_cancel(b)) || (e = pthread_join(b, &rb))) {
		printf("FAIL pthread-exit-cancel: pthread_cancel: %s\n",
		       strerror(e));
		return 1;
	}
	if (ra != &token || rb != PTHREAD_CANCELED || cleaned_up != 2) {
		printf("FAIL pthread-exit-cancel: exit value %s, cancelled "
		       "%s, %d of 2 cleanup handlers ran\n",
		       ra == &token ? "kept" : "lost",
		       rb == PTHREAD_CANCELED ? "yes" : "no", cleaned_up);
		return 1;
	}
	printf("PASS pthread-exit-cancel\n");
	return 0;
}
