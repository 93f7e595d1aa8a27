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

#include "pub_tool_aspacemgr.h"
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

static struct vgt_raw raw_log[VGT_RAW_N];
struct vgt_raw *vgt_raw_cur = raw_log;
struct vgt_raw *vgt_raw_lim;
ULong vgt_raw_step;
ULong vgt_raw_epoch;

/* Pending chunks of a process not described yet are kept up to this much;
 * past it their accesses are counted, not kept (a program the runtime
 * never describes, or a very long start-up). */
#define VGT_PENDING_MAX (256u << 20)

/* --- CRC-32 ------------------------------------------------------------- */

/*
 * zlib's CRC-32 (reflected polynomial 0xedb88320), which every checksum of
 * the format uses. Written out here because a Valgrind tool links neither
 * libc nor zlib, only Valgrind's core; the core's own CRC is not part of
 * the tool interface. The tool checks every byte it writes, a megabyte per
 * chunk: a byte at a time that was a quarter of its time on a store-heavy
 * loop, and eight tables eight bytes a step ("slicing by 8") still a
 * fifth. Where the CPU multiplies carry-less (PCLMULQDQ) the buffer is
 * folded 64 bytes a step instead (Intel's "Fast CRC Computation for
 * Generic Polynomials Using PCLMULQDQ Instruction"; the constants are
 * x^(k) mod P for the reflected polynomial, as Linux's crc32-pclmul uses
 * them). The folding is checked against the tables at start-up and left
 * unused if it ever disagrees.
 */
static UInt crc_tab[8][256];

static UInt crc_tables(UInt c, const UChar *p, SizeT n)
{
	for (; n && ((Addr)p & 7); n--)
		c = crc_tab[0][(c ^ *p++) & 0xff] ^ (c >> 8);
	for (; n >= 8; n -= 8, p += 8) {
		ULong w = *(const ULong *)p ^ c; /* (little-endian) */
		c = crc_tab[7][w & 0xff] ^ crc_tab[6][(w >> 8) & 0xff] ^ crc_tab[5][(w >> 16) & 0xff] ^
		    crc_tab[4][(w >> 24) & 0xff] ^ crc_tab[3][(w >> 32) & 0xff] ^ crc_tab[2][(w >> 40) & 0xff] ^
		    crc_tab[1][(w >> 48) & 0xff] ^ crc_tab[0][w >> 56];
	}
	for (; n; n--)
		c = crc_tab[0][(c ^ *p++) & 0xff] ^ (c >> 8);
	return c;
}

#if defined(__x86_64__)
#include <cpuid.h>
#include <smmintrin.h>
#include <wmmintrin.h>

/* c over [p, p + n), n >= 64 and a multiple of 16 */
__attribute__((target("pclmul,sse4.1"))) static UInt crc_fold(UInt c, const UChar *p, SizeT n)
{
	const __m128i r2r1 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);
	const __m128i r4r3 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);
	const __m128i r5 = _mm_set_epi64x(0, 0x163cd6124);
	const __m128i mask32 = _mm_set_epi32(0, 0, 0, -1);
	const __m128i poly = _mm_set_epi64x(0x1f7011641, 0x1db710641);
	__m128i x1 = _mm_loadu_si128((const __m128i *)p), x2 = _mm_loadu_si128((const __m128i *)(p + 16));
	__m128i x3 = _mm_loadu_si128((const __m128i *)(p + 32)), x4 = _mm_loadu_si128((const __m128i *)(p + 48));
	x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)c));
	p += 64;
	n -= 64;
#define FOLD(x, k, next)                                                                                   	x = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), 			  next)
	for (; n >= 64; n -= 64, p += 64) {
		FOLD(x1, r2r1, _mm_loadu_si128((const __m128i *)p));
		FOLD(x2, r2r1, _mm_loadu_si128((const __m128i *)(p + 16)));
		FOLD(x3, r2r1, _mm_loadu_si128((const __m128i *)(p + 32)));
		FOLD(x4, r2r1, _mm_loadu_si128((const __m128i *)(p + 48)));
	}
	FOLD(x1, r4r3, x2);
	FOLD(x1, r4r3, x3);
	FOLD(x1, r4r3, x4);
	for (; n >= 16; n -= 16, p += 16)
		FOLD(x1, r4r3, _mm_loadu_si128((const __m128i *)p));
