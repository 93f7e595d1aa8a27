// SPDX-License-Identifier: MIT
/* libFuzzer target: arbitrary bytes through the reader, the record decoder
 * and the whole analysis (attribution, labels). Must never crash or leak,
 * nor take more memory than the file's bounds allow (CI runs it with
 * -rss_limit_mb). Its mutator edits records inside chunk payloads and
 * frames them again with their checksums right, so that mutations reach
 * what a tampered file reaches: past the reader's CRC checks. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "analysis/an_pattern.h"
#include "analysis/analysis.h"
#include "model/machine.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
/* libFuzzer's own byte-level mutator (weak: the corpus replay driver has
 * none, and never calls the custom mutator) */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) __attribute__((weak));

/* Each input runs twice: as a user's file would (checksums verified), and
 * with checksums ignored so that mutations reach the decoders behind them. */
static void run_reader(const uint8_t *data, size_t size, int skip)
{
	struct trace_reader *r = trace_reader_open_mem(data, size);
	if (r) {
		if (skip)
			trace_reader_skip_checksums(r);
		struct trace_chunk c;
		while (trace_reader_next(r, &c)) {
			struct trace_dec d;
			struct trace_rec rec;
			trace_dec_init(&d, c.data, c.len);
			while (trace_dec_next(&d, &rec) == 1) {
				uint64_t frames[8];
				if (rec.cls == MP_REC_EVENT && rec.event == MP_EV_STACK_DEF)
					trace_stack_frames(&rec, frames, 8);
			}
			struct trace_proc tp;
			struct trace_end te;
			trace_proc_decode(&c, &tp);
			trace_end_decode(&c, &te);
		}
		trace_reader_close(r);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	run_reader(data, size, 0);
	run_reader(data, size, 1);
	/* The full analysis reads a path: go through a temporary file. */
	char path[] = "/tmp/mp-fuzz-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		static struct mp_machine mm;
		static int have_mm;
		if (!have_mm)
			have_mm = mp_machine_preset("nehalem-e5504", &mm) == 0 ? 1 : -1;
		for (int run = 0; run < 4; run++) {
			struct an_result *res = NULL;
			/* a mutated count may claim any amount: the bounds on
			 * what the analysis holds, lowered, keep it within the
			 * fuzzer's memory limit and time (a pagemap run of 2^36
			 * pages, a chunk of one record repeated 64 MiB long) */
			struct an_opts o = { .roi = "kernel", .skip_checksums = run > 0, .bounds_shift = 6 };
			/* (a file of several processes: replayed at once, and
			 * again serially when they find damage: an_procs.c) */
			o.jobs = run == 1 || run == 3 ? 2 : 0;
			if (run >= 2) {
				/* the model too (bursts, ranges, walks), over the
				 * whole trace; a mutated length may claim a TiB, which
				 * the model takes a line at a time: 64 KiB at most
				 * (a thousand lines reach every path a range takes);
				 * the last run with the processes' models at once */
				if (have_mm < 0)
					break;
				o.roi = NULL;
				o.machine = &mm;
				o.max_model_range = 1u << 16;
				o.page_rows = 1; /* (the TLB view's) */
				/* (the serial processes' model on two threads: in
				 * bursts, the burst estimates, and an eighth of the
				 * model's work on the corpus's long traces; on the
				 * last run, the model lent to the worker and taken
				 * back as every 64 references judge) */
				o.model_threads = 2;
				o.model_window = 64;
				if (run == 2) {
					o.burst_on = 512;
					o.burst_off = 3584;
				}
				/* (the last run keeps its translations: the page-walk
				 * what-ifs made from them) */
				o.log_translations = run == 3;
			}
			/* (the object view's access patterns on two of the runs:
			 * with the model too, as report's default view has them) */
			struct an_patterns *pats = run & 1 ? an_patterns_new() : NULL;
			o.patterns = pats;
			if (an_run(path, &o, &res) == 0) {
				static const struct an_page_rule checks[2] = { { "main", 21 }, { "heap", 30 } };
				uint64_t walks[2];
				if (o.log_translations)
					an_result_check_walks(res, &mm, checks, 2, 2, walks);
				struct an_pattern *by_class = NULL;
				if (pats && !an_patterns_error(pats) && !an_patterns_by_class(pats, res, &by_class))
					free(by_class);
				an_result_free(res);
			}
			an_patterns_free(pats);
		}
	}
	close(fd);
	unlink(path);
	return 0;
}

