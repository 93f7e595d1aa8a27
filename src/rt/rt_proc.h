/* SPDX-License-Identifier: MIT */
/* Process-wide runtime state and the buffer/writer plumbing behind it. */
#ifndef MP_RT_PROC_H
#define MP_RT_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rt_thread;

struct rt_proc {
	int fd; /* the data file, O_APPEND, at a high number (rt_out_open); -1: none */
	pid_t pid; /* getpid() when set up: a vfork child shares our memory, not our pid */
	uint64_t id; /* process instance id (new after fork and exec) */
	uint32_t flags; /* MP_PROC_* */
	int stack_depth; /* frames kept per allocation stack */
	uint64_t fork_epoch; /* epoch at the last fork (child: parent's clock) */
	/* counters for the END chunk: accesses recorded, not recorded (signal
	 * handlers past RT_SIG_DEPTH), chunks written, longjmps out of handlers */
	uint64_t accesses, dropped, chunks, handler_jumps;
	int finished; /* final flush done: nothing more is written */
	uint64_t burst_on, burst_off; /* sampling of access bursts; 0: record all */
	size_t min_size; /* heap blocks below this usable size are not recorded */
	uint64_t heap_lo, heap_hi; /* the brk heap as last reported (grows under --min-size) */
	int exact_times; /* every event reads the clock (sampled sources place samples by time) */
};
extern struct rt_proc rt_proc;

int rt_out_open(const char *path); /* the data file into rt_proc.fd: 0 or -1 */
int rt_bufs_init(void); /* compressor pool; 0 or -1 */
void rt_bufs_lock_all(void); /* fork: hold every lock across fork() */
void rt_bufs_unlock_all(void);
void rt_bufs_reinit_locks(void);
void rt_write_end_chunk(uint64_t status);
void rt_emit_modules(struct rt_thread *t);
void rt_emit_tls_blocks(struct rt_thread *t);
void rt_emit_unloads(struct rt_thread *t);
size_t rt_read_file(const char *path, char *buf, size_t cap);

#endif
