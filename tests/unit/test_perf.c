// SPDX-License-Identifier: MIT
/* The pmu/faults decoders without hardware: constructed ring buffers for
 * each sample layout memprism requests (PEBS load, PEBS store, IBS op, an
 * SPE-like layout with callchain), LOST records, a record wrapping the end
 * of the ring and a malformed one; perf_mem_data_src values built with the
 * kernel's own PERF_MEM_S macros; sysfs event descriptions into config
 * words. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "common/mp_datasrc.h"
#include "record/perf_ring.h"
#include "record/perf_src.h"
#include "trace/trace_format.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

#define PAGE 4096
#define DATA 4096

struct fake {
	uint8_t *base; /* meta page + DATA bytes */
	struct mp_ring ring;
};

static void fake_init(struct fake *f, uint64_t start)
{
	f->base = aligned_alloc(PAGE, PAGE + DATA);
	memset(f->base, 0, PAGE + DATA);
	struct perf_event_mmap_page *m = (struct perf_event_mmap_page *)f->base;
	m->data_offset = PAGE;
	m->data_size = DATA;
	m->data_head = m->data_tail = start;
	mp_ring_init(&f->ring, f->base, DATA);
}

/* The kernel's side: copy a record in at data_head, wrapping. */
static void kput(struct fake *f, const void *rec, size_t len)
{
	struct perf_event_mmap_page *m = (struct perf_event_mmap_page *)f->base;
	for (size_t i = 0; i < len; i++)
		f->base[PAGE + ((m->data_head + i) & (DATA - 1))] = ((const uint8_t *)rec)[i];
	m->data_head += len;
}

/* Builds a record: header + u64 words. */
struct rec {
	uint64_t w[64];
	size_t n;
};
static void r_u64(struct rec *r, uint64_t v)
{
	r->w[1 + r->n++] = v;
}
static size_t r_finish(struct rec *r, uint32_t type)
{
	struct perf_event_header h = { .type = type, .misc = 0, .size = (uint16_t)(8 * (r->n + 1)) };
	memcpy(&r->w[0], &h, 8);
	return 8 * (r->n + 1);
}

struct got {
	uint64_t st;
	struct mp_perf_sample s[8];
	int n, other, err;
};
static int collect(void *arg, const struct perf_event_header *h)
{
	struct got *g = arg;
	if (h->type != PERF_RECORD_SAMPLE) {
		g->other++;
		return 0;
	}
	if (g->n < 8 && mp_perf_sample_parse(h, g->st, &g->s[g->n]) == 0)
		g->n++;
	else
		g->err++;
	return 0;
}

