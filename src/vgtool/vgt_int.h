/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * memprism's Valgrind tool (memprism-amd64-linux): every guest load and
 * store of every thread, written as STREAM chunks into the data file that
 * `memprism record --source valgrind` created, next to the chunks of
 * memprism's preloaded runtime, which records the objects. docs/sources.md
 * ("valgrind") says how the two meet.
 *
 * Copyright (C) memprism's authors.
 *
 * This program is free software; you can redistribute it and/or modify it
 * under the terms of the GNU General Public License as published by the
 * Free Software Foundation; either version 2 of the License, or (at your
 * option) any later version. It links Valgrind's core (GPL-2.0) and is a
 * program of its own; the rest of memprism is MIT-licensed (LICENSE in
 * this folder, and ../../LICENSE).
 *
 * Internals shared by the tool's files: vgt_main.c (the tool's
 * registration, client requests, threads, fork and exec), vgt_instr.c (the
 * IR instrumentation), vgt_stream.c (the per-thread record buffers, chunk
 * framing and writing). A Valgrind tool links no libc: everything here uses
 * the core's VG_() functions and the compiler's own headers.
 */
#ifndef VGT_INT_H
#define VGT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"

#include "common/mp_vgreq.h"
#include "common/mp_vgring.h"
#include "common/varint.h"
#include "trace/trace_format.h"

#define VGT_BUF_SIZE (1u << 20) /* record bytes per chunk */
#define VGT_SLACK 64 /* past the limit: one access record (a range too) and an EPOCH record before it */
#define VGT_PREFIX_MAX 48 /* a chunk's leading EPOCH, TIME and DROPPED records */
/* bytes before the records: room to put the chunk header and the leading
 * records in front of them, so a chunk goes out with one write from the
 * buffer itself */
#define VGT_HEAD (sizeof(struct mp_chunk_header) + VGT_PREFIX_MAX)
#define VGT_ALLOC (VGT_HEAD + VGT_BUF_SIZE + VGT_SLACK)

/* One client thread's stream. The log's encoding loop and the helpers
 * touch the first fields only. */
struct vgt_thread {
	UChar *p, *lim; /* next free byte; flush when p reaches lim */
	struct vgt_bases {
		ULong addr, ip, prev_ip;
	} base; /* delta bases, 0 at each chunk start */
	ULong epoch; /* the last epoch this stream wrote (0: none known yet) */
	const volatile Int *guard; /* the thread's runtime guard (vgt_zero if unknown) */
	ULong naccess; /* accesses in the chunk being filled */

	UChar *buf; /* VGT_ALLOC bytes; the records start at buf + VGT_HEAD */
	UInt ltid; /* Linux tid */
	UInt seq; /* chunks of this stream so far */
	Bool live;
	ULong chunk_epoch; /* the epoch the chunk starts at (0: set when the process is known) */
	ULong chunk_time;
	UInt chunk_cpu;
	ULong dropped; /* accesses not recorded, said at the next chunk's start */
	Bool chunk_plain; /* no range of 4 KiB or more in the chunk (mp_chunk_header.accesses) */
	/* the ranges of a rep string instruction being executed, per operand
	 * (vgt_access_rep0/1); written out before the thread's next record */
	Bool rep_on;
	struct vgt_rep {
		Bool on;
		UInt code;
		ULong ip;
		Addr lo, hi;
	} rep[2];
};

/* The process as the runtime described it (MP_VGREQ_PROCESS). Until then
 * (before the runtime's constructor, in a fork child until its handler
 * ran) full buffers wait on a list and go out once the ids are known. */
struct vgt_proc {
	Bool known;
	UInt pid;
	ULong proc_id;
	ULong first_epoch; /* the epoch when the runtime told us: chunks started before start there */
	Bool guard_known; /* guard_off is (MP_VGREQ_GUARD, or the process request) */
	Long guard_off;
	Int fd; /* the data file, O_APPEND; -1 until the runtime names it */
	Bool write_failed;
	struct vgt_pending *pending, **pending_tail;
	SizeT pending_bytes;
	ULong chunks, accesses, dropped; /* tool's own counters (debugging) */
};

