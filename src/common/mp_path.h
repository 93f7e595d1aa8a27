/* SPDX-License-Identifier: MIT */
/* A path's last component, as the reports name files and modules. */
#ifndef MP_PATH_H
#define MP_PATH_H

#include <string.h>

/* What follows the last '/' of path (path itself without one; NULL: NULL). */
static inline const char *mp_base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path;
}

#endif