static void test_pebs_load(void)
{
	struct fake f;
	fake_init(&f, 0);
	uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
		      PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC |
		      PERF_SAMPLE_PHYS_ADDR;
	uint64_t ds = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVL, L3) | PERF_MEM_S(LVLNUM, L3) |
		      PERF_MEM_S(SNOOP, HITM) | PERF_MEM_S(TLB, HIT) | PERF_MEM_S(TLB, L1) | PERF_MEM_S(TLB, L2);
	struct rec r = { .n = 0 };
	r_u64(&r, 77); /* id */
	r_u64(&r, 0x401000); /* ip */
	r_u64(&r, (uint64_t)4242 << 32 | 4241); /* pid, tid */
	r_u64(&r, 123456789); /* time */
	r_u64(&r, 0x7f0000001040); /* addr */
	r_u64(&r, 1); /* cpu, res */
	r_u64(&r, 10007); /* period */
	r_u64(&r, (uint64_t)9 << 48 | (uint64_t)21 << 32 | 187); /* weight struct: var1 187, var2 21, var3 9 */
	r_u64(&r, ds);
	r_u64(&r, 0x12345040); /* phys */
	size_t len = r_finish(&r, PERF_RECORD_SAMPLE);
	kput(&f, r.w, len);
	struct got g = { .st = st };
	CHECK_EQ(mp_ring_drain(&f.ring, collect, &g), 0);
	CHECK_EQ(g.n, 1);
	CHECK_EQ(g.s[0].id, 77);
	CHECK_EQ(g.s[0].ip, 0x401000);
	CHECK_EQ(g.s[0].pid, 4241);
	CHECK_EQ(g.s[0].tid, 4242);
	CHECK_EQ(g.s[0].time, 123456789);
	CHECK_EQ(g.s[0].addr, 0x7f0000001040);
	CHECK_EQ(g.s[0].cpu, 1);
	CHECK_EQ(g.s[0].period, 10007);
	CHECK_EQ(g.s[0].weight, 187);
	CHECK_EQ(g.s[0].weight_var2, 21);
	CHECK_EQ(g.s[0].weight_var3, 9);
	CHECK_EQ(g.s[0].data_src, ds);
	CHECK_EQ(g.s[0].phys_addr, 0x12345040);
	uint64_t id;
	CHECK_EQ(mp_perf_sample_id((const struct perf_event_header *)r.w, &id), 0);
	CHECK_EQ(id, 77);
	struct perf_event_mmap_page *m = (struct perf_event_mmap_page *)f.base;
	CHECK_EQ(m->data_tail, m->data_head);
	/* the outcome of that sample */
	struct mp_outcome o;
	mp_outcome_from_data_src(g.s[0].data_src, g.s[0].weight, g.s[0].period, &o);
	CHECK_EQ(o.level, MP_LVL_L3);
	CHECK_EQ(o.snoop, MP_SNOOP_HITM);
	CHECK_EQ(o.tlb, MP_TLB_L1_HIT);
	CHECK_EQ(o.latency, 187);
	CHECK_EQ(o.weight, 10007);
	CHECK_EQ(mp_data_src_op(ds), 1);
	/* one word short: refused */
	struct perf_event_header *h = (struct perf_event_header *)r.w;
	h->size -= 8;
	CHECK_EQ(mp_perf_sample_parse(h, st, &g.s[1]), -EIO);
	CHECK_EQ(mp_perf_sample_parse(h, st | PERF_SAMPLE_BRANCH_STACK, &g.s[1]), -EINVAL);
	mp_ring_fini(&f.ring);
	free(f.base);
}

static void test_pebs_store_and_lost(void)
{
	struct fake f;
	fake_init(&f, 0);
	uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
		      PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_DATA_SRC;
	uint64_t ds = PERF_MEM_S(OP, STORE) | PERF_MEM_S(LVL, MISS) | PERF_MEM_S(LVL, L1) | PERF_MEM_S(TLB, MISS) |
		      PERF_MEM_S(TLB, L2) | PERF_MEM_S(LOCK, LOCKED);
	struct rec a = { .n = 0 }, lost = { .n = 0 }, lost2 = { .n = 0 };
	r_u64(&a, 5);
	r_u64(&a, 0x401234);
	r_u64(&a, (uint64_t)7 << 32 | 7);
	r_u64(&a, 1000);
	r_u64(&a, 0x1000);
	r_u64(&a, 0);
	r_u64(&a, 20011);
	r_u64(&a, ds);
	size_t al = r_finish(&a, PERF_RECORD_SAMPLE);
	r_u64(&lost, 5); /* id */
	r_u64(&lost, 7); /* lost */
	size_t ll = r_finish(&lost, PERF_RECORD_LOST);
	r_u64(&lost2, 5); /* lost */
	size_t l2 = r_finish(&lost2, PERF_RECORD_LOST_SAMPLES);
	kput(&f, a.w, al);
	kput(&f, lost.w, ll);
	kput(&f, lost2.w, l2);
	kput(&f, a.w, al);
	struct got g = { .st = st };
	CHECK_EQ(mp_ring_drain(&f.ring, collect, &g), 0);
	CHECK_EQ(g.n, 2);
	CHECK_EQ(g.other, 2);
	CHECK_EQ(f.ring.lost, 7);
	CHECK_EQ(f.ring.lost_samples, 5);
	CHECK_EQ(f.ring.records, 4);
	CHECK_EQ(g.s[1].period, 20011);
	CHECK_EQ(g.s[1].weight, 0);
	struct mp_outcome o;
	mp_outcome_from_data_src(g.s[1].data_src, 0, g.s[1].period, &o);
	CHECK_EQ(o.level, MP_LVL_UNKNOWN); /* an L1 miss alone does not say where it hit */
	CHECK_EQ(o.tlb, MP_TLB_WALK);
	CHECK_EQ(o.locked, 1);
	CHECK_EQ(mp_data_src_op(ds), 2);
	/* draining again finds nothing */
	g.n = 0;
	CHECK_EQ(mp_ring_drain(&f.ring, collect, &g), 0);
	CHECK_EQ(g.n, 0);
	mp_ring_fini(&f.ring);
	free(f.base);
}

