/* SPDX-License-Identifier: MIT */
/*
 * Reading memprism.data: the file header, then chunks one by one, then the
 * records inside a chunk. Damage is never fatal to the caller: the reader
 * stops at the last good chunk and says why (trace_reader_status).
 */
#ifndef MP_TRACE_READER_H
#define MP_TRACE_READER_H

#include <stddef.h>
#include <stdint.h>

#include "common/varint.h"
#include "trace/trace_format.h"

struct trace_reader;

/* Opens path (mmap). NULL + errno on failure: ENOENT/EACCES from the OS,
 * MP_ERR_FORMAT / MP_ERR_VERSION / MP_ERR_CORRUPT for a bad header. */
struct trace_reader *trace_reader_open(const char *path);
/* Same over a caller-owned buffer (fuzzing, tests). buf must outlive the reader. */
struct trace_reader *trace_reader_open_mem(const void *buf, size_t len);
/* A reader of r's file over r's memory (no descriptor or mapping of its
 * own), for another thread: it must be closed before r. NULL + errno. */
struct trace_reader *trace_reader_open_same(const struct trace_reader *r);
void trace_reader_close(struct trace_reader *r);
/* Fuzzing only: accept chunks whose CRCs do not match, so mutated inputs
 * reach the decoders instead of stopping at the first checksum. */
void trace_reader_skip_checksums(struct trace_reader *r);

const struct mp_file_header *trace_reader_header(const struct trace_reader *r);
/* The file's size in bytes: what the analysis bounds its tables by (a
 * count read from the file may claim more than the file can hold). */
uint64_t trace_reader_size(const struct trace_reader *r);
/* Value of key in the header's meta text, copied into buf; NULL if absent. */
const char *trace_reader_meta(const struct trace_reader *r, const char *key, char *buf, size_t len);

struct trace_chunk {
	struct mp_chunk_header hdr;
	const uint8_t *data; /* decoded payload, valid until the next call */
	size_t len;
	uint64_t offset; /* file offset of the chunk header */
};

/* Next chunk: 1 and *c filled, 0 at the end (clean or at damage: see status). */
int trace_reader_next(struct trace_reader *r, struct trace_chunk *c);
/* trace_reader_next leaving the payloads of the chunk types in `later` (a
 * bit per enum mp_chunk_type) undecoded: their checksums are checked, but
 * c->data is NULL (c->len the decoded length) and trace_reader_read_at
 * decodes them when needed, failing then on a payload that does not
 * decode. (An index of the file need not decompress every thread's
 * records a second time.) */
int trace_reader_next_lazy(struct trace_reader *r, struct trace_chunk *c, uint32_t later);
/* Reads the chunk at a file offset seen before (from trace_chunk.offset). */
int trace_reader_read_at(struct trace_reader *r, uint64_t offset, struct trace_chunk *c);
/* The size of the reader's own buffer if the chunk just read was decoded
 * into it (c->data is it: a compressed payload), else 0. */
size_t trace_reader_buf_cap(const struct trace_reader *r, const struct trace_chunk *c);
/* Hands the reader's buffer, with the chunk just decoded into it, to the
 * caller, and takes buf (cap bytes from malloc, or NULL) to decode the
 * next into: the caller keeps the records without copying them. */
uint8_t *trace_reader_swap_buf(struct trace_reader *r, uint8_t *buf, size_t cap);
/* Why the last trace_reader_read_at gave 0 (-MP_ERR_*, -ENOMEM); 0 if it did not. */
int trace_reader_read_error(const struct trace_reader *r);

/* 0 if every chunk so far was good, else the first damage found (-MP_ERR_*);
 * *offset gets the file offset where reading stopped. */
int trace_reader_status(const struct trace_reader *r, uint64_t *offset);

/* One decoded record of a STREAM chunk. */
struct trace_rec {
	enum mp_rec_class cls;
	/* ACCESS */
	uint64_t addr, size, ip;
	int write;
	int range; /* size came from an explicit length (mem*, str*) */
	/* EPOCH / EVENT / TIME / DROPPED */
	uint64_t epoch;
	unsigned event; /* enum mp_event_type */
	uint64_t f[12]; /* event fields in format order (see trace_format.h) */
	unsigned nf;
	const char *str; /* event string (not NUL-terminated), or stack frames */
	size_t str_len;
	const uint8_t *frames; /* STACK_DEF: varint-encoded frames */
	size_t frames_len;
};

struct trace_dec {
	const uint8_t *p, *end;
	uint64_t last_addr, last_ip, prev_ip; /* ip slots 0 and 1 (trace_format.h) */
	uint64_t epoch, time, last_ev_addr; /* event delta bases */
};

void trace_dec_init(struct trace_dec *d, const uint8_t *data, size_t len);
/* 1 and *rec filled; 0 at the end; -MP_ERR_CORRUPT on a malformed record. */
int trace_dec_next(struct trace_dec *d, struct trace_rec *rec);

/* A varint whose first byte ends it (most address deltas of a loop) without
 * mp_get_uv's loop. */
static inline int trace_get_uv(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	if (*pp < end && **pp < 0x80) {
		*out = *(*pp)++;
		return 0;
	}
	return mp_get_uv(pp, end, out);
}

/* The fields of one decoded access, as in trace_rec: small enough for a
 * loop to keep in registers. */
struct trace_acc {
	uint64_t addr, size, ip;
	int write, range;
};

_Static_assert(MP_ACC_FAR_BYTES == 6, "trace_dec_acc reads ACCESS_FAR's delta as 6 bytes");