#undef FOLD
	/* 128 to 64 bits, then 64 to 32, then Barrett's reduction */
	x1 = _mm_xor_si128(_mm_clmulepi64_si128(x1, r4r3, 0x10), _mm_srli_si128(x1, 8));
	x2 = _mm_srli_si128(x1, 4);
	x1 = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x1, mask32), r5, 0x00), x2);
	x2 = x1;
	x1 = _mm_clmulepi64_si128(_mm_and_si128(x1, mask32), poly, 0x10);
	x1 = _mm_clmulepi64_si128(_mm_and_si128(x1, mask32), poly, 0x00);
	x1 = _mm_xor_si128(x1, x2);
	return (UInt)_mm_extract_epi32(x1, 1);
}

static Bool crc_have_fold;
#endif

void vgt_crc_init(void)
{
	for (UInt i = 0; i < 256; i++) {
		UInt c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_tab[0][i] = c;
	}
	for (UInt i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_tab[t][i] = (crc_tab[t - 1][i] >> 8) ^ crc_tab[0][crc_tab[t - 1][i] & 0xff];
#if defined(__x86_64__)
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_PCLMUL) || !(c & bit_SSE4_1))
		return;
	/* the folding must give what the tables give, on every length kind */
	UChar buf[320];
	ULong x = 0x9e3779b97f4a7c15ull;
	for (SizeT i = 0; i < sizeof(buf); i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		buf[i] = (UChar)x;
	}
	crc_have_fold = True;
	for (SizeT len = 64; len <= sizeof(buf) && crc_have_fold; len += 16)
		crc_have_fold = crc_fold(0xffffffffu, buf, len) == crc_tables(0xffffffffu, buf, len) &&
				crc_fold(0x12345678u, buf + 16, len - 16 >= 64 ? len - 16 : 64) ==
					crc_tables(0x12345678u, buf + 16, len - 16 >= 64 ? len - 16 : 64);
#endif
}

static UInt crc32(const UChar *p, SizeT n)
{
	UInt c = 0xffffffffu;
#if defined(__x86_64__)
	if (crc_have_fold && n >= 64) {
		SizeT m = n & ~(SizeT)15;
		c = crc_fold(c, p, m);
		p += m;
		n -= m;
	}
#endif
	return crc_tables(c, p, n) ^ 0xffffffffu;
}

/* --- clock and CPU ------------------------------------------------------ */

static ULong now_ns(void)
{
	struct vki_timespec ts;
	VG_(clock_gettime)(&ts, VKI_CLOCK_MONOTONIC);
	return (ULong)ts.tv_sec * 1000000000ull + (ULong)ts.tv_nsec;
}

/* A system call the core has no function for tools for (getcpu, futex,
 * kill): none of them has an effect the core must know about. */
static Long raw_syscall4(Long nr, Long a1, Long a2, Long a3, Long a4)
{
	Long r;
	register Long r10 __asm__("r10") = a4;
	__asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10) : "rcx", "r11", "memory");
	return r;
}

/* The CPU the thread runs on (the TIME record's, as the runtime writes it). */
static UInt current_cpu(void)
{
	UInt cpu = 0;
	return raw_syscall4(__NR_getcpu, (Long)&cpu, 0, 0, 0) == 0 ? cpu : 0;
}

/* --- the launcher's ring (common/mp_vgring.h) --------------------------- */

/* The core's own (vgdb's shared memory uses it): maps a file shared, where
 * the core keeps its own mappings. Not in the tool headers, but in the
 * core every tool links; the tool is built against one Valgrind version. */
extern SysRes VG_(am_shared_mmap_file_float_valgrind)(SizeT length, UInt prot, Int fd, Off64T offset);

static struct mp_vgring *ring; /* NULL: chunks are appended to the file */
static UInt ring_next; /* the slot to try first */