/* --- the structure-aware mutator ---------------------------------------- */

#define MUT_MAX_CHUNKS 256
#define MUT_MAX_RAW (1u << 20) /* payloads decoded for mutation at most */

struct mut_chunk {
	size_t off, len; /* in the input: header and stored payload */
};

static uint64_t mut_rng;

static unsigned mut_rand(unsigned n)
{
	mut_rng ^= mut_rng << 13;
	mut_rng ^= mut_rng >> 7;
	mut_rng ^= mut_rng << 17;
	return n ? (unsigned)(mut_rng % n) : 0;
}

/* The whole chunks of a data file: their count (0: not a data file). */
static size_t mut_chunks(const uint8_t *d, size_t size, size_t *head, struct mut_chunk *c)
{
	struct mp_file_header fh;
	if (size < sizeof(fh) || memcmp(d, MP_FILE_MAGIC, 8))
		return 0;
	memcpy(&fh, d, sizeof(fh));
	if (fh.meta_len > size - sizeof(fh))
		return 0;
	size_t pos = sizeof(fh) + fh.meta_len, n = 0;
	*head = pos;
	while (n < MUT_MAX_CHUNKS && size - pos >= sizeof(struct mp_chunk_header)) {
		struct mp_chunk_header h;
		memcpy(&h, d + pos, sizeof(h));
		if (h.magic != MP_CHUNK_MAGIC || h.stored_len > size - pos - sizeof(h))
			break;
		c[n++] = (struct mut_chunk){ pos, sizeof(h) + h.stored_len };
		pos += sizeof(h) + h.stored_len;
	}
	return n;
}

/* A LEB128 value a damaged count might have: a page count of 2^28, a
 * length near 2^32, 2^63. */
static size_t mut_big_varint(uint8_t *p)
{
	static const uint64_t vals[] = { 1ull << 28, (1ull << 32) - 1, 1ull << 36, 1ull << 63, UINT64_MAX };
	uint64_t v = vals[mut_rand(sizeof(vals) / sizeof(vals[0]))];
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* Chunk c's payload decoded, mutated (libFuzzer's mutator, or a huge
 * varint put in), and framed again into out (room: trace_chunk_bound of
 * MUT_MAX_RAW); the framed size, or 0 if the chunk cannot be decoded. */
