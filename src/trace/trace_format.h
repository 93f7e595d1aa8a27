/* SPDX-License-Identifier: MIT */
/*
 * The memprism.data on-disk format, shared by the writer (inside the profiled
 * program), the reader and anyone writing tools against it. docs/trace-format.md
 * is the prose version of this file; keep them in step.
 *
 * A file is a header followed by chunks. Every chunk is self-describing (its
 * own header names type, codec, stream, sizes and a CRC of the payload), so a
 * reader can skip unknown types and stop cleanly at the first damaged chunk.
 * Chunks from many threads and processes interleave: each is one write(2) on
 * an O_APPEND descriptor, so a killed program leaves whole chunks behind.
 */
#ifndef MP_TRACE_FORMAT_H
#define MP_TRACE_FORMAT_H

#include <stdint.h>

#define MP_FILE_MAGIC "MEMPRISM" /* 8 bytes, no NUL */
#define MP_CHUNK_MAGIC 0x4b43504dU /* "MPCK" little-endian */

/* Every format version ever written keeps its name here (readers key on it). */
enum mp_format_version {
	MP_FORMAT_V1 = 1, /* 2026-11: first version */
	MP_FORMAT_V2 = 2, /* 2026-11: adds ACCESS_FAR and ACCESS_SLOT (classes 6, 7) */
	MP_FORMAT_V3 = 3, /* 2026-11: streams of signal handlers (MP_TID_CONTEXT_SHIFT) */
	/* adds ALLOC functions MP_FN_MALLOCLIKE and MP_FN_FREELIKE, the
	 * program's own allocator's blocks (memprism.h), which a v3 reader
	 * would take for heap blocks */
	MP_FORMAT_V4 = 4,
	/* inst recordings may hold SAMPLES chunks of CPU time (SAMPLE_DEF kind
	 * MP_SK_CPU_TIME), which a v4 reader would take for PMU accesses */
	MP_FORMAT_V5 = 5,
	MP_FORMAT_CURRENT = MP_FORMAT_V5,
};

/* File header: fixed part, then `meta_len` bytes of "key=value\n" text
 * (command line, host, kernel, clock, source). All integers little-endian. */
struct mp_file_header {
	char magic[8];
	uint32_t version;
	uint32_t header_len; /* sizeof(struct mp_file_header) */
	uint32_t meta_len;
	uint32_t flags; /* MP_FILE_* below; 0 as created */
	uint64_t start_ns; /* CLOCK_MONOTONIC when the launcher started */
	uint64_t start_realtime_ns;
	uint32_t meta_crc; /* crc32 of the meta text */
	uint32_t header_crc; /* crc32 of the bytes above this field */
};

/* Header flags. A writer whose append fails (a full disk) rewrites the
 * header in place, which needs no new space, with MP_FILE_WRITE_FAILED and
 * the Linux errno in bits 16-31 (the first failure's; later ones leave it),
 * so a reader can tell a recording cut short by the disk from a killed
 * process. Readers before these flags ignored the field. */
#define MP_FILE_WRITE_FAILED 1u
#define MP_FILE_ERRNO_SHIFT 16
#define MP_FILE_WRITE_ERRNO(flags) ((int)((flags) >> MP_FILE_ERRNO_SHIFT))

enum mp_chunk_type {
	MP_CHUNK_STREAM = 1, /* one thread's records (events and accesses) */
	MP_CHUNK_PROCESS = 2, /* a process (or exec image) starts: records */
	MP_CHUNK_END = 3, /* a process's runtime shut down: its final counters */
	MP_CHUNK_RUN_END = 4, /* the launcher saw the program end: uv status, uv time */
	/* Sampled accesses (record --source faults|pmu), written by the launcher
	 * as it drains the perf rings: EVENT records of types 19..22 below, for
	 * every thread of the program and, with record --children, of its
	 * children (pid/tid are fields; the chunk header's pid is the
	 * launcher's, tid and proc_id 0). Epoch deltas are 0: samples carry
	 * time, not epochs, and are placed by time. */
	MP_CHUNK_SAMPLES = 5,
	/* 6: reserved for the sampled sources */
	MP_CHUNK_PAGEMAP = 7, /* translations that changed: see MP_PAGEMAP_* below */
};

enum mp_codec { MP_CODEC_RAW = 0, MP_CODEC_ZSTD = 1 };