_Static_assert(VGT_ALLOC <= MP_VGRING_SLOT_BYTES, "a whole chunk fits a slot of the ring");

Bool vgt_ring_attach(const HChar *path)
{
	SysRes r = VG_(open)(path, VKI_O_RDWR, 0);
	if (sr_isError(r))
		return False;
	Int fd = (Int)sr_Res(r);
	struct vg_stat st;
	Bool ok = VG_(fstat)(fd, &st) == 0 && st.size >= (Long)sizeof(struct mp_vgring);
	SysRes m;
	if (ok)
		m = VG_(am_shared_mmap_file_float_valgrind)((SizeT)st.size, VKI_PROT_READ | VKI_PROT_WRITE, fd, 0);
	VG_(close)(fd); /* (the mapping stays) */
	if (!ok || sr_isError(m))
		return False;
	struct mp_vgring *g = (struct mp_vgring *)sr_Res(m);
	if (g->magic != MP_VGRING_MAGIC || g->version != MP_VGRING_VERSION || g->nslots == 0 ||
	    g->nslots > MP_VGRING_MAX_SLOTS || g->slot_bytes < VGT_ALLOC ||
	    g->data_off + (ULong)g->nslots * g->slot_bytes > (ULong)st.size) {
		VG_(am_munmap_valgrind)((Addr)g, (SizeT)st.size);
		return False;
	}
	ring = g;
	return True;
}

/* n bytes to a slot of the ring (page-aligned), past the caches where
 * the CPU can: the launcher reads them on another core, and a copy that
 * first reads each line of the slot in (to write it) costs a memory-bound
 * program twice its chunks' bytes in traffic. */
#if defined(__x86_64__)
#include <emmintrin.h>
static void copy_out(UChar *dst, const UChar *src, SizeT n)
{
	SizeT i = 0;
	for (; i + 64 <= n; i += 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)(src + i)), b = _mm_loadu_si128((const __m128i *)(src + i + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(src + i + 32)), d = _mm_loadu_si128((const __m128i *)(src + i + 48));
		_mm_stream_si128((__m128i *)(dst + i), a);
		_mm_stream_si128((__m128i *)(dst + i + 16), b);
		_mm_stream_si128((__m128i *)(dst + i + 32), c);
		_mm_stream_si128((__m128i *)(dst + i + 48), d);
	}
	_mm_sfence(); /* (before the slot is marked ready: streamed stores are not ordered) */
	VG_(memcpy)(dst + i, src + i, n - i);
}
#else
static void copy_out(UChar *dst, const UChar *src, SizeT n)
{
	VG_(memcpy)(dst, src, n);
}
#endif

/* The chunk [w, w + n) into a free slot of the ring. While none is free,
 * waits for the launcher to free one (it takes them every few ms); False
 * when the launcher has closed the ring or is gone (then the ring is left
 * for good and chunks go to the file, as without it). */
static Bool ring_put(const UChar *w, SizeT n)
{
	struct mp_vgring *g = ring;
	if (!g || n > g->slot_bytes)
		return False;
	UInt stalled = 0, last_seen = 0;
	for (;;) {
		UInt seen = __atomic_load_n(&g->freed, __ATOMIC_ACQUIRE);
		/* (a launcher that freed nothing for 10 s is gone, its pid
		 * perhaps another process's by now) */
		stalled = seen == last_seen ? stalled + 1 : 0;
		last_seen = seen;
		for (UInt k = 0; k < g->nslots; k++) {
			UInt i = (ring_next + k) % g->nslots;
			struct mp_vgring_slot *s = &g->slot[i];
			UInt want = MP_VGRING_FREE, st = __atomic_load_n(&s->state, __ATOMIC_RELAXED);
			if (st == MP_VGRING_CLOSED) {
				ring = NULL; /* (the launcher is done with it) */
				return False;
			}
			if (st != MP_VGRING_FREE ||
			    !__atomic_compare_exchange_n(&s->state, &want, MP_VGRING_FILLING, False, __ATOMIC_ACQUIRE,
							 __ATOMIC_RELAXED))
				continue;
			copy_out((UChar *)g + g->data_off + (ULong)i * g->slot_bytes, w, n);
			s->len = (UInt)n;
			/* (the ticket after the copy: a thread's chunks still take
			 * theirs in order, and a ticket is READY two stores later) */
			s->ticket = __atomic_fetch_add(&g->ticket, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&s->state, MP_VGRING_READY, __ATOMIC_RELEASE);
			ring_next = i + 1;
			return True;
		}
		if (stalled > 500 || raw_syscall4(__NR_kill, (Long)g->launcher_pid, 0, 0, 0) == -VKI_ESRCH) {
			ring = NULL;
			return False;
		}
		struct vki_timespec ts = { 0, 20 * 1000 * 1000 };
		raw_syscall4(__NR_futex, (Long)&g->freed, VKI_FUTEX_WAIT, (Long)seen, (Long)&ts);
	}
}

