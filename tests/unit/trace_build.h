/* SPDX-License-Identifier: MIT */
/* Hand-built data files for the unit tests that run the whole analysis
 * without a recording (test_samples, test_cputime, test_flows, test_numa_pmu,
 * test_model_input, test_checks, test_period): the file
 * header with its meta text, chunks, and the records inside them, encoded
 * as docs/trace-format.md says (event times as deltas from the previous
 * record's time, ALLOC/FREE addresses as deltas). One file per test. */
#ifndef MP_TEST_TRACE_BUILD_H
#define MP_TEST_TRACE_BUILD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "common/varint.h"
#include "trace/trace_format.h"
#include "trace/trace_writer.h"

static uint8_t tb_file[65536];
static size_t tb_len;
static uint64_t tb_last_time; /* of the chunk being built: event times are deltas */

/* Starts the file: its header and meta text ("key=value\n" lines). */
static inline void tb_begin(const char *meta)
{
	struct mp_file_header fh;
	trace_file_header_init(&fh, strlen(meta), meta, 0, 0);
	memcpy(tb_file, &fh, sizeof(fh));
	memcpy(tb_file + sizeof(fh), meta, strlen(meta));
	tb_len = sizeof(fh) + strlen(meta);
}

/* accesses: the header's count (MP_CHUNK_PLAIN | n, or 0) */
static inline void tb_chunk_counted(unsigned type, uint32_t pid, uint32_t tid, uint64_t proc, uint32_t seq,
				    uint32_t accesses, const uint8_t *p, size_t n)
{
	struct mp_chunk_header h = {
		.type = (uint16_t)type, .pid = pid, .tid = tid, .proc_id = proc, .seq = seq, .accesses = accesses
	};
	tb_len += trace_chunk_build(&h, p, n, tb_file + tb_len, NULL, 0);
	tb_last_time = 0;
}

static inline void tb_chunk(unsigned type, uint32_t pid, uint32_t tid, uint64_t proc, const uint8_t *p, size_t n)
{
	struct mp_chunk_header h = { .type = (uint16_t)type, .pid = pid, .tid = tid, .proc_id = proc };
	tb_len += trace_chunk_build(&h, p, n, tb_file + tb_len, NULL, 0);
	tb_last_time = 0; /* each chunk decodes on its own */
}

static inline uint8_t *tb_fields(uint8_t *p, const uint64_t *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p = mp_put_uv(p, f[i]);
	return p;
}

/* A string field: its length, then its bytes. */
static inline uint8_t *tb_str(uint8_t *p, const char *s)
{
	size_t n = strlen(s);
	p = mp_put_uv(p, n);
	memcpy(p, s, n);
	return p + n;
}

/* A PROCESS chunk's body: pid, started at start_time, exe, flags. */
static inline uint8_t *tb_process(uint8_t *p, uint64_t pid, uint64_t start_time, const char *exe, uint64_t flags)
{
	uint64_t f[] = { pid, 1, 0, 0, start_time };
	p = tb_str(tb_fields(p, f, 5), exe);
	p = mp_put_uv(p, 0);
	return mp_put_uv(p, flags);
}

/* A stream chunk's first records: epoch 0, then the clock and CPU. */
static inline uint8_t *tb_stream_start(uint8_t *p, uint64_t time, uint64_t cpu)
{
	*p++ = MP_TAG(MP_REC_EPOCH, 0);
	p = mp_put_uv(p, 0);
	*p++ = MP_TAG(MP_REC_TIME, 0);
	p = mp_put_uv(p, time);
	p = mp_put_uv(p, cpu);
	tb_last_time = time;
	return p;
}

/* An event record's head; its fields follow. */
static inline uint8_t *tb_ev(uint8_t *p, unsigned type, uint64_t epoch_delta, uint64_t time)
{
	*p++ = MP_TAG(MP_REC_EVENT, type);
	p = mp_put_uv(p, epoch_delta);
	p = mp_put_uv(p, mp_zigzag((int64_t)(time - tb_last_time)));
	tb_last_time = time;
	return p;
}

/* The usual opening: the file's header (an inst recording), the
 * instrumented process 100 ("/app"), then its stream's first records in
 * buf; returns where the stream's records go on. */
static inline uint8_t *tb_begin_app(uint8_t *buf)
{
	tb_begin("source=inst\ncmdline=constructed\n");
	uint8_t *p = tb_process(buf, 100, 500, "/app", MP_PROC_INSTRUMENTED);
	tb_chunk(MP_CHUNK_PROCESS, 100, 100, 0xabc, buf, (size_t)(p - buf));
	return tb_stream_start(buf, 1000, 0);
}

/* The RUN_END chunk: exit status 0 at time. */
static inline void tb_run_end(uint64_t time)
{
	uint8_t buf[32], *p = mp_put_uv(buf, 0);
	p = mp_put_uv(p, time);
	tb_chunk(MP_CHUNK_RUN_END, 99, 0, 0, buf, (size_t)(p - buf));
}

/* Writes the file to a new temporary file named from tmpl (mkstemp's
 * XXXXXX, replaced in place). 0 or -1. */
static inline int tb_write(char *tmpl)
{
	int fd = mkstemp(tmpl);
	if (fd < 0)
		return -1;
	ssize_t w = write(fd, tb_file, tb_len);
	close(fd);
	return w == (ssize_t)tb_len ? 0 : -1;
}

/* Writes the file (tb_write), runs the analysis on it with o (NULL: the
 * defaults) into *r, and removes it, or keeps it as keep_as when that is
 * not NULL (a test's FILE argument: the fuzz corpus's seeds). 0, or
 * non-zero when a step failed. */
static inline int tb_analyse(char *tmpl, const struct an_opts *o, const char *keep_as, struct an_result **r)
{
	*r = NULL;
	if (tb_write(tmpl))
		return -1;
	int e = an_run(tmpl, o, r);
	if (keep_as && rename(tmpl, keep_as))
		e = e ? e : -1;
	unlink(tmpl);
	return e;
}

#endif
