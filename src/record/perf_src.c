// SPDX-License-Identifier: MIT
/*
 * Live perf sampling for `memprism record --source faults|pmu`, and the
 * inst source's CPU-time samples (see perf_src.h). Every event is opened once per CPU on the program's pid with
 * inherit=1: an inherited per-task event (cpu = -1) cannot be mmapped, a
 * per-CPU one can, and inherit carries it to every thread and child. The
 * events of one CPU share that CPU's ring (PERF_EVENT_IOC_SET_OUTPUT) and are
 * told apart by PERF_SAMPLE_IDENTIFIER. They start disabled with
 * enable_on_exec, so counting begins exactly when the program image starts.
 *
 * Times come from CLOCK_MONOTONIC (use_clockid), the clock of the runtime's
 * events, so the analysis can place each sample among them.
 */
#include "record/perf_src.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "common/varint.h"
#include "record/pfm_events.h"
#include "record/perf_ring.h"
#include "record/spe_decode.h"
#include "trace/trace_format.h"
#include "trace/trace_writer.h"

#define SRC_MAX_SPECS 8
#define SRC_BUF (256u << 10) /* payload bytes per SAMPLES chunk */
#define SRC_EVENT_MAX 1400 /* worst-case encoded event (64 callchain frames) */
#define SRC_MAX_CHAIN 64

struct src_ev {
	int fd;
	uint64_t id;
	int spec, ring;
};

struct src_ring {
	int cpu, fd;
	void *base;
	size_t len;
	struct mp_ring ring;
	uint64_t lost_seen; /* ring.lost + lost_samples already written as LOST */
	uint8_t *aux; /* AUX area (SPE), aux_len bytes, a power of two */
	size_t aux_len;
};

