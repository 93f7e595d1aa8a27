// SPDX-License-Identifier: MIT
/*
 * Arm SPE records (see spe_decode.h). A record is a sequence of packets,
 * each a one-byte header (or a two-byte extended header for Address and
 * Counter packets with an index above 7) and a payload of 1, 2, 4 or 8
 * little-endian bytes, the size in header bits 5:4. A record ends with an
 * End packet or, when timestamps are on, with its Timestamp packet; the
 * driver pads between records with zero bytes.
 */
#include "record/spe_decode.h"

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "record/perf_src.h"

/* Header bytes (Arm ARM D10, "Statistical Profiling Extension packets") */
#define HDR_PAD 0x00
#define HDR_END 0x01
#define HDR_TIMESTAMP 0x71
#define HDR_EXTENDED(h) (((h)&0xfc) == 0x20) /* 0b001000xx: index bits 4:3 */
#define HDR_EVENTS(h) (((h)&0xcf) == 0x42)
#define HDR_SOURCE(h) (((h)&0xcf) == 0x43)
#define HDR_CONTEXT(h) (((h)&0xfc) == 0x64)
#define HDR_OP_TYPE(h) (((h)&0xfc) == 0x48)
#define HDR_ADDRESS(h) (((h)&0xf8) == 0xb0)
#define HDR_COUNTER(h) (((h)&0xf8) == 0x98)

enum { ADDR_PC = 0, ADDR_BRANCH = 1, ADDR_DATA_VIRT = 2, ADDR_DATA_PHYS = 3 };
enum { CNT_TOTAL = 0, CNT_ISSUE = 1, CNT_XLAT = 2 };
enum { OP_CLASS_OTHER = 0, OP_CLASS_LDST = 1, OP_CLASS_BRANCH = 2 };

/* Neoverse Data Source values (Linux perf's arm_spe_neoverse_data_source) */
enum {
	DS_L1D = 0x0,
	DS_L2 = 0x8,
	DS_PEER_CORE = 0x9,
	DS_LOCAL_CLUSTER = 0xa,
	DS_SYS_CACHE = 0xb,
	DS_PEER_CLUSTER = 0xc,
	DS_REMOTE = 0xd,
	DS_DRAM = 0xe
};

/* Addresses are 56 bits; bit 55 says which half of the address space. */
static uint64_t sign_extend_55(uint64_t v)
{
	v &= (1ull << 56) - 1;
	return (v & (1ull << 55)) ? v | 0xff00000000000000ull : v;
}

static void apply_address(struct mp_spe_record *r, unsigned idx, uint64_t v)
{
	switch (idx) {
	case ADDR_PC:
		r->pc = sign_extend_55(v);
		r->pc_el = (uint8_t)((v >> 61) & 3);
		r->has |= MP_SPE_HAS_PC;
		break;
	case ADDR_DATA_VIRT: /* the top byte is the tag (TBI / MTE), not address */
		r->vaddr = sign_extend_55(v);
		r->has |= MP_SPE_HAS_VADDR;
		break;
	case ADDR_DATA_PHYS: /* bit 63 NS, 62 CH, 59:56 PAT: not address */
		r->paddr = v & ((1ull << 56) - 1);
		r->has |= MP_SPE_HAS_PADDR;
		break;
	default: /* branch targets: not a memory access */
		break;
	}
}

static void apply_counter(struct mp_spe_record *r, unsigned idx, uint64_t v)
{
	uint16_t c = (uint16_t)v;
	if (idx == CNT_TOTAL) {
		r->total_lat = c;
		r->has |= MP_SPE_HAS_TOTAL_LAT;
	} else if (idx == CNT_ISSUE) {
		r->issue_lat = c;
	} else if (idx == CNT_XLAT) {
		r->xlat_lat = c;
	}
}

static void apply_op(struct mp_spe_record *r, unsigned cls, uint64_t v)
{
	r->op_payload = (uint8_t)v;
	r->has |= MP_SPE_HAS_OP;
	if (cls == OP_CLASS_LDST)
		r->op = (v & 1) ? MP_SPE_OP_STORE : MP_SPE_OP_LOAD;
	else if (cls == OP_CLASS_BRANCH)
		r->op = MP_SPE_OP_BRANCH;
	else
		r->op = MP_SPE_OP_OTHER;
}

