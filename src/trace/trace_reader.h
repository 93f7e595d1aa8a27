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

#include "trace/trace_format.h"

struct trace_reader;

/* Opens path (mmap). NULL + errno on failure: ENOENT/EACCES from the OS,
 * MP_ERR_FORMAT / MP_ERR_VERSION / MP_ERR_CORRUPT for a bad header. */
struct trace_reader *trace_reader_open(const char *path);
/* Same over a caller-owned buffer (fuzzing, tests). buf must outlive the reader. */
struct trace_reader *trace_reader_open_mem(const void *buf, size_t len);
void trace_reader_close(struct trace_reader *r);
/* Fuzzing only: accept chunks whose CRCs do not match, so mutated inputs
 * reach the decoders instead of stopping at the first checksum. */
void trace_reader_skip_checksums(struct trace_reader *r);

const struct mp_file_header *trace_reader_header(const struct trace_reader *r);
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
/* Reads the chunk at a file offset seen before (from trace_chunk.offset). */
int trace_reader_read_at(struct trace_reader *r, uint64_t offset, struct trace_chunk *c);

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