/* --- chunks ------------------------------------------------------------- */

static void chunk_start(struct vgt_thread *t)
{
	t->p = t->buf + VGT_HEAD;
	t->lim = t->p + VGT_BUF_SIZE;
	t->base = (struct vgt_bases){ 0, 0, 0 };
	t->naccess = 0;
	t->chunk_plain = True;
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
			ULong naccess, ULong dropped, Bool plain)
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
	/* only accesses, EPOCH and TIME records and no range of 4 KiB (a rep
	 * string instruction's can be): a replay in a skip may pass it over
	 * undecoded */
	h->accesses = plain && !dropped && naccess <= MP_CHUNK_COUNT_MAX ? MP_CHUNK_PLAIN | (UInt)naccess : 0;
	h->header_crc = crc32((const UChar *)h, offsetof(struct mp_chunk_header, header_crc));
	const UChar *w = (const UChar *)h;
	SizeT n = sizeof(*h) + plen + len;
	if (ring_put(w, n))
		n = 0;
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
	t->rep_on = t->rep[0].on = t->rep[1].on = False;
	chunk_start(t);
}

void vgt_thread_discard(struct vgt_thread *t)
{
	if (t == vgt_cur)
		vgt_raw_discard();
	if (t->live) {
		t->rep_on = t->rep[0].on = t->rep[1].on = False;
		chunk_start(t);
	}
}

/* The chunk being filled goes out (or waits, while the process is not
 * known); a new one starts. */
static void chunk_out(struct vgt_thread *t)
{
	SizeT len = (SizeT)(t->p - (t->buf + VGT_HEAD));
	if (!len && !t->dropped) {
		chunk_start(t);
		return;
	}
	if (vgt_proc.known) {
		write_chunk(t->buf, len, t->ltid, t->seq++, t->chunk_epoch ? t->chunk_epoch : vgt_proc.first_epoch,
			    t->chunk_time, t->chunk_cpu, t->naccess, t->dropped, t->chunk_plain);
		t->dropped = 0;
	} else if (vgt_proc.pending_bytes + VGT_ALLOC <= VGT_PENDING_MAX) {
		/* the buffer itself waits; the thread takes a new one */
		struct vgt_pending *pc = VG_(malloc)("memprism.pending", sizeof(*pc));
		*pc = (struct vgt_pending){ NULL, t->buf, len, t->ltid, t->seq++, t->chunk_time, t->naccess, t->dropped,
					    t->chunk_cpu, t->chunk_plain };
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
		vgt_set_current(NULL);
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
			    pc->dropped, pc->plain);
	vgt_pending_drop();
}

/* --- the helpers -------------------------------------------------------- */

/* Room for one record (and an EPOCH record before it) at t->p. */
static inline UChar *room(struct vgt_thread *t)
{
	if (UNLIKELY(t->p >= t->lim))
		chunk_out(t);
	return t->p;
}

/* An EPOCH record when the client's epoch moved since this stream's last
 * record. Valgrind runs one thread at a time, so the epoch read here is
 * the one in force at this instruction. */
static inline UChar *epoch_check(struct vgt_thread *t, UChar *p)
{
	ULong e = *vgt_epoch;
	if (UNLIKELY(e != t->epoch)) {
		t->epoch = e;
		*p++ = MP_TAG(MP_REC_EPOCH, 0);
		p = mp_put_uv(p, e);
	}
	return p;
}

