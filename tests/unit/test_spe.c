// SPDX-License-Identifier: MIT
/* Arm SPE without SPE hardware: AUX byte buffers built packet by packet as
 * the Arm ARM lays them out (short and extended headers, every packet kind
 * memprism reads), several records in one buffer, a record cut off at the
 * end, garbage; the records' outcomes through the same data-source decoding
 * PEBS and IBS samples take; the arm_spe PMU's sysfs description from a
 * constructed directory; and the pmu spec built from it. Also the period
 * jitter (bounds, mean, determinism). */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "common/mp_datasrc.h"
#include "record/perf_src.h"
#include "record/spe_decode.h"
#include "trace/trace_format.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

struct buf {
	uint8_t b[1024];
	size_t n;
};

/* A packet: header byte(s), then a little-endian payload of 1 << sz bytes. */
static void pkt(struct buf *b, const uint8_t *hdr, size_t hl, uint64_t v)
{
	memcpy(b->b + b->n, hdr, hl);
	size_t pl = (size_t)1 << ((hdr[hl - 1] >> 4) & 3);
	b->n += hl;
	for (size_t k = 0; k < pl; k++)
		b->b[b->n++] = (uint8_t)(v >> (8 * k));
}
static void pkt1(struct buf *b, uint8_t h, uint64_t v)
{
	pkt(b, &h, 1, v);
}
static void byte(struct buf *b, uint8_t v)
{
	b->b[b->n++] = v;
}

/* One load as a Neoverse core writes it: PC (EL0), virtual and physical
 * data address, latencies, events, op type, data source, context, and a
 * timestamp ending the record. */
static void load_record_ctx(struct buf *b, uint64_t va, uint64_t ts, uint32_t ctx)
{
	pkt1(b, 0xb0, 0x0000aaaabbbb1234ull); /* address, index 0: PC, EL0, NS 0 */
	pkt1(b, 0x99, 17); /* counter 1: issue latency */
	pkt1(b, 0x9a, 9); /* counter 2: translation latency */
	pkt1(b, 0x52,
	     MP_SPE_EV_RETIRED | MP_SPE_EV_L1D_ACCESS | MP_SPE_EV_L1D_REFILL | MP_SPE_EV_TLB_ACCESS |
		     MP_SPE_EV_LLC_ACCESS | MP_SPE_EV_LLC_MISS); /* events, 2 bytes */
	pkt1(b, 0x49, 0x04); /* op type class 1 (ld/st), bit 0 clear: load */
	pkt1(b, 0xb2, 0xf200ffffc0001000ull | va); /* address 2: data VA with a tag byte */
	pkt1(b, 0xb3, 0x8000000012345678ull); /* address 3: data PA, NS bit set */
	pkt1(b, 0x53, 0xe); /* data source, 2 bytes: DRAM */
	if (ctx)
		pkt1(b, 0x64, ctx); /* context, CONTEXTIDR_EL1 */
	pkt1(b, 0x98, 321); /* counter 0: total latency */
	pkt1(b, 0x71, ts); /* timestamp */
}
static void load_record(struct buf *b, uint64_t va, uint64_t ts)
{
	load_record_ctx(b, va, ts, 4242);
}