/* IBS op: plain WEIGHT and a RAW blob (u32 size + data, padded to 8). */
static void test_ibs_op(void)
{
	struct fake f;
	fake_init(&f, 0);
	uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
		      PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW | PERF_SAMPLE_WEIGHT |
		      PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR;
	uint64_t ds = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVL, REM_RAM1) |
		      PERF_MEM_S(LVLNUM, RAM) | PERF_MEM_S(REMOTE, REMOTE) | PERF_MEM_S(HOPS, 2) |
		      PERF_MEM_S(SNOOP, HIT) | PERF_MEM_S(TLB, MISS) | PERF_MEM_S(TLB, WK);
	uint8_t rec[256];
	size_t o = 8;
	uint64_t w;
#define PUT(v) (w = (v), memcpy(rec + o, &w, 8), o += 8)
	PUT(9);
	PUT(0x555000);
	PUT((uint64_t)11 << 32 | 10);
	PUT(5555);
	PUT(0xdead000);
	PUT(1);
	PUT(100000);
	uint32_t rs = 12; /* 4 + 12 = 16: already 8-aligned */
	memcpy(rec + o, &rs, 4);
	memset(rec + o + 4, 0xab, rs);
	o += 16;
	PUT(250); /* weight: DC miss latency */
	PUT(ds);
	PUT(0xbeef000);
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = (uint16_t)o };
	memcpy(rec, &h, 8);
	kput(&f, rec, o);
	struct got g = { .st = st };
	CHECK_EQ(mp_ring_drain(&f.ring, collect, &g), 0);
	CHECK_EQ(g.n, 1);
	CHECK_EQ(g.s[0].raw_size, 12);
	CHECK_EQ(g.s[0].raw[0], 0xab);
	CHECK_EQ(g.s[0].weight, 250);
	CHECK_EQ(g.s[0].data_src, ds);
	CHECK_EQ(g.s[0].phys_addr, 0xbeef000);
	struct mp_outcome out;
	mp_outcome_from_data_src(ds, 250, 100000, &out);
	CHECK_EQ(out.level, MP_LVL_REMOTE_DRAM);
	CHECK_EQ(out.remote, 1);
	CHECK_EQ(out.snoop, MP_SNOOP_HIT);
	CHECK_EQ(out.tlb, MP_TLB_WALK);
	CHECK_EQ(out.latency, 250);
	CHECK_EQ(out.weight, 100000);
	/* a raw size of 5: 4 + 5 = 9 bytes, padded to 16 */
	o = 8 + 7 * 8;
	rs = 5;
	memcpy(rec + o, &rs, 4);
	o += 16;
	PUT(33);
	PUT(ds);
	PUT(0x1000);
	h.size = (uint16_t)o;
	memcpy(rec, &h, 8);
	struct mp_perf_sample s;
	CHECK_EQ(mp_perf_sample_parse((const struct perf_event_header *)rec, st, &s), 0);
	CHECK_EQ(s.raw_size, 5);
	CHECK_EQ(s.weight, 33);
	CHECK_EQ(s.phys_addr, 0x1000);
#undef PUT
	mp_ring_fini(&f.ring);
	free(f.base);
}

/* An SPE-like layout (what perf synthesizes from SPE records): callchain
 * and data page size; and a ring whose record wraps the end. */