struct mp_perf_session {
	struct mp_perf_spec specs[SRC_MAX_SPECS];
	uint64_t sample_type[SRC_MAX_SPECS];
	int nspecs;
	struct src_ev *evs;
	int nevs;
	struct src_ring *rings;
	int nrings;
	int out_fd, err;
	uint8_t *buf, *chunk;
	size_t len;
	uint64_t last_time;
	uint32_t seq;
	ZSTD_CCtx *cctx;
	int defs_written;
	struct src_ring *cur; /* ring being drained */
	struct mp_perf_stats stats;
	pid_t pid; /* the program */
	int children;
	unsigned jitter_pct;
	uint64_t rng;
	uint8_t *aux_copy; /* one AUX record's data, unwrapped */
	size_t aux_cap;
	int spe_neoverse; /* Data Source packets use the Neoverse encoding */
	int mem; /* rings are the caller's memory (mp_perf_session_open_mem): no fds */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* --- encoding SAMPLES chunks ------------------------------------------- */

static int flush(struct mp_perf_session *s)
{
	if (!s->len || s->err)
		return s->err;
	struct mp_chunk_header h = { .type = MP_CHUNK_SAMPLES, .pid = (uint32_t)getpid(), .seq = s->seq++ };
	size_t n = trace_chunk_build(&h, s->buf, s->len, s->chunk, s->cctx, 1);
	s->err = trace_write_all(s->out_fd, s->chunk, n);
	s->len = 0;
	s->last_time = 0; /* time deltas restart in every chunk */
	s->stats.chunks++;
	return s->err;
}

/* Starts an event record: tag, epoch delta 0, time delta. */
static uint8_t *ev_begin(struct mp_perf_session *s, unsigned type, uint64_t time)
{
	if (s->len + SRC_EVENT_MAX > SRC_BUF)
		flush(s);
	uint8_t *p = s->buf + s->len;
	*p++ = MP_TAG(MP_REC_EVENT, type);
	p = mp_put_uv(p, 0);
	p = mp_put_uv(p, mp_zigzag((int64_t)(time - s->last_time)));
	s->last_time = time;
	return p;
}

static void ev_end(struct mp_perf_session *s, uint8_t *p)
{
	s->len = (size_t)(p - s->buf);
}

static void write_defs(struct mp_perf_session *s)
{
	uint64_t now = mono_ns();
	for (int i = 0; i < s->nspecs; i++) {
		const struct mp_perf_spec *sp = &s->specs[i];
		uint8_t *p = ev_begin(s, MP_EV_SAMPLE_DEF, now);
		p = mp_put_uv(p, (uint64_t)i);
		p = mp_put_uv(p, sp->kind);
		p = mp_put_uv(p, sp->type);
		p = mp_put_uv(p, sp->config);
		p = mp_put_uv(p, sp->period);
		size_t n = strlen(sp->name);
		if (n > 200)
			n = 200;
		p = mp_put_uv(p, n);
		memcpy(p, sp->name, n);
		ev_end(s, p + n);
	}
	s->defs_written = 1;
}

static int spec_of(const struct mp_perf_session *s, uint64_t id)
{
	for (int i = 0; i < s->nevs; i++)
		if (s->evs[i].id == id)
			return s->evs[i].spec;
	return -1;
}

static void put_lost(struct mp_perf_session *s, struct src_ring *r)
{
	uint64_t lost = r->ring.lost + r->ring.lost_samples;
	if (lost == r->lost_seen)
		return;
	uint8_t *p = ev_begin(s, MP_EV_LOST, mono_ns());
	p = mp_put_uv(p, (uint64_t)r->cpu);
	p = mp_put_uv(p, lost - r->lost_seen);
	ev_end(s, p);
	s->stats.lost += lost - r->lost_seen;
	r->lost_seen = lost;
}

static void put_sample(struct mp_perf_session *s, int k, const struct mp_perf_sample *sm);
static void on_aux(struct mp_perf_session *s, const struct perf_event_header *rec);

static int on_record(void *arg, const struct perf_event_header *rec)
{
	struct mp_perf_session *s = arg;
	if (rec->type == PERF_RECORD_AUX) {
		on_aux(s, rec);
		return 0;
	}
	if (rec->type != PERF_RECORD_SAMPLE)
		return 0; /* LOST is counted by the ring; THROTTLE, ITRACE_START and others: nothing to keep */
	uint64_t id;
	int k;
	struct mp_perf_sample smp;
	if (mp_perf_sample_id(rec, &id) || (k = spec_of(s, id)) < 0 ||
	    mp_perf_sample_parse(rec, s->sample_type[k], &smp)) {
		s->stats.bad_records++;
		return 0;
	}
	if (!s->children && smp.pid != (uint32_t)s->pid) {
		s->stats.other_procs++; /* a child process: not asked for */
		return 0;
	}
	put_sample(s, k, &smp);
	return 0;
}

/* One sample (or fault) of event k as a trace event. */
static void put_sample(struct mp_perf_session *s, int k, const struct mp_perf_sample *sm)
{
	const struct mp_perf_spec *sp = &s->specs[k];
	struct mp_perf_sample smp = *sm;
	uint8_t *p;
	if (sp->kind == MP_SK_FAULT_MIN || sp->kind == MP_SK_FAULT_MAJ) {
		p = ev_begin(s, MP_EV_FAULT, smp.time);
		p = mp_put_uv(p, smp.cpu);
		p = mp_put_uv(p, smp.pid);
		p = mp_put_uv(p, smp.tid);
		p = mp_put_uv(p, smp.addr);
		p = mp_put_uv(p, smp.ip);
		p = mp_put_uv(p, sp->kind == MP_SK_FAULT_MAJ ? MP_FAULT_MAJOR : 0);
		ev_end(s, p);
		s->stats.faults++;
		return;
	}
	p = ev_begin(s, MP_EV_SAMPLE, smp.time);
	p = mp_put_uv(p, smp.cpu);
	p = mp_put_uv(p, smp.pid);
	p = mp_put_uv(p, smp.tid);
	p = mp_put_uv(p, smp.addr);
	p = mp_put_uv(p, smp.ip);
	p = mp_put_uv(p, (uint64_t)k);
	p = mp_put_uv(p, smp.period ? smp.period : sp->period);
	p = mp_put_uv(p, smp.data_src);
	p = mp_put_uv(p, smp.weight | (uint64_t)smp.weight_var2 << 32);
	p = mp_put_uv(p, smp.phys_addr);
	/* callchain: user frames only, context markers (>= PERF_CONTEXT_MAX) dropped */
	uint8_t chain[SRC_MAX_CHAIN * 10 + 10], *c = chain;
	uint64_t n = 0, ips[SRC_MAX_CHAIN];
	for (uint64_t i = 0; i < smp.nr_chain && n < SRC_MAX_CHAIN; i++) {
		uint64_t ip;
		memcpy(&ip, smp.chain + 8 * i, 8);
		if (ip < (uint64_t)PERF_CONTEXT_MAX)
			ips[n++] = ip;
	}
	c = mp_put_uv(c, n);
	for (uint64_t i = 0; i < n; i++)
		c = mp_put_uv(c, ips[i]);
	p = mp_put_uv(p, (uint64_t)(c - chain));
	memcpy(p, chain, (size_t)(c - chain));
	ev_end(s, p + (c - chain));
	s->stats.samples++;
}

/* --- Arm SPE: records in the AUX area ------------------------------------ */

/* Copies [off, off + size) of the ring's AUX area (wrapping) into
 * s->aux_copy and hands the space back to the kernel. NULL on no memory. */
static const uint8_t *aux_take(struct mp_perf_session *s, struct src_ring *r, uint64_t off, uint64_t size)
{
	if (size > s->aux_cap) {
		uint8_t *nb = realloc(s->aux_copy, size);
		if (!nb)
			return NULL;
		s->aux_copy = nb;
		s->aux_cap = size;
	}
	size_t at = (size_t)(off & (r->aux_len - 1)), first = r->aux_len - at;
	if (first > size)
		first = size;
	memcpy(s->aux_copy, r->aux + at, first);
	memcpy(s->aux_copy + first, r->aux, size - first);
	__atomic_store_n(&r->ring.meta->aux_tail, off + size, __ATOMIC_RELEASE);
	return s->aux_copy;
}

/* One SPE record as the sample PEBS and IBS give: the data source the
 * kernel would have synthesised, total latency as the weight (issue latency
 * as var2), and the tid from a Context packet when the kernel writes it
 * (CONFIG_PID_IN_CONTEXTIDR), else from the AUX record. */
static void put_spe(struct mp_perf_session *s, int k, const struct mp_spe_record *sr, const struct mp_perf_sample *id,
		    uint64_t time)
{
	struct mp_perf_sample smp = *id;
	smp.time = time;
	if (sr->has & MP_SPE_HAS_CONTEXT)
		smp.tid = sr->context;
	smp.addr = sr->vaddr;
	smp.ip = sr->pc;
	smp.period = s->specs[k].period;
	smp.data_src = mp_spe_data_src(sr, s->spe_neoverse);
	smp.weight = sr->total_lat;
	smp.weight_var2 = sr->issue_lat;
	smp.phys_addr = sr->paddr;
	put_sample(s, k, &smp);
}

/*
 * PERF_RECORD_AUX: the driver filled [aux_offset, +aux_size) while one task
 * ran (it closes the AUX transaction when the task is switched out or the
 * buffer fills), so the record's sample_id names the process and thread.
 * Record times: the AUX record's CLOCK_MONOTONIC time stands for the last
 * record's timestamp; earlier ones are placed before it by their
 * generic-timer distance (the perf mmap page's time_mult/time_shift).
 */
static void on_aux(struct mp_perf_session *s, const struct perf_event_header *rec)
{
	struct src_ring *r = s->cur;
	struct mp_perf_sample id;
	uint64_t w[3]; /* aux_offset, aux_size, flags */
	int k;
	if (!r || !r->aux || rec->size < sizeof(*rec) + sizeof(w) ||
	    mp_perf_sample_id_all(rec, sizeof(w), s->sample_type[0], &id) || (k = spec_of(s, id.id)) < 0) {
		s->stats.bad_records++;
		return;
	}
	memcpy(w, (const uint8_t *)rec + sizeof(*rec), sizeof(w));
	if (w[2] & PERF_AUX_FLAG_TRUNCATED)
		s->stats.aux_truncated++;
	if (!w[1])
		return;
	if (w[1] > r->aux_len) {
		s->stats.bad_records++;
		return;
	}
	const uint8_t *buf = aux_take(s, r, w[0], w[1]);
	if (!buf) {
		s->stats.bad_records++;
		return;
	}
	if (!s->children && id.pid != (uint32_t)s->pid) {
		s->stats.other_procs++;
		return;
	}
	const struct perf_event_mmap_page *m = r->ring.meta;
	int conv = m->cap_user_time && m->time_mult;
	uint64_t last_ts = 0;
	for (int pass = 0; pass < 2; pass++) {
		size_t pos = 0, used;
		struct mp_spe_record sr;
		int ret;
		while (pos < w[1] && (ret = mp_spe_decode(buf + pos, (size_t)w[1] - pos, &used, &sr)) != 0) {
			pos += used;
			if (ret < 0) {
				if (pass == 1)
					s->stats.bad_records++;
				if (ret == -ENODATA)
					break;
				continue;
			}
			if (pass == 0) {
				if ((sr.has & MP_SPE_HAS_TS) && sr.timestamp > last_ts)
					last_ts = sr.timestamp;
				continue;
			}
			if (!(sr.has & MP_SPE_HAS_VADDR))
				continue; /* not a memory access */
			uint64_t t = id.time;
			if (conv && (sr.has & MP_SPE_HAS_TS)) {
				uint64_t back = mp_spe_ticks_ns(last_ts - sr.timestamp, m->time_mult, m->time_shift);
				t = back < t ? t - back : 0;
			}
			put_spe(s, k, &sr, &id, t);
		}
	}
}

/* --- opening ------------------------------------------------------------ */

static long perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int cpu_online(int cpu)
{
	char path[64], c = '1';
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	FILE *f = fopen(path, "re");
	if (!f)
		return 1; /* cpu0 often has no online file: always online */
	if (fread(&c, 1, 1, f) != 1)
		c = '1';
	fclose(f);
	return c == '1';
}

/* The Data Source encoding of this machine's cores (arm64 sysfs MIDR_EL1). */
static int spe_neoverse(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", "re");
	unsigned long long midr = 0;
	if (!f)
		return 0;
	if (fscanf(f, "%llx", &midr) != 1)
		midr = 0;
	fclose(f);
	return mp_spe_neoverse_midr(midr);
}

/* Maps the AUX area after the ring: its place and size go into the
 * ring's meta page first (perf_event_open(2), "aux_offset"). Writable, so
 * the kernel never overwrites records memprism has not read. */
static int map_aux(struct src_ring *r, int fd, size_t bytes)
{
	r->ring.meta->aux_offset = r->len;
	r->ring.meta->aux_size = bytes;
	void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)r->len);
	if (m == MAP_FAILED)
		return -errno;
	r->aux = m;
	r->aux_len = bytes;
	return 0;
}

