// SPDX-License-Identifier: MIT
/* Chunk framing (see trace_writer.h). Used inside the profiled program: no
 * malloc, no stdio. zlib's crc32 and zstd with a static context allocate nothing. */
#include "trace/trace_writer.h"

#include <string.h>
#include <zlib.h>
#include <zstd.h>

uint32_t trace_crc32(const void *p, size_t len)
{
	return (uint32_t)crc32(0L, (const Bytef *)p, (uInt)len);
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