static void test_spe_like_wrapped(void)
{
	struct fake f;
	fake_init(&f, DATA - 24); /* the record below starts 24 bytes before the end */
	uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
		      PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_DATA_PAGE_SIZE;
	uint64_t ds = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVLNUM, L2) | PERF_MEM_S(SNOOPX, PEER) |
		      PERF_MEM_S(TLB, HIT) | PERF_MEM_S(TLB, L2);
	struct rec r = { .n = 0 };
	r_u64(&r, 3);
	r_u64(&r, 0x400800);
	r_u64(&r, (uint64_t)21 << 32 | 20);
	r_u64(&r, 999);
	r_u64(&r, 0xffff0000);
	r_u64(&r, 0);
	r_u64(&r, 3); /* nr */
	r_u64(&r, PERF_CONTEXT_USER);
	r_u64(&r, 0x400800);
	r_u64(&r, 0x400123);
	r_u64(&r, ds);
	r_u64(&r, 2 << 20);
	size_t len = r_finish(&r, PERF_RECORD_SAMPLE);
	kput(&f, r.w, len);
	struct got g = { .st = st };
	CHECK_EQ(mp_ring_drain(&f.ring, collect, &g), 0);
	CHECK_EQ(g.n, 1);
	CHECK_EQ(g.s[0].nr_chain, 3);
	uint64_t ip;
	memcpy(&ip, g.s[0].chain + 16, 8);
	CHECK_EQ(ip, 0x400123);
	CHECK_EQ(g.s[0].data_page_size, 2 << 20);
	CHECK_EQ(g.s[0].addr, 0xffff0000);
	struct perf_event_mmap_page *m = (struct perf_event_mmap_page *)f.base;
	CHECK_EQ(m->data_tail, DATA - 24 + len);
	struct mp_outcome o;
	mp_outcome_from_data_src(ds, 0, 0, &o);
	CHECK_EQ(o.level, MP_LVL_L2);
	CHECK_EQ(o.snoop, MP_SNOOP_HIT);
	CHECK_EQ(o.tlb, MP_TLB_L2_HIT);
	CHECK_EQ(o.weight, 1);
	/* a malformed header (size 0) stops the drain and skips the rest */
	uint64_t zero = 0;
	kput(&f, &zero, 8);
	kput(&f, r.w, len);
	g.n = 0;
	CHECK_EQ(mp_ring_drain(&f.ring, collect, &g), -EIO);
	CHECK_EQ(g.n, 0);
	CHECK_EQ(f.ring.bad, 1);
	CHECK_EQ(m->data_tail, m->data_head);
	mp_ring_fini(&f.ring);
	free(f.base);
}

