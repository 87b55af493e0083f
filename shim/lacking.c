// SPDX-License-Identifier: GPL-2.0
/*
 * What the module does not have. A call it cannot carry out returns what
 * the kernel returns for an operation it does not know, ENOSYS, and the
 * shim says so on stderr the first time, once per kind of call, so a
 * benchmark that fails on it is not a mystery and one that loops on it
 * does not flood its output.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "shim/shim.h"

static _Atomic uint64_t said;

/* One line on stderr with write(2): no stdio lock, safe in any thread. */
void shim_say(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int saved = errno;
	int n = snprintf(line, sizeof(line), "futexlab-shim: ");

	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, n) < 0)
		(void)0;	/* nowhere else to say it */
	errno = saved;
}

long shim_lacking(unsigned int what, const char *name)
{
	uint64_t bit = UINT64_C(1) << what;

	if (!(atomic_fetch_or(&said, bit) & bit))
		shim_say("%s is not an operation of the futexlab module: "
			 "ENOSYS (said once)", name);
	return -ENOSYS;
}
