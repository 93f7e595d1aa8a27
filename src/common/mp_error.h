/* SPDX-License-Identifier: MIT */
/*
 * Error codes. Functions return 0 or a negative errno; memprism's own
 * conditions use codes above the errno range (libbpf style). Libraries never
 * print: errors are returned, and the analysis hands its warnings back in its
 * result for the CLI to show.
 */
#ifndef MP_ERROR_H
#define MP_ERROR_H

enum mp_errcode {
	MP_ERR_BASE = 4000,
	MP_ERR_FORMAT = MP_ERR_BASE, /* not a memprism data file */
	MP_ERR_VERSION, /* data file from an unknown format version */
	MP_ERR_CORRUPT, /* checksum or structure check failed */
	MP_ERR_TRUNCATED, /* data ends inside a chunk */
	MP_ERR_NOT_INSTRUMENTED, /* program lacks memprism cc instrumentation */
	MP_ERR_NO_RUNTIME, /* libmemprism-rt.so not found */
	MP_ERR_USAGE, /* invalid option value or description (the caller has the details) */
	MP_ERR_SAMPLED, /* sampling at replay asked of a trace recorded in bursts */
	MP_ERR_NOT_REGULAR, /* something other than a regular file is where a data file goes */
	MP_ERR_END,
};

/* Message for a negative error (errno or MP_ERR_*); never NULL. */
const char *mp_strerror(int err);

#endif