static size_t mut_payload(const uint8_t *d, const struct mut_chunk *c, uint8_t *raw, uint8_t *out)
{
	static ZSTD_CCtx *cctx;
	struct mp_chunk_header h;
	memcpy(&h, d + c->off, sizeof(h));
	const uint8_t *payload = d + c->off + sizeof(h);
	size_t n;
	if (h.codec == MP_CODEC_ZSTD) {
		if (h.raw_len > MUT_MAX_RAW)
			return 0;
		n = ZSTD_decompress(raw, MUT_MAX_RAW, payload, h.stored_len);
		if (ZSTD_isError(n))
			return 0;
	} else {
		n = h.stored_len < MUT_MAX_RAW ? h.stored_len : MUT_MAX_RAW;
		memcpy(raw, payload, n);
	}
	if (mut_rand(4) == 0 && n + MP_VARINT_MAX <= MUT_MAX_RAW) {
		size_t at = mut_rand((unsigned)n + 1);
		uint8_t v[MP_VARINT_MAX];
		size_t k = mut_big_varint(v);
		memmove(raw + at + k, raw + at, n - at);
		memcpy(raw + at, v, k);
		n += k;
	} else {
		size_t room = n + 64 < MUT_MAX_RAW ? n + 64 : MUT_MAX_RAW;
		n = LLVMFuzzerMutate(raw, n, room);
	}
	if (!cctx && !(cctx = ZSTD_createCCtx()))
		return 0;
	/* (header fields kept: type, stream, seq, accesses) */
	return trace_chunk_build(&h, raw, n, out, h.codec == MP_CODEC_ZSTD ? cctx : NULL, 1);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	static struct mut_chunk c[MUT_MAX_CHUNKS];
	static uint8_t *raw, *framed, *out;
	mut_rng = seed | 1ull << 32;
	size_t head, n = mut_chunks(data, size, &head, c);
	if (!n || mut_rand(8) == 0)
		return LLVMFuzzerMutate(data, size, max_size); /* bytes, CRCs and all */
	if (!raw && (!(raw = malloc(MUT_MAX_RAW)) || !(framed = malloc(trace_chunk_bound(MUT_MAX_RAW)))))
		return LLVMFuzzerMutate(data, size, max_size);
	out = realloc(out, max_size);
	if (!out)
		return LLVMFuzzerMutate(data, size, max_size);
	/* out: the header, then the chunks with one of them changed */
	size_t i = mut_rand((unsigned)n), j = mut_rand((unsigned)n), len = 0, flen = 0;
	unsigned what = mut_rand(6);
	if (what <= 2) { /* its records */
		if (!(flen = mut_payload(data, &c[i], raw, framed)))
			return LLVMFuzzerMutate(data, size, max_size);
	} else if (what == 3) { /* a header field, its CRC right */
		struct mp_chunk_header h;
		memcpy(&h, data + c[i].off, sizeof(h));
		switch (mut_rand(5)) {
		case 0:
			h.type = (uint16_t)mut_rand(9);
			break;
		case 1:
			h.seq = mut_rand(2) ? h.seq + 1 : 0;
			break;
		case 2:
			h.tid ^= 1u << mut_rand(4);
			break;
		case 3:
			h.raw_len = mut_rand(2) ? MP_CHUNK_MAX_RAW : h.raw_len + 1;
			break;
		default:
			h.accesses = MP_CHUNK_PLAIN | mut_rand(1u << 20);
			break;
		}
		h.header_crc = trace_crc32(&h, offsetof(struct mp_chunk_header, header_crc));
		memcpy(framed, &h, sizeof(h));
		memcpy(framed + sizeof(h), data + c[i].off + sizeof(h), c[i].len - sizeof(h));
		flen = c[i].len;
	}
	/* what 4: chunk i again after chunk j; 5: chunks i and j swapped */
	if (head > max_size)
		return LLVMFuzzerMutate(data, size, max_size);
	memcpy(out, data, head);
	len = head;
	for (size_t k = 0; k < n; k++) {
		const uint8_t *p = data + c[k].off;
		size_t l = c[k].len;
		if (what <= 3 && k == i) {
			p = framed;
			l = flen;
		} else if (what == 5 && (k == i || k == j)) {
			size_t o = k == i ? j : i;
			p = data + c[o].off;
			l = c[o].len;
		}
		for (int twice = 0; twice < 1 + (what == 4 && k == j); twice++) {
			const uint8_t *q = twice ? data + c[i].off : p;
			size_t ql = twice ? c[i].len : l;
			if (len + ql > max_size)
				return LLVMFuzzerMutate(data, size, max_size);
			memcpy(out + len, q, ql);
			len += ql;
		}
	}
	/* (and what followed the last whole chunk: a torn tail) */
	size_t end = c[n - 1].off + c[n - 1].len;
	if (len + size - end <= max_size) {
		memcpy(out + len, data + end, size - end);
		len += size - end;
	}
	memcpy(data, out, len);
	return len;
}