/* The session without events: buffers, specs and options, room for
 * nrings rings of nspecs events. NULL when out of memory. */
static struct mp_perf_session *session_new(pid_t pid, const struct mp_perf_spec *specs, int nspecs,
					   const struct mp_perf_session_opts *o, int out_fd, int nrings)
{
	struct mp_perf_session *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->out_fd = out_fd;
	s->nspecs = nspecs;
	s->pid = pid;
	s->children = o->children;
	s->jitter_pct = o->jitter_pct;
	s->rng = o->seed ? o->seed : mono_ns() ^ ((uint64_t)getpid() << 32);
	if (!s->rng)
		s->rng = 1;
	if (specs[0].aux_bytes)
		s->spe_neoverse = spe_neoverse();
	memcpy(s->specs, specs, (size_t)nspecs * sizeof(*specs));
	for (int i = 0; i < nspecs; i++)
		s->sample_type[i] = specs[i].sample_type | PERF_SAMPLE_IDENTIFIER;
	s->evs = calloc((size_t)(nrings * nspecs), sizeof(*s->evs));
	s->rings = calloc((size_t)nrings, sizeof(*s->rings));
	s->buf = malloc(SRC_BUF);
	s->chunk = malloc(trace_chunk_bound(SRC_BUF));
	s->cctx = ZSTD_createCCtx();
	if (!s->evs || !s->rings || !s->buf || !s->chunk || !s->cctx) {
		mp_perf_session_close(s, NULL);
		return NULL;
	}
	return s;
}

