// SPDX-License-Identifier: MIT
/* Trace format: varints, chunk framing round trips, record decoding, and a
 * reader that stops cleanly at every possible truncation and corruption. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "check.h"
#include "common/mp_error.h"
#include "common/varint.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

static void test_varint(void)
{
	uint64_t vals[] = { 0, 1, 127, 128, 16383, 16384, 1ull << 32, UINT64_MAX };
	uint8_t buf[16];
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		uint8_t *e = mp_put_uv(buf, vals[i]);
		const uint8_t *p = buf;
		uint64_t v = 0;
		CHECK(mp_get_uv(&p, e, &v) == 0);
		CHECK_EQ(v, vals[i]);
		CHECK(p == e);
		/* every strict prefix is an error, never a read past the end */
		for (uint8_t *cut = buf; cut < e; cut++) {
			p = buf;
			CHECK(mp_get_uv(&p, cut, &v) == -1);
		}
	}
	/* with room after it (whatever follows), every length up to ten bytes
	 * decodes to the same value and stops at its end */
	for (uint64_t k = 0, v = 1; k < 200000; k++, v = v * 6364136223846793005ull + 1442695040888963407ull) {
		uint8_t room[MP_VARINT_MAX + 8];
		uint64_t want = v >> (k % 64), got = 0;
		memset(room, k & 1 ? 0xff : 0, sizeof(room));
		uint8_t *e = mp_put_uv(room, want);
		const uint8_t *p = room;
		CHECK(mp_get_uv(&p, room + sizeof(room), &got) == 0);
		if (got != want || p != e) {
			CHECK_EQ(got, want);
			CHECK_EQ(p - room, e - room);
			break;
		}
	}
	/* the padded 7-byte form decodes to the same value */
	uint64_t wide[] = { 0, 1, 1u << 21, (1ull << 28) + 5, (1ull << 49) - 1 };
	for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++) {
		uint8_t *e = mp_put_uv7(buf, wide[i]);
		const uint8_t *p = buf;
		uint64_t v = 0;
		CHECK(e == buf + 7);
		CHECK(mp_get_uv(&p, e, &v) == 0);
		CHECK_EQ(v, wide[i]);
		CHECK(p == e);
	}
	/* the inline access path's loop-free encoders write the same bytes */
	for (uint64_t k = 0, v = 0; k < 100000; k++, v = v * 6364136223846793005ull + 1442695040888963407ull) {
		uint8_t a[16], b[16];
		uint64_t w = v >> 15; /* < 2^49 */
		CHECK(mp_put_uv7w(a, w) == a + 7);
		mp_put_uv7(b, w);
		CHECK(memcmp(a, b, 7) == 0);
		uint64_t n = v >> 50; /* < 2^14 */
		uint8_t *ea = mp_put_uv14(a, n), *eb = mp_put_uv(b, n);
		CHECK(ea - a == eb - b && memcmp(a, b, (size_t)(ea - a)) == 0);
	}
	int64_t s[] = { 0, -1, 1, INT64_MIN, INT64_MAX, -64, 64 };
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		CHECK(mp_unzigzag(mp_zigzag(s[i])) == s[i]);
	CHECK_EQ(mp_zigzag(-1), 1);
	/* an 11-byte varint overflows: corrupt, not a wrong value */
	uint8_t over[11];
	memset(over, 0xff, 10);
	over[10] = 1;
	const uint8_t *p = over;
	uint64_t v;
	CHECK(mp_get_uv(&p, over + 11, &v) == -1);
}

/* A synthetic trace: header, a PROCESS chunk, two STREAM chunks with events
 * and accesses, an END chunk. */
