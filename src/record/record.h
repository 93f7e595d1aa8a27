/* SPDX-License-Identifier: MIT */
/*
 * Recording: launching a program under memprism's runtime, and the
 * `memprism cc` compiler driver. Library code: returns errors, prints nothing.
 */
#ifndef MP_RECORD_H
#define MP_RECORD_H

#include <stddef.h>

#include "record/perf_src.h"
#include "record/probe.h"

/* Where memprism's pieces are: the directory of the running memprism binary
 * decides (build tree and install tree share one layout). */
struct mp_paths {
	char runtime[4096]; /* .../lib/memprism/libmemprism-rt.so */
	char libdir[4096]; /* its directory */
	char include[4096]; /* directory holding memprism.h */
	char vgtool[4096]; /* .../lib/memprism/valgrind: memprism's Valgrind tool (VALGRIND_LIB) */
};
/* 0, or -MP_ERR_NO_RUNTIME when the runtime library is missing. */
int mp_paths_find(struct mp_paths *out);

/* Resolves a program name like execvp would; 0 and out filled, or -ENOENT /
 * -EACCES. */
int mp_find_program(const char *name, char *out, size_t len);

/* Why an exec would run in secure-execution mode for the calling user, where
 * the runtime is not preloaded (ld.so drops LD_PRELOAD paths) and, when
 * linked in, ignores MEMPRISM_* (secure_getenv): nothing is recorded. */
enum mp_secure_exec {
	MP_SECURE_NONE,
	MP_SECURE_SETUID, /* set-user-ID, owned by another user */
	MP_SECURE_SETGID, /* set-group-ID, of a group not the caller's real one */
	MP_SECURE_CAPS, /* file capabilities (security.capability), caller not root */
};

struct mp_program_info {
	/* 1 if the ELF file imports memprism's access callbacks (built by
	 * memprism cc), 2 if its inline instrumentation is of another memprism
	 * version's ABI (it will not load: rebuild), 0 if not instrumented */
	int instrumented;
	int is_static; /* no PT_INTERP: no dynamic loader reads LD_PRELOAD */
	/* an ELF file for another machine or word size than memprism's
	 * runtime (a 32-bit x86 program on x86-64): its dynamic loader cannot
	 * load the runtime; what it is, for a message ("a 32-bit x86 (i386)
	 * program"), else "" */
	char foreign[64];
	enum mp_secure_exec secure;
	unsigned uid, gid; /* the file's owner and group */
};

/* What the launcher can tell of a program before running it: 0 and info
 * filled, or a negative error (-errno, -MP_ERR_FORMAT: not an ELF file, a
 * script say; info is zeroed). */
int mp_program_inspect(const char *path, struct mp_program_info *info);

struct mp_record_opts {
	/* data file: created new (O_EXCL, never through a symlink); an
	 * existing regular file is renamed to .old first, and anything else at
	 * the path or at its .old (directory, device, FIFO, socket, symlink)
	 * makes mp_record_run fail with -MP_ERR_NOT_REGULAR, moving nothing */
	const char *output;
	char *const *argv; /* program and arguments */
	int stack_depth; /* frames per allocation stack, 0 = default */
	unsigned long long burst_on, burst_off; /* sample access bursts; 0 = all */
	unsigned long long min_size; /* don't track heap blocks smaller than this; 0 = all */
	int no_pagemap; /* don't record virtual->physical translations */
	/* OUT: what the pagemap scanner did (record/pagemap.h) */
	int pagemap_err; /* 0, -EPERM (frames hidden: not root), other -errno */
	unsigned long long pagemap_pages;
	unsigned pagemap_scans;
	enum mp_source source; /* inst (default), pmu or faults */
	const struct mp_probe *probe; /* pmu: what the machine has (mp_probe_run) */
	struct mp_pmu_opts pmu; /* pmu: period, jitter, ldlat, callchains */
	int children; /* pmu/faults: samples of child processes too (default: the program's own) */
	size_t ring_pages; /* pmu/faults: data pages per CPU ring (power of two), 0 = 128 */
	struct mp_perf_stats *stats; /* OUT (optional): pmu/faults sample counts, inst's CPU-time samples */
	/* inst: where the program's user-mode CPU time goes, sampled with
	 * cpu-clock every MP_CPU_PERIOD_NS of a thread's time (samples of
	 * child processes too: the runtime records them) unless no_cpu_time;
	 * events perf refuses leave the run without them, cpu_time_err
	 * (OUT) saying why: -errno of perf_event_open or mmap */
	int no_cpu_time;
	int cpu_time_err;
	const char *numa; /* simulated NUMA topology "NODESxCPUS" (record --numa), NULL: none */
	/* this process's rank in a parallel job (rank.h) and the launcher's
	 * variable it came from, written into the header's meta text; none
	 * when rank_var is NULL. rank_size 0: unknown */
	int rank, rank_size;
	const char *rank_var;
	const char *rank_job; /* the job the rank belongs to (rank.h), NULL or "": none */
	/* OUT: errno of the first failed append to the data file, by the
	 * runtime or the launcher (the header's MP_FILE_WRITE_FAILED): the
	 * recording stopped there. 0 none */
	int write_errno;
	int forwarded_signal; /* OUT: the last SIGTERM/SIGHUP passed on to the program, 0 none */
	/* OUT, --source valgrind: the data file's size before and after the
	 * launcher compressed its raw chunks (compact.h), 0 if it did not,
	 * and then why not (-errno, 0: not a valgrind run; -EBUSY: the wait
	 * was stopped while processes of the program still wrote to it) */
	uint64_t raw_bytes, stored_bytes;
	int compact_err;
	int ring_err; /* --source valgrind: the tool's chunks from its ring could not be written (-errno) */
	/* OUT: chunks appended for processes killed before they wrote them
	 * (live.h), and the -errno of a failed append (0: none) */
	uint64_t live_chunks;
	int live_err;
	/*
	 * Processes the program started and left running (a daemon, a
	 * background child) are reparented to the launcher, a child
	 * subreaper, which waits for them as for the program: their chunks
	 * are in the file when mp_record_run returns. on_linger (optional) is
	 * called once when the program has ended and they still run, with
	 * the program's wait status, how many the launcher adopted and the
	 * pids of the first of them (at most 8). Meanwhile SIGTERM and SIGHUP
	 * go on to them, and SIGINT (^C) stops the wait.
	 */
	void (*on_linger)(void *arg, int status, unsigned n, const int *pids);
	void *linger_arg;
	/* Called once the data file is made, before the program runs
	 * (optional). */
	void (*on_start)(void *arg);
	void *start_arg;
	/* OUT: 1 if ^C stopped the wait while processes of the program still
	 * ran (they go on appending to the file); how many (0: the kernel
	 * does not list a process's children), and the first pids */
	int stopped_waiting;
	unsigned left_running;
	int left_pids[8];
	/* OUT, with -MP_ERR_NOT_REGULAR: the path that holds something else
	 * (output or its .old) and its lstat st_mode */
	char conflict_path[4096];
	unsigned conflict_mode;
};

