/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tool's streams: each client thread encodes its accesses into a
 * buffer of its own, in the record vocabulary of the runtime's streams
 * (docs/trace-format.md), and a full buffer goes out as one STREAM chunk,
 * raw (codec 0), with one write on the O_APPEND descriptor, so the tool's
 * chunks never interleave with the runtime's. Valgrind runs one thread at
 * a time, so nothing here takes a lock.
 *
 * Copyright (C) memprism's authors. GPL-2.0-or-later: see vgt_int.h.
 */
#include "vgt_int.h"

#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

struct vgt_proc vgt_proc = { .fd = -1 };
struct vgt_thread *vgt_cur;
const volatile ULong vgt_zero_epoch = 0;
const volatile ULong *vgt_epoch = &vgt_zero_epoch;
const volatile Int vgt_zero = 0, vgt_one = 1;

/* Pending chunks of a process not described yet are kept up to this much;
 * past it their accesses are counted, not kept (a program the runtime
 * never describes, or a very long start-up). */
#define VGT_PENDING_MAX (256u << 20)

/* --- CRC-32 ------------------------------------------------------------- */

/*
 * zlib's CRC-32 (reflected polynomial 0xedb88320), which every checksum of
 * the format uses. Written out here because a Valgrind tool links neither
 * libc nor zlib, only Valgrind's core; the core's own CRC is not part of
 * the tool interface. Four tables, a word at a time ("slicing by 4"): the
 * tool checks every byte it writes, a megabyte per chunk, and a byte at a
 * time cost a tenth of the tool's time on store-heavy programs.
 */
static UInt crc_tab[4][256];

void vgt_crc_init(void)
{
	for (UInt i = 0; i < 256; i++) {
		UInt c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_tab[0][i] = c;
	}
	for (UInt i = 0; i < 256; i++)
		for (int t = 1; t < 4; t++)
			crc_tab[t][i] = (crc_tab[t - 1][i] >> 8) ^ crc_tab[0][crc_tab[t - 1][i] & 0xff];
}

static UInt crc32(const UChar *p, SizeT n)
{
	UInt c = 0xffffffffu;
	for (; n && ((Addr)p & 3); n--)
		c = crc_tab[0][(c ^ *p++) & 0xff] ^ (c >> 8);
	for (; n >= 4; n -= 4, p += 4) {
		c ^= *(const UInt *)p; /* (little-endian) */
		c = crc_tab[3][c & 0xff] ^ crc_tab[2][(c >> 8) & 0xff] ^ crc_tab[1][(c >> 16) & 0xff] ^
		    crc_tab[0][c >> 24];
	}
	for (; n; n--)
		c = crc_tab[0][(c ^ *p++) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffffu;
}

/* --- clock and CPU ------------------------------------------------------ */

static ULong now_ns(void)
{
	struct vki_timespec ts;
	VG_(clock_gettime)(&ts, VKI_CLOCK_MONOTONIC);
	return (ULong)ts.tv_sec * 1000000000ull + (ULong)ts.tv_nsec;
}

/* The CPU the thread runs on (the TIME record's, as the runtime writes it).
 * getcpu is not among the core's functions for tools; it has no effect to
 * tell the core about, so the tool asks the kernel itself. */
static UInt current_cpu(void)
{
	UInt cpu = 0;
	Long r;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"((Long)__NR_getcpu), "D"(&cpu), "S"(0L), "d"(0L)
			 : "rcx", "r11", "memory");
	return r == 0 ? cpu : 0;
}

/* --- chunks ------------------------------------------------------------- */

static void chunk_start(struct vgt_thread *t)
{
	t->p = t->buf + VGT_HEAD;
	t->lim = t->p + VGT_BUF_SIZE;
	t->last_addr = t->last_ip = t->prev_ip = 0;
	t->naccess = 0;
	t->chunk_epoch = vgt_proc.known ? t->epoch : 0;
	t->chunk_time = now_ns();
	t->chunk_cpu = current_cpu();
}

static void write_failed(Int err)
{
	if (vgt_proc.write_failed)
		return;
	vgt_proc.write_failed = True;
	VG_(umsg)("memprism: writing the data file failed (error %d); the accesses after this point are not "
		  "recorded\n",
		  err);
}