int mp_spe_decode(const uint8_t *buf, size_t len, size_t *used, struct mp_spe_record *r)
{
	size_t i = 0;
	memset(r, 0, sizeof(*r));
	while (i < len && buf[i] == HDR_PAD)
		i++;
	if (i == len) {
		*used = len;
		return 0;
	}
	const size_t start = i;
	while (i < len) {
		uint8_t h = buf[i], h1 = h;
		size_t hl = 1;
		unsigned idx = h & 7;
		if (h == HDR_PAD) {
			i++;
			continue;
		}
		if (h == HDR_END) {
			*used = i + 1;
			return 1;
		}
		if (HDR_EXTENDED(h)) {
			if (i + 1 >= len)
				goto truncated;
			h1 = buf[i + 1];
			hl = 2;
			if (h1 == 0x00) {
				/* alignment padding: skip to a 2 << (h & 3) byte boundary */
				size_t a = (size_t)2 << (h & 3), to = (i + a) & ~(a - 1);
				if (to > len)
					goto truncated;
				i = to;
				continue;
			}
			if (!HDR_ADDRESS(h1) && !HDR_COUNTER(h1))
				goto bad;
			idx = ((h & 3u) << 3) | (h1 & 7u);
		}
		size_t pl = (size_t)1 << ((h1 >> 4) & 3);
		int is_ts = hl == 1 && h == HDR_TIMESTAMP;
		if (!is_ts && !HDR_ADDRESS(h1) && !HDR_COUNTER(h1) &&
		    !(hl == 1 && (HDR_EVENTS(h) || HDR_SOURCE(h) || HDR_CONTEXT(h) || HDR_OP_TYPE(h))))
			goto bad;
		if (i + hl + pl > len)
			goto truncated;
		uint64_t v = 0;
		for (size_t k = 0; k < pl; k++)
			v |= (uint64_t)buf[i + hl + k] << (8 * k);
		i += hl + pl;
		if (is_ts) {
			r->timestamp = v;
			r->has |= MP_SPE_HAS_TS;
			*used = i; /* the Timestamp packet ends its record */
			return 1;
		}
		if (HDR_ADDRESS(h1)) {
			apply_address(r, idx, v);
		} else if (HDR_COUNTER(h1)) {
			apply_counter(r, idx, v);
		} else if (HDR_EVENTS(h)) {
			r->events = (uint32_t)v;
			r->has |= MP_SPE_HAS_EVENTS;
		} else if (HDR_SOURCE(h)) {
			r->data_source = (uint16_t)v;
			r->has |= MP_SPE_HAS_DS;
		} else if (HDR_CONTEXT(h)) {
			/* index 0 CONTEXTIDR_EL1, 1 CONTEXTIDR_EL2 (VHE kernels write the pid there) */
			r->context = (uint32_t)v;
			r->has |= MP_SPE_HAS_CONTEXT;
		} else {
			apply_op(r, h & 3u, v);
		}
	}
truncated:
	*used = start;
	return -ENODATA;
bad:
	*used = i + 1;
	return -EBADMSG;
}

int mp_spe_neoverse_midr(uint64_t midr)
{
	unsigned implementer = (unsigned)(midr >> 24) & 0xff, part = (unsigned)(midr >> 4) & 0xfff;
	/* Neoverse N1, V1, N2, V2 */
	return implementer == 0x41 && (part == 0xd0c || part == 0xd40 || part == 0xd49 || part == 0xd4f);
}

#define MEM(a, s) ((uint64_t)PERF_MEM_##a##_##s << PERF_MEM_##a##_SHIFT)

static uint64_t level_from_source(unsigned ds)
{
	switch (ds) {
	case DS_L1D:
		return MEM(LVL, L1) | MEM(LVL, HIT) | MEM(LVLNUM, L1);
	case DS_L2:
		return MEM(LVL, L2) | MEM(LVL, HIT) | MEM(LVLNUM, L2);
	case DS_PEER_CORE: /* another core's private cache, same cluster */
		return MEM(LVL, L2) | MEM(LVL, HIT) | MEM(LVLNUM, L2) | MEM(SNOOPX, PEER);
	case DS_LOCAL_CLUSTER:
	case DS_PEER_CLUSTER:
		return MEM(LVL, L3) | MEM(LVL, HIT) | MEM(LVLNUM, L3) | MEM(SNOOPX, PEER);
	case DS_SYS_CACHE: /* the system-level cache: the last level before DRAM */
		return MEM(LVL, L3) | MEM(LVL, HIT) | MEM(LVLNUM, L3);
	case DS_REMOTE: /* another chip's cache */
		return MEM(LVL, REM_CCE1) | MEM(LVL, HIT) | MEM(LVLNUM, ANY_CACHE) | MEM(REMOTE, REMOTE) |
		       MEM(SNOOPX, PEER);
	case DS_DRAM:
		return MEM(LVL, LOC_RAM) | MEM(LVL, HIT) | MEM(LVLNUM, RAM) | MEM(SNOOP, NONE);
	default:
		return MEM(LVL, NA);
	}
}

/* Without a known Data Source encoding the events still bound the level:
 * an LLC miss went to memory, an LLC access without a miss hit the LLC, an
 * L1D refill that never reached the LLC came from the level between. */
