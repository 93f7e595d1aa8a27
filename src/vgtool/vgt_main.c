/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tool's frame: registration with Valgrind's core, the runtime's
 * client requests (which process this is, where its epoch and guards are,
 * which file to write), and the life of the per-thread streams across
 * thread start and exit, fork, exec and the client's end.
 *
 * `memprism record --source valgrind` runs it; nobody else needs to
 * (docs/sources.md, "valgrind").
 *
 * Copyright (C) memprism's authors. GPL-2.0-or-later: see vgt_int.h.
 */
#include "vgt_int.h"

#include "libvex_guest_amd64.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

/* The core's own: moves a descriptor above the client's descriptor limit,
 * close-on-exec, where the client can neither close it nor have it reused
 * (Valgrind keeps its log there). Not in the tool headers, but in the core
 * every tool links. */
extern Int VG_(safe_fd)(Int oldfd);

static struct vgt_thread *threads; /* [VG_N_THREADS], by Valgrind ThreadId */

/* The thread's runtime guard: at the same offset from its thread pointer
 * in every thread (initial-exec TLS), when the runtime said which. */
static void find_guard(ThreadId tid, struct vgt_thread *t)
{
	if (t->guard == &vgt_one)
		return; /* (the runtime's writer thread stays left out) */
	t->guard = &vgt_zero;
	if (!vgt_proc.guard_known)
		return;
	ULong fs = 0;
	VG_(get_shadow_regs_area)(tid, (UChar *)&fs, 0, offsetof(VexGuestAMD64State, guest_FS_CONST), sizeof(fs));
	Addr g = (Addr)fs + (Addr)vgt_proc.guard_off;
	if (fs && VG_(am_is_valid_for_client)(g, sizeof(Int), VKI_PROT_READ))
		t->guard = (const volatile Int *)g;
}

/* A thread starts (or resumes) running client code: its stream becomes
 * the one the helpers write, set up on its first run. */
static void start_client_code(ThreadId tid, ULong blocks_done)
{
	(void)blocks_done;
	struct vgt_thread *t = &threads[tid];
	if (!t->live) {
		vgt_thread_open(t, (UInt)VG_(gettid)()); /* (on the thread's own kernel thread) */
		find_guard(tid, t);
	}
	vgt_set_current(t);
}

static void thread_exit(ThreadId tid)
{
	vgt_thread_close(&threads[tid]);
}

static void flush_all(void)
{
	for (UInt i = 0; i < VG_N_THREADS; i++)
		vgt_thread_flush(&threads[i]);
}

/* Fork, in the child: the records buffered so far are the parent's, which
 * writes them; only the forking thread goes on, under a new tid, in a
 * process the runtime will describe anew (rt_atfork_child). */
static void atfork_child(ThreadId tid)
{
	vgt_raw_discard(); /* (the parent's too) */
	vgt_raw_epoch = 0;
	for (UInt i = 0; i < VG_N_THREADS; i++) {
		struct vgt_thread *t = &threads[i];
		if (!t->live)
			continue;
		if (i == tid) {
			const volatile Int *guard = t->guard;
			vgt_thread_open(t, (UInt)VG_(gettid)());
			t->guard = guard; /* (the same memory in the child) */
		} else {
			t->live = False; /* gone with the fork */
			VG_(free)(t->buf);
			t->buf = NULL;
		}
	}
	vgt_pending_drop();
	vgt_proc.known = False;
	vgt_epoch = &vgt_zero_epoch;
	for (UInt i = 0; i < VG_N_THREADS; i++)
		if (threads[i].live)
			threads[i].epoch = threads[i].chunk_epoch = 0;
	vgt_set_current(&threads[tid]);
}

/* exec replaces the image (a new tool instance starts with it): what this
 * process recorded goes out first. A failed exec goes on recording. */
static void pre_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nargs)
{
	(void)tid, (void)args, (void)nargs;
	if (sysno == __NR_execve || sysno == __NR_execveat)
		flush_all();
}

static void post_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nargs, SysRes res)
{
	(void)tid, (void)sysno, (void)args, (void)nargs, (void)res;
}

static void die_munmap(Addr a, SizeT len)
{
	vgt_instr_forget(a, len);
}

static Bool open_output(const HChar *path)
{
	if (vgt_proc.fd >= 0)
		return True; /* (a fork child keeps its parent's) */
	SysRes r = VG_(open)(path, VKI_O_WRONLY | VKI_O_APPEND, 0); /* (safe_fd sets close-on-exec) */
	if (sr_isError(r)) {
		VG_(umsg)("memprism: cannot open the data file %s (error %lu); accesses are not recorded\n", path,
			  sr_Err(r));
		return False;
	}
	Int fd = VG_(safe_fd)((Int)sr_Res(r));
	if (fd < 0)
		return False;
	vgt_proc.fd = fd;
	return True;
}

