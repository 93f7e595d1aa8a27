// SPDX-License-Identifier: MIT
/*
 * memprism.data reader (see trace_reader.h). Every length and offset read from
 * the file is checked before use: the fuzz target in tests/fuzz drives this
 * file with arbitrary bytes.
 */
#include "trace/trace_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "common/mp_error.h"
#include "common/varint.h"
#include "trace/trace_writer.h"

struct trace_reader {
	const uint8_t *base;
	size_t size;
	int mapped;
	struct mp_file_header hdr;
	const char *meta;
	uint64_t pos; /* offset of the next chunk */
	int status;
	uint64_t status_off;
	int read_err; /* why the last trace_reader_read_at failed, or 0 */
	int skip_crc; /* fuzzing: mutated inputs should reach the decoders */
	/* the chunks before this offset were read in turn from the first and
	 * their payloads' checksums held: read again (trace_reader_read_at, a
	 * replay's every chunk after the index's pass), the same mapped bytes
	 * are not summed twice (1-2% of a report) */
	uint64_t checked_to;
	uint8_t *buf; /* decompression buffer */
	size_t buf_cap;
	ZSTD_DCtx *dctx;
};

static struct trace_reader *reader_init(const uint8_t *base, size_t size, int mapped)
{
	struct trace_reader *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->base = base;
	r->size = size;
	r->mapped = mapped;
	int err = -MP_ERR_FORMAT;
	if (size < sizeof(r->hdr) || memcmp(base, MP_FILE_MAGIC, 8) != 0)
		goto fail;
	memcpy(&r->hdr, base, sizeof(r->hdr));
	err = -MP_ERR_CORRUPT;
	if (r->hdr.header_crc != trace_crc32(&r->hdr, offsetof(struct mp_file_header, header_crc)))
		goto fail;
	err = -MP_ERR_VERSION;
	if (r->hdr.version < MP_FORMAT_V1 || r->hdr.version > MP_FORMAT_CURRENT)
		goto fail;
	err = -MP_ERR_CORRUPT;
	if (r->hdr.header_len != sizeof(r->hdr) || r->hdr.meta_len > size - sizeof(r->hdr))
		goto fail;
	r->meta = (const char *)base + sizeof(r->hdr);
	if (r->hdr.meta_crc != trace_crc32(r->meta, r->hdr.meta_len))
		goto fail;
	r->pos = r->checked_to = sizeof(r->hdr) + r->hdr.meta_len;
	r->dctx = ZSTD_createDCtx();
	if (!r->dctx) {
		err = -ENOMEM;
		goto fail;
	}
	return r;
fail:
	free(r);
	errno = -err;
	return NULL;
}

struct trace_reader *trace_reader_open_mem(const void *buf, size_t len)
{
	return reader_init(buf, len, 0);
}

struct trace_reader *trace_reader_open_same(const struct trace_reader *r)
{
	struct trace_reader *n = reader_init(r->base, r->size, 0);
	if (n) {
		n->skip_crc = r->skip_crc;
		n->checked_to = r->checked_to; /* (the same bytes) */
	}
	return n;
}

struct trace_reader *trace_reader_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		/* (a pipe or a device: the file is mapped whole) */
		errno = S_ISDIR(st.st_mode) ? EISDIR : MP_ERR_NOT_REGULAR;
		return NULL;
	}
	if ((size_t)st.st_size < sizeof(struct mp_file_header)) {
		close(fd);
		errno = MP_ERR_FORMAT;
		return NULL;
	}
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	int e = errno;
	close(fd);
	if (m == MAP_FAILED) {
		errno = e;
		return NULL;
	}
	struct trace_reader *r = reader_init(m, (size_t)st.st_size, 1);
	if (!r) {
		e = errno;
		munmap(m, (size_t)st.st_size);
		errno = e;
	}
	return r;
}

void trace_reader_skip_checksums(struct trace_reader *r)
{
	r->skip_crc = 1;
}

void trace_reader_close(struct trace_reader *r)
{
	if (!r)
		return;
	if (r->mapped)
		munmap((void *)r->base, r->size);
	ZSTD_freeDCtx(r->dctx);
	free(r->buf);
	free(r);
}

const struct mp_file_header *trace_reader_header(const struct trace_reader *r)
{
	return &r->hdr;
}

uint64_t trace_reader_size(const struct trace_reader *r)
{
	return r->size;
}

