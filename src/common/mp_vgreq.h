/* SPDX-License-Identifier: MIT */
/*
 * What the preloaded runtime tells memprism's Valgrind tool (record
 * --source valgrind): one Valgrind client request, made when the runtime
 * has described a process (start-up, a fork child), naming what the tool
 * needs to write its streams into the same file as the runtime and to
 * order them against the runtime's events. Shared by the runtime (MIT)
 * and the tool (src/vgtool, GPL-2.0-or-later): numbers and a plain struct,
 * nothing else, so both sides agree on them.
 */
#ifndef MP_VGREQ_H
#define MP_VGREQ_H

#include <stdint.h>

/* Valgrind's VG_USERREQ_TOOL_BASE('M','P'), spelt out so the tool's
 * header need not include valgrind.h and the runtime's need not either. */
#define MP_VGREQ_BASE (((unsigned)'M' & 0xff) << 24 | ((unsigned)'P' & 0xff) << 16)
enum mp_vgreq {
	/* arg 1: struct mp_vg_process *. Returns MP_VGREQ_ACK when the tool
	 * took it (0 under another tool, or not under Valgrind at all). */
	MP_VGREQ_PROCESS = MP_VGREQ_BASE + 1,
	/* no argument: the calling thread is the runtime's own (its writer
	 * thread); nothing it did or does is recorded. Returns MP_VGREQ_ACK. */
	MP_VGREQ_IGNORE_THREAD = MP_VGREQ_BASE + 2,
	/* arg 1: the guard's offset from the thread pointer, as in struct
	 * mp_vg_process, told first thing at start-up so that the runtime's
	 * own work before it describes the process is left out too */
	MP_VGREQ_GUARD = MP_VGREQ_BASE + 3,
};
#define MP_VGREQ_IS_OURS(req) (((req) & 0xffff0000u) == MP_VGREQ_BASE)
#define MP_VGREQ_ACK 0x4d50u /* "MP" */
#define MP_VGREQ_VERSION 1 /* bump with any change to the struct below */

/*
 * The process as the runtime recorded it. Addresses are the client's: the
 * tool reads them in place (tool and client share one address space).
 */
struct mp_vg_process {
	uint32_t version; /* MP_VGREQ_VERSION */
	uint32_t pid; /* the chunk headers' pid: getpid() */
	uint64_t proc_id; /* the chunk headers' proc_id (new at fork and exec) */
	uint64_t epoch_addr; /* &__memprism_epoch: the global epoch, a uint64_t */
	/* the calling thread's per-thread guard minus its thread pointer (the
	 * FS base on x86-64): initial-exec TLS puts every thread's at the same
	 * offset, so the tool finds each thread's guard from its FS base. While
	 * it is non-zero the thread runs the runtime's own work (its hooks, its
	 * writer thread), whose accesses are not the program's. */
	int64_t guard_tp_offset;
	uint64_t out_path; /* const char *: the data file (MEMPRISM_OUT), absolute */
};

#endif