/* v as mp_put_uv writes it (the shortest LEB128), made in a register and
 * stored as one word when it has at most 8 bytes (room for 8 assumed: the
 * buffer's slack): the loop's exit, a branch on the value, mispredicts on
 * random addresses, whose deltas' lengths vary. */
static inline __attribute__((always_inline)) UChar *put_uv_word(UChar *p, ULong v)
{
	if (v < 0x80) { /* (a loop's next element, a field of the same object) */
		*p = (UChar)v;
		return p + 1;
	}
	if (UNLIKELY(v >> 56))
		return mp_put_uv(p, v);
	unsigned bits = 64 - (unsigned)__builtin_clzll(v | 1), len = (bits + 6) / 7;
	ULong w = (v & 0x7f) | ((v << 1) & 0x7f00) | ((v << 2) & 0x7f0000) | ((v << 3) & 0x7f000000) |
		  ((v << 4) & 0x7f00000000ull) | ((v << 5) & 0x7f0000000000ull) | ((v << 6) & 0x7f000000000000ull) |
		  ((v << 7) & 0x7f00000000000000ull);
	w |= 0x8080808080808080ull & ((1ull << (8 * (len - 1))) - 1); /* (continuation bits: all but the last) */
	__builtin_memcpy(p, &w, 8);
	return p + len;
}

/* One access record at p, as the runtime's rt_encode writes it: its code
 * address through the last-two history of the ip slots. b: the stream's
 * delta bases (a copy in registers, in a loop of them). */
static inline __attribute__((always_inline)) UChar *put_access(struct vgt_bases *b, UChar *p, Addr a, UInt code,
								ULong ip, ULong len)
{
	UChar *tag = p++;
	p = put_uv_word(p, mp_zigzag((Long)(a - b->addr)));
	b->addr = a;
	if ((code & 7) == MP_SIZE_RANGE)
		p = mp_put_uv(p, len);
	if (ip != b->ip) {
		/* a loop alternating between two instructions names them
		 * with no ip bytes at all */
		if (ip == b->prev_ip) {
			code |= MP_TAG(MP_REC_ACCESS_IP2, 0);
		} else {
			code |= MP_ACC_IP;
			p = put_uv_word(p, mp_zigzag((Long)(ip - b->ip)));
		}
		b->prev_ip = b->ip;
		b->ip = ip;
	}
	*tag = (UChar)code;
	return p;
}

/* The ranges of the rep string instruction that ran last: out, operand by
 * operand, at the epoch of their first iteration (nothing else was written
 * to the stream since: every record comes here first). */
static void reps_out(struct vgt_thread *t)
{
	for (int i = 0; i < 2; i++) {
		struct vgt_rep *r = &t->rep[i];
		if (!r->on)
			continue;
		r->on = False;
		UChar *p = room(t);
		ULong len = r->hi - r->lo;
		t->p = put_access(&t->base, p, r->lo, (r->code & MP_ACC_WRITE) | MP_SIZE_RANGE, r->ip, len);
		t->naccess++;
		if (len >= 4096)
			t->chunk_plain = False;
	}
	t->rep_on = False;
}

void vgt_thread_flush(struct vgt_thread *t)
{
	if (!t->live)
		return;
	if (t == vgt_cur)
		vgt_raw_drain();
	if (t->rep_on)
		reps_out(t);
	chunk_out(t);
}

/* --- the log of plain accesses (vgt_int.h) ----------------------------- */