const char *trace_reader_meta(const struct trace_reader *r, const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);
	const char *p = r->meta, *end = r->meta + r->hdr.meta_len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		if ((size_t)(le - p) > klen && p[klen] == '=' && memcmp(p, key, klen) == 0) {
			size_t vl = (size_t)(le - p) - klen - 1;
			if (len == 0)
				return NULL;
			if (vl >= len)
				vl = len - 1;
			memcpy(buf, p + klen + 1, vl);
			buf[vl] = 0;
			return buf;
		}
		p = le + 1;
	}
	return NULL;
}

int trace_reader_read_at(struct trace_reader *r, uint64_t offset, struct trace_chunk *c)
{
	uint64_t pos = r->pos;
	int status = r->status;
	r->pos = offset;
	r->status = 0;
	int got = offset < r->size ? trace_reader_next(r, c) : 0;
	r->read_err = got ? 0 : r->status ? r->status : -MP_ERR_TRUNCATED;
	r->pos = pos;
	r->status = status;
	return got;
}

size_t trace_reader_buf_cap(const struct trace_reader *r, const struct trace_chunk *c)
{
	return r->buf && c->data == r->buf ? r->buf_cap : 0;
}

uint8_t *trace_reader_swap_buf(struct trace_reader *r, uint8_t *buf, size_t cap)
{
	uint8_t *mine = r->buf;
	r->buf = buf;
	r->buf_cap = buf ? cap : 0;
	return mine;
}

int trace_reader_read_error(const struct trace_reader *r)
{
	return r->read_err;
}

int trace_reader_status(const struct trace_reader *r, uint64_t *offset)
{
	if (offset)
		*offset = r->status_off;
	return r->status;
}

static int stop(struct trace_reader *r, int err)
{
	r->status = err;
	r->status_off = r->pos;
	return 0;
}

int trace_reader_next(struct trace_reader *r, struct trace_chunk *c)
{
	return trace_reader_next_lazy(r, c, 0);
}

int trace_reader_next_lazy(struct trace_reader *r, struct trace_chunk *c, uint32_t later)
{
	if (r->status)
		return 0;
	if (r->pos == r->size)
		return 0;
	if (r->size - r->pos < sizeof(struct mp_chunk_header))
		return stop(r, -MP_ERR_TRUNCATED);
	struct mp_chunk_header h;
	memcpy(&h, r->base + r->pos, sizeof(h));
	if (h.magic != MP_CHUNK_MAGIC ||
	    (!r->skip_crc && h.header_crc != trace_crc32(&h, offsetof(struct mp_chunk_header, header_crc))))
		return stop(r, -MP_ERR_CORRUPT);
	if (h.raw_len > MP_CHUNK_MAX_RAW || h.stored_len > MP_CHUNK_MAX_RAW + MP_CHUNK_MAX_RAW / 8)
		return stop(r, -MP_ERR_CORRUPT);
	if (h.stored_len > r->size - r->pos - sizeof(h))
		return stop(r, -MP_ERR_TRUNCATED);
	const uint8_t *payload = r->base + r->pos + sizeof(h);
	if (!r->skip_crc && r->pos >= r->checked_to && h.payload_crc != trace_crc32(payload, h.stored_len))
		return stop(r, -MP_ERR_CORRUPT);
	if (r->pos == r->checked_to)
		r->checked_to = r->pos + sizeof(h) + h.stored_len;
	if (h.type < 32 && (later >> h.type & 1)) {
		/* decoded by trace_reader_read_at */
		if ((h.codec == MP_CODEC_RAW && h.stored_len != h.raw_len) ||
		    (h.codec != MP_CODEC_RAW && h.codec != MP_CODEC_ZSTD))
			return stop(r, -MP_ERR_CORRUPT);
		c->data = NULL;
		goto done;
	}
	switch (h.codec) {
	case MP_CODEC_RAW:
		if (h.stored_len != h.raw_len)
			return stop(r, -MP_ERR_CORRUPT);
		c->data = payload;
		break;
	case MP_CODEC_ZSTD: {
		/* the frame says how much it decodes to: a header claiming
		 * another length is not worth a buffer of that length */
		unsigned long long fs = ZSTD_getFrameContentSize(payload, h.stored_len);
		if (fs == ZSTD_CONTENTSIZE_ERROR || (fs != ZSTD_CONTENTSIZE_UNKNOWN && fs != h.raw_len))
			return stop(r, -MP_ERR_CORRUPT);
		if (r->buf_cap < h.raw_len || !r->buf) {
			size_t cap = h.raw_len ? h.raw_len : 1;
			uint8_t *nb = realloc(r->buf, cap);
			if (!nb)
				return stop(r, -ENOMEM);
			r->buf = nb;
			r->buf_cap = cap;
		}
		size_t n = ZSTD_decompressDCtx(r->dctx, r->buf, r->buf_cap, payload, h.stored_len);
		if (ZSTD_isError(n) || n != h.raw_len)
			return stop(r, -MP_ERR_CORRUPT);
		c->data = r->buf;
		break;
	}
	default:
		return stop(r, -MP_ERR_CORRUPT);
	}
done:
	c->hdr = h;
	c->len = h.raw_len;
	c->offset = r->pos;
	r->pos += sizeof(h) + h.stored_len;
	return 1;
}

