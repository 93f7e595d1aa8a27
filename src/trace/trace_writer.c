// SPDX-License-Identifier: MIT
/* Chunk framing (see trace_writer.h). Used inside the profiled program: no
 * malloc, no stdio. zlib's crc32 and zstd with a static context allocate nothing. */
#include "trace/trace_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

uint32_t trace_crc32(const void *p, size_t len)
{
	return (uint32_t)crc32(0L, (const Bytef *)p, (uInt)len);
}

int trace_write_all(int fd, const void *p, size_t n)
{
	const uint8_t *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -ENOSPC;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

size_t trace_chunk_bound(size_t len)
{
	return sizeof(struct mp_chunk_header) + ZSTD_COMPRESSBOUND(len);
}

size_t trace_chunk_build(struct mp_chunk_header *hdr, const void *src, size_t len,
			 void *out, struct ZSTD_CCtx_s *cctx, int level)
{
	uint8_t *payload = (uint8_t *)out + sizeof(*hdr);
	size_t stored = 0;
	hdr->codec = MP_CODEC_RAW;
	if (cctx && len >= 64) {
		size_t z = ZSTD_compressCCtx(cctx, payload, ZSTD_COMPRESSBOUND(len), src, len, level);
		if (!ZSTD_isError(z) && z < len) {
			stored = z;
			hdr->codec = MP_CODEC_ZSTD;
		}
	}
	if (hdr->codec == MP_CODEC_RAW) {
		memcpy(payload, src, len);
		stored = len;
	}
	hdr->magic = MP_CHUNK_MAGIC;
	hdr->raw_len = (uint32_t)len;
	hdr->stored_len = (uint32_t)stored;
	hdr->payload_crc = trace_crc32(payload, stored);
	hdr->header_crc = trace_crc32(hdr, offsetof(struct mp_chunk_header, header_crc));
	memcpy(out, hdr, sizeof(*hdr));
	return sizeof(*hdr) + stored;
}

void trace_file_header_init(struct mp_file_header *h, size_t meta_len, const char *meta,
			    uint64_t start_ns, uint64_t start_realtime_ns)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, MP_FILE_MAGIC, 8);
	h->version = MP_FORMAT_CURRENT;
	h->header_len = sizeof(*h);
	h->meta_len = (uint32_t)meta_len;
	h->start_ns = start_ns;
	h->start_realtime_ns = start_realtime_ns;
	h->meta_crc = trace_crc32(meta, meta_len);
	h->header_crc = trace_crc32(h, offsetof(struct mp_file_header, header_crc));
}

/* A second descriptor of append_fd's file, without O_APPEND (pwrite on an
 * O_APPEND descriptor appends) and readable: "/proc/self/fd/N", built
 * without stdio since the runtime calls this too. */
static int reopen(int append_fd, int flags)
{
	char path[32] = "/proc/self/fd/", digits[12];
	int nd = 0;
	unsigned v = (unsigned)append_fd;
	do
		digits[nd++] = (char)('0' + v % 10);
	while ((v /= 10) && nd < (int)sizeof(digits));
	size_t n = sizeof("/proc/self/fd/") - 1;
	while (nd)
		path[n++] = digits[--nd];
	path[n] = 0;
	return open(path, flags | O_CLOEXEC);
}

static int read_header(int fd, struct mp_file_header *h)
{
	if (pread(fd, h, sizeof(*h), 0) != (ssize_t)sizeof(*h) || memcmp(h->magic, MP_FILE_MAGIC, 8) != 0 ||
	    h->header_crc != trace_crc32(h, offsetof(struct mp_file_header, header_crc)))
		return -EINVAL;
	return 0;
}

int trace_file_mark_failed(int append_fd, int err)
{
	int fd = reopen(append_fd, O_RDWR);
	if (fd < 0)
		return -errno;
	struct mp_file_header h;
	int ret = read_header(fd, &h);
	if (!ret && !(h.flags & MP_FILE_WRITE_FAILED)) {
		h.flags = (h.flags & ((1u << MP_FILE_ERRNO_SHIFT) - 1)) | MP_FILE_WRITE_FAILED |
			  ((uint32_t)err << MP_FILE_ERRNO_SHIFT);
		h.header_crc = trace_crc32(&h, offsetof(struct mp_file_header, header_crc));
		if (pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
			ret = errno ? -errno : -EIO;
	}
	close(fd);
	return ret;
}

int trace_file_write_errno(int append_fd)
{
	int fd = reopen(append_fd, O_RDONLY);
	if (fd < 0)
		return 0;
	struct mp_file_header h;
	int e = read_header(fd, &h) == 0 && (h.flags & MP_FILE_WRITE_FAILED) ? MP_FILE_WRITE_ERRNO(h.flags) : 0;
	close(fd);
	return e;
}
