// SPDX-License-Identifier: MIT
/*
 * trace_edit: rewrites a data file's chunks for the tests of damaged and
 * hostile files (tests/cli/test_hostile.sh) and for making fuzz corpus
 * entries. A chunk it changes is framed again (zstd when that is smaller)
 * with correct CRCs, so the edit reaches past the reader's checks: what a
 * tampered file, not a torn one, looks like. Test code: exits on any error.
 *
 *   trace_edit IN OUT OP...      (OUT "-": no file written)
 *
 * Chunks are named by index (0 first) or TYPE:K, the K-th chunk of a type
 * (stream, process, end, run_end, samples, pagemap, or a number), counted
 * when the operation runs. Operations, applied in order:
 *   list              print the chunks as they will be written: index,
 *                     type, pid, tid, seq, sizes, accesses (the header's
 *                     count, - if none), file offset
 *   dup C             a second copy of chunk C right after it
 *   raw C             chunk C framed raw (uncompressed), its records as they were
 *   cut C N           chunk C's payload keeps its first N bytes
 *   swap C D          chunks C and D exchange places
 *   hdr C FIELD N     chunk C's header field (type, pid, tid, proc, seq,
 *                     raw_len, accesses) becomes N; its payload stays (a
 *                     raw_len that lies: a header that lies, CRCs right)
 *   drop C            chunk C goes
 *   drop-type T       every chunk of type T goes
 *   keep N            only the first N chunks stay (0: the header alone)
 *   set C HEX         chunk C's payload becomes the bytes HEX
 *   grow C HEX N      chunk C's payload gets N copies of HEX appended
 * HEX may be @FILE: the bytes of FILE (records too many for a command line).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "trace/trace_format.h"
#include "trace/trace_writer.h"

/* Payloads are shared by copies (dup) and never freed (xmalloc keeps
 * them): the tool runs for one edit, and a test's twenty copies of a
 * 64 MiB chunk stay 64 MiB. */
struct chunk {
	struct mp_chunk_header h;
	const uint8_t *raw; /* decoded payload (h.raw_len bytes) */
	const uint8_t *stored; /* framed payload as it goes to the file, NULL: frame raw again */
};

static struct chunk *chunks;
static size_t nchunks;

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "trace_edit: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(1);
}

/* Every block allocated, kept reachable to the end (see struct chunk). */
static void **blocks;
static size_t nblocks;

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	void **nb = realloc(blocks, (nblocks + 1) * sizeof(*blocks));
	if (!p || !nb)
		die("out of memory%s", "");
	blocks = nb;
	blocks[nblocks++] = p;
	return p;
}

static const char *const type_names[] = {
	[MP_CHUNK_STREAM] = "stream", [MP_CHUNK_PROCESS] = "process", [MP_CHUNK_END] = "end",
	[MP_CHUNK_RUN_END] = "run_end", [MP_CHUNK_SAMPLES] = "samples", [MP_CHUNK_PAGEMAP] = "pagemap",
};
#define NTYPES (sizeof(type_names) / sizeof(type_names[0]))

static unsigned long long num(const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (!*s || *end || errno)
		die("not a number: '%s'", s);
	return v;
}

static unsigned type_of(const char *s)
{
	for (unsigned t = 0; t < NTYPES; t++)
		if (type_names[t] && !strcmp(s, type_names[t]))
			return t;
	return (unsigned)num(s);
}

static size_t chunk_at(const char *spec)
{
	const char *colon = strchr(spec, ':');
	if (!colon) {
		size_t i = (size_t)num(spec);
		if (i >= nchunks)
			die("no chunk %s", spec);
		return i;
	}
	char name[32];
	snprintf(name, sizeof(name), "%.*s", (int)(colon - spec), spec);
	unsigned t = type_of(name);
	unsigned long long k = num(colon + 1);
	for (size_t i = 0; i < nchunks; i++)
		if (chunks[i].h.type == t && k-- == 0)
			return i;
	die("no chunk %s", spec);
	return 0;
}

static uint8_t *load_file(const char *path, size_t *n);

static uint8_t *unhex(const char *s, size_t *n)
{
	if (s[0] == '@')
		return load_file(s + 1, n);
	size_t len = strlen(s);
	if (len % 2)
		die("odd number of hex digits: %s", s);
	uint8_t *b = xmalloc(len / 2);
	for (size_t i = 0; i < len / 2; i++) {
		unsigned v;
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			die("not hex: %s", s);
		b[i] = (uint8_t)v;
	}
	*n = len / 2;
	return b;
}