void vgt_raw_drain(void)
{
	struct vgt_thread *t = vgt_cur;
	const struct vgt_raw *r = raw_log, *end = vgt_raw_cur;
	vgt_raw_cur = raw_log;
	if (r == end || !t || !t->live)
		return;
	if (t->rep_on)
		reps_out(t); /* (it ran before them) */
	UChar *p = room(t);
	if (vgt_raw_epoch != t->epoch) {
		t->epoch = vgt_raw_epoch;
		*p++ = MP_TAG(MP_REC_EPOCH, 0);
		p = mp_put_uv(p, vgt_raw_epoch);
	}
	/* (the delta bases in registers: the stream's would be reloaded
	 * after every byte stored) */
	for (;;) {
		const UChar *lim = t->lim;
		struct vgt_bases b = t->base;
		const struct vgt_raw *start = r;
		for (; r < end && p < lim; r++)
			p = put_access(&b, p, (Addr)r->addr, (UInt)(r->packed >> VGT_IP_BITS),
				       r->packed & ((1ull << VGT_IP_BITS) - 1), 0);
		t->base = b;
		t->naccess += (ULong)(r - start);
		t->p = p;
		if (r == end)
			return;
		chunk_out(t);
		p = t->p;
	}
}

void vgt_raw_discard(void)
{
	vgt_raw_cur = raw_log;
}

void vgt_raw_sync(void)
{
	vgt_raw_drain(); /* (at the epoch they were made at) */
	vgt_raw_epoch = *vgt_epoch;
	vgt_raw_step = !vgt_cur || *vgt_cur->guard ? 0 : sizeof(struct vgt_raw);
	vgt_raw_lim = raw_log + VGT_RAW_BATCH;
}

void vgt_set_current(struct vgt_thread *t)
{
	if (t != vgt_cur)
		vgt_raw_drain();
	vgt_cur = t;
	vgt_raw_lim = NULL;
}

/* Accesses made while the thread's runtime guard is set are the runtime's
 * own work, not the program's. Entries of the log were made before. */
static inline __attribute__((always_inline)) void record(struct vgt_thread *t, Addr a, ULong packed, ULong len)
{
	if (vgt_raw_cur != raw_log)
		vgt_raw_drain();
	if (UNLIKELY(t->rep_on))
		reps_out(t);
	UChar *p = epoch_check(t, room(t));
	t->p = put_access(&t->base, p, a, (UInt)(packed >> VGT_IP_BITS), packed & ((1ull << VGT_IP_BITS) - 1), len);
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

/*
 * An iteration of a rep string instruction. Valgrind runs the instruction
 * one iteration at a time; each iteration's access to an operand extends
 * that operand's range when it continues it (forward, or backward with the
 * direction flag set) at the same instruction, and starts a new one
 * otherwise, after writing out what ran before. A new execution of the
 * instruction is told by its first operand (by its address, or by the
 * instrumentation: vgt_access_rep_start): it starts both afresh.
 */
static inline void rep_access(int slot, Addr a, ULong packed, Bool start)
{
	struct vgt_thread *t = vgt_cur;
	if (UNLIKELY(*t->guard))
		return;
	if (vgt_raw_cur != raw_log)
		vgt_raw_drain(); /* (they came after the iteration before: the range ends) */
	UInt code = (UInt)(packed >> VGT_IP_BITS);
	ULong ip = packed & ((1ull << VGT_IP_BITS) - 1);
	Addr size = (Addr)1 << (code & 7);
	struct vgt_rep *r = &t->rep[slot];
	if (LIKELY(r->on && r->ip == ip && r->code == code && !start)) {
		if (a == r->hi) {
			r->hi += size;
			return;
		}
		if (a + size == r->lo) {
			r->lo = a;
			return;
		}
	}
	if (slot == 0 && t->rep_on) {
		reps_out(t);
	} else if (r->on) {
		/* (only the second operand broke off: write it alone) */
		struct vgt_rep keep = t->rep[0];
		t->rep[0].on = False;
		reps_out(t);
		t->rep[0] = keep;
	}
	t->p = epoch_check(t, room(t)); /* the range takes the epoch of its first iteration */
	*r = (struct vgt_rep){ True, code, ip, a, a + size };
	t->rep_on = True;
}

void vgt_access_rep0(Addr a, ULong packed)
{
	rep_access(0, a, packed, False);
}

void vgt_access_rep1(Addr a, ULong packed)
{
	rep_access(1, a, packed, False);
}

void vgt_access_rep_start(Addr a, ULong packed)
{
	rep_access(0, a, packed, True);
}