void trace_dec_init(struct trace_dec *d, const uint8_t *data, size_t len)
{
	d->p = data;
	d->end = len ? data + len : data; /* data may be NULL when len is 0 */
	d->last_addr = 0;
	d->last_ip = 0;
	d->prev_ip = 0;
	d->epoch = d->time = d->last_ev_addr = 0;
}

/* Per event type: number of varint fields after the epoch, and whether a
 * string follows them. STACK_DEF is decoded apart. */
static const struct {
	uint8_t nf, str;
} ev_layout[] = {
	[MP_EV_ALLOC] = { 7, 0 },	 [MP_EV_FREE] = { 3, 0 },
	[MP_EV_MMAP] = { 8, 1 },	 [MP_EV_MUNMAP] = { 4, 0 },
	[MP_EV_MREMAP] = { 6, 0 },	 [MP_EV_THREAD_START] = { 6, 1 },
	[MP_EV_THREAD_EXIT] = { 2, 0 },	 [MP_EV_MODULE] = { 4, 1 },
	[MP_EV_REGION_BEGIN] = { 2, 1 }, [MP_EV_REGION_END] = { 2, 1 },
	[MP_EV_NAME_RANGE] = { 3, 1 },	 [MP_EV_GROUP_DEF] = { 2, 1 },
	[MP_EV_STACK_DEF] = { 2, 0 },	 [MP_EV_FORK] = { 3, 0 },
	[MP_EV_THREAD_NAME] = { 1, 1 },	 [MP_EV_MAP_INITIAL] = { 4, 1 },
	[MP_EV_TLS_BLOCK] = { 4, 0 },	 [MP_EV_MODULE_UNLOAD] = { 4, 0 },
	[MP_EV_FAULT] = { 7, 0 },	 [MP_EV_SAMPLE] = { 11, 1 },
	[MP_EV_LOST] = { 3, 0 },	 [MP_EV_SAMPLE_DEF] = { 6, 1 },
	[MP_EV_AFFINITY] = { 3, 1 },	 [MP_EV_MEMPOLICY] = { 4, 0 },
	[MP_EV_MBIND] = { 7, 0 },	 [MP_EV_MOVE_PAGES] = { 4, 1 },
};

static int get_str(struct trace_dec *d, const char **s, size_t *len)
{
	uint64_t n;
	if (mp_get_uv(&d->p, d->end, &n) || n > (uint64_t)(d->end - d->p))
		return -1;
	*s = (const char *)d->p;
	*len = (size_t)n;
	d->p += n;
	return 0;
}

#define MP_STACK_MAX_DEPTH 256

int trace_dec_next(struct trace_dec *d, struct trace_rec *rec)
{
	if (d->p >= d->end)
		return 0;
	if (trace_dec_access(d, rec))
		return 1;
	uint8_t tag = *d->p++;
	rec->cls = (enum mp_rec_class)MP_TAG_CLASS(tag);
	switch (rec->cls) {
	case MP_REC_EPOCH:
	case MP_REC_DROPPED:
		if ((tag & 0x1f) || mp_get_uv(&d->p, d->end, &rec->epoch))
			goto bad;
		if (rec->cls == MP_REC_EPOCH)
			d->epoch = rec->epoch;
		return 1;
	case MP_REC_TIME:
		rec->nf = 2;
		if ((tag & 0x1f) || mp_get_uv(&d->p, d->end, &rec->f[0]) ||
		    mp_get_uv(&d->p, d->end, &rec->f[1]))
			goto bad;
		d->time = rec->f[0];
		return 1;
	case MP_REC_EVENT: {
		unsigned t = tag & 0x1f;
		uint64_t v;
		if (t == 0 || t >= sizeof(ev_layout) / sizeof(ev_layout[0]) || !ev_layout[t].nf)
			goto bad;
		rec->event = t;
		if (mp_get_uv(&d->p, d->end, &v))
			goto bad;
		d->epoch += v;
		rec->epoch = d->epoch;
		rec->nf = ev_layout[t].nf;
		for (unsigned i = 0; i < rec->nf; i++)
			if (mp_get_uv(&d->p, d->end, &rec->f[i]))
				goto bad;
		/* deltas: every event but STACK_DEF starts with its time; ALLOC
		 * and FREE addresses follow the previous one */
		if (t != MP_EV_STACK_DEF) {
			d->time += (uint64_t)mp_unzigzag(rec->f[0]);
			rec->f[0] = d->time;
		}
		if (t == MP_EV_ALLOC || t == MP_EV_FREE) {
			d->last_ev_addr += (uint64_t)mp_unzigzag(rec->f[2]);
			rec->f[2] = d->last_ev_addr;
		}
		rec->str = NULL;
		rec->str_len = 0;
		if (ev_layout[t].str && get_str(d, &rec->str, &rec->str_len))
			goto bad;
		if (t == MP_EV_STACK_DEF) {
			if (rec->f[1] > MP_STACK_MAX_DEPTH)
				goto bad;
			rec->frames = d->p;
			for (uint64_t i = 0; i < rec->f[1]; i++)
				if (mp_get_uv(&d->p, d->end, &v))
					goto bad;
			rec->frames_len = (size_t)(d->p - rec->frames);
		}
		return 1;
	}
	default:
		goto bad; /* an access trace_dec_access found malformed, or no class */
	}
bad:
	d->p = d->end;
	return -MP_ERR_CORRUPT;
}