static void test_data_src(void)
{
	struct mp_outcome o;
	/* lvl_num wins over the legacy bits when filled */
	mp_outcome_from_data_src(PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVL, L1) | PERF_MEM_S(LVLNUM, L1) |
					 PERF_MEM_S(SNOOP, NONE) | PERF_MEM_S(TLB, HIT) | PERF_MEM_S(TLB, L1),
				 4, 1, &o);
	CHECK_EQ(o.level, MP_LVL_L1);
	CHECK_EQ(o.snoop, MP_SNOOP_NONE);
	CHECK_EQ(o.tlb, MP_TLB_L1_HIT);
	CHECK_EQ(o.remote, 0);
	mp_outcome_from_data_src(PERF_MEM_S(LVLNUM, LFB), 0, 1, &o);
	CHECK_EQ(o.level, MP_LVL_LFB);
	mp_outcome_from_data_src(PERF_MEM_S(LVLNUM, RAM), 0, 1, &o);
	CHECK_EQ(o.level, MP_LVL_LOCAL_DRAM);
	mp_outcome_from_data_src(PERF_MEM_S(LVLNUM, RAM) | PERF_MEM_S(REMOTE, REMOTE) | PERF_MEM_S(HOPS, 0), 0, 1, &o);
	CHECK_EQ(o.level, MP_LVL_LOCAL_DRAM); /* hop 0: another core, same node */
	CHECK_EQ(o.remote, 0);
	mp_outcome_from_data_src(PERF_MEM_S(LVLNUM, L3) | PERF_MEM_S(REMOTE, REMOTE) | PERF_MEM_S(HOPS, 2), 0, 1, &o);
	CHECK_EQ(o.level, MP_LVL_REMOTE_CACHE);
	CHECK_EQ(o.remote, 1);
	mp_outcome_from_data_src(PERF_MEM_S(LVLNUM, PMEM), 0, 1, &o);
	CHECK_EQ(o.level, MP_LVL_PMEM);
	mp_outcome_from_data_src(PERF_MEM_S(LVLNUM, CXL), 0, 1, &o);
	CHECK_EQ(o.level, MP_LVL_PMEM);
	mp_outcome_from_data_src(PERF_MEM_S(LVLNUM, IO), 0, 1, &o);
	CHECK_EQ(o.level, MP_LVL_IO);
	/* legacy encodings (lvl_num NA), as older kernels report them */
	uint64_t na = PERF_MEM_S(LVLNUM, NA);
	mp_outcome_from_data_src(na | PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVL, REM_CCE2), 0, 1, &o);
	CHECK_EQ(o.level, MP_LVL_REMOTE_CACHE);
	CHECK_EQ(o.remote, 1);
	mp_outcome_from_data_src(na | PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVL, LOC_RAM), 0, 1, &o);
	CHECK_EQ(o.level, MP_LVL_LOCAL_DRAM);
	mp_outcome_from_data_src(na | PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVL, LFB), 0, 1, &o);
	CHECK_EQ(o.level, MP_LVL_LFB);
	mp_outcome_from_data_src(na | PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVL, UNC), 0, 1, &o);
	CHECK_EQ(o.level, MP_LVL_UNCACHED);
	mp_outcome_from_data_src(PERF_MEM_S(LVL, NA) | PERF_MEM_S(SNOOP, NA) | PERF_MEM_S(TLB, NA), 0, 1, &o);
	CHECK_EQ(o.level, MP_LVL_UNKNOWN);
	CHECK_EQ(o.snoop, MP_SNOOP_UNKNOWN);
	CHECK_EQ(o.tlb, MP_TLB_UNKNOWN);
	/* snoop: HITM beats HIT; forward (snoopx) is a hit; miss */
	mp_outcome_from_data_src(PERF_MEM_S(SNOOP, HIT) | PERF_MEM_S(SNOOP, HITM), 0, 1, &o);
	CHECK_EQ(o.snoop, MP_SNOOP_HITM);
	mp_outcome_from_data_src(PERF_MEM_S(SNOOPX, FWD), 0, 1, &o);
	CHECK_EQ(o.snoop, MP_SNOOP_HIT);
	mp_outcome_from_data_src(PERF_MEM_S(SNOOP, MISS), 0, 1, &o);
	CHECK_EQ(o.snoop, MP_SNOOP_MISS);
	/* TLB: STLB hit, walker, OS */
	mp_outcome_from_data_src(PERF_MEM_S(TLB, HIT) | PERF_MEM_S(TLB, L2), 0, 1, &o);
	CHECK_EQ(o.tlb, MP_TLB_L2_HIT);
	mp_outcome_from_data_src(PERF_MEM_S(TLB, MISS) | PERF_MEM_S(TLB, OS), 0, 1, &o);
	CHECK_EQ(o.tlb, MP_TLB_WALK);
	mp_outcome_from_data_src(PERF_MEM_S(TLB, MISS) | PERF_MEM_S(TLB, L1), 0, 1, &o);
	CHECK_EQ(o.tlb, MP_TLB_UNKNOWN); /* a DTLB miss alone: STLB outcome unknown */
	/* an STLB-miss event marks a walk when the data source is silent */
	mp_outcome_from_sample(5, PERF_MEM_S(TLB, NA), 0, 50, &o);
	CHECK_EQ(o.tlb, MP_TLB_WALK);
	CHECK_EQ(o.weight, 50);
	mp_outcome_from_sample(3, PERF_MEM_S(TLB, NA), 0, 50, &o);
	CHECK_EQ(o.tlb, MP_TLB_UNKNOWN);
	/* latency: the low 32 bits of weight (WEIGHT_STRUCT var1) */
	mp_outcome_from_data_src(0, (uint64_t)42 << 32 | 0x11f, 0, &o);
	CHECK_EQ(o.latency, 0x11f);
	CHECK_EQ(o.weight, 1);
}