static void test_packets(void)
{
	struct buf b = { .n = 0 };
	struct mp_spe_record r;
	size_t used;
	load_record(&b, 0, 777);
	CHECK_EQ(mp_spe_decode(b.b, b.n, &used, &r), 1);
	CHECK_EQ(used, b.n);
	CHECK_EQ(r.pc, 0x0000aaaabbbb1234ull);
	CHECK_EQ(r.pc_el, 0);
	CHECK_EQ(r.vaddr, 0x0000ffffc0001000ull); /* the tag byte (0xf2) dropped */
	CHECK_EQ(r.paddr, 0x12345678);
	CHECK_EQ(r.total_lat, 321);
	CHECK_EQ(r.issue_lat, 17);
	CHECK_EQ(r.xlat_lat, 9);
	CHECK_EQ(r.op, MP_SPE_OP_LOAD);
	CHECK_EQ(r.data_source, 0xe);
	CHECK_EQ(r.context, 4242);
	CHECK_EQ(r.timestamp, 777);
	CHECK_EQ(r.events & MP_SPE_EV_LLC_MISS, MP_SPE_EV_LLC_MISS);
	CHECK_EQ(r.has, MP_SPE_HAS_PC | MP_SPE_HAS_VADDR | MP_SPE_HAS_PADDR | MP_SPE_HAS_TS | MP_SPE_HAS_CONTEXT |
				MP_SPE_HAS_DS | MP_SPE_HAS_EVENTS | MP_SPE_HAS_OP | MP_SPE_HAS_TOTAL_LAT);

	/* a store with a kernel PC, an extended-header counter (index 8: not
	 * one memprism keeps) and address (index 2 again, extended form), a
	 * TLB walk and a remote access, ended by End (no timestamp) */
	b.n = 0;
	pkt1(&b, 0xb0, (1ull << 61) | 0x00ff800000001000ull); /* EL1 PC in the upper half */
	pkt(&b, (const uint8_t[]){ 0x21, 0x98 }, 2, 5); /* extended counter, index 8 */
	pkt(&b, (const uint8_t[]){ 0x20, 0xb2 }, 2, 0x7f0000002000ull); /* extended address, index 2 */
	pkt1(&b, 0x49, 0x01); /* store */
	pkt1(&b, 0x42, MP_SPE_EV_TLB_ACCESS | MP_SPE_EV_TLB_WALK | MP_SPE_EV_L1D_ACCESS); /* events, 1 byte */
	pkt1(&b, 0x62, MP_SPE_EV_LLC_ACCESS | MP_SPE_EV_REMOTE_ACCESS); /* events, 4 bytes: replaces */
	pkt1(&b, 0x98, 1000);
	byte(&b, 0x01); /* End */
	CHECK_EQ(mp_spe_decode(b.b, b.n, &used, &r), 1);
	CHECK_EQ(used, b.n);
	CHECK_EQ(r.pc, 0xffff800000001000ull);
	CHECK_EQ(r.pc_el, 1);
	CHECK_EQ(r.vaddr, 0x7f0000002000ull);
	CHECK_EQ(r.op, MP_SPE_OP_STORE);
	CHECK_EQ(r.total_lat, 1000);
	CHECK_EQ(r.has & (MP_SPE_HAS_TS | MP_SPE_HAS_DS | MP_SPE_HAS_PADDR), 0);
	/* branch and other op classes */
	b.n = 0;
	pkt1(&b, 0x4a, 0x01); /* class 2: conditional branch */
	byte(&b, 0x01);
	CHECK_EQ(mp_spe_decode(b.b, b.n, &used, &r), 1);
	CHECK_EQ(r.op, MP_SPE_OP_BRANCH);
	CHECK_EQ(r.has & MP_SPE_HAS_VADDR, 0);
}