static int check_specs(const struct mp_perf_spec *specs, int nspecs)
{
	if (nspecs <= 0 || nspecs > SRC_MAX_SPECS)
		return -EINVAL;
	for (int i = 1; i < nspecs; i++)
		if (specs[i].aux_bytes)
			return -EINVAL; /* one AUX area per ring: only the ring's owner (spec 0) has one */
	return 0;
}

int mp_perf_session_open(pid_t pid, const struct mp_perf_spec *specs, int nspecs, const struct mp_perf_session_opts *o,
			 int out_fd, struct mp_perf_session **out)
{
	size_t ring_pages = o->ring_pages;
	if (check_specs(specs, nspecs) || !ring_pages || (ring_pages & (ring_pages - 1)))
		return -EINVAL;
	int ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	struct mp_perf_session *s = session_new(pid, specs, nspecs, o, out_fd, ncpus);
	if (!s)
		return -ENOMEM;
	int err = -ENOMEM;
	long psz = sysconf(_SC_PAGESIZE);
	size_t data = ring_pages * (size_t)psz;
	for (int cpu = 0; cpu < ncpus; cpu++) {
		if (!cpu_online(cpu))
			continue;
		struct src_ring *r = &s->rings[s->nrings];
		r->cpu = cpu;
		r->fd = -1;
		for (int i = 0; i < nspecs; i++) {
			const struct mp_perf_spec *sp = &specs[i];
			struct perf_event_attr a;
			memset(&a, 0, sizeof(a));
			a.size = sizeof(a);
			a.type = sp->type;
			a.config = sp->config;
			a.config1 = sp->config1;
			a.config2 = sp->config2;
			a.sample_period = sp->period ? sp->period : 1;
			a.sample_type = s->sample_type[i];
			a.precise_ip = (unsigned)sp->precise_ip & 3;
			a.exclude_kernel = sp->exclude_kernel ? 1 : 0;
			a.exclude_hv = 1;
			a.exclude_callchain_kernel = 1;
			a.disabled = 1;
			a.enable_on_exec = 1;
			a.inherit = 1;
			a.use_clockid = 1;
			a.clockid = CLOCK_MONOTONIC;
			a.watermark = 1;
			a.wakeup_watermark = (uint32_t)(data / 4);
			/* AUX records must say whose data they hold (sample_id: TID, TIME, CPU, IDENTIFIER) */
			a.sample_id_all = sp->aux_bytes ? 1 : 0;
			long fd = perf_open(&a, pid, cpu);
			if (fd < 0) {
				err = -errno;
				goto fail;
			}
			struct src_ev *e = &s->evs[s->nevs++];
			e->fd = (int)fd;
			e->spec = i;
			e->ring = s->nrings - (r->fd >= 0);
			if (ioctl((int)fd, PERF_EVENT_IOC_ID, &e->id) != 0) {
				err = -errno;
				goto fail;
			}
			if (r->fd < 0) {
				r->len = data + (size_t)psz;
				r->base = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
				if (r->base == MAP_FAILED) {
					r->base = NULL;
					err = -errno;
					goto fail;
				}
				r->fd = (int)fd;
				mp_ring_init(&r->ring, r->base, data);
				s->nrings++;
				if (sp->aux_bytes && (err = map_aux(r, (int)fd, sp->aux_bytes)) != 0)
					goto fail;
			} else if (ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) != 0) {
				err = -errno;
				goto fail;
			}
		}
	}
	if (!s->nrings) {
		err = -ENODEV;
		goto fail;
	}
	write_defs(s);
	*out = s;
	return 0;