static void test_parse_event(void)
{
	uint64_t c, c1, c2;
	/* sysfs cpu/events/mem-loads on Skylake..Sapphire Rapids */
	CHECK_EQ(mp_perf_parse_event("event=0xcd,umask=0x1,ldlat=3\n", NULL, &c, &c1, &c2), 0);
	CHECK_EQ(c, 0x1cd);
	CHECK_EQ(c1, 3);
	CHECK_EQ(c2, 0);
	CHECK_EQ(mp_perf_parse_event("event=0xd0,umask=0x82", NULL, &c, &c1, &c2), 0);
	CHECK_EQ(c, 0x82d0);
	CHECK_EQ(mp_perf_parse_event("event=0xd0,bogus=1", NULL, &c, &c1, &c2), -EINVAL);
	CHECK_EQ(mp_perf_parse_event("event=zz", NULL, &c, &c1, &c2), -EINVAL);
	CHECK_EQ(mp_perf_parse_event("event=0x1cd", NULL, &c, &c1, &c2), -ERANGE); /* event is 8 bits */
	/* a format directory with a split field and a flag */
	char dir[] = "/tmp/mp-fmt-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char path[256];
	const char *files[][2] = { { "event", "config:0-7,32-35\n" }, { "flag", "config2:5\n" } };
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i][0]);
		FILE *f = fopen(path, "w");
		fputs(files[i][1], f);
		fclose(f);
	}
	CHECK_EQ(mp_perf_parse_event("event=0x3cd,flag", dir, &c, &c1, &c2), 0);
	CHECK_EQ(c, (0x3ull << 32) | 0xcd);
	CHECK_EQ(c2, 1u << 5);
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i][0]);
		unlink(path);
	}
	rmdir(dir);
}

/* The pmu specs follow the probe: a constructed AMD machine gets ibs_op
 * with its sysfs type and a period rounded to the hardware's 16. */
static void test_specs(void)
{
	struct mp_probe p;
	memset(&p, 0, sizeof(p));
	p.pmus[MP_PMU_IBS_OP] = (struct mp_probe_pmu){ .name = "ibs_op", .present = 1, .type = 11 };
	struct mp_perf_spec sp[4];
	char buf[1024];
	struct mp_pmu_opts o = { .period = 100007 };
	CHECK_EQ(mp_perf_specs(MP_SOURCE_PMU, &p, &o, sp, 4, buf, sizeof(buf)), 1);
	CHECK_EQ(sp[0].type, 11);
	CHECK_EQ(sp[0].period, 100000);
	CHECK((sp[0].sample_type & (PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_ADDR)) ==
	      (PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_ADDR));
	CHECK_EQ(sp[0].sample_type & PERF_SAMPLE_PHYS_ADDR, 0); /* not root */
	p.root = 1;
	CHECK_EQ(mp_perf_specs(MP_SOURCE_PMU, &p, &o, sp, 4, buf, sizeof(buf)), 1);
	CHECK_EQ(sp[0].sample_type & PERF_SAMPLE_PHYS_ADDR, PERF_SAMPLE_PHYS_ADDR);
	memset(&p, 0, sizeof(p));
	CHECK_EQ(mp_perf_specs(MP_SOURCE_PMU, &p, &o, sp, 4, buf, sizeof(buf)), -ENODEV);
	/* Arm SPE: its spec comes from the arm_spe PMU's sysfs directory
	 * (test_spe.c builds one); a probe that saw it, on a tree that lacks it */
	p.pmus[MP_PMU_ARM_SPE] = (struct mp_probe_pmu){ .name = "arm_spe_0", .present = 1, .type = 9 };
	o.sysfs_root = "/nonexistent";
	CHECK_EQ(mp_perf_specs(MP_SOURCE_PMU, &p, &o, sp, 4, buf, sizeof(buf)), -ENOENT);
	CHECK_EQ(mp_perf_specs(MP_SOURCE_FAULTS, &p, &o, sp, 4, buf, sizeof(buf)), 2);
	CHECK_EQ(sp[0].config, PERF_COUNT_SW_PAGE_FAULTS_MIN);
	CHECK_EQ(sp[1].config, PERF_COUNT_SW_PAGE_FAULTS_MAJ);
}

/* STLB-miss events come from libpfm4 (no sysfs alias). This VM has no PMU
 * libpfm4 recognises, so the test forces a Haswell model, the machine of
 * the BSC tools paper: MEM_UOPS_RETIRED.STLB_MISS_LOADS / _STORES are event 0xd0 with
 * umask 0x11 / 0x12 (Intel SDM vol. 3B, Haswell events). The decoder reads
 * their samples as page walks. */