struct vgt_pending {
	struct vgt_pending *next;
	UChar *buf; /* a thread's whole buffer, handed over */
	SizeT len; /* record bytes at buf + VGT_HEAD */
	UInt ltid, seq;
	ULong time, naccess, dropped;
	UInt cpu;
	Bool plain;
};

extern struct vgt_proc vgt_proc;
extern struct vgt_thread *vgt_cur; /* the thread running client code */
extern const volatile ULong *vgt_epoch; /* the client's epoch, or vgt_zero_epoch */
extern const volatile ULong vgt_zero_epoch;
extern const volatile Int vgt_zero, vgt_one;

/* vgt_stream.c */
void vgt_crc_init(void);
void vgt_thread_open(struct vgt_thread *t, UInt ltid); /* a buffer and a fresh stream */
void vgt_thread_close(struct vgt_thread *t); /* flush and free */
void vgt_thread_flush(struct vgt_thread *t); /* the chunk being filled goes out (or waits) */
void vgt_thread_discard(struct vgt_thread *t); /* forget the chunk being filled */
void vgt_pending_write(void); /* the process is known: out with what waited */
void vgt_pending_drop(void);
/* Chunks go to the launcher's ring at path (--memprism-ring) from now on:
 * False if it cannot be mapped (then to the file). */
Bool vgt_ring_attach(const HChar *path);
/* The helpers the instrumentation calls: packed is the code address in bits
 * 0-55 and the record's tag (size code | MP_ACC_WRITE) in bits 56-63. */
#define VGT_IP_BITS 56
void vgt_access(Addr a, ULong packed);
void vgt_access_range(Addr a, ULong packed, ULong len);
/* an iteration of a rep string instruction: its first and second operand */
void vgt_access_rep0(Addr a, ULong packed);
void vgt_access_rep1(Addr a, ULong packed);
void vgt_access_rep_start(Addr a, ULong packed); /* rep0, known to start an execution */

/*
 * The log of the running thread's (vgt_cur's) plain accesses: the
 * instrumentation writes each one there inline, its address and packed
 * word, with no call (a helper call per access costs its spills and
 * reloads of live registers, more than the record's encoding). The
 * entries are encoded into the thread's stream in a loop a few dozen at a
 * time, at the start of the superblock that would take the log past
 * VGT_RAW_BATCH: small batches, between the program's instructions, keep
 * the log in L1 and let the encoding run while the program's cache misses
 * are outstanding (a long batch runs alone, after them). They are encoded
 * too when a helper writes a record of its own, when the thread stops
 * running and when the epoch moves.
 *
 * The epoch and the runtime's guard change only in the runtime's code,
 * which instrumented code never runs in the middle of: a stretch of the
 * runtime's code clears vgt_raw_lim (one store), and so do thread
 * switches and client requests. Each instrumented stretch of a superblock
 * starts with one test, its accesses' room against vgt_raw_lim, which
 * also fails when it was cleared; vgt_raw_sync then encodes what is
 * logged, reads the epoch and the guard, and sets the limit again. Under
 * the guard the step is 0: entries are overwritten in place, not kept.
 */
struct vgt_raw {
	ULong addr, packed;
};
#define VGT_RAW_BATCH 32 /* entries encoded at a time, about */
/* a superblock's inline accesses, at most: one with more takes calls */
#define VGT_RAW_SB_MAX 1024
#define VGT_RAW_N (VGT_RAW_BATCH + VGT_RAW_SB_MAX)
extern struct vgt_raw *vgt_raw_cur; /* the next free entry */
extern struct vgt_raw *vgt_raw_lim; /* the batch's end, or NULL: vgt_raw_sync is due */
extern ULong vgt_raw_step; /* sizeof(struct vgt_raw), 0 under the guard */
extern ULong vgt_raw_epoch; /* the epoch of the logged entries */
void vgt_raw_drain(void); /* the entries into vgt_cur's stream */
void vgt_raw_discard(void);
void vgt_raw_sync(void);
/* vgt_cur becomes t (NULL: none), after the last one's entries went out */
void vgt_set_current(struct vgt_thread *t);

/* vgt_instr.c */
IRSB *vgt_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
		     const VexGuestExtents *vge, const VexArchInfo *archinfo_host, IRType gWordTy, IRType hWordTy);
void vgt_instr_forget(Addr a, SizeT len); /* code there was unmapped */

#endif