/* If the next record is a well-formed access (any of the four access
 * classes), decodes it as trace_dec_next does into *a and returns 1; else
 * returns 0 and consumes nothing, so trace_dec_next can take the record
 * (and report it if it is malformed). Inline: the replay decodes runs of
 * accesses with it, and most of a trace is such runs. */
static inline __attribute__((always_inline)) int trace_dec_acc(struct trace_dec *d, struct trace_acc *a)
{
	const uint8_t *p = d->p, *end = d->end;
	if (end - p < 2) /* every access has a tag and a delta */
		return 0;
	uint8_t tag = p[0];
	unsigned sc = tag & 7;
	uint64_t v, size = 1ull << sc, ip = d->last_ip;
	if (MP_TAG_CLASS(tag) == MP_REC_ACCESS_SLOT && sc != MP_SIZE_RANGE && p[1] < 0x80) {
		/* v2's inline sites, near the last access: most of a loop's records */
		v = p[1];
		p += 2;
		if (tag & MP_ACC_SLOT1)
			ip = d->prev_ip;
		goto done;
	}
	p++;
	switch (MP_TAG_CLASS(tag)) {
	case MP_REC_ACCESS_SLOT:
		/* a fixed ip slot: nothing moves */
		if (sc == MP_SIZE_RANGE || trace_get_uv(&p, end, &v))
			return 0;
		if (tag & MP_ACC_SLOT1)
			ip = d->prev_ip;
		break;
	case MP_REC_ACCESS_FAR:
		if (sc == MP_SIZE_RANGE || (size_t)(end - p) < MP_ACC_FAR_BYTES)
			return 0;
		/* spelt out: compilers make it two loads, not a loop */
		v = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
		    (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40;
		p += MP_ACC_FAR_BYTES;
		if (tag & MP_ACC_SLOT1)
			ip = d->prev_ip;
		break;
	case MP_REC_ACCESS:
	case MP_REC_ACCESS_IP2: {
		int ip2 = MP_TAG_CLASS(tag) == MP_REC_ACCESS_IP2;
		uint64_t prev_ip = d->prev_ip;
		if (trace_get_uv(&p, end, &v) || (sc == MP_SIZE_RANGE && trace_get_uv(&p, end, &size)))
			return 0;
		if (tag & MP_ACC_IP) {
			uint64_t dip;
			if (trace_get_uv(&p, end, &dip))
				return 0;
			if (ip2) {
				/* v2: slot 1 moves in place and names the ip */
				ip = d->prev_ip += (uint64_t)mp_unzigzag(dip);
				break;
			}
			prev_ip = ip;
			ip += (uint64_t)mp_unzigzag(dip);
		} else if (ip2) {
			prev_ip = ip;
			ip = d->prev_ip;
		}
		d->last_ip = ip;
		d->prev_ip = prev_ip;
		break;
	}
	default:
		return 0;
	}
done:;
	const uint64_t addr = d->last_addr + (uint64_t)mp_unzigzag(v);
	if (sc == MP_SIZE_RANGE && (addr > MP_ADDR_END || size > MP_ADDR_END - addr))
		return 0; /* (malformed: trace_dec_next says so) */
	d->p = p;
	d->last_addr = addr;
	a->addr = addr;
	a->size = size;
	a->ip = ip;
	a->write = !!(tag & MP_ACC_WRITE);
	a->range = sc == MP_SIZE_RANGE;
	return 1;
}

/* A decoded access as the ACCESS record *rec. */
static inline void trace_rec_set_access(struct trace_rec *rec, const struct trace_acc *a)
{
	rec->cls = MP_REC_ACCESS;
	rec->addr = a->addr;
	rec->size = a->size;
	rec->ip = a->ip;
	rec->write = a->write;
	rec->range = a->range;
}

/* trace_dec_acc into the ACCESS fields of *rec. */
static inline __attribute__((always_inline)) int trace_dec_access(struct trace_dec *d, struct trace_rec *rec)
{
	struct trace_acc a;
	if (!trace_dec_acc(d, &a))
		return 0;
	trace_rec_set_access(rec, &a);
	return 1;
}

/* Decodes a STACK_DEF's frames into out (max n); returns the count or -1. */
int trace_stack_frames(const struct trace_rec *rec, uint64_t *out, int n);

/* Decode PROCESS / END chunk payloads. Strings point into the chunk data. */
struct trace_proc {
	uint64_t pid, ppid, parent_proc, fork_epoch, time, flags;
	const char *exe, *cmdline;
	size_t exe_len, cmdline_len;
};
int trace_proc_decode(const struct trace_chunk *c, struct trace_proc *out);
struct trace_end {
	uint64_t time, accesses, dropped, chunks, status;
	uint64_t handler_jumps; /* v3; 0 in earlier files */
};
int trace_end_decode(const struct trace_chunk *c, struct trace_end *out);

/* A PAGEMAP chunk's runs (trace_format.h): open, then next until 0. */
struct trace_pagemap {
	uint64_t pid, time, nruns;
	const uint8_t *p, *end;
	uint64_t vpage, left;
};
struct trace_pagemap_run {
	uint64_t vpage, npages, pfn, flags; /* pfn 0: the pages went away */
};
int trace_pagemap_open(const struct trace_chunk *c, struct trace_pagemap *pm);
/* 1 and *run filled, 0 after the last run, -MP_ERR_CORRUPT. */
int trace_pagemap_next(struct trace_pagemap *pm, struct trace_pagemap_run *run);

#endif