/* The outcomes reports use, through mp_outcome_from_data_src. */
static void test_outcomes(void)
{
	struct buf b = { .n = 0 };
	struct mp_spe_record r;
	struct mp_outcome o;
	size_t used;
	load_record(&b, 0, 1);
	CHECK_EQ(mp_spe_decode(b.b, b.n, &used, &r), 1);
	/* Neoverse data source 0xe: DRAM, local; TLB access without a walk */
	uint64_t ds = mp_spe_data_src(&r, 1);
	mp_outcome_from_data_src(ds, r.total_lat, 4096, &o);
	CHECK_EQ(mp_data_src_op(ds), 1);
	CHECK_EQ(o.level, MP_LVL_LOCAL_DRAM);
	CHECK_EQ(o.remote, 0);
	CHECK_EQ(o.tlb, MP_TLB_L1_HIT);
	CHECK_EQ(o.latency, 321);
	CHECK_EQ(o.weight, 4096);
	static const struct {
		uint16_t ds;
		uint8_t level, remote, snoop;
	} nv[] = {
		{ 0x0, MP_LVL_L1, 0, MP_SNOOP_UNKNOWN },       { 0x8, MP_LVL_L2, 0, MP_SNOOP_UNKNOWN },
		{ 0x9, MP_LVL_L2, 0, MP_SNOOP_HIT },	       { 0xa, MP_LVL_L3, 0, MP_SNOOP_HIT },
		{ 0xb, MP_LVL_L3, 0, MP_SNOOP_UNKNOWN },       { 0xc, MP_LVL_L3, 0, MP_SNOOP_HIT },
		{ 0xd, MP_LVL_REMOTE_CACHE, 1, MP_SNOOP_HIT }, { 0xe, MP_LVL_LOCAL_DRAM, 0, MP_SNOOP_NONE },
		{ 0x7, MP_LVL_UNKNOWN, 0, MP_SNOOP_UNKNOWN },
	};
	for (size_t i = 0; i < sizeof(nv) / sizeof(nv[0]); i++) {
		r.data_source = nv[i].ds;
		mp_outcome_from_data_src(mp_spe_data_src(&r, 1), 0, 1, &o);
		CHECK_EQ(o.level, nv[i].level);
		CHECK_EQ(o.remote, nv[i].remote);
		CHECK_EQ(o.snoop, nv[i].snoop);
	}
	/* without the Neoverse encoding: the events decide (LLC miss: DRAM) */
	mp_outcome_from_data_src(mp_spe_data_src(&r, 0), 0, 1, &o);
	CHECK_EQ(o.level, MP_LVL_LOCAL_DRAM);
	r.events |= MP_SPE_EV_REMOTE_ACCESS | MP_SPE_EV_TLB_WALK;
	mp_outcome_from_data_src(mp_spe_data_src(&r, 0), 0, 1, &o);
	CHECK_EQ(o.level, MP_LVL_REMOTE_DRAM);
	CHECK_EQ(o.remote, 1);
	CHECK_EQ(o.tlb, MP_TLB_WALK);
	r.events = MP_SPE_EV_L1D_ACCESS | MP_SPE_EV_LLC_ACCESS | MP_SPE_EV_L1D_REFILL;
	mp_outcome_from_data_src(mp_spe_data_src(&r, 0), 0, 1, &o);
	CHECK_EQ(o.level, MP_LVL_L3);
	r.events = MP_SPE_EV_L1D_ACCESS | MP_SPE_EV_L1D_REFILL;
	mp_outcome_from_data_src(mp_spe_data_src(&r, 0), 0, 1, &o);
	CHECK_EQ(o.level, MP_LVL_L2);
	r.events = MP_SPE_EV_L1D_ACCESS;
	mp_outcome_from_data_src(mp_spe_data_src(&r, 0), 0, 1, &o);
	CHECK_EQ(o.level, MP_LVL_L1);
	CHECK_EQ(o.tlb, MP_TLB_UNKNOWN);
	r.events = MP_SPE_EV_LLC_ACCESS | MP_SPE_EV_REMOTE_ACCESS;
	mp_outcome_from_data_src(mp_spe_data_src(&r, 0), 0, 1, &o);
	CHECK_EQ(o.level, MP_LVL_REMOTE_CACHE);
	r.op = MP_SPE_OP_STORE;
	CHECK_EQ(mp_data_src_op(mp_spe_data_src(&r, 0)), 2);
	/* Neoverse N1 (0x410fd0c0) and V1; Cortex-A76 (0xd0b) is not in the list */
	CHECK_EQ(mp_spe_neoverse_midr(0x413fd0c1), 1);
	CHECK_EQ(mp_spe_neoverse_midr(0x410fd400), 1);
	CHECK_EQ(mp_spe_neoverse_midr(0x414fd0b1), 0);
	CHECK_EQ(mp_spe_neoverse_midr(0x510fd0c0), 0);
	/* a 25 MHz generic timer: 40 ns a tick, as time_mult/time_shift say */
	CHECK_EQ(mp_spe_ticks_ns(1000, 40u << 10, 10), 40000);
	CHECK_EQ(mp_spe_ticks_ns(3, 5, 1), 7); /* 3 * 5 / 2, rounded down */
}