/*
 * Frames the records [buf + VGT_HEAD, + len) as a STREAM chunk in place:
 * the chunk's leading records (EPOCH, TIME, and DROPPED when accesses were
 * lost) right before them and the header before those, then one write.
 * Every chunk decodes on its own: delta bases start from 0 in each.
 */
static void write_chunk(UChar *buf, SizeT len, UInt ltid, UInt seq, ULong epoch, ULong time, UInt cpu,
			ULong naccess, ULong dropped)
{
	if (vgt_proc.fd < 0 || vgt_proc.write_failed)
		return;
	UChar pre[VGT_PREFIX_MAX], *q = pre;
	*q++ = MP_TAG(MP_REC_EPOCH, 0);
	q = mp_put_uv(q, epoch);
	*q++ = MP_TAG(MP_REC_TIME, 0);
	q = mp_put_uv(q, time);
	q = mp_put_uv(q, cpu);
	if (dropped) {
		*q++ = MP_TAG(MP_REC_DROPPED, 0);
		q = mp_put_uv(q, dropped);
	}
	SizeT plen = (SizeT)(q - pre);
	UChar *payload = buf + VGT_HEAD - plen;
	VG_(memcpy)(payload, pre, plen);
	struct mp_chunk_header *h = (struct mp_chunk_header *)(payload - sizeof(*h));
	VG_(memset)(h, 0, sizeof(*h));
	h->magic = MP_CHUNK_MAGIC;
	h->type = MP_CHUNK_STREAM;
	h->codec = MP_CODEC_RAW;
	h->pid = vgt_proc.pid;
	h->tid = (ltid & MP_TID_MASK) | MP_TID_CONTEXT_VALGRIND << MP_TID_CONTEXT_SHIFT;
	h->proc_id = vgt_proc.proc_id;
	h->seq = seq;
	h->raw_len = h->stored_len = (UInt)(plen + len);
	h->payload_crc = crc32(payload, plen + len);
	/* only accesses, EPOCH and TIME records, no range of 4 KiB (the tool's
	 * ranges are single instructions' odd sizes): a replay in a skip may
	 * pass it over undecoded */
	h->accesses = !dropped && naccess <= MP_CHUNK_COUNT_MAX ? MP_CHUNK_PLAIN | (UInt)naccess : 0;
	h->header_crc = crc32((const UChar *)h, offsetof(struct mp_chunk_header, header_crc));
	const UChar *w = (const UChar *)h;
	SizeT n = sizeof(*h) + plen + len;
	while (n) {
		Int r = VG_(write)(vgt_proc.fd, w, (Int)n);
		if (r == -VKI_EINTR)
			continue;
		if (r <= 0) {
			write_failed(r < 0 ? -r : VKI_ENOSPC);
			return;
		}
		w += r;
		n -= (SizeT)r;
	}
	vgt_proc.chunks++;
	vgt_proc.accesses += naccess;
}

void vgt_thread_open(struct vgt_thread *t, UInt ltid)
{
	if (!t->buf)
		t->buf = VG_(malloc)("memprism.stream", VGT_ALLOC);
	t->ltid = ltid;
	t->seq = 0;
	t->epoch = vgt_proc.known ? *vgt_epoch : 0;
	t->dropped = 0;
	t->guard = &vgt_zero;
	t->live = True;
	chunk_start(t);
}

void vgt_thread_discard(struct vgt_thread *t)
{
	if (t->live)
		chunk_start(t);
}

