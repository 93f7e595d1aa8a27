/* SPDX-License-Identifier: MIT */
/*
 * sym: turn addresses of a recorded process back into names.
 *
 * Code addresses become (inlined) function / file:line frames through
 * elfutils libdwfl; ELF files yield their static data objects, TLS variables
 * and sections through libelf so that the analysis can attribute accesses to
 * `static int table[1000]` rather than to a raw address.  This runs in the
 * analysis process only, never inside the profiled program.
 *
 * A sym_ctx is not thread-safe: use one per thread, or lock around it.
 * (sym_ctx_load_async works on a thread of its own, which every other call
 * on the ctx waits for.) The ELF files the ctxs of a process map are read
 * once and shared by them, under locks of their own: distinct ctxs may be
 * used on distinct threads.
 */
#ifndef MEMPRISM_SYM_H
#define MEMPRISM_SYM_H

#include <stdint.h>
#include <stddef.h>

struct sym_ctx; /* opaque: one per address space (process image) */

/* Create an empty context.  Returns NULL and sets errno (ENOMEM) on failure.
 * The caller owns the result and releases it with sym_ctx_free(). */
struct sym_ctx *sym_ctx_new(void);

/* Release ctx and every string handed out by sym_ctx_lookup().  Accepts NULL. */
void sym_ctx_free(struct sym_ctx *ctx);

/*
 * Register an ELF image mapped in this address space: `path` on disk, `bias`
 * is the load bias (dl_iterate_phdr's dlpi_addr: 0 for non-PIE executables),
 * [lo,hi) the address range its PT_LOAD segments cover in memory (if hi <= lo
 * the range is taken from the file's program headers).
 *
 * Returns 0 or a negative errno; the ctx stays usable after any failure:
 *   -ENOENT (or another open(2) errno) if the file cannot be opened,
 *   -ENOEXEC if it is not a loadable ELF file,
 *   -EEXIST if [lo,hi) overlaps a different registered module
 *           (registering the same path and range twice returns 0),
 *   -EINVAL if ctx or path is NULL, -ENOMEM.
 * When the file cannot be opened or parsed but hi > lo, the range is still
 * remembered, so lookups there return one frame naming the module with
 * function NULL: "in libfoo.so" beats "unknown" for a deleted library.
 */
int sym_ctx_add_module(struct sym_ctx *ctx, const char *path, uint64_t bias,
		       uint64_t lo, uint64_t hi);

/*
 * Load the debug information (DWARF, after decompressing it, and the symbol
 * table) of the modules registered so far on a thread of its own, while the
 * caller does other work: a first lookup in libc with its compressed
 * separate debug info costs ~50 ms otherwise. Every other function of ctx
 * (sym_ctx_add_module, sym_ctx_lookup, sym_ctx_free) waits for that thread
 * first, so the caller never shares ctx with it. Does nothing if the thread
 * cannot be started (lookups then load what they need, as without it).
 */
void sym_ctx_load_async(struct sym_ctx *ctx);

struct sym_frame {
	const char *function; /* demangled if C++ and possible; NULL if unknown */
	const char *file;     /* source file (full path as in DWARF), NULL if unknown */
	int line;             /* 0 if unknown */
	const char *module;   /* basename of the module path, NULL if address not in any module */
	const char *module_path; /* the module's path as registered, NULL with module */
	uint64_t bias;        /* the module's load bias: addr - bias is the file's address */
	int inlined;          /* 1 if this frame is an inlined call inside the next frame */
};

/*
 * Resolve a code address.  `addr` is an address inside an instruction
 * (callers pass a return address minus 1).  Fills up to `max` frames
 * (OUT: out[0..ret)), innermost first: inlined frames (innermost inline
 * first, each with the call-site file:line of the next) then the real
 * function; when `max` is too small the outermost frames are dropped.
 * Returns the number of frames written (>= 1 whenever addr is inside a
 * registered module and max >= 1, with function NULL if no symbol), 0 if it
 * is in no module, -EINVAL if ctx is NULL or out is NULL with max > 0.
 * Strings live until sym_ctx_free.  Results are cached per address, so
 * repeated lookups cost one hash probe.
 */
int sym_ctx_lookup(struct sym_ctx *ctx, uint64_t addr, struct sym_frame *out, int max);

enum sym_data_kind { SYM_DATA_OBJECT = 1, SYM_DATA_TLS = 2, SYM_DATA_SECTION = 3 };

struct sym_data {
	const char *name;    /* symbol name (demangled) or section name */
	uint64_t addr;       /* run-time address (bias applied); for TLS: offset in the module's TLS block */
	uint64_t size;
	enum sym_data_kind kind;
	const char *section; /* ".data", ".bss", ".rodata", ".tdata", ... */
};

/*
 * Call cb for every data object of the ELF file at `path` loaded with `bias`:
 * every SHF_ALLOC section first (kind SECTION, .text included so code ranges
 * have a name), in section-header order; then STT_OBJECT symbols with
 * size > 0 and STT_TLS symbols from .symtab (or .dynsym if stripped), sorted
 * by kind then address.  Aliases (same kind, addr and size) are reported
 * once, preferring GLOBAL over WEAK over LOCAL, then symbol-table order.
 * Strings are valid only during the callback.  cb returning non-zero stops
 * the walk and that value is returned.  Returns 0 or a negative errno
 * (open(2) errno, -ENOEXEC if not ELF, -EIO on a corrupt file, -ENOMEM,
 * -EINVAL if path or cb is NULL).
 */
typedef int (*sym_data_cb)(void *arg, const struct sym_data *d);
int sym_elf_data_objects(const char *path, uint64_t bias, sym_data_cb cb, void *arg);

/*
 * The cache of plain copies of compressed debug files (sym_cache.c): its
 * directory into dir, and the copies it holds. 0, or -1 when the cache is
 * off (MEMPRISM_CACHE_DIR set empty, or no home directory). A directory not
 * made yet holds 0 files.
 */
int sym_cache_dir(char *dir, size_t len);
int sym_cache_usage(char *dir, size_t len, unsigned long *files, uint64_t *bytes);
/* Its bound in bytes: MEMPRISM_CACHE_MAX MiB, else 1024 MiB (*bad set when
 * MEMPRISM_CACHE_MAX is set but not a number of MiB). */
uint64_t sym_cache_max(int *bad);

/* Whether an ELF file was built by `memprism cc` (or `memprism gcc`): the
 * marks of common/mp_abi.h among its dynamic symbols. 1 yes, 2 by another
 * version's inline ABI (its records would not fit this runtime's file), 0
 * no; sym_module_instrumented: -errno when path cannot be read as ELF. */
struct Elf;
int sym_elf_abi(struct Elf *e);
int sym_module_instrumented(const char *path);
/* 1 if the ELF file at path needs the library lib (a DT_NEEDED name), 0
 * if not, -errno when it cannot be read. */
int sym_module_needs(const char *path, const char *lib);

/* Where the DWARF of the ELF file at path is: 1, in the file itself; 2, in
 * a separate debug file under /usr/lib/debug/.build-id (a -dbg package's),
 * whose path goes to where; 0 neither (debuginfod may still have it); -1
 * the file cannot be opened. */
int sym_debug_info_of(const char *path, char *where, size_t len);

#endif /* MEMPRISM_SYM_H */
