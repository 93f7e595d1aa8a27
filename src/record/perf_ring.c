// SPDX-License-Identifier: MIT
/*
 * perf_event ring buffers and sample records (see perf_ring.h). The sample
 * layout follows the order in <linux/perf_event.h> (PERF_RECORD_SAMPLE):
 * identifier, ip, pid/tid, time, addr, id, stream_id, cpu/res, period, read,
 * callchain, raw, branch stack, user regs, user stack, weight, data_src,
 * transaction, intr regs, phys_addr, aux, data_page_size, code_page_size.
 */
#include "record/perf_ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void mp_ring_init(struct mp_ring *r, void *base, size_t data_size)
{
	memset(r, 0, sizeof(*r));
	r->meta = base;
	uint64_t off = r->meta->data_offset, size = r->meta->data_size;
	if (!off || !size) {
		/* kernels before 4.1 leave these 0: data follows the first page */
		off = (uint64_t)sysconf(_SC_PAGESIZE);
		size = data_size;
	}
	r->data = (const uint8_t *)base + off;
	r->size = size;
}

void mp_ring_fini(struct mp_ring *r)
{
	free(r->tmp);
	r->tmp = NULL;
	r->tmp_cap = 0;
}

static int lost_record(struct mp_ring *r, const struct perf_event_header *h)
{
	uint64_t v;
	if (h->type == PERF_RECORD_LOST && h->size >= sizeof(*h) + 16) {
		memcpy(&v, (const uint8_t *)h + sizeof(*h) + 8, 8); /* u64 id, u64 lost */
		r->lost += v;
	} else if (h->type == PERF_RECORD_LOST_SAMPLES && h->size >= sizeof(*h) + 8) {
		memcpy(&v, (const uint8_t *)h + sizeof(*h), 8); /* u64 lost */
		r->lost_samples += v;
	}
	return 0;
}

int mp_ring_drain(struct mp_ring *r, mp_ring_fn fn, void *arg)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	int ret = 0;
	while (tail < head) {
		uint64_t off = tail & (r->size - 1);
		struct perf_event_header h;
		/* headers are 8 bytes at 8-byte aligned offsets: never split */
		memcpy(&h, r->data + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail || (h.size & 7)) {
			r->bad = 1;
			tail = head;
			ret = -EIO;
			break;
		}
		const struct perf_event_header *rec;
		if (off + h.size <= r->size && (((uintptr_t)(r->data + off)) & 7) == 0) {
			rec = (const struct perf_event_header *)(r->data + off);
		} else {
			if (r->tmp_cap < h.size) {
				/* h.size is a u16: one 64 KiB buffer holds any record */
				uint8_t *nb = realloc(r->tmp, 65536);
				if (!nb) {
					ret = -ENOMEM;
					break;
				}
				r->tmp = nb;
				r->tmp_cap = 65536;
			}
			size_t first = off + h.size <= r->size ? h.size : (size_t)(r->size - off);
			memcpy(r->tmp, r->data + off, first);
			memcpy(r->tmp + first, r->data, h.size - first);
			rec = (const struct perf_event_header *)r->tmp;
		}
		r->records++;
		if (h.type == PERF_RECORD_LOST || h.type == PERF_RECORD_LOST_SAMPLES)
			lost_record(r, rec);
		tail += h.size;
		if (fn) {
			ret = fn(arg, rec);
			if (ret)
				break;
		}
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	return ret;
}

struct cursor {
	const uint8_t *p, *end;
	int short_;
};