struct mp_chunk_header {
	uint32_t magic; /* MP_CHUNK_MAGIC */
	uint16_t type; /* enum mp_chunk_type */
	uint16_t codec; /* enum mp_codec */
	uint32_t pid;
	uint32_t tid;
	uint64_t proc_id; /* process instance: distinguishes exec images of one pid */
	uint32_t seq; /* per-stream chunk sequence, from 0 */
	uint32_t raw_len; /* payload length after decoding */
	uint32_t stored_len; /* payload bytes following this header */
	uint32_t payload_crc; /* crc32 of the stored payload */
	/* STREAM chunks: MP_CHUNK_PLAIN | the number of access records when
	 * the chunk holds nothing else but its EPOCH and TIME records, and no
	 * range of 4 KiB or more (a replay that drops accesses can pass it
	 * over undecoded); else 0, as every chunk of writers before it has */
	uint32_t accesses;
	uint32_t header_crc; /* crc32 of the bytes above this field */
};

/*
 * A STREAM chunk's tid: the thread's tid in the low bits (Linux tids stay
 * below 2^22), and above MP_TID_CONTEXT_SHIFT the recording context: 0 the
 * thread's own code, d >= 1 the signal handlers running at nesting depth d
 * on that thread (v3). Each context is a stream of its own, with its own
 * seq, delta bases and stack ids; its accesses and events are the
 * thread's.
 */
#define MP_TID_CONTEXT_SHIFT 24
#define MP_TID_MASK ((1u << MP_TID_CONTEXT_SHIFT) - 1)
/* The context of a stream written by memprism's Valgrind tool (record
 * --source valgrind): the thread's every load and store, handlers
 * included, while the runtime's own streams of that thread hold its
 * events. Readers need nothing new: it is one more stream of the thread. */
#define MP_TID_CONTEXT_VALGRIND 255u

#define MP_CHUNK_PLAIN (1u << 31)
#define MP_CHUNK_COUNT_MAX ((1u << 30) - 1) /* (a chunk holds at most 64 MiB) */

#define MP_CHUNK_MAX_RAW (64u << 20) /* readers refuse larger chunks */

/*
 * Payload records. Every record starts with a tag byte; integers are LEB128
 * varints ("uv"), signed ones zigzag-encoded ("sv"). Strings are uv length +
 * bytes. The class is in the top three bits of the tag.
 *
 * ACCESS   (class 0): bits 0-2 size code, bit 3 write, bit 4 ip changed.
 *          sv addr delta (from previous access address in this chunk),
 *          [uv length if size code == MP_SIZE_RANGE], [sv ip delta if bit 4].
 *          Addresses and ips restart from 0 at each chunk start.
 * EPOCH    (class 1): uv epoch (absolute). Later accesses happened at or after
 *          this global epoch (see docs: time-aware attribution).
 * TIME     (class 2): uv CLOCK_MONOTONIC ns (absolute), uv cpu.
 * EVENT    (class 3): bits 0-4 event type; uv epoch delta (from the stream's
 *          current epoch), then the event's fields. Every event but
 *          STACK_DEF starts with its time as an sv delta from the stream's
 *          previous time (TIME record or event); ALLOC's and FREE's addr is
 *          an sv delta from the previous ALLOC/FREE addr of the chunk (0 at
 *          chunk start). The field lists below show decoded values.
 * DROPPED  (class 4): uv number of accesses not recorded (recording stopped,
 *          or a thread that had no buffer).
 * ACCESS_IP2 (class 5): an ACCESS (same low bits) whose ip is the one
 *          before the previous access's ip; the two swap. v2: with bit 4
 *          (an ip delta follows), slot 1 changes by the delta in place and
 *          names the ip; slot 0 stays.
 * ACCESS_SLOT (class 7, v2): bits 0-2 size code (not a range), bit 3
 *          write, bit 4 the ip slot; sv addr delta. The ip is the slot's and
 *          the slots stay as they are.
 * ACCESS_FAR (class 6, v2): as ACCESS_SLOT, but the zigzag addr delta is in
 *          6 raw little-endian bytes: a random access's far jump, which the
 *          inline path writes with one shift and one store where a varint
 *          needs ~20 instructions.
 * Ip slots: two code addresses, 0 at each chunk start. Slot 0 is the one
 * ACCESS uses, slot 1 the one before it: an ACCESS with bit 4 moves slot 0
 * to slot 1 and adds the delta to slot 0; ACCESS_IP2 swaps them (loops
 * alternating between two instructions), or with bit 4 adds the delta to
 * slot 1. ACCESS_SLOT and ACCESS_FAR leave them in place: the inline path
 * gives each site a fixed slot, so the two sites of a loop name their ips
 * with a constant tag and nothing moves.
 */
