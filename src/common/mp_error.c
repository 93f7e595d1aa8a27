// SPDX-License-Identifier: MIT
/* Error strings (see mp_error.h). */
#include "common/mp_error.h"

#include <string.h>

static const char *const mp_messages[MP_ERR_END - MP_ERR_BASE] = {
	[MP_ERR_FORMAT - MP_ERR_BASE] = "not a memprism data file",
	[MP_ERR_VERSION - MP_ERR_BASE] = "memprism data file of an unsupported format version",
	[MP_ERR_CORRUPT - MP_ERR_BASE] = "corrupt data (checksum or structure check failed)",
	[MP_ERR_TRUNCATED - MP_ERR_BASE] = "data file is truncated",
	[MP_ERR_NOT_INSTRUMENTED - MP_ERR_BASE] = "program was not built with `memprism cc`",
	[MP_ERR_NO_RUNTIME - MP_ERR_BASE] = "memprism runtime (libmemprism-rt.so) not found",
	[MP_ERR_USAGE - MP_ERR_BASE] = "invalid value",
	/* (one literal: clang warns of concatenation in an array's initializer) */
	[MP_ERR_SAMPLED - MP_ERR_BASE] =
		"recorded in bursts already (record --sample-bursts); --sample-bursts needs a full trace",
	[MP_ERR_NOT_REGULAR - MP_ERR_BASE] = "not a regular file",
};

const char *mp_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err >= MP_ERR_BASE && err < MP_ERR_END)
		return mp_messages[err - MP_ERR_BASE];
	return strerror(err);
}