int trace_stack_frames(const struct trace_rec *rec, uint64_t *out, int n)
{
	const uint8_t *p = rec->frames, *end = rec->frames + rec->frames_len;
	int k = 0;
	uint64_t v;
	while (p < end) {
		if (mp_get_uv(&p, end, &v))
			return -1;
		if (k < n)
			out[k] = v;
		k++;
	}
	return k < n ? k : n;
}

int trace_proc_decode(const struct trace_chunk *c, struct trace_proc *o)
{
	struct trace_dec d;
	trace_dec_init(&d, c->data, c->len);
	uint64_t *f[] = { &o->pid, &o->ppid, &o->parent_proc, &o->fork_epoch, &o->time };
	for (size_t i = 0; i < 5; i++)
		if (mp_get_uv(&d.p, d.end, f[i]))
			return -MP_ERR_CORRUPT;
	if (get_str(&d, &o->exe, &o->exe_len) || get_str(&d, &o->cmdline, &o->cmdline_len) ||
	    mp_get_uv(&d.p, d.end, &o->flags))
		return -MP_ERR_CORRUPT;
	return 0;
}

int trace_end_decode(const struct trace_chunk *c, struct trace_end *o)
{
	struct trace_dec d;
	trace_dec_init(&d, c->data, c->len);
	uint64_t *f[] = { &o->time, &o->accesses, &o->dropped, &o->chunks, &o->status };
	for (size_t i = 0; i < 5; i++)
		if (mp_get_uv(&d.p, d.end, f[i]))
			return -MP_ERR_CORRUPT;
	o->handler_jumps = 0;
	if (d.p < d.end && mp_get_uv(&d.p, d.end, &o->handler_jumps))
		return -MP_ERR_CORRUPT;
	return 0;
}

int trace_pagemap_open(const struct trace_chunk *c, struct trace_pagemap *pm)
{
	pm->p = c->data;
	pm->end = c->data + c->len;
	pm->vpage = 0;
	if (mp_get_uv(&pm->p, pm->end, &pm->pid) || mp_get_uv(&pm->p, pm->end, &pm->time) ||
	    mp_get_uv(&pm->p, pm->end, &pm->nruns))
		return -MP_ERR_CORRUPT;
	pm->left = pm->nruns;
	return 0;
}

int trace_pagemap_next(struct trace_pagemap *pm, struct trace_pagemap_run *run)
{
	if (!pm->left)
		return 0;
	uint64_t d;
	if (mp_get_uv(&pm->p, pm->end, &d) || mp_get_uv(&pm->p, pm->end, &run->npages) ||
	    mp_get_uv(&pm->p, pm->end, &run->pfn) || mp_get_uv(&pm->p, pm->end, &run->flags)) {
		pm->left = 0;
		return -MP_ERR_CORRUPT;
	}
	pm->vpage += (uint64_t)mp_unzigzag(d);
	/* 48-bit addresses: 2^36 pages; anything else is damage */
	if (pm->vpage >= (1ull << 52) || run->npages > (1ull << 36) || run->pfn >= (1ull << 55)) {
		pm->left = 0;
		return -MP_ERR_CORRUPT;
	}
	run->vpage = pm->vpage;
	pm->left--;
	return 1;
}