static size_t build_trace(uint8_t *out, size_t cap, int compress)
{
	const char meta[] = "source=inst\ncmdline=./prog a b\n";
	struct mp_file_header fh;
	trace_file_header_init(&fh, sizeof(meta) - 1, meta, 1, 2);
	size_t n = 0;
	memcpy(out, &fh, sizeof(fh));
	n += sizeof(fh);
	memcpy(out + n, meta, sizeof(meta) - 1);
	n += sizeof(meta) - 1;
	ZSTD_CCtx *cctx = compress ? ZSTD_createCCtx() : NULL;

	uint8_t pl[4096], *p = pl;
	p = mp_put_uv(p, 42); /* pid */
	p = mp_put_uv(p, 1);
	p = mp_put_uv(p, 0);
	p = mp_put_uv(p, 0);
	p = mp_put_uv(p, 100);
	p = mp_put_uv(p, 4);
	memcpy(p, "prog", 4);
	p += 4;
	p = mp_put_uv(p, 0);
	p = mp_put_uv(p, MP_PROC_INSTRUMENTED);
	struct mp_chunk_header h = { .type = MP_CHUNK_PROCESS, .pid = 42, .tid = 42, .proc_id = 7 };
	n += trace_chunk_build(&h, pl, (size_t)(p - pl), out + n, cctx, 1);

	for (int c = 0; c < 2; c++) {
		p = pl;
		*p++ = MP_TAG(MP_REC_EPOCH, 0);
		p = mp_put_uv(p, 5);
		*p++ = MP_TAG(MP_REC_TIME, 0);
		p = mp_put_uv(p, 1000);
		p = mp_put_uv(p, 0);
		*p++ = MP_TAG(MP_REC_EVENT, MP_EV_ALLOC);
		p = mp_put_uv(p, 1); /* epoch delta: 5 + 1 */
		/* time +100, cpu, addr delta from 0, size, stack, fn, group */
		uint64_t f[7] = { mp_zigzag(100), 0, mp_zigzag(0x10000), 4096, 0, MP_FN_MALLOC, 0 };
		for (int i = 0; i < 7; i++)
			p = mp_put_uv(p, f[i]);
		uint64_t last = 0, lastip = 0;
		for (int i = 0; i < 200; i++) {
			uint64_t a = 0x10000 + (uint64_t)i * 8, ip = 0x400000 + (uint64_t)(i & 1) * 4;
			*p = (uint8_t)(3 | (i & 1 ? MP_ACC_WRITE : 0) | (ip != lastip ? MP_ACC_IP : 0));
			uint8_t *tag = p++;
			p = mp_put_uv(p, mp_zigzag((int64_t)(a - last)));
			last = a;
			if (*tag & MP_ACC_IP)
				p = mp_put_uv(p, mp_zigzag((int64_t)(ip - lastip)));
			lastip = ip;
		}
		h = (struct mp_chunk_header){ .type = MP_CHUNK_STREAM, .pid = 42, .tid = 42, .proc_id = 7,
					      .seq = (uint32_t)c };
		n += trace_chunk_build(&h, pl, (size_t)(p - pl), out + n, cctx, 1);
	}
	p = pl;
	for (int i = 0; i < 5; i++)
		p = mp_put_uv(p, (uint64_t)i);
	h = (struct mp_chunk_header){ .type = MP_CHUNK_END, .pid = 42, .proc_id = 7 };
	n += trace_chunk_build(&h, pl, (size_t)(p - pl), out + n, cctx, 1);
	ZSTD_freeCCtx(cctx);
	CHECK(n < cap);
	return n;
}

/* Reads everything; returns number of accesses decoded, -1 if the header
 * was refused. Must never crash, whatever the bytes. */
static long read_all(const uint8_t *buf, size_t len, int *status)
{
	struct trace_reader *r = trace_reader_open_mem(buf, len);
	if (!r)
		return -1;
	struct trace_chunk c;
	long acc = 0;
	while (trace_reader_next(r, &c)) {
		if (c.hdr.type != MP_CHUNK_STREAM)
			continue;
		struct trace_dec d;
		struct trace_rec rec;
		trace_dec_init(&d, c.data, c.len);
		while (trace_dec_next(&d, &rec) == 1)
			acc += rec.cls == MP_REC_ACCESS;
	}
	*status = trace_reader_status(r, NULL);
	trace_reader_close(r);
	return acc;
}