/* The inst source's CPU-time sampling period: 4 ms of a thread's CPU
 * time, 250 samples a CPU second. A sample is a timer interrupt, about
 * 15 us in a VM (its exits): 1.5% of the time at 1 ms, 0.4% at 4 ms
 * (bench/README.md, "CPU-time samples"); a second's run still gets its
 * shares within a few percent. */
#define MP_CPU_PERIOD_NS 4000000ull

/* The host's NUMA topology as meta lines (numa_distance=, numa_mem=), and
 * numa_sim=SIM when sim is set (numa_host.c). Returns bytes written. */
size_t mp_numa_meta(char *buf, size_t cap, const char *sim);

/*
 * Creates the data file (mode 0600), runs argv with the runtime preloaded,
 * waits for it and appends the run's end. *status gets the wait status.
 * Returns 0 when the program ran (whatever its exit code), or a negative error;
 * *file_error says whether it concerned the data file (1), starting the
 * program (0) or starting the sampling source's perf events (2: nothing ran,
 * the data file was removed).
 */
int mp_record_run(struct mp_record_opts *o, const struct mp_paths *paths, int *status,
		  int *file_error);

/*
 * Builds the compiler command line for `memprism cc ARGS`: the real compiler
 * (clang; MEMPRISM_CC overrides), instrumentation flags when compiling, the
 * runtime when linking. cxx selects the C++ driver. Returns a NULL-terminated
 * malloc'd vector (caller frees the vector, not the strings), or NULL + errno.
 */
char **mp_cc_argv(const struct mp_paths *paths, int cxx, int argc, char *const *argv);
/* Which instrumentation mp_cc_argv adds: "inline" (the pass plugin, whose
 * path goes to plugin) or "sancov"; MEMPRISM_INSTRUMENT=inline|sancov
 * chooses. NULL when inline was asked for and cannot be had, or the value
 * is unknown. */
const char *mp_cc_instrumentation(const struct mp_paths *paths, int cxx, char *plugin, size_t len);
/* The same for `memprism gcc ARGS`: gcc (MEMPRISM_GCC, MEMPRISM_GXX
 * override) with its ThreadSanitizer instrumentation, whose functions the
 * runtime defines, memprism's GCC plugin where it was built (as
 * mp_gcc_instrumentation says), and the runtime in place of libtsan when
 * linking. NULL with errno EINVAL when the instrumentation asked for cannot
 * be had. */
char **mp_gcc_argv(const struct mp_paths *paths, int cxx, int argc, char *const *argv);
/* `memprism gcc`'s instrumentation: "inline" (the GCC plugin, whose path
 * goes to plugin) or "calls" (gcc's ThreadSanitizer calls into the
 * runtime); MEMPRISM_INSTRUMENT=inline|sancov chooses (sancov: the calls,
 * as for `memprism cc` the callbacks). NULL as mp_cc_instrumentation. */
const char *mp_gcc_instrumentation(const struct mp_paths *paths, int cxx, char *plugin, size_t len);

#endif
