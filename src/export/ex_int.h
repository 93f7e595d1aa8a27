/* SPDX-License-Identifier: MIT */
/* What the exporters share. */
#ifndef MP_EX_INT_H
#define MP_EX_INT_H

#include "analysis/analysis.h"
#include "export/export.h"

/* The replay's options an export's own make (the caller adds its hooks). */
static inline struct an_opts ex_an_opts(const struct ex_opts *o)
{
	return (struct an_opts){ .roi = o->roi,
				 .wrappers = o->wrappers,
				 .nwrappers = o->nwrappers,
				 .not_wrappers = o->not_wrappers,
				 .nnot_wrappers = o->nnot_wrappers,
				 .lib_sites = o->lib_sites,
				 .context = o->context };
}

#endif