static void test_roundtrip(int compress)
{
	static uint8_t buf[1 << 16];
	size_t n = build_trace(buf, sizeof(buf), compress);
	struct trace_reader *r = trace_reader_open_mem(buf, n);
	CHECK(r != NULL);
	if (!r)
		return;
	char v[64];
	CHECK(trace_reader_meta(r, "cmdline", v, sizeof(v)) && strcmp(v, "./prog a b") == 0);
	CHECK(trace_reader_meta(r, "nope", v, sizeof(v)) == NULL);
	struct trace_chunk c;
	int chunks = 0, accesses = 0, writes = 0, allocs = 0;
	uint64_t last_addr = 0;
	while (trace_reader_next(r, &c)) {
		chunks++;
		if (c.hdr.type == MP_CHUNK_PROCESS) {
			struct trace_proc tp;
			CHECK(trace_proc_decode(&c, &tp) == 0);
			CHECK_EQ(tp.pid, 42);
			CHECK(tp.exe_len == 4 && memcmp(tp.exe, "prog", 4) == 0);
			CHECK_EQ(tp.flags, MP_PROC_INSTRUMENTED);
		}
		if (c.hdr.type != MP_CHUNK_STREAM)
			continue;
		if (compress)
			CHECK_EQ(c.hdr.codec, MP_CODEC_ZSTD);
		struct trace_dec d;
		struct trace_rec rec;
		trace_dec_init(&d, c.data, c.len);
		int k;
		while ((k = trace_dec_next(&d, &rec)) == 1) {
			if (rec.cls == MP_REC_ACCESS) {
				accesses++;
				writes += rec.write;
				CHECK_EQ(rec.size, 8);
				last_addr = rec.addr;
				CHECK_EQ(rec.ip, 0x400000 + (uint64_t)((accesses - 1) & 1) * 4);
			} else if (rec.cls == MP_REC_EVENT && rec.event == MP_EV_ALLOC) {
				allocs++;
				CHECK_EQ(rec.epoch, 6);
				CHECK_EQ(rec.f[0], 1100);
				CHECK_EQ(rec.f[2], 0x10000);
				CHECK_EQ(rec.f[3], 4096);
			}
		}
		CHECK_EQ(k, 0);
	}
	CHECK_EQ(trace_reader_status(r, NULL), 0);
	CHECK_EQ(chunks, 4);
	CHECK_EQ(accesses, 400);
	CHECK_EQ(writes, 200);
	CHECK_EQ(allocs, 2);
	CHECK_EQ(last_addr, 0x10000 + 199 * 8);
	trace_reader_close(r);
}

static void test_damage(void)
{
	static uint8_t buf[1 << 16], copy[1 << 16];
	size_t n = build_trace(buf, sizeof(buf), 1);
	int st;
	CHECK_EQ(read_all(buf, n, &st), 400);
	/* Every truncation: the header refused, or a prefix of whole chunks read
	 * and the damage reported (except at chunk boundaries). */
	long prev = 0;
	for (size_t cut = 0; cut < n; cut++) {
		long a = read_all(buf, cut, &st);
		if (cut < sizeof(struct mp_file_header)) {
			CHECK(a == -1);
			continue;
		}
		CHECK(a == -1 || a == 0 || a == 200 || a == 400);
		CHECK(a >= prev || a == -1);
		if (a >= 0)
			prev = a;
	}
	/* Every single-byte corruption: never a crash, never more than the truth,
	 * and the CRCs catch it (status non-zero or the header refused). */
	for (size_t i = 0; i < n; i++) {
		memcpy(copy, buf, n);
		copy[i] ^= 0x5a;
		long a = read_all(copy, n, &st);
		CHECK(a <= 400);
		CHECK(a == -1 || st != 0);
	}
	/* Not a memprism file, wrong version */
	struct trace_reader *r = trace_reader_open_mem("hello world, not a trace at all.................", 48);
	CHECK(r == NULL && errno == MP_ERR_FORMAT);
	memcpy(copy, buf, n);
	struct mp_file_header fh;
	memcpy(&fh, copy, sizeof(fh));
	fh.version = 99;
	fh.header_crc = trace_crc32(&fh, offsetof(struct mp_file_header, header_crc));
	memcpy(copy, &fh, sizeof(fh));
	r = trace_reader_open_mem(copy, n);
	CHECK(r == NULL && errno == MP_ERR_VERSION);
	CHECK(strstr(mp_strerror(-MP_ERR_VERSION), "version") != NULL);
}