static uint8_t *load_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		die("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = xmalloc((size_t)size);
	if (size < 0 || fread(b, 1, (size_t)size, f) != (size_t)size)
		die("cannot read %s", path);
	fclose(f);
	*n = (size_t)size;
	return b;
}

static void load(const char *path, uint8_t **head, size_t *head_len)
{
	size_t size;
	uint8_t *b = load_file(path, &size);
	struct mp_file_header fh;
	if (size < sizeof(fh))
		die("%s: too short", path);
	memcpy(&fh, b, sizeof(fh));
	if (fh.meta_len > size - sizeof(fh))
		die("%s: its header is damaged (edit clean files)", path);
	size_t pos = sizeof(fh) + fh.meta_len;
	*head = b;
	*head_len = pos;
	while (pos + sizeof(struct mp_chunk_header) <= size) {
		struct chunk c = { 0 };
		memcpy(&c.h, b + pos, sizeof(c.h));
		if (c.h.magic != MP_CHUNK_MAGIC || c.h.stored_len > size - pos - sizeof(c.h))
			die("%s: a chunk is damaged (edit clean files)", path);
		const uint8_t *payload = b + pos + sizeof(c.h);
		if (c.h.codec == MP_CODEC_ZSTD) {
			uint8_t *raw = xmalloc(c.h.raw_len);
			size_t n = ZSTD_decompress(raw, c.h.raw_len, payload, c.h.stored_len);
			if (ZSTD_isError(n) || n != c.h.raw_len)
				die("%s: a chunk does not decompress", path);
			c.raw = raw;
		} else {
			c.raw = payload;
		}
		c.stored = payload;
		chunks = realloc(chunks, (nchunks + 1) * sizeof(*chunks));
		if (!chunks)
			die("out of memory%s", "");
		chunks[nchunks++] = c;
		pos += sizeof(c.h) + c.h.stored_len;
	}
}

/* The chunk's payload as it goes to the file: framed again if edited. */
static void frame(struct chunk *c)
{
	if (c->stored)
		return;
	size_t cap = trace_chunk_bound(c->h.raw_len);
	uint8_t *out = xmalloc(cap);
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	trace_chunk_build(&c->h, c->raw, c->h.raw_len, out, cc, 3); /* (sets stored_len) */
	ZSTD_freeCCtx(cc);
	c->stored = out + sizeof(c->h);
}

static void write_chunk(FILE *f, struct chunk *c)
{
	frame(c);
	/* (a header edit needs its CRC again) */
	c->h.header_crc = trace_crc32(&c->h, offsetof(struct mp_chunk_header, header_crc));
	fwrite(&c->h, sizeof(c->h), 1, f);
	fwrite(c->stored, 1, c->h.stored_len, f);
}