/* Records as a drain meets them: padding between, then one cut short. */
static void test_buffers(void)
{
	struct buf b = { .n = 0 };
	struct mp_spe_record r;
	size_t used, pos = 0;
	for (int i = 0; i < 3; i++) {
		load_record(&b, (uint64_t)i << 12, 100 + (uint64_t)i);
		while (b.n % 64) /* the driver pads records to its alignment */
			byte(&b, 0);
	}
	size_t whole = b.n;
	load_record(&b, 0, 999);
	size_t cut = b.n - 5; /* the buffer ends inside the last record's timestamp */
	int n = 0;
	uint64_t ts[3] = { 0 };
	int ret;
	while ((ret = mp_spe_decode(b.b + pos, cut - pos, &used, &r)) == 1) {
		CHECK(n < 3);
		if (n < 3)
			ts[n] = r.timestamp;
		CHECK_EQ(r.vaddr, 0x0000ffffc0001000ull | ((uint64_t)n << 12));
		n++;
		pos += used;
	}
	CHECK_EQ(n, 3);
	CHECK_EQ(ts[0], 100);
	CHECK_EQ(ts[2], 102);
	CHECK_EQ(ret, -ENODATA);
	CHECK_EQ(pos + used, whole); /* used stops before the partial record, after the padding */
	/* only padding: nothing, all consumed */
	memset(b.b, 0, 64);
	CHECK_EQ(mp_spe_decode(b.b, 64, &used, &r), 0);
	CHECK_EQ(used, 64);
	CHECK_EQ(mp_spe_decode(b.b, 0, &used, &r), 0);
	/* a lone extended header byte at the end is truncation, not garbage */
	b.b[0] = 0x20;
	CHECK_EQ(mp_spe_decode(b.b, 1, &used, &r), -ENODATA);
	CHECK_EQ(used, 0);
	/* extended alignment padding: skip to the boundary, then decode */
	b.n = 0;
	byte(&b, 0x21); /* 0x21, 0x00: align to 4 bytes */
	byte(&b, 0x00);
	byte(&b, 0);
	byte(&b, 0);
	pkt1(&b, 0x98, 77);
	byte(&b, 0x01);
	CHECK_EQ(mp_spe_decode(b.b, b.n, &used, &r), 1);
	CHECK_EQ(r.total_lat, 77);
	CHECK_EQ(used, b.n);
}

/* Garbage: a clear error where decoding may resume, never a read past the
 * end (ASan watches), always progress. */
static void test_garbage(void)
{
	struct buf b = { .n = 0 };
	struct mp_spe_record r;
	size_t used;
	pkt1(&b, 0x98, 1);
	byte(&b, 0xff); /* starts no packet */
	byte(&b, 0x01);
	CHECK_EQ(mp_spe_decode(b.b, b.n, &used, &r), -EBADMSG);
	CHECK_EQ(used, 4); /* just past the bad byte */
	CHECK_EQ(mp_spe_decode(b.b + used, b.n - used, &used, &r), 1); /* the End after it */
	/* an extended header may only introduce an address or a counter */
	b.n = 0;
	byte(&b, 0x20);
	byte(&b, 0x49);
	byte(&b, 0x00);
	CHECK_EQ(mp_spe_decode(b.b, b.n, &used, &r), -EBADMSG);
	CHECK_EQ(used, 1);
	uint64_t x = 88172645463325252ull;
	int records = 0, bad = 0;
	for (int round = 0; round < 2000; round++) {
		size_t len = (size_t)(round % 97) + 1;
		uint8_t *g = malloc(len); /* exact size: ASan catches any overread */
		for (size_t i = 0; i < len; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			g[i] = (uint8_t)x;
		}
		size_t pos = 0;
		int ret;
		while (pos < len && (ret = mp_spe_decode(g + pos, len - pos, &used, &r)) != 0 && ret != -ENODATA) {
			CHECK(used > 0 && used <= len - pos);
			if (!used)
				break;
			pos += used;
			records += ret == 1;
			bad += ret == -EBADMSG;
		}
		free(g);
	}
	CHECK(records > 0);
	CHECK(bad > 0);
}