/* Accesses in the STREAM chunk at off, read with trace_reader_read_at; -1
 * if it does not decode. */
static long stream_accesses_at(struct trace_reader *r, uint64_t off)
{
	struct trace_chunk c;
	if (!trace_reader_read_at(r, off, &c))
		return -1;
	CHECK_EQ(trace_reader_read_error(r), 0);
	struct trace_dec d;
	struct trace_rec rec;
	long acc = 0;
	trace_dec_init(&d, c.data, c.len);
	while (trace_dec_next(&d, &rec) == 1)
		acc += rec.cls == MP_REC_ACCESS;
	return acc;
}

/* build_trace's file (n bytes), read through by trace_reader_next_lazy
 * leaving STREAM payloads undecoded: the first two STREAM chunks' offsets
 * (ns of them) and the chunks read. */
struct lazy_file {
	uint8_t buf[1 << 16];
	size_t n;
	uint64_t streams[2];
	int ns, chunks;
};

/* The reader of its pass, left open; NULL if it does not open. */
static struct trace_reader *lazy_pass(struct lazy_file *f)
{
	f->n = build_trace(f->buf, sizeof(f->buf), 1);
	struct trace_reader *r = trace_reader_open_mem(f->buf, f->n);
	CHECK(r != NULL);
	f->ns = f->chunks = 0;
	struct trace_chunk c;
	while (r && trace_reader_next_lazy(r, &c, 1u << MP_CHUNK_STREAM)) {
		f->chunks++;
		if (c.hdr.type == MP_CHUNK_STREAM) {
			CHECK(c.data == NULL && c.len == c.hdr.raw_len && c.hdr.codec == MP_CODEC_ZSTD);
			if (f->ns < 2)
				f->streams[f->ns++] = c.offset;
		} else {
			CHECK(c.data != NULL || c.len == 0);
		}
	}
	return r;
}

/* trace_reader_next_lazy: STREAM payloads left for trace_reader_read_at,
 * which alone finds one that passes its checksum but does not decode. */
static void test_lazy(void)
{
	static struct lazy_file f;
	struct trace_reader *r = lazy_pass(&f);
	if (!r)
		return;
	uint8_t *const buf = f.buf;
	const size_t n = f.n;
	const uint64_t *const streams = f.streams;
	struct trace_chunk c;
	CHECK_EQ(f.chunks, 4);
	CHECK_EQ(f.ns, 2);
	CHECK_EQ(trace_reader_status(r, NULL), 0);
	CHECK_EQ(stream_accesses_at(r, streams[0]), 200);
	CHECK_EQ(stream_accesses_at(r, streams[1]), 200);
	trace_reader_close(r);

	/* the first STREAM chunk's zstd frame made unreadable (its magic), its
	 * checksums made right again */
	struct mp_chunk_header h;
	memcpy(&h, buf + streams[0], sizeof(h));
	uint8_t *payload = buf + streams[0] + sizeof(h);
	payload[0] ^= 0xff;
	h.payload_crc = trace_crc32(payload, h.stored_len);
	h.header_crc = trace_crc32(&h, offsetof(struct mp_chunk_header, header_crc));
	memcpy(buf + streams[0], &h, sizeof(h));
	int st;
	CHECK_EQ(read_all(buf, n, &st), 0); /* read at once: stops there */
	CHECK_EQ(st, -MP_ERR_CORRUPT);
	r = trace_reader_open_mem(buf, n);
	int chunks = 0;
	while (trace_reader_next_lazy(r, &c, 1u << MP_CHUNK_STREAM))
		chunks++;
	CHECK_EQ(chunks, 4); /* read lazily: every chunk indexed */
	CHECK_EQ(trace_reader_status(r, NULL), 0);
	CHECK_EQ(stream_accesses_at(r, streams[0]), -1);
	CHECK_EQ(trace_reader_read_error(r), -MP_ERR_CORRUPT);
	CHECK_EQ(stream_accesses_at(r, streams[1]), 200); /* the next one still reads */
	CHECK_EQ(trace_reader_read_error(r), 0);
	CHECK_EQ(trace_reader_status(r, NULL), 0);
	trace_reader_close(r);
}

