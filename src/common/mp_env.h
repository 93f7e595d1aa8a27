/* SPDX-License-Identifier: MIT */
/*
 * Every MEMPRISM_* environment variable, by name: the contract between the
 * launcher and the runtime it preloads into the program, and the knobs a
 * user (or a test) sets for `memprism cc`, the symbol cache and the
 * runtime. docs/environment.md is the same list as a table: who sets each
 * one, who reads it, what its values mean. A variable is added here and
 * there, and nowhere spelled out as a literal, so the two sides cannot
 * disagree on a name.
 *
 * The runtime reads its variables with secure_getenv: in a set-user-ID,
 * set-group-ID or file-capability program they read as unset, and the
 * runtime stays passive (README.md, "What the runtime cannot enter").
 * Macros rather than constants: the header is shared by C, by the runtime's
 * bitcode and by the C++ pass plugin, and names are pasted into literals
 * (MP_ENV_OUT "=").
 */
#ifndef MP_ENV_H
#define MP_ENV_H

/* --- launcher (src/record/launch.c) -> runtime (src/rt) --------------- */

/* The data file, an absolute path: set, the runtime records into it (every
 * process and exec'd image of the program appends its chunks); unset or
 * empty, the runtime is passive and instrumented code runs its
 * uninstrumented copies. */
#define MP_ENV_OUT "MEMPRISM_OUT"
/* Frames kept per allocation stack, 1-64 (record --stack-depth; default 16). */
#define MP_ENV_STACK_DEPTH "MEMPRISM_STACK_DEPTH"
/* Heap blocks smaller than this many bytes are not tracked (record
 * --min-size); unset: every block. */
#define MP_ENV_MIN_SIZE "MEMPRISM_MIN_SIZE"
/* "ON,OFF": each thread records ON accesses, skips OFF (record
 * --sample-bursts); unset: every access. */
#define MP_ENV_SAMPLE_BURSTS "MEMPRISM_SAMPLE_BURSTS"
/* "NODESxCPUS": a simulated NUMA machine (record --numa): the program's
 * affinity and memory-policy calls are mapped onto the host and succeed. */
#define MP_ENV_NUMA "MEMPRISM_NUMA"
/* "1": the runtime reads the process's pagemap once more at exit (the
 * launcher reads it while the program runs); unset with record
 * --no-pagemap. */
#define MP_ENV_PAGEMAP "MEMPRISM_PAGEMAP"
/* "1": every event takes a fresh clock reading (record --source faults|pmu:
 * samples are placed among events by time). */
#define MP_ENV_EXACT_TIMES "MEMPRISM_EXACT_TIMES"
/* "valgrind": the program runs under memprism's Valgrind tool (record
 * --source valgrind), which sees the accesses; the runtime records the rest. */
#define MP_ENV_SOURCE "MEMPRISM_SOURCE"
/* "/proc/PID/fd/N": the launcher's shared memory the threads' buffers are
 * claimed from (common/mp_live.h), so that a killed process's unwritten
 * records still reach the file; unset, the buffers are private. */
#define MP_ENV_LIVE "MEMPRISM_LIVE"

/* --- user -> runtime ---------------------------------------------------- */

/* zstd level of the trace's chunks (default 1): for measuring the
 * compressor's cost, not for everyday use. */
#define MP_ENV_ZSTD_LEVEL "MEMPRISM_ZSTD_LEVEL"

/* --source valgrind: slots of the ring the tool hands its chunks over in
 * (default MP_VGRING_SLOTS, 1 MiB each); 0: no ring, the tool appends
 * them to the file itself. */
#define MP_ENV_VG_RING "MEMPRISM_VG_RING"

/* --- user -> memprism (CLI, cc driver, pass plugin, symbols) ------------ */

/* The runtime library record preloads and cc links (default: the one
 * installed beside the memprism binary). */
#define MP_ENV_RUNTIME "MEMPRISM_RUNTIME"
/* `memprism cc`'s instrumentation: "inline" (the pass plugin) or "sancov"
 * (sanitizer-coverage callbacks); default inline where it was built. */
#define MP_ENV_INSTRUMENT "MEMPRISM_INSTRUMENT"
/* The C and C++ compilers `memprism cc` and `memprism c++` run (default
 * clang-16, then other clangs); another compiler implies sancov. */
#define MP_ENV_CC "MEMPRISM_CC"
#define MP_ENV_CXX "MEMPRISM_CXX"
/* The compilers `memprism gcc` and `memprism g++` run (default gcc, g++). */
#define MP_ENV_GCC "MEMPRISM_GCC"
#define MP_ENV_GXX "MEMPRISM_GXX"
/* The bitcode of the inline access path the pass plugin links into every
 * module (default: rt_inline.bc beside the plugin). */
#define MP_ENV_INLINE_BC "MEMPRISM_INLINE_BC"
/* At most this many access sites of one module get the inline path, the
 * others call the runtime (default 5000; 0: every site a call). */
#define MP_ENV_INLINE_SITES "MEMPRISM_INLINE_SITES"
/* The cache of inflated debug files (default $XDG_CACHE_HOME/memprism or
 * ~/.cache/memprism); set empty, no cache. */
#define MP_ENV_CACHE_DIR "MEMPRISM_CACHE_DIR"
/* That cache's bound in MiB (default 1024). */
#define MP_ENV_CACHE_MAX "MEMPRISM_CACHE_MAX"

#endif