static uint64_t level_from_events(uint32_t ev)
{
	int remote = (ev & MP_SPE_EV_REMOTE_ACCESS) != 0;
	uint64_t rem = remote ? MEM(REMOTE, REMOTE) : 0;
	if (ev & MP_SPE_EV_LLC_MISS)
		return (remote ? MEM(LVL, REM_RAM1) : MEM(LVL, LOC_RAM)) | MEM(LVL, HIT) | MEM(LVLNUM, RAM) | rem;
	if (ev & MP_SPE_EV_LLC_ACCESS)
		return remote ? MEM(LVL, REM_CCE1) | MEM(LVL, HIT) | MEM(LVLNUM, ANY_CACHE) | rem
			      : MEM(LVL, L3) | MEM(LVL, HIT) | MEM(LVLNUM, L3);
	if (ev & MP_SPE_EV_L1D_REFILL)
		return MEM(LVL, L2) | MEM(LVL, HIT) | MEM(LVLNUM, L2) | rem;
	if (ev & MP_SPE_EV_L1D_ACCESS)
		return MEM(LVL, L1) | MEM(LVL, HIT) | MEM(LVLNUM, L1);
	return MEM(LVL, NA) | rem;
}

uint64_t mp_spe_data_src(const struct mp_spe_record *r, int neoverse_ds)
{
	uint64_t d;
	if (r->op == MP_SPE_OP_LOAD)
		d = MEM(OP, LOAD);
	else if (r->op == MP_SPE_OP_STORE)
		d = MEM(OP, STORE);
	else
		d = MEM(OP, NA);
	if (neoverse_ds && (r->has & MP_SPE_HAS_DS))
		d |= level_from_source(r->data_source);
	else
		d |= level_from_events(r->events);
	if (r->events & MP_SPE_EV_TLB_WALK)
		d |= MEM(TLB, MISS) | MEM(TLB, WK);
	else if (r->events & MP_SPE_EV_TLB_ACCESS)
		d |= MEM(TLB, HIT) | MEM(TLB, L1);
	else
		d |= MEM(TLB, NA);
	return d;
}

uint64_t mp_spe_ticks_ns(uint64_t ticks, uint32_t mult, uint16_t shift)
{
	/* perf_event_open(2), "time_shift": split to keep the product in 64 bits */
	uint64_t quot = ticks >> shift, rem = ticks & (((uint64_t)1 << shift) - 1);
	return quot * mult + ((rem * mult) >> shift);
}

/* First line of a small file as an unsigned number; -errno or -EIO. */
static int read_u64(const char *path, uint64_t *v)
{
	char buf[64], *end;
	int e = mp_host_read_line(path, buf, sizeof(buf));
	if (e)
		return e;
	*v = strtoull(buf, &end, 0);
	return end == buf ? -EIO : 0;
}

int mp_spe_find(const char *sysfs_root, struct mp_spe_pmu *out)
{
	DIR *d = opendir(sysfs_root);
	if (!d)
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	struct dirent *e;
	/* arm_spe_0 in practice; the lowest name wins if there are several */
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, "arm_spe", 7) == 0 && strlen(e->d_name) < sizeof(out->name) &&
		    (!out->name[0] || strcmp(e->d_name, out->name) < 0))
			snprintf(out->name, sizeof(out->name), "%s", e->d_name);
	closedir(d);
	if (!out->name[0])
		return -ENOENT;
	char path[600];
	uint64_t v = 0; /* (gcc -O3 cannot see that read_u64 sets it when it returns 0) */
	snprintf(path, sizeof(path), "%s/%s/type", sysfs_root, out->name);
	if (read_u64(path, &v) || v > 0x7fffffff)
		return -EIO;
	out->type = (int)v;
	snprintf(out->format_dir, sizeof(out->format_dir), "%s/%s/format", sysfs_root, out->name);
	snprintf(path, sizeof(path), "%s/%s/caps/min_interval", sysfs_root, out->name);
	if (read_u64(path, &out->min_interval))
		out->min_interval = 0;
	return 0;
}

int mp_spe_config(const struct mp_spe_pmu *pmu, const struct mp_spe_cfg *cfg, uint64_t *config, uint64_t *config1,
		  uint64_t *config2)
{
	char desc[160];
	/* both type filters: an operation is sampled if it is a load or a store */
	int n = snprintf(desc, sizeof(desc), "ts_enable=1,load_filter=1,store_filter=1%s%s",
			 cfg->pa ? ",pa_enable=1" : "", cfg->jitter ? ",jitter=1" : "");
	if (cfg->min_latency)
		snprintf(desc + n, sizeof(desc) - (size_t)n, ",min_latency=%u", cfg->min_latency);
	return mp_perf_parse_event(desc, pmu->format_dir, config, config1, config2);
}
