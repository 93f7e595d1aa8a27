/* SPDX-License-Identifier: MIT */
/*
 * Chunk and file-header framing for writers. Allocation-free and stdio-free:
 * the preloaded runtime calls these from inside the profiled program, with a
 * static zstd context it set up itself (ZSTD_initStaticCCtx).
 */
#ifndef MP_TRACE_WRITER_H
#define MP_TRACE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace_format.h"

struct ZSTD_CCtx_s;

/* Bytes of output room trace_chunk_build needs for a raw payload of len. */
size_t trace_chunk_bound(size_t len);

/*
 * Frames payload [src, src+len) as one chunk into out (room: trace_chunk_bound).
 * hdr supplies type/pid/tid/proc_id/seq/accesses; codec, sizes and CRCs are filled in.
 * Compresses with cctx when given and worthwhile, else stores raw.
 * Returns the chunk's total size in bytes.
 */
size_t trace_chunk_build(struct mp_chunk_header *hdr, const void *src, size_t len,
			 void *out, struct ZSTD_CCtx_s *cctx, int level);

/* Writes all n bytes (again after EINTR and short writes). 0, or the
 * -errno of the failed write (-ENOSPC for one that wrote nothing without
 * saying why). Async-signal-safe. */
int trace_write_all(int fd, const void *p, size_t n);

/* Fills a file header for meta text of meta_len bytes. */
void trace_file_header_init(struct mp_file_header *h, size_t meta_len, const char *meta,
			    uint64_t start_ns, uint64_t start_realtime_ns);

/*
 * Marks the file open on append_fd (O_APPEND) as cut short by a failed
 * write of error err (a positive errno): MP_FILE_WRITE_FAILED and err go
 * into the header's flags, rewritten in place through a second descriptor
 * (/proc/self/fd, without O_APPEND), so no byte is appended. A file marked
 * already keeps its first error. Async-signal-safe. 0 or -errno.
 */
int trace_file_mark_failed(int append_fd, int err);
/* The errno trace_file_mark_failed left in the file's header, 0 none. */
int trace_file_write_errno(int append_fd);

/* CRC-32 (zlib polynomial) used for every checksum in the format. */
uint32_t trace_crc32(const void *p, size_t len);

#endif
