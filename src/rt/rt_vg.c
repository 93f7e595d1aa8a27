// SPDX-License-Identifier: MIT
/*
 * record --source valgrind: the program runs under memprism's Valgrind
 * tool (src/vgtool), which records every load and store of every thread
 * into streams of its own in the data file; this runtime records the
 * objects as always, and tells the tool, with a Valgrind client request,
 * what it needs to put its streams beside ours: the process's ids (anew
 * in a fork child), the data file, where the global epoch is (the tool
 * reads it at every access, as rt_encode does) and where each thread's
 * guard is (accesses made while it is set are the runtime's own work).
 * The runtime's access paths record nothing then (rt_tool_accesses): the
 * tool sees libc's real instructions, and a `memprism cc` build's would
 * count twice. docs/sources.md, "valgrind".
 *
 * The request macros of <valgrind/valgrind.h> are a few instructions that
 * do nothing outside Valgrind; without the header the source is refused.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/mp_env.h"
#include "common/mp_vgreq.h"
#include "rt/rt_int.h"
#include "rt/rt_proc.h"

#if MP_HAVE_VALGRIND_H
#include <valgrind/valgrind.h>
#endif

int rt_tool_accesses;
static const char *rt_vg_out;

#if MP_HAVE_VALGRIND_H && defined(__x86_64__)
/* The calling thread's guard minus its thread pointer: x86-64 glibc keeps
 * the thread pointer itself at %fs:0 (the TCB's self pointer), the FS base
 * the tool reads of each thread. */
static int64_t guard_tp_offset(void)
{
	uintptr_t tp;
	__asm__("mov %%fs:0, %0" : "=r"(tp));
	return (int64_t)((uintptr_t)&rt_self.guard - tp);
}
#endif

int rt_vg_init(void)
{
	const char *src = secure_getenv(MP_ENV_SOURCE);
	if (!src || strcmp(src, "valgrind") != 0)
		return 0;
#if MP_HAVE_VALGRIND_H && defined(__x86_64__)
	/* The valgrind command itself, preloaded like every process the
	 * launcher starts: it only execs the tool, which runs the program. */
	if (!RUNNING_ON_VALGRIND)
		return -1;
	rt_vg_out = secure_getenv(MP_ENV_OUT);
	rt_tool_accesses = 1;
	rt_proc.flags |= MP_PROC_INSTRUMENTED; /* (every access is seen) */
	/* at once, so that the start-up's own work in libc (this thread's
	 * guard is set) is left out like the rest of the runtime's */
	VALGRIND_DO_CLIENT_REQUEST_STMT(MP_VGREQ_GUARD, guard_tp_offset(), 0, 0, 0, 0);
	return 0;
#else
	rt_say("not recording: " MP_ENV_SOURCE "=valgrind, but this runtime was built without <valgrind/valgrind.h>",
	       NULL);
	return -1;
#endif
}

void rt_vg_process(void)
{
#if MP_HAVE_VALGRIND_H && defined(__x86_64__)
	if (!rt_tool_accesses)
		return;
	static struct mp_vg_process req;
	req = (struct mp_vg_process){
		.version = MP_VGREQ_VERSION,
		.pid = (uint32_t)getpid(),
		.proc_id = rt_proc.id,
		.epoch_addr = (uint64_t)(uintptr_t)&rt_epoch,
		.guard_tp_offset = guard_tp_offset(),
		.out_path = (uint64_t)(uintptr_t)rt_vg_out,
	};
	unsigned long r = VALGRIND_DO_CLIENT_REQUEST_EXPR(0, MP_VGREQ_PROCESS, &req, 0, 0, 0, 0);
	if (r != MP_VGREQ_ACK)
		rt_say("memprism's Valgrind tool did not answer (another tool?): objects are recorded, accesses are not",
		       NULL);
#endif
}

void rt_vg_ignore_thread(void)
{
#if MP_HAVE_VALGRIND_H && defined(__x86_64__)
	if (rt_tool_accesses)
		VALGRIND_DO_CLIENT_REQUEST_STMT(MP_VGREQ_IGNORE_THREAD, 0, 0, 0, 0, 0);
#endif
}