int main(int argc, char **argv)
{
	if (argc < 3)
		die("usage: trace_edit IN OUT OP... (see the comment atop trace_edit.c)%s", "");
	uint8_t *head;
	size_t head_len;
	load(argv[1], &head, &head_len);
	for (int i = 3; i < argc; i++) {
		const char *op = argv[i];
#define ARG(k) (i + (k) < argc ? argv[i + (k)] : (die("%s: missing argument", op), ""))
		if (!strcmp(op, "list")) {
			uint64_t off = head_len;
			for (size_t k = 0; k < nchunks; k++) {
				frame(&chunks[k]);
				const struct mp_chunk_header *h = &chunks[k].h;
				printf("%zu %s pid %u tid %u proc %016llx seq %u raw %u stored %u accesses ", k,
				       h->type < NTYPES && type_names[h->type] ? type_names[h->type] : "?", h->pid,
				       h->tid, (unsigned long long)h->proc_id, h->seq, h->raw_len, h->stored_len);
				if (h->accesses & MP_CHUNK_PLAIN)
					printf("%u", h->accesses & ~MP_CHUNK_PLAIN);
				else
					printf("-");
				printf(" at %llu\n", (unsigned long long)off);
				off += sizeof(*h) + h->stored_len;
			}
		} else if (!strcmp(op, "dup")) {
			size_t k = chunk_at(ARG(1));
			struct chunk c = chunks[k];
			chunks = realloc(chunks, (nchunks + 1) * sizeof(*chunks));
			if (!chunks)
				die("out of memory%s", "");
			memmove(&chunks[k + 2], &chunks[k + 1], (nchunks - k - 1) * sizeof(*chunks));
			chunks[k + 1] = c;
			nchunks++;
			i += 1;
		} else if (!strcmp(op, "raw")) {
			struct chunk *c = &chunks[chunk_at(ARG(1))];
			c->h.codec = MP_CODEC_RAW;
			c->h.stored_len = c->h.raw_len;
			c->h.payload_crc = trace_crc32(c->raw, c->h.raw_len);
			c->stored = c->raw;
			i += 1;
		} else if (!strcmp(op, "cut")) {
			struct chunk *c = &chunks[chunk_at(ARG(1))];
			uint64_t n = num(ARG(2));
			if (n > c->h.raw_len)
				die("cut: the payload is shorter than %s bytes", ARG(2));
			c->h.raw_len = (uint32_t)n;
			c->h.accesses = 0; /* (no longer a count the records agree with) */
			c->stored = NULL;
			i += 2;
		} else if (!strcmp(op, "swap")) {
			size_t a = chunk_at(ARG(1)), b = chunk_at(ARG(2));
			struct chunk t = chunks[a];
			chunks[a] = chunks[b];
			chunks[b] = t;
			i += 2;
		} else if (!strcmp(op, "hdr")) {
			struct mp_chunk_header *h = &chunks[chunk_at(ARG(1))].h;
			const char *f = ARG(2);
			unsigned long long v = num(ARG(3));
			if (!strcmp(f, "type"))
				h->type = (uint16_t)v;
			else if (!strcmp(f, "pid"))
				h->pid = (uint32_t)v;
			else if (!strcmp(f, "tid"))
				h->tid = (uint32_t)v;
			else if (!strcmp(f, "proc"))
				h->proc_id = v;
			else if (!strcmp(f, "seq"))
				h->seq = (uint32_t)v;
			else if (!strcmp(f, "raw_len"))
				h->raw_len = (uint32_t)v;
			else if (!strcmp(f, "accesses"))
				h->accesses = (uint32_t)v;
			else
				die("no header field '%s'", f);
			i += 3;
		} else if (!strcmp(op, "drop") || !strcmp(op, "drop-type")) {
			int by_type = op[4] == '-';
			unsigned t = by_type ? type_of(ARG(1)) : 0;
			size_t one = by_type ? 0 : chunk_at(ARG(1)), n = 0;
			for (size_t k = 0; k < nchunks; k++)
				if (by_type ? chunks[k].h.type != t : k != one)
					chunks[n++] = chunks[k];
			nchunks = n;
			i += 1;
		} else if (!strcmp(op, "keep")) {
			size_t n = (size_t)num(ARG(1));
			if (n < nchunks)
				nchunks = n;
			i += 1;
		} else if (!strcmp(op, "set") || !strcmp(op, "grow")) {
			struct chunk *c = &chunks[chunk_at(ARG(1))];
			size_t n;
			uint8_t *b = unhex(ARG(2), &n);
			uint64_t times = op[0] == 'g' ? num(ARG(3)) : 1;
			uint64_t base = op[0] == 'g' ? c->h.raw_len : 0, len = base + n * times;
			if (len > MP_CHUNK_MAX_RAW)
				die("%s: more than a chunk holds", op);
			uint8_t *raw = xmalloc((size_t)len);
			memcpy(raw, c->raw, (size_t)base);
			for (uint64_t k = 0; k < times; k++)
				memcpy(raw + base + k * n, b, n);
			c->raw = raw;
			c->h.raw_len = (uint32_t)len;
			c->h.accesses = 0; /* (no longer a count the records agree with) */
			c->stored = NULL;
			i += op[0] == 'g' ? 3 : 2;
		} else {
			die("unknown operation '%s'", op);
		}
	}
	if (strcmp(argv[2], "-")) {
		FILE *f = fopen(argv[2], "wb");
		if (!f)
			die("cannot create %s", argv[2]);
		fwrite(head, 1, head_len, f);
		for (size_t k = 0; k < nchunks; k++)
			write_chunk(f, &chunks[k]);
		if (fclose(f))
			die("cannot write %s", argv[2]);
	}
	return 0;
}