static void test_stlb_events(void)
{
	static const char *const loads[] = { "MEM_INST_RETIRED:STLB_MISS_LOADS", "MEM_UOPS_RETIRED:STLB_MISS_LOADS",
					     NULL };
	static const char *const stores[] = { "MEM_UOPS_RETIRED:STLB_MISS_STORES", NULL };
	static const char *const none[] = { "NO_SUCH_EVENT:AT_ALL", NULL };
	setenv("LIBPFM_FORCE_PMU", "hsw", 1); /* read once, at libpfm4's start */
	struct mp_perf_spec sp;
	const char *used = NULL;
	memset(&sp, 0, sizeof(sp));
	CHECK_EQ(mp_perf_pfm_event(loads, &sp, &used), 0);
	CHECK_EQ(sp.config & 0xffff, 0x11d0);
	CHECK(used && strcmp(used, "MEM_UOPS_RETIRED:STLB_MISS_LOADS") == 0); /* Haswell's name */
	CHECK_EQ(mp_perf_pfm_event(stores, &sp, &used), 0);
	CHECK_EQ(sp.config & 0xffff, 0x12d0);
	CHECK_EQ(mp_perf_pfm_event(none, &sp, &used), -ENOENT);
	unsetenv("LIBPFM_FORCE_PMU");
	struct mp_outcome out;
	mp_outcome_from_sample(MP_SK_PEBS_STLB_LOAD, 0, 0, 1000, &out);
	CHECK_EQ(out.tlb, MP_TLB_WALK);
	CHECK_EQ(out.weight, 1000);
}

/* PERF_RECORD_AUX (Arm SPE) with its sample_id trailer: the process and
 * thread whose records the AUX range holds, the time, CPU and event id. */
static void test_aux_record(void)
{
	uint64_t st = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
	struct rec r = { .n = 0 };
	r_u64(&r, 8192); /* aux_offset */
	r_u64(&r, 4096); /* aux_size */
	r_u64(&r, PERF_AUX_FLAG_TRUNCATED);
	r_u64(&r, (uint64_t)71 << 32 | 70); /* pid 70, tid 71 */
	r_u64(&r, 123456789);
	r_u64(&r, 3); /* cpu */
	r_u64(&r, 0xabc); /* identifier */
	r_finish(&r, PERF_RECORD_AUX);
	const struct perf_event_header *h = (const struct perf_event_header *)r.w;
	struct mp_perf_sample s;
	CHECK_EQ(mp_perf_sample_id_all(h, 24, st, &s), 0);
	CHECK_EQ(s.pid, 70);
	CHECK_EQ(s.tid, 71);
	CHECK_EQ(s.time, 123456789);
	CHECK_EQ(s.cpu, 3);
	CHECK_EQ(s.id, 0xabc);
	CHECK_EQ(mp_perf_sample_id_all(h, 24, st | PERF_SAMPLE_ID, &s), -EIO); /* one field more than there is */
	CHECK_EQ(mp_perf_sample_id_all(h, 64, st, &s), -EIO);
}

/* The child of test_live_jitter: first-touches TOUCH_PAGES pages in rounds,
 * pausing between them so the parent drains (and re-draws periods) often. */