fail:
	mp_perf_session_close(s, NULL);
	return err;
}

int mp_perf_session_open_mem(pid_t pid, const struct mp_perf_spec *specs, int nspecs,
			     const struct mp_perf_session_opts *o, const struct mp_perf_mem_ring *rings, int nrings,
			     int out_fd, struct mp_perf_session **out)
{
	if (check_specs(specs, nspecs) || nrings <= 0)
		return -EINVAL;
	struct mp_perf_session *s = session_new(pid, specs, nspecs, o, out_fd, nrings);
	if (!s)
		return -ENOMEM;
	s->mem = 1;
	for (int i = 0; i < nrings; i++) {
		struct src_ring *r = &s->rings[i];
		r->cpu = rings[i].cpu;
		r->fd = -1;
		mp_ring_init(&r->ring, rings[i].base, rings[i].data_size);
		r->aux = rings[i].aux;
		r->aux_len = rings[i].aux_size;
		s->evs[i] = (struct src_ev){ .fd = -1, .id = rings[i].id, .spec = 0, .ring = i };
	}
	s->nrings = s->nevs = nrings;
	write_defs(s);
	*out = s;
	return 0;
}

int mp_perf_session_fds(const struct mp_perf_session *s, int *fds, int max)
{
	int n = 0;
	for (int i = 0; i < s->nrings && n < max; i++)
		fds[n++] = s->rings[i].fd;
	return n;
}

uint64_t mp_period_jitter(uint64_t period, unsigned pct, uint64_t *rng)
{
	if (pct > 100)
		pct = 100;
	uint64_t span = period / 100 * pct + period % 100 * pct / 100; /* period * pct / 100 without overflow */
	if (!span)
		return period ? period : 1;
	/* xorshift64* (Vigna): plenty for breaking step with a loop */
	uint64_t x = *rng ? *rng : 0x9e3779b97f4a7c15ull;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*rng = x;
	uint64_t r = ((x * 0x2545f4914f6cdd1dull) >> 11) % (2 * span + 1); /* 0 .. 2 span, from the better high bits */
	uint64_t p = period - span + r;
	return p ? p : 1;
}

/* After a drain that found samples: new periods for the ring's events.
 * PERF_EVENT_IOC_PERIOD changes the event it is given, not the copies the
 * kernel made for threads that already exist; threads started later copy
 * the period current at their start. Each sample reports its own period,
 * so estimates stay exact whichever period a thread runs with. */
static void jitter_ring(struct mp_perf_session *s, int ring)
{
	for (int i = 0; i < s->nevs; i++) {
		const struct src_ev *e = &s->evs[i];
		const struct mp_perf_spec *sp = &s->specs[e->spec];
		if (e->ring != ring || sp->aux_bytes || sp->period <= 1)
			continue; /* SPE jitters in hardware (config bit); period 1 has nothing to vary */
		uint64_t p = mp_period_jitter(sp->period, s->jitter_pct, &s->rng);
		if (sp->kind == MP_SK_IBS_OP)
			p = p & ~15ull ? p & ~15ull : 16; /* IBS drops the low 4 bits */
		if (ioctl(e->fd, PERF_EVENT_IOC_PERIOD, &p) == 0)
			s->stats.period_changes++;
	}
}