static uint64_t u64(struct cursor *c)
{
	uint64_t v = 0;
	if (c->end - c->p < 8) {
		c->short_ = 1;
		c->p = c->end;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

static const uint8_t *skip(struct cursor *c, uint64_t n)
{
	const uint8_t *at = c->p;
	if ((uint64_t)(c->end - c->p) < n) {
		c->short_ = 1;
		c->p = c->end;
		return NULL;
	}
	c->p += n;
	return at;
}

int mp_perf_sample_id(const struct perf_event_header *rec, uint64_t *id)
{
	if (rec->size < sizeof(*rec) + 8)
		return -EIO;
	memcpy(id, (const uint8_t *)rec + sizeof(*rec), 8);
	return 0;
}

/* The fields samples and sample_id trailers share, in their order: tid,
 * time, (samples only: addr), id, stream_id, cpu. */
static void id_fields(struct cursor *c, uint64_t st, struct mp_perf_sample *o)
{
	if (st & PERF_SAMPLE_TID) {
		uint64_t v = u64(c);
		o->pid = (uint32_t)v;
		o->tid = (uint32_t)(v >> 32);
	}
	if (st & PERF_SAMPLE_TIME)
		o->time = u64(c);
	if (st & PERF_SAMPLE_ADDR)
		o->addr = u64(c);
	if (st & PERF_SAMPLE_ID)
		o->id = u64(c);
	if (st & PERF_SAMPLE_STREAM_ID)
		(void)u64(c);
	if (st & PERF_SAMPLE_CPU)
		o->cpu = (uint32_t)u64(c);
}

int mp_perf_sample_id_all(const struct perf_event_header *rec, size_t body, uint64_t st, struct mp_perf_sample *o)
{
	memset(o, 0, sizeof(*o));
	if (rec->size < sizeof(*rec) + body)
		return -EIO;
	struct cursor c = { (const uint8_t *)rec + sizeof(*rec) + body, (const uint8_t *)rec + rec->size, 0 };
	id_fields(&c, st & ~(uint64_t)PERF_SAMPLE_ADDR, o); /* no addr in a sample_id */
	if (st & PERF_SAMPLE_IDENTIFIER)
		o->id = u64(&c);
	return c.short_ ? -EIO : 0;
}

int mp_perf_sample_parse(const struct perf_event_header *rec, uint64_t st, struct mp_perf_sample *o)
{
	memset(o, 0, sizeof(*o));
	if (st & ~(uint64_t)MP_PERF_SAMPLE_SUPPORTED)
		return -EINVAL;
	if ((st & PERF_SAMPLE_WEIGHT) && (st & PERF_SAMPLE_WEIGHT_STRUCT))
		return -EINVAL; /* the kernel refuses both too */
	struct cursor c = { (const uint8_t *)rec + sizeof(*rec), (const uint8_t *)rec + rec->size, 0 };
	uint64_t v;
	if (rec->size < sizeof(*rec))
		return -EIO;
	if (st & PERF_SAMPLE_IDENTIFIER)
		o->id = u64(&c);
	if (st & PERF_SAMPLE_IP)
		o->ip = u64(&c);
	id_fields(&c, st, o);
	if (st & PERF_SAMPLE_PERIOD)
		o->period = u64(&c);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		o->nr_chain = u64(&c);
		if (o->nr_chain > (uint64_t)(c.end - c.p) / 8) {
			o->nr_chain = 0;
			return -EIO;
		}
		o->chain = skip(&c, o->nr_chain * 8);
	}
	if (st & PERF_SAMPLE_RAW) {
		/* u32 size, then the data; the whole padded to 8 bytes */
		uint32_t n;
		if (c.end - c.p < 4)
			return -EIO;
		memcpy(&n, c.p, 4);
		c.p += 4;
		o->raw_size = n;
		o->raw = skip(&c, n);
		uint64_t used = 4 + (uint64_t)n;
		if (used & 7)
			skip(&c, 8 - (used & 7));
	}
	if (st & PERF_SAMPLE_WEIGHT)
		o->weight = u64(&c);
	if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
		/* union perf_sample_weight: u32 var1_dw, u16 var2_w, u16 var3_w (little endian) */
		v = u64(&c);
		o->weight = (uint32_t)v;
		o->weight_var2 = (uint16_t)(v >> 32);
		o->weight_var3 = (uint16_t)(v >> 48);
	}
	if (st & PERF_SAMPLE_DATA_SRC)
		o->data_src = u64(&c);
	if (st & PERF_SAMPLE_TRANSACTION)
		o->transaction = u64(&c);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		o->phys_addr = u64(&c);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		o->data_page_size = u64(&c);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		(void)u64(&c);
	return c.short_ ? -EIO : 0;
}