enum mp_rec_class {
	MP_REC_ACCESS = 0,
	MP_REC_EPOCH = 1,
	MP_REC_TIME = 2,
	MP_REC_EVENT = 3,
	MP_REC_DROPPED = 4,
	MP_REC_ACCESS_IP2 = 5,
	MP_REC_ACCESS_FAR = 6,
	MP_REC_ACCESS_SLOT = 7,
};
#define MP_TAG_CLASS(t) ((unsigned)(t) >> 5)
#define MP_TAG(cls, low) ((uint8_t)(((cls) << 5) | (low)))
#define MP_ACC_WRITE 0x08u
#define MP_ACC_IP 0x10u
#define MP_ACC_SLOT1 0x10u /* ACCESS_SLOT, ACCESS_FAR: the ip is slot 1's */
#define MP_ACC_FAR_BYTES 6u /* ACCESS_FAR's raw delta: zigzag deltas < 2^48 */
#define MP_SIZE_RANGE 7u /* size codes 0..4 mean 1,2,4,8,16 bytes; 5 = 32, 6 = 64 */
/* User addresses lie below this (x86-64 with 5-level paging, arm64's 52
 * bits): a range that does not end by it is malformed (a damaged length
 * could have the model walk 2^58 lines). */
#define MP_ADDR_END (1ull << 57)

/* PAGEMAP chunk payload (written by the launcher from /proc/PID/pagemap):
 * uv pid, uv time (CLOCK_MONOTONIC ns), uv runs, then per run:
 * sv first virtual page (4 KiB units) minus the previous run's first page,
 * uv pages, uv first frame (0: the pages are no longer present),
 * uv flags. A run is consecutive pages on consecutive frames. */
#define MP_PAGEMAP_THP 1u /* part of a transparent huge page */
#define MP_PAGEMAP_HUGETLB 2u /* a hugetlbfs page */

/* Event types (class 3). Fields after the epoch, in order: */
enum mp_event_type {
	/* uv time, uv cpu, uv addr, uv size, uv stack, uv fn (enum mp_alloc_fn), uv group */
	MP_EV_ALLOC = 1,
	/* uv time, uv cpu, uv addr */
	MP_EV_FREE = 2,
	/* uv time, uv cpu, uv addr, uv len, uv prot, uv flags, uv offset, uv stack, str path */
	MP_EV_MMAP = 3,
	/* uv time, uv cpu, uv addr, uv len */
	MP_EV_MUNMAP = 4,
	/* uv time, uv cpu, uv old addr, uv old len, uv new addr, uv new len */
	MP_EV_MREMAP = 5,
	/* uv time, uv cpu, uv tid, uv creator tid, uv stack lo, uv stack hi, str name */
	MP_EV_THREAD_START = 6,
	/* uv time, uv cpu */
	MP_EV_THREAD_EXIT = 7,
	/* uv time, uv bias, uv lo, uv hi, str path  (a loaded ELF image) */
	MP_EV_MODULE = 8,
	/* uv time, uv cpu, str name */
	MP_EV_REGION_BEGIN = 9,
	MP_EV_REGION_END = 10,
	/* uv time, uv addr, uv len, str name  (memprism.h: a user-named object) */
	MP_EV_NAME_RANGE = 11,
	/* uv time, uv group id, str name  (memprism.h: allocations grouped into one object) */
	MP_EV_GROUP_DEF = 12,
	/* uv stack id, uv depth, then depth × uv return address (no time field) */
	MP_EV_STACK_DEF = 13,
	/* uv time, uv cpu, uv child pid */
	MP_EV_FORK = 14,
	/* uv time, str name  (pthread_setname_np / prctl) */
	MP_EV_THREAD_NAME = 15,
	/* uv time, uv addr, uv len, uv prot, str path: a mapping present at start,
	 * or the brk heap after it grew (record --min-size) */
	MP_EV_MAP_INITIAL = 16,
	/* uv time, uv module bias, uv addr, uv size: this thread's TLS block of
	 * the module loaded at that bias (thread-local variables live there) */
	MP_EV_TLS_BLOCK = 17,
	/* uv time, uv bias, uv lo, uv hi: the image loaded at bias was unloaded
	 * (dlclose): its statics and sections end */
	MP_EV_MODULE_UNLOAD = 18,
	/* --- sampled sources: SAMPLES chunks only (docs/trace-format.md) --- */
	/* uv time, uv cpu, uv pid, uv tid, uv addr, uv ip, uv flags (MP_FAULT_*):
	 * a completed page fault (perf software event) */
	MP_EV_FAULT = 19,
	/* uv time, uv cpu, uv pid, uv tid, uv addr, uv ip, uv event (SAMPLE_DEF
	 * index), uv period, uv data_src (perf_mem_data_src), uv weight
	 * (latency: PERF_SAMPLE_WEIGHT, or WEIGHT_STRUCT var1 | var2 << 32),
	 * uv phys addr, str callchain (uv count, then count x uv ip) */
	MP_EV_SAMPLE = 20,
	/* uv time, uv cpu, uv lost: records the kernel dropped on that CPU's ring */
	MP_EV_LOST = 21,
	/* uv time, uv event index, uv kind (enum mp_sample_kind), uv perf type,
	 * uv perf config, uv period, str name: what an event index means */
	MP_EV_SAMPLE_DEF = 22,
	/* 23: reserved for the sampled sources */
	/* --- NUMA placement (docs/numa.md): calls the runtime intercepted, with
	 * what the program asked for (before any mapping onto the host) --- */
	/* uv time, uv cpu, uv tid (the thread whose affinity changed), str CPU
	 * mask (bytes, bit i of byte i/8 = CPU i; trailing zero bytes dropped):
	 * sched_setaffinity, pthread_setaffinity_np, pthread_attr_setaffinity_np
	 * (written by the new thread when it starts) */
	MP_EV_AFFINITY = 24,
	/* uv time, uv cpu, uv mode (MPOL_*, with its flag bits), uv nodemask
	 * (bit i = node i; nodes from 64 up are dropped): set_mempolicy, the
	 * calling thread's policy for pages it places from now on */
	MP_EV_MEMPOLICY = 25,
	/* uv time, uv cpu, uv addr, uv len, uv mode, uv nodemask, uv flags: mbind
	 * (numa_alloc_onnode / _interleaved / _local reach it through libnuma) */
	MP_EV_MBIND = 26,
	/* uv time, uv cpu, uv pid (0: self), uv count, str count x (sv page
	 * address delta from the previous one, uv node): move_pages that moved
	 * pages (queries are not recorded); long calls span several events */
	MP_EV_MOVE_PAGES = 27,
	/* 28..31: reserved for NUMA */
};