void vgt_thread_flush(struct vgt_thread *t)
{
	if (!t->live)
		return;
	SizeT len = (SizeT)(t->p - (t->buf + VGT_HEAD));
	if (!len && !t->dropped) {
		chunk_start(t);
		return;
	}
	if (vgt_proc.known) {
		write_chunk(t->buf, len, t->ltid, t->seq++, t->chunk_epoch ? t->chunk_epoch : vgt_proc.first_epoch,
			    t->chunk_time, t->chunk_cpu, t->naccess, t->dropped);
		t->dropped = 0;
	} else if (vgt_proc.pending_bytes + VGT_ALLOC <= VGT_PENDING_MAX) {
		/* the buffer itself waits; the thread takes a new one */
		struct vgt_pending *pc = VG_(malloc)("memprism.pending", sizeof(*pc));
		*pc = (struct vgt_pending){ NULL, t->buf, len, t->ltid, t->seq++, t->chunk_time, t->naccess, t->dropped,
					    t->chunk_cpu };
		*vgt_proc.pending_tail = pc;
		vgt_proc.pending_tail = &pc->next;
		vgt_proc.pending_bytes += VGT_ALLOC;
		t->buf = VG_(malloc)("memprism.stream", VGT_ALLOC);
		t->dropped = 0;
	} else {
		t->dropped += t->naccess;
		vgt_proc.dropped += t->naccess;
	}
	chunk_start(t);
}

void vgt_thread_close(struct vgt_thread *t)
{
	if (!t->live)
		return;
	vgt_thread_flush(t);
	t->live = False;
	VG_(free)(t->buf);
	t->buf = NULL;
	if (vgt_cur == t)
		vgt_cur = NULL;
}

void vgt_pending_drop(void)
{
	struct vgt_pending *pc = vgt_proc.pending;
	while (pc) {
		struct vgt_pending *next = pc->next;
		VG_(free)(pc->buf);
		VG_(free)(pc);
		pc = next;
	}
	vgt_proc.pending = NULL;
	vgt_proc.pending_tail = &vgt_proc.pending;
	vgt_proc.pending_bytes = 0;
}

void vgt_pending_write(void)
{
	for (struct vgt_pending *pc = vgt_proc.pending; pc; pc = pc->next)
		write_chunk(pc->buf, pc->len, pc->ltid, pc->seq, vgt_proc.first_epoch, pc->time, pc->cpu, pc->naccess,
			    pc->dropped);
	vgt_pending_drop();
}

/* --- the helpers -------------------------------------------------------- */

/*
 * One access, as the runtime's rt_encode writes it: an EPOCH record first
 * when the client's epoch moved since this stream's last record (Valgrind
 * runs one thread at a time, so the epoch read here is the one in force at
 * this instruction), then the record, its code address through the
 * last-two history of the ip slots. Accesses made while the thread's
 * runtime guard is set are the runtime's own work, not the program's.
 */
static inline __attribute__((always_inline)) void record(struct vgt_thread *t, Addr a, ULong packed, ULong len)
{
	UChar *p = t->p;
	if (UNLIKELY(p >= t->lim)) {
		vgt_thread_flush(t);
		p = t->p;
	}
	ULong e = *vgt_epoch;
	if (UNLIKELY(e != t->epoch)) {
		t->epoch = e;
		*p++ = MP_TAG(MP_REC_EPOCH, 0);
		p = mp_put_uv(p, e);
	}
	UInt code = (UInt)(packed >> VGT_IP_BITS);
	ULong ip = packed & ((1ull << VGT_IP_BITS) - 1);
	UChar *tag = p++;
	p = mp_put_uv(p, mp_zigzag((Long)(a - t->last_addr)));
	t->last_addr = a;
	if ((code & 7) == MP_SIZE_RANGE)
		p = mp_put_uv(p, len);
	if (ip != t->last_ip) {
		/* a loop alternating between two instructions names them
		 * with no ip bytes at all */
		if (ip == t->prev_ip) {
			code |= MP_TAG(MP_REC_ACCESS_IP2, 0);
		} else {
			code |= MP_ACC_IP;
			p = mp_put_uv(p, mp_zigzag((Long)(ip - t->last_ip)));
		}
		t->prev_ip = t->last_ip;
		t->last_ip = ip;
	}
	*tag = (UChar)code;
	t->p = p;
	t->naccess++;
}

void vgt_access(Addr a, ULong packed)
{
	struct vgt_thread *t = vgt_cur;
	if (UNLIKELY(*t->guard))
		return;
	record(t, a, packed, 0);
}

void vgt_access_range(Addr a, ULong packed, ULong len)
{
	struct vgt_thread *t = vgt_cur;
	if (UNLIKELY(*t->guard))
		return;
	record(t, a, packed, len);
}
