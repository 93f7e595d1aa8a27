/* SPDX-License-Identifier: MIT */
/*
 * Reading perf_event ring buffers and parsing their records. Pure functions
 * over memory: the live sources (perf_src.c) hand them the mmap'd rings, the
 * unit tests hand them constructed ones, so every layout and the wrap-around
 * are tested without a PMU.
 *
 * Protocol (perf_event_open(2), "MMAP layout"): the kernel writes records at
 * data_head (read it with acquire semantics), the reader consumes from
 * data_tail and publishes the new tail with release semantics so the kernel
 * may reuse the space. Records are 8-byte aligned; one may straddle the end
 * of the data area, and is then reassembled in a side buffer.
 */
#ifndef MP_PERF_RING_H
#define MP_PERF_RING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct mp_ring {
	struct perf_event_mmap_page *meta; /* first page of the mapping */
	const uint8_t *data; /* data area: size bytes, a power of two */
	uint64_t size;
	uint8_t *tmp; /* reassembly buffer for wrapped records (owned) */
	size_t tmp_cap;
	uint64_t lost; /* PERF_RECORD_LOST: samples the kernel dropped (full ring) */
	uint64_t lost_samples; /* PERF_RECORD_LOST_SAMPLES: dropped by the PMU driver */
	uint64_t records, bad; /* records seen; 1 once a malformed header stopped reading */
};

/* base: the mmap'd area (1 + 2^n pages); data_size: its data part (2^n
 * pages). Uses meta->data_offset/data_size when the kernel filled them. */
void mp_ring_init(struct mp_ring *r, void *base, size_t data_size);
void mp_ring_fini(struct mp_ring *r);

/* Called for each record with the record (header first), contiguous and
 * 8-byte aligned. A non-zero return stops the drain and is returned. */
typedef int (*mp_ring_fn)(void *arg, const struct perf_event_header *rec);

/*
 * Consumes every record between data_tail and data_head, calling fn for
 * each (LOST records too, after counting them). Returns 0 or fn's non-zero
 * result; -EIO when a record header is malformed (the rest of the ring is
 * skipped and `bad` set), -ENOMEM when a wrapped record cannot be copied.
 */
int mp_ring_drain(struct mp_ring *r, mp_ring_fn fn, void *arg);

/* One PERF_RECORD_SAMPLE, decoded for a given attr.sample_type. */
struct mp_perf_sample {
	uint64_t id; /* PERF_SAMPLE_IDENTIFIER or PERF_SAMPLE_ID */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint32_t cpu;
	uint64_t period;
	uint64_t nr_chain; /* PERF_SAMPLE_CALLCHAIN: chain entries (context markers included) */
	const uint8_t *chain; /* nr_chain little-endian u64s inside the record (unaligned reads: memcpy) */
	uint32_t raw_size; /* PERF_SAMPLE_RAW */
	const uint8_t *raw;
	uint64_t weight; /* PERF_SAMPLE_WEIGHT, or WEIGHT_STRUCT's var1_dw (the latency) */
	uint16_t weight_var2, weight_var3; /* WEIGHT_STRUCT only */
	uint64_t data_src;
	uint64_t transaction;
	uint64_t phys_addr;
	uint64_t data_page_size;
};

/* Sample fields this parser understands; others make it refuse the layout. */
#define MP_PERF_SAMPLE_SUPPORTED                                                                               \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |        \
	 PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | \
	 PERF_SAMPLE_RAW | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC |              \
	 PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_DATA_PAGE_SIZE |                         \
	 PERF_SAMPLE_CODE_PAGE_SIZE)

/*
 * Parses a PERF_RECORD_SAMPLE (rec points at its header) laid out for
 * sample_type. 0 and *out filled (fields not in sample_type are 0);
 * -EINVAL for a sample_type with unsupported fields; -EIO when the record
 * is shorter than its layout says.
 */
int mp_perf_sample_parse(const struct perf_event_header *rec, uint64_t sample_type, struct mp_perf_sample *out);

/*
 * The sample_id trailer of a non-sample record (attr.sample_id_all): after
 * the record's own body bytes, the TID, TIME, ID, STREAM_ID, CPU and
 * IDENTIFIER fields sample_type selects. Fills pid, tid, time, cpu and id
 * of *out (the rest 0). 0, or -EIO when the record is too short.
 */
int mp_perf_sample_id_all(const struct perf_event_header *rec, size_t body, uint64_t sample_type,
			  struct mp_perf_sample *out);

/* PERF_SAMPLE_IDENTIFIER: the event id of any record type when the
 * identifier comes first (samples), without knowing the full layout. */
int mp_perf_sample_id(const struct perf_event_header *rec, uint64_t *id);

#endif