#define MP_FAULT_MAJOR 1u /* the fault needed I/O (PERF_COUNT_SW_PAGE_FAULTS_MAJ) */

/* What a sampled event measures (SAMPLE_DEF kind). */
enum mp_sample_kind {
	MP_SK_FAULT_MIN = 1, /* software: minor page faults */
	MP_SK_FAULT_MAJ = 2, /* software: major page faults */
	MP_SK_PEBS_LOAD = 3, /* Intel: load latency (mem-loads, ldlat) */
	MP_SK_PEBS_STORE = 4, /* Intel: precise stores (mem-stores) */
	MP_SK_PEBS_STLB_LOAD = 5, /* Intel: loads that missed the STLB */
	MP_SK_PEBS_STLB_STORE = 6, /* Intel: stores that missed the STLB */
	MP_SK_IBS_OP = 7, /* AMD: IBS op samples (loads and stores) */
	MP_SK_SPE = 8, /* Arm: SPE records */
	/* software: user-mode CPU time (cpu-clock, period in ns), with the
	 * inst source: where the program's time went, never an access */
	MP_SK_CPU_TIME = 9,
};

enum mp_alloc_fn {
	MP_FN_MALLOC = 0, MP_FN_CALLOC, MP_FN_REALLOC, MP_FN_MEMALIGN, MP_FN_NEW,
	/* v4: memprism_malloclike(addr, size): a block the program's own
	 * allocator carved (from a heap block, a static, a mapping), an
	 * object over what it was carved from until its FREELIKE */
	MP_FN_MALLOCLIKE,
	/* v4: memprism_freelike(addr): the MALLOCLIKE block at addr ends
	 * (size 0, stack 0; an ALLOC record, as FREE has no room to say
	 * whose free it is) */
	MP_FN_FREELIKE,
};

/*
 * PROCESS chunk payload: uv pid, uv ppid, uv parent proc_id (0 if none),
 * uv fork epoch in the parent (0 if none), uv time, str exe, str cmdline
 * (NUL-separated argv), uv flags (bit 0: program has access instrumentation).
 * END chunk payload: uv time, uv accesses recorded, uv accesses the runtime
 * could not record (signal handlers nested deeper than it keeps streams for),
 * uv chunks written, uv status: 0 exit, 0x100 + signal, MP_END_EXEC when the
 * image was replaced by exec (a failed exec is followed by more chunks and
 * another END).
 */
#define MP_END_EXEC 0x200u
#define MP_PROC_INSTRUMENTED 1u

#endif
