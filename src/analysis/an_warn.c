// SPDX-License-Identifier: MIT
/*
 * The run's warnings: what the analysis found worth telling (damage, bounds
 * passed, estimates to take with care), kept as text for the result; the
 * CLI decides how to show them. Every stage may warn; this calls nothing.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_int.h"

void an_warn(struct an_state *st, const char *fmt, ...)
{
	if (st->warnings.n >= 100)
		return; /* enough to tell the story */
	char buf[2048]; /* (bounded sampling's run to ~700: 512 cut their advice off) */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < st->warnings.n; i++)
		if (strcmp(st->warnings.v[i], buf) == 0)
			return; /* e.g. a forked child re-registering its parent's images */
	char *s = strdup(buf);
	if (!s || mp_vec_push(&st->warnings, s))
		free(s);
}
