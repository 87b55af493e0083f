// SPDX-License-Identifier: GPL-2.0
/* Lines a library says, handed to its caller's callback (base/say.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/say.h"

void fl_say(const struct fl_say *to, const char *fmt, ...)
{
	char small[1024], *text = NULL;
	va_list ap;

	if (!to || !to->line)
		return;
	va_start(ap, fmt);
	/* a message quotes paths of any length: cut only without memory */
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	if (!text) {
		va_start(ap, fmt);
		vsnprintf(small, sizeof(small), fmt, ap);
		va_end(ap);
	}
	to->line(to->arg, text ? text : small);
	free(text);
}