static void put_file(const char *dir, const char *name, const char *text)
{
	char path[1200]; /* (dir is up to 600 bytes: a path sized so -O3 sees no truncation) */
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The arm_spe PMU's sysfs directory as Linux 6.x writes it
 * (drivers/perf/arm_spe_pmu.c format attributes), in a temp root. */
static void test_sysfs(void)
{
	char root[] = "/tmp/mp-spe-XXXXXX", d[600];
	CHECK(mkdtemp(root) != NULL);
	struct mp_spe_pmu pmu;
	CHECK_EQ(mp_spe_find(root, &pmu), -ENOENT); /* no arm_spe here: x86 machines */
	snprintf(d, sizeof(d), "%s/cpu", root);
	mkdir(d, 0700);
	snprintf(d, sizeof(d), "%s/arm_spe_0", root);
	mkdir(d, 0700);
	CHECK_EQ(mp_spe_find(root, &pmu), -EIO); /* no type file */
	put_file(d, "type", "10\n");
	snprintf(d, sizeof(d), "%s/arm_spe_0/caps", root);
	mkdir(d, 0700);
	put_file(d, "min_interval", "1024\n");
	snprintf(d, sizeof(d), "%s/arm_spe_0/format", root);
	mkdir(d, 0700);
	static const char *const fmt[][2] = { { "ts_enable", "config:0\n" },	  { "pa_enable", "config:1\n" },
					      { "pct_enable", "config:2\n" },	  { "jitter", "config:16\n" },
					      { "branch_filter", "config:32\n" }, { "load_filter", "config:33\n" },
					      { "store_filter", "config:34\n" },  { "event_filter", "config1:0-63\n" },
					      { "min_latency", "config2:0-11\n" } };
	for (size_t i = 0; i < sizeof(fmt) / sizeof(fmt[0]); i++)
		if (strcmp(fmt[i][0], "jitter") != 0)
			put_file(d, fmt[i][0], fmt[i][1]);
	CHECK_EQ(mp_spe_find(root, &pmu), 0);
	CHECK(strcmp(pmu.name, "arm_spe_0") == 0);
	CHECK_EQ(pmu.type, 10);
	CHECK_EQ(pmu.min_interval, 1024);
	uint64_t c, c1, c2;
	struct mp_spe_cfg cfg = { .pa = 0 };
	CHECK_EQ(mp_spe_config(&pmu, &cfg, &c, &c1, &c2), 0);
	CHECK_EQ(c, 1ull | 1ull << 33 | 1ull << 34);
	CHECK_EQ(c1, 0);
	CHECK_EQ(c2, 0);
	cfg = (struct mp_spe_cfg){ .pa = 1, .min_latency = 40 };
	CHECK_EQ(mp_spe_config(&pmu, &cfg, &c, &c1, &c2), 0);
	CHECK_EQ(c, 1ull | 2ull | 1ull << 33 | 1ull << 34);
	CHECK_EQ(c2, 40);
	cfg.min_latency = 4096; /* min_latency is 12 bits: refused, not cut to 0 */
	CHECK_EQ(mp_spe_config(&pmu, &cfg, &c, &c1, &c2), -ERANGE);
	cfg.min_latency = 4095;
	CHECK_EQ(mp_spe_config(&pmu, &cfg, &c, &c1, &c2), 0);
	CHECK_EQ(c2, 4095);
	cfg.min_latency = 40;
	cfg.jitter = 1; /* this PMU has no jitter format file: refused, not guessed */
	CHECK_EQ(mp_spe_config(&pmu, &cfg, &c, &c1, &c2), -EINVAL);
	put_file(d, "jitter", "config:16\n");
	CHECK_EQ(mp_spe_config(&pmu, &cfg, &c, &c1, &c2), 0);
	CHECK_EQ(c, 1ull | 2ull | 1ull << 16 | 1ull << 33 | 1ull << 34);

	/* the pmu spec the probe's "Arm SPE" leads to */
	struct mp_probe p;
	memset(&p, 0, sizeof(p));
	p.pmus[MP_PMU_ARM_SPE] = (struct mp_probe_pmu){ .name = "arm_spe_0", .present = 1, .type = 10 };
	CHECK(strcmp(mp_probe_pmu_flavour(&p), "Arm SPE") == 0);
	struct mp_perf_spec sp[4];
	char name[1024];
	struct mp_pmu_opts o = { .period = 100, .jitter_pct = 10, .sysfs_root = root };
	CHECK_EQ(mp_perf_specs(MP_SOURCE_PMU, &p, &o, sp, 4, name, sizeof(name)), 1);
	CHECK_EQ(sp[0].kind, MP_SK_SPE);
	CHECK_EQ(sp[0].type, 10);
	CHECK_EQ(sp[0].period, 1024); /* raised to min_interval */
	CHECK_EQ(sp[0].config, 1ull | 1ull << 16 | 1ull << 33 | 1ull << 34); /* not root: no pa_enable */
	CHECK(sp[0].aux_bytes >= 4096 && (sp[0].aux_bytes & (sp[0].aux_bytes - 1)) == 0);
	CHECK(sp[0].exclude_kernel);
	CHECK(strstr(sp[0].name, "arm_spe_0") != NULL);
	o = (struct mp_pmu_opts){ .sysfs_root = "/nonexistent" };
	CHECK_EQ(mp_perf_specs(MP_SOURCE_PMU, &p, &o, sp, 4, name, sizeof(name)), -ENOENT);

	for (size_t i = 0; i < sizeof(fmt) / sizeof(fmt[0]); i++) {
		char f[700];
		snprintf(f, sizeof(f), "%s/%s", d, fmt[i][0]);
		unlink(f);
	}
	rmdir(d);
	snprintf(d, sizeof(d), "%s/arm_spe_0/caps/min_interval", root);
	unlink(d);
	snprintf(d, sizeof(d), "%s/arm_spe_0/caps", root);
	rmdir(d);
	snprintf(d, sizeof(d), "%s/arm_spe_0/type", root);
	unlink(d);
	snprintf(d, sizeof(d), "%s/arm_spe_0", root);
	rmdir(d);
	snprintf(d, sizeof(d), "%s/cpu", root);
	rmdir(d);
	rmdir(root);
}

static void test_jitter(void)
{
	uint64_t rng = 42, rng2 = 42;
	double sum = 0;
	uint64_t lo = ~0ull, hi = 0;
	const int n = 200000;
	for (int i = 0; i < n; i++) {
		uint64_t p = mp_period_jitter(10000, 20, &rng);
		CHECK(p >= 8000 && p <= 12000);
		lo = p < lo ? p : lo;
		hi = p > hi ? p : hi;
		sum += (double)p;
		if (i < 100)
			CHECK_EQ(p, mp_period_jitter(10000, 20, &rng2)); /* the seed decides */
	}
	double mean = sum / n;
	CHECK(mean > 9980 && mean < 10020);
	CHECK(lo < 8010 && hi > 11990); /* the whole range is used */
	rng = 7;
	CHECK_EQ(mp_period_jitter(10000, 0, &rng), 10000);
	CHECK_EQ(rng, 7); /* nothing drawn */
	for (int i = 0; i < 1000; i++) {
		CHECK(mp_period_jitter(1, 100, &rng) >= 1);
		uint64_t p = mp_period_jitter(3, 100, &rng);
		CHECK(p >= 1 && p <= 6);
	}
	rng = 0; /* a zero state still moves */
	uint64_t a = mp_period_jitter(1000, 50, &rng), b = mp_period_jitter(1000, 50, &rng);
	CHECK(rng != 0);
	CHECK(a >= 500 && a <= 1500 && b >= 500 && b <= 1500);
	rng = 1;
	CHECK(mp_period_jitter(~0ull / 2, 100, &rng) <= ~0ull / 2 * 2); /* no overflow */
}

/* The AUX path of a session end to end, over rings in memory
 * (mp_perf_session_open_mem): PERF_RECORD_AUX records in the data ring
 * pointing into an AUX area that holds SPE records, as the arm_spe driver
 * leaves them. Checks what reaches the data file: one SAMPLE per load or
 * store with the AUX record's pid/tid (or the Context packet's tid), times
 * placed back from the AUX record's by the timestamps, the data source;
 * a child's range dropped, a truncated range counted, a range that wraps
 * the AUX area's end, garbage counted, the AUX tail handed back. */
#define RPAGE 4096
#define AUXSZ 4096
struct aux_fixture {
	uint8_t *base; /* meta page + RPAGE of data */
	uint8_t *aux;
	uint64_t head;
};
static void aux_put(struct aux_fixture *f, uint64_t off, const struct buf *b)
{
	for (size_t i = 0; i < b->n; i++)
		f->aux[(off + i) & (AUXSZ - 1)] = b->b[i];
}
/* PERF_RECORD_AUX + sample_id (TID, TIME, CPU, IDENTIFIER) into the ring */
static void aux_rec(struct aux_fixture *f, uint64_t off, uint64_t size, uint64_t flags, uint32_t pid, uint32_t tid,
		    uint64_t time, uint64_t id)
{
	uint64_t w[8] = { 0, off, size, flags, (uint64_t)tid << 32 | pid, time, 1, id };
	struct perf_event_header h = { .type = PERF_RECORD_AUX, .size = sizeof(w) };
	memcpy(w, &h, 8);
	memcpy(f->base + RPAGE + (f->head & (RPAGE - 1)), w, sizeof(w));
	f->head += sizeof(w);
	((struct perf_event_mmap_page *)f->base)->data_head = f->head;
}

static void test_aux_session(void)
{
	struct aux_fixture f = { .base = aligned_alloc(RPAGE, 2 * RPAGE), .aux = aligned_alloc(RPAGE, AUXSZ) };
	memset(f.base, 0, 2 * RPAGE);
	memset(f.aux, 0, AUXSZ);
	struct perf_event_mmap_page *m = (struct perf_event_mmap_page *)f.base;
	m->data_offset = RPAGE;
	m->data_size = RPAGE;
	m->cap_user_time = 1;
	m->time_mult = 40u << 10; /* 40 ns a tick (a 25 MHz generic timer) */
	m->time_shift = 10;

	/* range 1: three loads (context on the first only) and a branch */
	struct buf b = { .n = 0 };
	load_record_ctx(&b, 0x1000, 100, 4242);
	load_record_ctx(&b, 0x2000, 200, 0);
	pkt1(&b, 0x4a, 0x01); /* a branch: no data address, no sample */
	byte(&b, 0x01);
	load_record_ctx(&b, 0x3000, 300, 0);
	while (b.n % 64)
		byte(&b, 0);
	uint64_t r1 = b.n;
	aux_put(&f, 0, &b);
	aux_rec(&f, 0, r1, 0, 70, 71, 1000000, 0x55);
	/* range 2: a child's (pid 99), marked truncated */
	b.n = 0;
	load_record_ctx(&b, 0x9000, 400, 0);
	aux_put(&f, r1, &b);
	aux_rec(&f, r1, b.n, PERF_AUX_FLAG_TRUNCATED, 99, 99, 1100000, 0x55);
	char path[] = "/tmp/mp-aux-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	struct mp_file_header fh;
	trace_file_header_init(&fh, 0, "", 0, 0);
	CHECK_EQ(write(fd, &fh, sizeof(fh)), sizeof(fh));
	struct mp_perf_spec sp = { .name = "arm_spe_0",
				   .kind = MP_SK_SPE,
				   .type = 10,
				   .period = 4096,
				   .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
				   .aux_bytes = AUXSZ };
	const struct mp_perf_mem_ring ring = {
		.base = f.base, .data_size = RPAGE, .aux = f.aux, .aux_size = AUXSZ, .cpu = 1, .id = 0x55
	};
	const struct mp_perf_session_opts so = { .ring_pages = 1 };
	struct mp_perf_session *s = NULL;
	CHECK_EQ(mp_perf_session_open_mem(70, &sp, 1, &so, &ring, 1, fd, &s), 0);
	CHECK_EQ(mp_perf_session_drain(s), 0);
	CHECK_EQ(m->aux_tail, r1 + b.n); /* ranges 1 and 2 handed back: the kernel may reuse them */
	/* range 3: wraps the end of the AUX area */
	b.n = 0;
	load_record_ctx(&b, 0x4000, 500, 0);
	aux_put(&f, AUXSZ - 20, &b);
	aux_rec(&f, AUXSZ - 20, b.n, 0, 70, 72, 1200000, 0x55);
	uint64_t end = AUXSZ - 20 + b.n;
	/* range 4: garbage; then an AUX record of an unknown event */
	b.n = 0;
	byte(&b, 0xff);
	byte(&b, 0x01);
	aux_put(&f, end, &b);
	aux_rec(&f, end, b.n, 0, 70, 71, 1300000, 0x55);
	aux_rec(&f, end + b.n, 0, 0, 70, 71, 1300000, 0x66);
	end += b.n;

	struct mp_perf_stats st;
	CHECK_EQ(mp_perf_session_close(s, &st), 0);
	close(fd);
	CHECK_EQ(st.samples, 4);
	CHECK_EQ(st.other_procs, 1);
	CHECK_EQ(st.aux_truncated, 1);
	CHECK_EQ(st.bad_records, 2); /* the garbage byte, the unknown event */
	CHECK_EQ(m->aux_tail, end); /* every range handed back */
	CHECK_EQ(m->data_tail, m->data_head);

	uint64_t f_[4][12];
	int n = 0;
	struct trace_reader *r = trace_reader_open(path);
	CHECK(r != NULL);
	struct trace_chunk c;
	while (r && trace_reader_next(r, &c) == 1) {
		struct trace_dec d;
		struct trace_rec rec;
		trace_dec_init(&d, c.data, c.len);
		while (trace_dec_next(&d, &rec) == 1)
			if (rec.cls == MP_REC_EVENT && rec.event == MP_EV_SAMPLE && n < 4)
				memcpy(f_[n++], rec.f, sizeof(f_[0]));
	}
	trace_reader_close(r);
	unlink(path);
	CHECK_EQ(n, 4);
	/* fields: time, cpu, pid, tid, addr, ip, event, period, data_src, weight, phys */
	static const uint64_t want[4][5] = {
		{ 1000000 - 200 * 40, 70, 4242, 0x1000, 0 },
		{ 1000000 - 100 * 40, 70, 71, 0x2000, 0 },
		{ 1000000, 70, 71, 0x3000, 0 },
		{ 1200000, 70, 72, 0x4000, 0 },
	};
	for (int i = 0; i < n; i++) {
		CHECK_EQ(f_[i][0], want[i][0]);
		CHECK_EQ(f_[i][1], 1);
		CHECK_EQ(f_[i][2], want[i][1]);
		CHECK_EQ(f_[i][3], want[i][2]);
		CHECK_EQ(f_[i][4], 0x0000ffffc0000000ull | 0x1000 | want[i][3]);
		CHECK_EQ(f_[i][5], 0x0000aaaabbbb1234ull);
		CHECK_EQ(f_[i][6], 0);
		CHECK_EQ(f_[i][7], 4096);
		CHECK_EQ(f_[i][9], 321 | (uint64_t)17 << 32);
		CHECK_EQ(f_[i][10], 0x12345678);
		struct mp_outcome o;
		mp_outcome_from_data_src(f_[i][8], f_[i][9], f_[i][7], &o);
		CHECK_EQ(mp_data_src_op(f_[i][8]), 1);
		CHECK_EQ(o.level, MP_LVL_LOCAL_DRAM); /* LLC miss (not a Neoverse here: the events decide) */
		CHECK_EQ(o.latency, 321);
		CHECK_EQ(o.weight, 4096);
	}
	free(f.base);
	free(f.aux);
}

int main(void)
{
	test_aux_session();
	test_packets();
	test_outcomes();
	test_buffers();
	test_garbage();
	test_sysfs();
	test_jitter();
	return check_done("test_spe");
}
