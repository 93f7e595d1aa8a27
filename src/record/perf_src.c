// SPDX-License-Identifier: MIT
/*
 * Live perf sampling for `memprism record --source faults|pmu` (see
 * perf_src.h). Every event is opened once per CPU on the program's pid with
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
#include "trace/trace_format.h"
#include "trace/trace_writer.h"

#define SRC_MAX_SPECS 8
#define SRC_BUF (256u << 10) /* payload bytes per SAMPLES chunk */
#define SRC_EVENT_MAX 1400 /* worst-case encoded event (64 callchain frames) */
#define SRC_MAX_CHAIN 64

struct src_ev {
	int fd;
	uint64_t id;
	int spec;
};

struct src_ring {
	int cpu, fd;
	void *base;
	size_t len;
	struct mp_ring ring;
	uint64_t lost_seen; /* ring.lost + lost_samples already written as LOST */
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
};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* --- encoding SAMPLES chunks ------------------------------------------- */

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static int flush(struct mp_perf_session *s)
{
	if (!s->len || s->err)
		return s->err;
	struct mp_chunk_header h = { .type = MP_CHUNK_SAMPLES, .pid = (uint32_t)getpid(), .seq = s->seq++ };
	size_t n = trace_chunk_build(&h, s->buf, s->len, s->chunk, s->cctx, 1);
	s->err = write_all(s->out_fd, s->chunk, n);
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

static int on_record(void *arg, const struct perf_event_header *rec)
{
	struct mp_perf_session *s = arg;
	if (rec->type != PERF_RECORD_SAMPLE)
		return 0; /* LOST is counted by the ring; THROTTLE and others: nothing to keep */
	uint64_t id;
	int k;
	struct mp_perf_sample smp;
	if (mp_perf_sample_id(rec, &id) || (k = spec_of(s, id)) < 0 ||
	    mp_perf_sample_parse(rec, s->sample_type[k], &smp)) {
		s->stats.bad_records++;
		return 0;
	}
	const struct mp_perf_spec *sp = &s->specs[k];
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
		return 0;
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
	return 0;
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

int mp_perf_session_open(pid_t pid, const struct mp_perf_spec *specs, int nspecs, size_t ring_pages, int out_fd,
			 struct mp_perf_session **out)
{
	if (nspecs <= 0 || nspecs > SRC_MAX_SPECS || !ring_pages || (ring_pages & (ring_pages - 1)))
		return -EINVAL;
	int ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	struct mp_perf_session *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->out_fd = out_fd;
	s->nspecs = nspecs;
	memcpy(s->specs, specs, (size_t)nspecs * sizeof(*specs));
	s->evs = calloc((size_t)(ncpus * nspecs), sizeof(*s->evs));
	s->rings = calloc((size_t)ncpus, sizeof(*s->rings));
	s->buf = malloc(SRC_BUF);
	s->chunk = malloc(trace_chunk_bound(SRC_BUF));
	s->cctx = ZSTD_createCCtx();
	int err = -ENOMEM;
	if (!s->evs || !s->rings || !s->buf || !s->chunk || !s->cctx)
		goto fail;
	long psz = sysconf(_SC_PAGESIZE);
	size_t data = ring_pages * (size_t)psz;
	for (int i = 0; i < nspecs; i++)
		s->sample_type[i] = specs[i].sample_type | PERF_SAMPLE_IDENTIFIER;
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
			long fd = perf_open(&a, pid, cpu);
			if (fd < 0) {
				err = -errno;
				goto fail;
			}
			struct src_ev *e = &s->evs[s->nevs++];
			e->fd = (int)fd;
			e->spec = i;
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

int mp_perf_session_fds(const struct mp_perf_session *s, int *fds, int max)
{
	int n = 0;
	for (int i = 0; i < s->nrings && n < max; i++)
		fds[n++] = s->rings[i].fd;
	return n;
}

int mp_perf_session_drain(struct mp_perf_session *s)
{
	for (int i = 0; i < s->nrings; i++) {
		struct src_ring *r = &s->rings[i];
		s->cur = r;
		if (mp_ring_drain(&r->ring, on_record, s) == -EIO)
			s->stats.bad_records++;
		put_lost(s, r);
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
			ioctl(s->evs[i].fd, PERF_EVENT_IOC_DISABLE, 0);
		mp_perf_session_drain(s);
		flush(s);
		err = s->err;
	}
	if (stats)
		*stats = s->stats;
	for (int i = 0; i < s->nrings; i++) {
		mp_ring_fini(&s->rings[i].ring);
		if (s->rings[i].base)
			munmap(s->rings[i].base, s->rings[i].len);
	}
	for (int i = 0; i < s->nevs; i++)
		close(s->evs[i].fd);
	free(s->evs);
	free(s->rings);
	free(s->buf);
	free(s->chunk);
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
		/* precise stores, multiplexed with the loads as seed 002 did */
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
	/* Arm SPE writes packets into the AUX area, not sample records: that
	 * needs an SPE packet decoder, which memprism does not have yet. */
	return -EOPNOTSUPP;
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
