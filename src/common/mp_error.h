/* SPDX-License-Identifier: MIT */
/*
 * Error codes and the logging hook. Functions return 0 or a negative errno;
 * memprism's own conditions use codes above the errno range (libbpf style).
 * Libraries never print: they report through mp_log(), which the CLI routes.
 */
#ifndef MP_ERROR_H
#define MP_ERROR_H

#include <stdarg.h>

enum mp_errcode {
	MP_ERR_BASE = 4000,
	MP_ERR_FORMAT = MP_ERR_BASE, /* not a memprism data file */
	MP_ERR_VERSION, /* data file from an unknown format version */
	MP_ERR_CORRUPT, /* checksum or structure check failed */
	MP_ERR_TRUNCATED, /* data ends inside a chunk */
	MP_ERR_NOT_INSTRUMENTED, /* program lacks memprism cc instrumentation */
	MP_ERR_NO_RUNTIME, /* libmemprism-rt.so not found */
	MP_ERR_END,
};

/* Message for a negative error (errno or MP_ERR_*); never NULL. */
const char *mp_strerror(int err);

enum mp_log_level { MP_LOG_ERROR, MP_LOG_WARN, MP_LOG_INFO, MP_LOG_DEBUG };
typedef void (*mp_log_fn)(enum mp_log_level level, const char *fmt, va_list ap);

/* Route library messages to fn (NULL: drop them). Returns the previous one. */
mp_log_fn mp_set_log(mp_log_fn fn);
void mp_log(enum mp_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