/* A chunk's payload checksum is checked where no pass over the file read
 * it in turn before, here or in the reader it was opened from: past the
 * damage a pass stopped at, as before it. */
static void test_checked_once(void)
{
	static struct lazy_file f;
	struct trace_reader *r = lazy_pass(&f);
	if (!r)
		return;
	trace_reader_close(r);
	CHECK_EQ(f.ns, 2);
	if (f.ns < 2)
		return;
	uint8_t *const buf = f.buf;
	const size_t n = f.n;
	const uint64_t *const streams = f.streams;
	buf[streams[1] + sizeof(struct mp_chunk_header) + 3] ^= 0x40; /* (its sums left as they were) */
	r = trace_reader_open_mem(buf, n);
	CHECK_EQ(stream_accesses_at(r, streams[1]), -1); /* before any pass */
	CHECK_EQ(trace_reader_read_error(r), -MP_ERR_CORRUPT);
	struct trace_chunk c;
	int chunks = 0;
	while (trace_reader_next_lazy(r, &c, 1u << MP_CHUNK_STREAM))
		chunks++;
	CHECK_EQ(chunks, 2); /* the pass stops at it */
	CHECK_EQ(trace_reader_status(r, NULL), -MP_ERR_CORRUPT);
	CHECK_EQ(stream_accesses_at(r, streams[0]), 200);
	CHECK_EQ(stream_accesses_at(r, streams[1]), -1);
	CHECK_EQ(trace_reader_read_error(r), -MP_ERR_CORRUPT);
	struct trace_reader *same = trace_reader_open_same(r);
	CHECK(same != NULL);
	if (same) {
		CHECK_EQ(stream_accesses_at(same, streams[0]), 200);
		CHECK_EQ(stream_accesses_at(same, streams[1]), -1);
		trace_reader_close(same);
	}
	trace_reader_close(r);
}

/* ACCESS_IP2: an access whose ip is the one before the previous (loops
 * alternating two instructions) carries no ip bytes; with an ip delta (v2)
 * it moves slot 1 alone. */