#define TOUCH_PAGES 3000
static int touch_pages(void)
{
	long psz = sysconf(_SC_PAGESIZE);
	for (int round = 0; round < 30; round++) {
		volatile char *m = mmap(NULL, (size_t)(TOUCH_PAGES / 30) * (size_t)psz, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return 1;
		for (int i = 0; i < TOUCH_PAGES / 30; i++)
			m[(size_t)i * (size_t)psz] = 1;
		usleep(3000);
	}
	return 0;
}

/* --period-jitter for real, with a software event (this machine has no
 * PMU): minor page faults of a child that execs this test in touch mode,
 * sampled every 20 with 50% jitter. Software events with PERF_SAMPLE_PERIOD
 * in sample_type are sampled on every event (the kernel's swevent path
 * reports period 1 then), so the test leaves PERIOD out and reads the
 * periods off the addresses: the child touches consecutive pages, so the
 * gap between two sampled addresses is the period in force. */
struct ts_addr {
	uint64_t t, a;
};
static int by_time(const void *x, const void *y)
{
	const struct ts_addr *a = x, *b = y;
	return a->t < b->t ? -1 : a->t > b->t;
}

static void test_live_jitter(const char *self)
{
	char path[] = "/tmp/mp-jitter-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	struct mp_file_header fh;
	trace_file_header_init(&fh, 0, "", 0, 0);
	CHECK_EQ(write(fd, &fh, sizeof(fh)), sizeof(fh));
	int go[2];
	CHECK_EQ(pipe(go), 0);
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execl("/proc/self/exe", self, "--touch", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	struct mp_perf_spec sp = { .name = "faults as samples",
				   .kind = MP_SK_PEBS_LOAD,
				   .type = PERF_TYPE_SOFTWARE,
				   .config = PERF_COUNT_SW_PAGE_FAULTS_MIN,
				   .period = 20,
				   .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						  PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU };
	const struct mp_perf_session_opts so = { .ring_pages = 8, .jitter_pct = 50, .seed = 1234 };
	struct mp_perf_session *s = NULL;
	int err = mp_perf_session_open(pid, &sp, 1, &so, fd, &s);
	CHECK_EQ(write(go[1], "g", 1), 1);
	close(go[1]);
	if (err) {
		/* perf_event_open refused (paranoid): nothing to test here */
		fprintf(stderr, "test_live_jitter: skipped, session_open: %s\n", strerror(-err));
		waitpid(pid, NULL, 0);
		close(fd);
		unlink(path);
		return;
	}
	int fds[64], n = mp_perf_session_fds(s, fds, 64), st = 0;
	struct pollfd pfd[64];
	for (int i = 0; i < n; i++)
		pfd[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
	while (waitpid(pid, &st, WNOHANG) == 0) {
		poll(pfd, (nfds_t)n, 2);
		mp_perf_session_drain(s);
	}
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	struct mp_perf_stats stats;
	CHECK_EQ(mp_perf_session_close(s, &stats), 0);
	close(fd);
	CHECK(stats.period_changes > 0);
	struct ts_addr *v = calloc(stats.samples + 1, sizeof(*v));
	size_t nv = 0;
	struct trace_reader *r = trace_reader_open(path);
	CHECK(r != NULL && v != NULL);
	struct trace_chunk c;
	while (r && v && trace_reader_next(r, &c) == 1) {
		if (c.hdr.type != MP_CHUNK_SAMPLES)
			continue;
		struct trace_dec d;
		struct trace_rec rec;
		trace_dec_init(&d, c.data, c.len);
		while (trace_dec_next(&d, &rec) == 1)
			if (rec.cls == MP_REC_EVENT && rec.event == MP_EV_SAMPLE && nv < stats.samples)
				v[nv++] = (struct ts_addr){ rec.f[0], rec.f[4] };
	}
	trace_reader_close(r);
	unlink(path);
	CHECK_EQ(nv, stats.samples);
	qsort(v, nv, sizeof(*v), by_time);
	/* gaps between samples inside one touched run: the periods in force */
	long psz = sysconf(_SC_PAGESIZE);
	int gaps = 0, in_range = 0, seen[64] = { 0 }, distinct = 0;
	for (size_t i = 1; i < nv; i++) {
		uint64_t g = (v[i].a - v[i - 1].a) / (uint64_t)psz;
		if (v[i].a <= v[i - 1].a || (v[i].a - v[i - 1].a) % (uint64_t)psz || g > 40)
			continue;
		gaps++;
		in_range += g >= 10 && g <= 30;
		if (!seen[g]++)
			distinct++;
	}
	free(v);
	CHECK(gaps >= TOUCH_PAGES / 60); /* most of the ~150 samples are in runs */
	/* a stray fault between two samples shortens a gap; a period changed
	 * mid-run restarts the count (the ioctl resets period_left) */
	CHECK(in_range >= gaps * 3 / 4);
	CHECK(distinct >= 4); /* without jitter every gap would be 20 */
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--touch") == 0)
		return touch_pages();
	test_live_jitter(argv[0]);
	test_aux_record();
	test_stlb_events();
	test_pebs_load();
	test_pebs_store_and_lost();
	test_ibs_op();
	test_spe_like_wrapped();
	test_data_src();
	test_parse_event();
	test_specs();
	return check_done("test_perf");
}