int mp_perf_session_drain(struct mp_perf_session *s)
{
	for (int i = 0; i < s->nrings; i++) {
		struct src_ring *r = &s->rings[i];
		uint64_t before = r->ring.records;
		s->cur = r;
		if (mp_ring_drain(&r->ring, on_record, s) == -EIO)
			s->stats.bad_records++;
		put_lost(s, r);
		if (s->jitter_pct && !s->mem && r->ring.records != before)
			jitter_ring(s, i);
	}
	s->cur = NULL;
	return s->err;
}

int mp_perf_session_close(struct mp_perf_session *s, struct mp_perf_stats *stats)
{
	if (!s)
		return 0;
	int err = 0;
	if (s->nrings && s->buf) {
		/* the program has ended: stop the events, then take what is left */
		for (int i = 0; i < s->nevs; i++)
			if (s->evs[i].fd >= 0)
				ioctl(s->evs[i].fd, PERF_EVENT_IOC_DISABLE, 0);
		mp_perf_session_drain(s);
		flush(s);
		err = s->err;
	}
	if (stats)
		*stats = s->stats;
	for (int i = 0; i < s->nrings; i++) {
		mp_ring_fini(&s->rings[i].ring);
		if (s->rings[i].aux && !s->mem)
			munmap(s->rings[i].aux, s->rings[i].aux_len);
		if (s->rings[i].base && !s->mem)
			munmap(s->rings[i].base, s->rings[i].len);
	}
	for (int i = 0; i < s->nevs; i++)
		if (s->evs[i].fd >= 0)
			close(s->evs[i].fd);
	free(s->evs);
	free(s->rings);
	free(s->buf);
	free(s->chunk);
	free(s->aux_copy);
	ZSTD_freeCCtx(s->cctx);
	free(s);
	return err;
}

/* --- which events --------------------------------------------------------- */

/* Bits of a format/ entry ("config:0-7", "config1:0-15", "config:0-7,32-35")
 * for one term: which config word, and the bit ranges in order. */
struct fmt {
	int word; /* 0 config, 1 config1, 2 config2 */
	int lo[4], hi[4], n;
};

static int parse_fmt(const char *text, struct fmt *f)
{
	memset(f, 0, sizeof(*f));
	if (strncmp(text, "config2:", 8) == 0)
		f->word = 2, text += 8;
	else if (strncmp(text, "config1:", 8) == 0)
		f->word = 1, text += 8;
	else if (strncmp(text, "config:", 7) == 0)
		text += 7;
	else
		return -EINVAL;
	while (*text && f->n < 4) {
		char *end;
		long lo = strtol(text, &end, 10), hi = lo;
		if (end == text || lo < 0 || lo > 63)
			return -EINVAL;
		if (*end == '-') {
			text = end + 1;
			hi = strtol(text, &end, 10);
			if (end == text || hi < lo || hi > 63)
				return -EINVAL;
		}
		f->lo[f->n] = (int)lo;
		f->hi[f->n++] = (int)hi;
		text = *end == ',' ? end + 1 : end;
		if (*end != ',')
			break;
	}
	return f->n ? 0 : -EINVAL;
}

/* The Intel core PMU's format/ (what sysfs says on every such machine):
 * used when no format directory is given (tests, and sysfs without it). */