/* The runtime has described the process (its constructor, or its fork
 * handler in a child): from now on chunks carry its ids, the epoch is
 * read at every access, each thread's guard is known. */
static UWord process_request(ThreadId tid, const struct mp_vg_process *req)
{
	(void)tid;
	if (!req || !VG_(am_is_valid_for_client)((Addr)req, sizeof(*req), VKI_PROT_READ) ||
	    req->version != MP_VGREQ_VERSION)
		return 0;
	const HChar *path = (const HChar *)(Addr)req->out_path;
	if (!path || !VG_(am_is_valid_for_client)((Addr)path, 1, VKI_PROT_READ) || !open_output(path))
		return 0;
	if (!VG_(am_is_valid_for_client)((Addr)req->epoch_addr, sizeof(ULong), VKI_PROT_READ))
		return 0;
	vgt_proc.pid = req->pid;
	vgt_proc.proc_id = req->proc_id;
	vgt_proc.guard_off = req->guard_tp_offset;
	vgt_proc.guard_known = True;
	vgt_epoch = (const volatile ULong *)(Addr)req->epoch_addr;
	vgt_proc.first_epoch = *vgt_epoch;
	vgt_proc.known = True;
	vgt_pending_write();
	for (UInt i = 0; i < VG_N_THREADS; i++) {
		struct vgt_thread *t = &threads[i];
		if (!t->live)
			continue;
		/* the chunk being filled starts at first_epoch (chunk_epoch 0) */
		t->epoch = vgt_proc.first_epoch;
		find_guard(i, t);
	}
	return MP_VGREQ_ACK;
}

/* One of the runtime's requests: its reply. */
static UWord our_request(ThreadId tid, const UWord *arg)
{
	switch (arg[0]) {
	case MP_VGREQ_PROCESS:
		return process_request(tid, (const struct mp_vg_process *)arg[1]);
	case MP_VGREQ_GUARD:
		vgt_proc.guard_off = (Long)arg[1];
		vgt_proc.guard_known = True;
		for (UInt i = 0; i < VG_N_THREADS; i++)
			if (threads[i].live)
				find_guard(i, &threads[i]);
		return MP_VGREQ_ACK;
	case MP_VGREQ_IGNORE_THREAD: {
		/* the runtime's writer thread: nothing of it is the program's */
		struct vgt_thread *t = &threads[tid];
		vgt_thread_discard(t);
		t->guard = &vgt_one;
		return MP_VGREQ_ACK;
	}
	default:
		return 0;
	}
}

static Bool client_request(ThreadId tid, UWord *arg, UWord *ret)
{
	if (!MP_VGREQ_IS_OURS(arg[0]))
		return False;
	/* (the logged accesses came before, in the state the request changes) */
	vgt_raw_drain();
	*ret = our_request(tid, arg);
	vgt_raw_lim = NULL; /* (a guard may have changed) */
	return True;
}

/* --memprism-ring=PATH: the launcher's ring (common/mp_vgring.h) */
static const HChar *clo_ring;

static Bool process_option(const HChar *arg)
{
	if VG_STR_CLO (arg, "--memprism-ring", clo_ring) {
	} else
		return False;
	return True;
}

static void print_usage(void)
{
	VG_(printf)("    --memprism-ring=PATH    hand chunks to memprism record's ring at PATH\n");
}

static void print_debug_usage(void)
{
}

static void post_clo_init(void)
{
	if (clo_ring && *clo_ring && !vgt_ring_attach(clo_ring))
		VG_(umsg)("memprism: cannot map the launcher's ring %s; the tool writes the data file itself\n",
			  clo_ring);
	threads = VG_(calloc)("memprism.threads", VG_N_THREADS, sizeof(*threads));
	vgt_proc.pending_tail = &vgt_proc.pending;
	vgt_crc_init();
}

static void fini(Int exitcode)
{
	(void)exitcode;
	flush_all(); /* (pending chunks of a process never described stay out) */
	if (vgt_proc.fd >= 0)
		VG_(close)(vgt_proc.fd);
}

static void pre_clo_init(void)
{
	VG_(details_name)("memprism");
	VG_(details_version)(NULL);
	VG_(details_description)("memory access streams for memprism record --source valgrind");
	VG_(details_copyright_author)("Copyright (C) memprism's authors; GPL-2.0-or-later.");
	VG_(details_bug_reports_to)("memprism's issue tracker");
	VG_(details_avg_translation_sizeB)(400);
	VG_(basic_tool_funcs)(post_clo_init, vgt_instrument, fini);
	VG_(needs_client_requests)(client_request);
	VG_(needs_command_line_options)(process_option, print_usage, print_debug_usage);
	VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);
	VG_(track_start_client_code)(start_client_code);
	VG_(track_pre_thread_ll_exit)(thread_exit);
	VG_(track_die_mem_munmap)(die_munmap);
	VG_(atfork)(NULL, NULL, atfork_child);
}

VG_DETERMINE_INTERFACE_VERSION(pre_clo_init)