static void test_ip_history(void)
{
	uint8_t buf[64], *p = buf;
	/* A at 0x100 ip 0x10, B at 0x100 ip 0x20, then ip2 (0x10), ip2 (0x20) */
	*p++ = MP_TAG(MP_REC_ACCESS, 2 | MP_ACC_IP);
	p = mp_put_uv(p, mp_zigzag(0x100));
	p = mp_put_uv(p, mp_zigzag(0x10));
	*p++ = MP_TAG(MP_REC_ACCESS, 2 | MP_ACC_WRITE | MP_ACC_IP);
	p = mp_put_uv(p, 0);
	p = mp_put_uv(p, mp_zigzag(0x10));
	*p++ = MP_TAG(MP_REC_ACCESS_IP2, 2);
	p = mp_put_uv(p, mp_zigzag(4));
	*p++ = MP_TAG(MP_REC_ACCESS_IP2, 2 | MP_ACC_WRITE);
	p = mp_put_uv(p, 0);
	*p++ = MP_TAG(MP_REC_ACCESS_IP2, 2 | MP_ACC_IP); /* v2: slot 1 (0x10) moves by +0x30 */
	p = mp_put_uv(p, 0);
	p = mp_put_uv(p, mp_zigzag(0x30));
	*p++ = MP_TAG(MP_REC_ACCESS, 2 | MP_ACC_WRITE); /* slot 0 stayed: 0x20 */
	p = mp_put_uv(p, 0);
	*p++ = 0xff; /* malformed: class 7 with a range size */
	struct trace_dec d;
	struct trace_rec r;
	uint64_t want_ip[] = { 0x10, 0x20, 0x10, 0x20, 0x40, 0x20 };
	uint64_t want_addr[] = { 0x100, 0x100, 0x104, 0x104, 0x104, 0x104 };
	trace_dec_init(&d, buf, (size_t)(p - buf));
	for (int i = 0; i < 6; i++) {
		CHECK_EQ(trace_dec_next(&d, &r), 1);
		CHECK_EQ(r.cls, MP_REC_ACCESS);
		CHECK_EQ(r.ip, want_ip[i]);
		CHECK_EQ(r.addr, want_addr[i]);
		CHECK_EQ(r.write, i & 1);
		CHECK_EQ(r.size, 4);
	}
	CHECK(trace_dec_next(&d, &r) < 0);
}

/* A range must end by MP_ADDR_END, the top of user memory: one that
 * reaches it decodes, one a byte longer is malformed (a damaged length
 * had the model walk 2^58 lines), as is one whose end wraps. */
static void test_range_end(void)
{
	const uint64_t addr = 0x10000, sizes[3] = { MP_ADDR_END - 0x10000, MP_ADDR_END - 0x10000 + 1, UINT64_MAX };
	for (int i = 0; i < 3; i++) {
		uint8_t buf[32], *p = buf;
		*p++ = MP_TAG(MP_REC_ACCESS, MP_SIZE_RANGE | MP_ACC_WRITE);
		p = mp_put_uv(p, mp_zigzag((int64_t)addr));
		p = mp_put_uv(p, sizes[i]);
		struct trace_dec d;
		struct trace_rec r;
		trace_dec_init(&d, buf, (size_t)(p - buf));
		int got = trace_dec_next(&d, &r);
		if (i == 0) {
			CHECK_EQ(got, 1);
			CHECK_EQ(r.size, sizes[0]);
			CHECK_EQ(r.addr, addr);
		} else {
			CHECK(got < 0);
		}
	}
}

/* ACCESS_SLOT and ACCESS_FAR (v2): the ip is slot 0's or slot 1's (bit 4)
 * and the slots stay put, where ACCESS_IP2 swaps them. ACCESS_FAR's delta is
 * 6 raw little-endian bytes, written as the inline path writes it: one
 * 8-byte store, 7 bytes used. */