static const char *intel_default_format(const char *term)
{
	static const char *const t[][2] = {
		{ "event", "config:0-7" },   { "umask", "config:8-15" }, { "edge", "config:18" },
		{ "pc", "config:19" },	     { "any", "config:21" },	 { "inv", "config:23" },
		{ "cmask", "config:24-31" }, { "ldlat", "config1:0-15" }, { "frontend", "config1:0-23" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(t[i][0], term) == 0)
			return t[i][1];
	return NULL;
}

int mp_perf_parse_event(const char *desc, const char *format_dir, uint64_t *config, uint64_t *config1,
			uint64_t *config2)
{
	uint64_t *w[3] = { config, config1, config2 };
	char copy[512];
	*config = *config1 = *config2 = 0;
	if (strlen(desc) >= sizeof(copy))
		return -EINVAL;
	strcpy(copy, desc);
	copy[strcspn(copy, "\n")] = 0;
	char *save = NULL;
	for (char *term = strtok_r(copy, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(term, '=');
		uint64_t val = 1;
		if (eq) {
			*eq = 0;
			char *end;
			val = strtoull(eq + 1, &end, 0);
			if (end == eq + 1 || *end)
				return -EINVAL;
		}
		char ftext[128];
		const char *fmt_text = NULL;
		if (format_dir) {
			char path[512];
			snprintf(path, sizeof(path), "%s/%s", format_dir, term);
			FILE *f = fopen(path, "re");
			if (f) {
				if (fgets(ftext, sizeof(ftext), f)) {
					ftext[strcspn(ftext, "\n")] = 0;
					fmt_text = ftext;
				}
				fclose(f);
			}
		} else {
			fmt_text = intel_default_format(term);
		}
		struct fmt fm;
		if (!fmt_text || parse_fmt(fmt_text, &fm))
			return -EINVAL;
		/* the value's bits fill the ranges in order, low bits first */
		for (int r = 0; r < fm.n; r++) {
			int bits = fm.hi[r] - fm.lo[r] + 1;
			uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
			*w[fm.word] |= (val & mask) << fm.lo[r];
			val = bits == 64 ? 0 : val >> bits;
		}
		if (val)
			return -ERANGE; /* wider than its field: never cut it silently */
	}
	return 0;
}

#define SYSFS_PMUS "/sys/bus/event_source/devices"

/* An Intel memory event from the core PMU's sysfs description. */
static int intel_event(const char *pmu, const char *event, struct mp_perf_spec *sp)
{
	char path[256], desc[256], fmt[256];
	snprintf(path, sizeof(path), SYSFS_PMUS "/%s/events/%s", pmu, event);
	FILE *f = fopen(path, "re");
	if (!f)
		return -ENOENT;
	int ok = fgets(desc, sizeof(desc), f) != NULL;
	fclose(f);
	if (!ok)
		return -ENOENT;
	snprintf(fmt, sizeof(fmt), SYSFS_PMUS "/%s/format", pmu);
	return mp_perf_parse_event(desc, fmt, &sp->config, &sp->config1, &sp->config2);
}

int mp_perf_pfm_event(const char *const *names, struct mp_perf_spec *sp, const char **used)
{
	uint64_t cfg[3];
	int err = mp_pfm_encode(names, cfg, used);
	if (err)
		return err;
	sp->config = cfg[0];
	sp->config1 = cfg[1];
	sp->config2 = cfg[2];
	return 0;
}

/* STLB-miss loads and stores (PEBS): no sysfs alias, per-model codes */
static const char *const stlb_loads[] = { "MEM_INST_RETIRED:STLB_MISS_LOADS", "MEM_UOPS_RETIRED:STLB_MISS_LOADS",
					  NULL };
static const char *const stlb_stores[] = { "MEM_INST_RETIRED:STLB_MISS_STORES",
					   "MEM_UOPS_RETIRED:STLB_MISS_STORES", NULL };

/* Arm SPE: one operation every period operations (raised to the PMU's
 * min_interval), loads and stores only, records into a 4 MiB AUX area per
 * CPU. The perf sample_type only shapes the AUX records' sample_id. */
static int spe_spec(const struct mp_probe *probe, const struct mp_pmu_opts *o, struct mp_perf_spec *sp, char *buf,
		    size_t buf_len)
{
	struct mp_spe_pmu pmu;
	int err = mp_spe_find(o->sysfs_root ? o->sysfs_root : SYSFS_PMUS, &pmu);
	if (err)
		return err;
	const struct mp_spe_cfg cfg = { .pa = probe->root || probe->cap_sys_admin,
					.jitter = o->jitter_pct > 0,
					.min_latency = o->ldlat };
	uint64_t period = o->period ? o->period : 10000;
	*sp = (struct mp_perf_spec){ .kind = MP_SK_SPE,
				     .type = (uint32_t)pmu.type,
				     .period = period < pmu.min_interval ? pmu.min_interval : period,
				     .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
				     .exclude_kernel = 1,
				     .aux_bytes = 4u << 20 };
	if ((err = mp_spe_config(&pmu, &cfg, &sp->config, &sp->config1, &sp->config2)))
		return err;
	snprintf(buf, buf_len, "%s loads+stores%s", pmu.name, cfg.jitter ? " jitter" : "");
	sp->name = buf;
	return 1;
}

static int pmu_specs(const struct mp_probe *probe, const struct mp_pmu_opts *o, struct mp_perf_spec *specs,
		     int max, char *buf, size_t buf_len)
{
	static const struct mp_pmu_opts dflt;
	const char *fl = mp_probe_pmu_flavour(probe);
	if (!o)
		o = &dflt;
	if (!fl)
		return -ENODEV;
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU |
		      PERF_SAMPLE_PERIOD | PERF_SAMPLE_DATA_SRC;
	if (probe->root || probe->cap_sys_admin)
		st |= PERF_SAMPLE_PHYS_ADDR;
	if (o->callchain)
		st |= PERF_SAMPLE_CALLCHAIN;
	if (strcmp(fl, "Intel PEBS") == 0) {
		const char *pmu = probe->pmus[MP_PMU_CPU_CORE].present ? "cpu_core" : "cpu";
		unsigned ldlat = o->ldlat ? o->ldlat : 30;
		int err;
		specs[0] = (struct mp_perf_spec){ .kind = MP_SK_PEBS_LOAD, .type = (uint32_t)probe->pmus[
			probe->pmus[MP_PMU_CPU_CORE].present ? MP_PMU_CPU_CORE : MP_PMU_CPU].type, .period = o->period ? o->period : 10007,
			.sample_type = st | PERF_SAMPLE_WEIGHT_STRUCT, .precise_ip = 2, .exclude_kernel = 1 };
		if ((err = intel_event(pmu, "mem-loads", &specs[0])))
			return err;
		specs[0].config1 = (specs[0].config1 & ~0xffffull) | ldlat; /* ldlat: config1 0-15 */
		snprintf(buf, buf_len, "mem-loads ldlat=%u", ldlat);
		specs[0].name = buf;
		if (max < 2)
			return 1;
		/* precise stores, multiplexed with the loads as the BSC tools paper does */
		specs[1] = specs[0];
		specs[1].kind = MP_SK_PEBS_STORE;
		specs[1].config1 = 0;
		specs[1].name = "mem-stores";
		int n = 2;
		if (intel_event(pmu, "mem-stores", &specs[1]))
			n = 1; /* no precise stores on this model: loads only */
		/* the STLB misses the TLB view wants, when libpfm4 knows them */
		const char *const *want[2] = { stlb_loads, stlb_stores };
		const unsigned kinds[2] = { MP_SK_PEBS_STLB_LOAD, MP_SK_PEBS_STLB_STORE };
		for (int k = 0; k < 2 && n < max; k++) {
			struct mp_perf_spec sp = specs[0];
			const char *used;
			if (mp_perf_pfm_event(want[k], &sp, &used))
				continue;
			sp.kind = kinds[k];
			sp.name = used;
			sp.sample_type = st; /* PEBS gives the address; no latency */
			specs[n++] = sp;
		}
		return n;
	}
	if (strcmp(fl, "AMD IBS") == 0) {
		/* IBS op tags one op every period ops (the low 4 bits are dropped
		 * by the hardware: keep it a multiple of 16); the kernel fills
		 * data_src from the IBS registers (6.1 and later). IBS cannot
		 * exclude the kernel. */
		uint64_t period = o->period ? o->period : 100000;
		specs[0] = (struct mp_perf_spec){ .name = "ibs_op", .kind = MP_SK_IBS_OP,
						  .type = (uint32_t)probe->pmus[MP_PMU_IBS_OP].type,
						  .period = period & ~15ull ? period & ~15ull : 16,
						  .sample_type = st | PERF_SAMPLE_WEIGHT };
		return 1;
	}
	if (strcmp(fl, "Arm SPE") == 0)
		return spe_spec(probe, o, specs, buf, buf_len);
	return -EOPNOTSUPP;
}

void mp_perf_cpu_spec(struct mp_perf_spec *sp, uint64_t period_ns)
{
	/* user mode only: perf_event_paranoid 2 allows it on the program's
	 * own threads, and the kernel's time is not the program's code */
	*sp = (struct mp_perf_spec){ .name = "cpu-clock user", .kind = MP_SK_CPU_TIME, .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_CPU_CLOCK, .period = period_ns ? period_ns : 1,
				     .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						    PERF_SAMPLE_CPU,
				     .exclude_kernel = 1 };
}

int mp_perf_specs(enum mp_source src, const struct mp_probe *probe, const struct mp_pmu_opts *o,
		  struct mp_perf_spec *specs, int max, char *buf, size_t buf_len)
{
	if (max < 2)
		return -EINVAL;
	if (src == MP_SOURCE_FAULTS) {
		/* _MIN and _MAJ rather than PERF_COUNT_SW_PAGE_FAULTS: the kernel
		 * counts those when a fault completes (mm_account_fault), once per
		 * fault, not at entry where retried and failed faults count too;
		 * and they tell which faults needed I/O. */
		const uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
				    PERF_SAMPLE_CPU;
		specs[0] = (struct mp_perf_spec){ .name = "page-faults-min", .kind = MP_SK_FAULT_MIN,
						  .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_PAGE_FAULTS_MIN,
						  .period = 1, .sample_type = st };
		specs[1] = specs[0];
		specs[1].name = "page-faults-maj";
		specs[1].kind = MP_SK_FAULT_MAJ;
		specs[1].config = PERF_COUNT_SW_PAGE_FAULTS_MAJ;
		return 2;
	}
	if (src != MP_SOURCE_PMU || !probe)
		return -EINVAL;
	return pmu_specs(probe, o, specs, max, buf, buf_len);
}