static void test_access_slots(void)
{
	uint8_t buf[96] = { 0 }, *p = buf;
	/* A at 0x7f0000001000 ip 0x10 (slot 0), B (store) ip 0x20: slot 0 0x20, slot 1 0x10 */
	*p++ = MP_TAG(MP_REC_ACCESS, 3 | MP_ACC_IP);
	p = mp_put_uv(p, mp_zigzag(0x7f0000001000));
	p = mp_put_uv(p, mp_zigzag(0x10));
	*p++ = MP_TAG(MP_REC_ACCESS, 3 | MP_ACC_WRITE | MP_ACC_IP);
	p = mp_put_uv(p, 0);
	p = mp_put_uv(p, mp_zigzag(0x10));
	/* far back by 0x7eff00000000 at slot 1 (ip 0x10): no swap */
	uint64_t w = mp_zigzag(-(int64_t)0x7eff00000000) << 8 | MP_TAG(MP_REC_ACCESS_FAR, 3 | MP_ACC_SLOT1);
	memcpy(p, &w, 8);
	p += 7;
	/* far forward by 0x123456789 (64 bytes, write) at slot 0 (ip 0x20) */
	w = mp_zigzag(0x123456789) << 8 | MP_TAG(MP_REC_ACCESS_FAR, 6 | MP_ACC_WRITE);
	memcpy(p, &w, 8);
	p += 7;
	/* near: +8 at slot 1 (4-byte load), -8 at slot 0 (store), twice */
	for (int k = 0; k < 2; k++) {
		*p++ = MP_TAG(MP_REC_ACCESS_SLOT, 2 | MP_ACC_SLOT1);
		p = mp_put_uv(p, mp_zigzag(8));
		*p++ = MP_TAG(MP_REC_ACCESS_SLOT, 2 | MP_ACC_WRITE);
		p = mp_put_uv(p, mp_zigzag(-8));
	}
	/* a plain ACCESS after them still means slot 0 */
	*p++ = MP_TAG(MP_REC_ACCESS, 0);
	p = mp_put_uv(p, mp_zigzag(1));
	uint8_t *bad = p;
	*p++ = MP_TAG(MP_REC_ACCESS_FAR, MP_SIZE_RANGE); /* malformed: a range cannot be far */
	memset(p, 0, 6);
	p += 6;
	struct trace_dec d;
	struct trace_rec r;
	const uint64_t f1 = 0x7f0000001000 - 0x7eff00000000, f2 = f1 + 0x123456789;
	uint64_t want_ip[] = { 0x10, 0x20, 0x10, 0x20, 0x10, 0x20, 0x10, 0x20, 0x20 };
	uint64_t want_addr[] = { 0x7f0000001000, 0x7f0000001000, f1, f2, f2 + 8, f2, f2 + 8, f2, f2 + 1 };
	uint64_t want_size[] = { 8, 8, 8, 64, 4, 4, 4, 4, 1 };
	int want_write[] = { 0, 1, 0, 1, 0, 1, 0, 1, 0 };
	trace_dec_init(&d, buf, (size_t)(bad - buf));
	for (int i = 0; i < 9; i++) {
		CHECK_EQ(trace_dec_next(&d, &r), 1);
		CHECK_EQ(r.cls, MP_REC_ACCESS);
		CHECK_EQ(r.ip, want_ip[i]);
		CHECK_EQ(r.addr, want_addr[i]);
		CHECK_EQ(r.write, want_write[i]);
		CHECK_EQ(r.size, want_size[i]);
		CHECK_EQ(r.range, 0);
	}
	CHECK_EQ(trace_dec_next(&d, &r), 0);
	trace_dec_init(&d, buf, (size_t)(p - buf));
	for (int i = 0; i < 9; i++)
		CHECK_EQ(trace_dec_next(&d, &r), 1);
	CHECK(trace_dec_next(&d, &r) < 0);
	/* truncated inside the second ACCESS_FAR: the first three decode */
	trace_dec_init(&d, buf, (size_t)(bad - buf) - 10 - 3); /* 10: the near records after it */
	for (int i = 0; i < 3; i++)
		CHECK_EQ(trace_dec_next(&d, &r), 1);
	CHECK(trace_dec_next(&d, &r) < 0);
	/* a range cannot be an ACCESS_SLOT either */
	uint8_t slot_range[] = { MP_TAG(MP_REC_ACCESS_SLOT, MP_SIZE_RANGE), 0, 0 };
	trace_dec_init(&d, slot_range, sizeof(slot_range));
	CHECK(trace_dec_next(&d, &r) < 0);
}

int main(void)
{
	test_ip_history();
	test_access_slots();
	test_range_end();
	test_varint();
	test_roundtrip(0);
	test_roundtrip(1);
	test_damage();
	test_lazy();
	test_checked_once();
	return check_done("test_trace");
}
