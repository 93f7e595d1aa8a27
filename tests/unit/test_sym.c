// SPDX-License-Identifier: MIT
/*
 * Unit test for src/sym: the test symbolizes itself. It registers its own
 * loaded modules (found with dl_iterate_phdr, so the executable is a PIE with
 * a non-zero bias) and checks function, file, line and inlined frames of its
 * own code, and the static data objects, TLS variables and sections of its
 * own executable. Must be built with -O2 -g (inlining and line info).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "sym/sym.h"

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Fails the current test function with the text of the check. */
#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__,   \
				__LINE__, #cond);                                \
			return 1;                                                \
		}                                                                \
	} while (0)

static int streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static int ends_with(const char *s, const char *suffix)
{
	const size_t n = s ? strlen(s) : 0, m = strlen(suffix);

	return s && n >= m && strcmp(s + n - m, suffix) == 0;
}

/* ---- code under symbolization --------------------------------------------
 * Each function that a line is asserted for is written on one line, so every
 * instruction of it maps to that line whatever the scheduler does. */

volatile int sink[8];

/* noclone keeps gcc from specializing the functions whose addresses we look
 * up (clang has no such attribute and does not need it). */
#ifdef __clang__
#define NOCLONE
#else
#define NOCLONE __attribute__((noclone))
#endif

static const int known_function_line = __LINE__ + 1;
NOCLONE __attribute__((noinline, used)) int known_function(int x) { int r = x; for (int i = 0; i < x; i++) r = r * 31 + sink[i & 7]; sink[0] = r; return r ^ sink[1]; }

static volatile uint64_t captured_ra;

/* Records its return address: a point inside its caller's inlined body. */
NOCLONE __attribute__((noinline)) void capture_ra(void)
{
	captured_ra = (uint64_t)(uintptr_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

static const int inlined_call_line = __LINE__ + 4;
static inline __attribute__((always_inline)) int inlined_helper(int x)
{
	sink[2] = x;
	capture_ra();
	return sink[3] + x;
}

static const int outer_call_line = __LINE__ + 4;
NOCLONE __attribute__((noinline)) int outer_function(int x)
{
	sink[4] = x;
	int r = inlined_helper(x);
	return r * 2 + sink[5];
}

/* ---- data under extraction ---------------------------------------------- */

/* clang's ASan folds a global's redzone into its symbol size; keep this one
 * uninstrumented so the size check means the same under every build. */
#if defined(__clang__) && defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_ASAN_GLOBAL __attribute__((no_sanitize("address")))
#endif
#endif
#ifndef NO_ASAN_GLOBAL
#define NO_ASAN_GLOBAL
#endif

NO_ASAN_GLOBAL __attribute__((used)) static int known_table[1000];
__thread int known_tls[16] = { 1 };
/* Two names for one object: the GLOBAL must win over the LOCAL. */
__attribute__((used)) static int local_target[8] = { 1 };
extern int global_alias[8] __attribute__((alias("local_target")));
/* A C object with an Itanium-mangled assembler name, to see demangling. */
int mangled_var[3] __asm__("_ZN2ns10mangledVarE") = { 1, 2, 3 };

/* ---- module registration ------------------------------------------------ */

struct reg {
	struct sym_ctx *ctx;
	char exe[4096];
	uint64_t exe_bias, exe_lo, exe_hi;
	void *exe_tls;
	int main_rc;
	int nmods;
};

static int register_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct reg *r = arg;
	const int is_main = r->nmods++ == 0; /* glibc lists the executable first */
	const char *path = is_main ? r->exe : info->dlpi_name;
	uint64_t lo = UINT64_MAX, hi = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (!path || !path[0] || hi <= lo)
		return 0;
	/* The vDSO has no file: its failure must not stop the others. */
	const int rc = sym_ctx_add_module(r->ctx, path, info->dlpi_addr, lo, hi);
	if (is_main) {
		r->main_rc = rc;
		r->exe_bias = info->dlpi_addr;
		r->exe_lo = lo;
		r->exe_hi = hi;
		r->exe_tls = info->dlpi_tls_data;
	}
	return 0;
}

static int setup(struct reg *r)
{
	const ssize_t n = readlink("/proc/self/exe", r->exe, sizeof(r->exe) - 1);

	CHECK(n > 0);
	r->exe[n] = '\0';
	r->ctx = sym_ctx_new();
	CHECK(r->ctx != NULL);
	dl_iterate_phdr(register_module, r);
	CHECK(r->main_rc == 0);
	CHECK(r->nmods > 1);
	return 0;
}

/* ---- tests ---------------------------------------------------------------- */

static int test_known_function(struct reg *r)
{
	struct sym_frame f[8];
	const uint64_t addr = (uint64_t)(uintptr_t)&known_function + 4;
	const char *exe_base = strrchr(r->exe, '/') + 1;

	/* A PIE proves the bias is applied (dwfl_report_elf's base). */
	fprintf(stderr, "test_sym: exe %s bias %#llx\n", r->exe, (unsigned long long)r->exe_bias);
	const int n = sym_ctx_lookup(r->ctx, addr, f, 8);
	CHECK(n == 1);
	CHECK(streq(f[0].function, "known_function"));
	CHECK(ends_with(f[0].file, "test_sym.c"));
	CHECK(f[0].file[0] == '/'); /* full path, as DWARF composes it */
	CHECK(f[0].line == known_function_line);
	CHECK(streq(f[0].module, exe_base));
	CHECK(f[0].inlined == 0);

	/* Cached: the same strings come back, and max truncates. */
	struct sym_frame g[1];
	CHECK(sym_ctx_lookup(r->ctx, addr, g, 1) == 1);
	CHECK(g[0].function == f[0].function && g[0].file == f[0].file);
	CHECK(sym_ctx_lookup(r->ctx, addr, NULL, 0) == 0);
	CHECK(sym_ctx_lookup(NULL, addr, f, 8) == -EINVAL);
	return 0;
}

static int test_inlined(struct reg *r)
{
	struct sym_frame f[8];

	CHECK(outer_function(3) != 12345); /* sets captured_ra */
	CHECK(captured_ra != 0);
	const int n = sym_ctx_lookup(r->ctx, captured_ra - 1, f, 8);
	CHECK(n == 2);
	CHECK(streq(f[0].function, "inlined_helper"));
	CHECK(f[0].inlined == 1);
	CHECK(ends_with(f[0].file, "test_sym.c"));
	CHECK(f[0].line == inlined_call_line);
	CHECK(streq(f[1].function, "outer_function"));
	CHECK(f[1].inlined == 0);
	CHECK(ends_with(f[1].file, "test_sym.c"));
	CHECK(f[1].line == outer_call_line);

	/* With room for one frame only the innermost is returned. */
	CHECK(sym_ctx_lookup(r->ctx, captured_ra - 1, f, 1) == 1);
	CHECK(streq(f[0].function, "inlined_helper"));
	return 0;
}

static int test_shared_library(struct reg *r)
{
	struct sym_frame f[4];
	/* getpid is exported by libc (as a weak alias of __getpid). */
	const int n = sym_ctx_lookup(r->ctx, (uint64_t)(uintptr_t)&getpid + 1, f, 4);

	CHECK(n >= 1);
	CHECK(f[0].module != NULL && strncmp(f[0].module, "libc.so", 7) == 0);
	CHECK(f[0].function != NULL && strstr(f[0].function, "getpid") != NULL);
	return 0;
}

static int test_unknown_and_errors(struct reg *r)
{
	struct sym_frame f[4];
	char tmp[] = "/tmp/test_sym_notelf_XXXXXX";

	CHECK(sym_ctx_lookup(r->ctx, 0x10, f, 4) == 0);
	CHECK(sym_ctx_lookup(r->ctx, 0xffffffffff000000ULL, f, 4) == 0);

	/* Gone file: -ENOENT, ctx usable, the range still names the module, and
	 * the earlier "in no module" answer for it is not served from cache. */
	CHECK(sym_ctx_lookup(r->ctx, 0x1800, f, 4) == 0);
	CHECK(sym_ctx_add_module(r->ctx, "/nonexistent/libnope.so", 0x1000, 0x1000, 0x2000) == -ENOENT);
	CHECK(sym_ctx_lookup(r->ctx, 0x1800, f, 4) == 1);
	CHECK(streq(f[0].module, "libnope.so"));
	CHECK(f[0].function == NULL && f[0].file == NULL && f[0].line == 0);
	CHECK(sym_ctx_add_module(r->ctx, "/nonexistent/libnope.so", 0x1000, 0x1000, 0x2000) == -ENOENT);

	/* Non-ELF files. */
	const int fd = mkstemp(tmp);
	CHECK(fd >= 0);
	CHECK(write(fd, "hello, not an ELF file\n", 23) == 23);
	close(fd);
	const int rc_tmp = sym_ctx_add_module(r->ctx, tmp, 0x3000, 0x3000, 0x4000);
	const int rc_data = sym_elf_data_objects(tmp, 0, NULL, NULL);
	unlink(tmp);
	CHECK(rc_tmp == -ENOEXEC);
	CHECK(rc_data == -EINVAL); /* NULL callback */
	if (access("/etc/hostname", R_OK) == 0)
		CHECK(sym_ctx_add_module(r->ctx, "/etc/hostname", 0, 0x5000, 0x6000) < 0);
	CHECK(sym_ctx_add_module(r->ctx, "/dev/null", 0, 0x7000, 0x8000) < 0);

	/* Overlap with the executable under another name, and idempotence. */
	CHECK(sym_ctx_add_module(r->ctx, "/bin/sh", r->exe_bias, r->exe_lo, r->exe_hi) == -EEXIST);
	CHECK(sym_ctx_add_module(r->ctx, r->exe, r->exe_bias, r->exe_lo, r->exe_hi) == 0);
	CHECK(sym_ctx_add_module(NULL, r->exe, 0, 0, 0) == -EINVAL);

	/* The ctx still answers after all of that. */
	CHECK(sym_ctx_lookup(r->ctx, (uint64_t)(uintptr_t)&known_function + 4, f, 4) == 1);
	CHECK(streq(f[0].function, "known_function"));
	return 0;
}

/* A second ctx with the executable only, range taken from the file. */
static int test_range_from_file(struct reg *r)
{
	struct sym_frame f[4];
	struct sym_ctx *ctx = sym_ctx_new();

	CHECK(ctx != NULL);
	CHECK(sym_ctx_add_module(ctx, r->exe, r->exe_bias, 0, 0) == 0);
	const int n = sym_ctx_lookup(ctx, (uint64_t)(uintptr_t)&known_function + 4, f, 4);
	const int ok = n == 1 && streq(f[0].function, "known_function");
	sym_ctx_free(ctx);
	sym_ctx_free(NULL);
	CHECK(ok);
	return 0;
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* 200 address spaces mapping the executable, each at a load bias of its
 * own (a shell's children, ASLR): each names the function at its own
 * address, and the file is read once, with one descriptor, whatever their
 * number (a Dwfl each held a descriptor and a megabyte each). */
static int test_shared_files(struct reg *r)
{
	enum { N = 200 };
	struct sym_ctx *ctx[N];
	struct sym_frame f[4];
	const int fds = open_fds();
	int ok = fds > 0;

	for (int i = 0; i < N; i++) {
		const uint64_t shift = (uint64_t)i << 32;

		ctx[i] = sym_ctx_new();
		ok &= ctx[i] && sym_ctx_add_module(ctx[i], r->exe, r->exe_bias + shift, r->exe_lo + shift,
						  r->exe_hi + shift) == 0;
		ok &= ok && sym_ctx_lookup(ctx[i], (uint64_t)(uintptr_t)&known_function + 4 + shift, f, 4) == 1 &&
		      streq(f[0].function, "known_function") && f[0].bias == r->exe_bias + shift;
	}
	const int more = open_fds() - fds;
	for (int i = 0; i < N; i++)
		sym_ctx_free(ctx[i]);
	CHECK(ok);
	CHECK(more <= 1);
	return 0;
}

struct data_seen {
	const struct reg *r;
	int table, tls, global_alias, local_target, mangled, text, bss, count;
	struct sym_data table_d, tls_d;
	char mangled_name[64];
};

static int collect(void *arg, const struct sym_data *d)
{
	struct data_seen *s = arg;
	const uint64_t fn = (uint64_t)(uintptr_t)&known_function;

	s->count++;
	if (d->kind == SYM_DATA_OBJECT && streq(d->name, "known_table")) {
		s->table++;
		s->table_d = *d;
		s->table_d.name = s->table_d.section = NULL; /* not valid after cb */
		s->bss = streq(d->section, ".bss") || streq(d->section, ".data");
	}
	if (d->kind == SYM_DATA_TLS && streq(d->name, "known_tls")) {
		s->tls++;
		s->tls_d = *d;
		s->tls_d.name = NULL;
		s->tls_d.section = streq(d->section, ".tdata") ? "ok" : NULL;
	}
	if (d->kind == SYM_DATA_OBJECT && streq(d->name, "global_alias"))
		s->global_alias++;
	if (d->kind == SYM_DATA_OBJECT && streq(d->name, "local_target"))
		s->local_target++;
	if (d->kind == SYM_DATA_OBJECT && d->addr == (uint64_t)(uintptr_t)mangled_var) {
		s->mangled++;
		snprintf(s->mangled_name, sizeof(s->mangled_name), "%s", d->name);
	}
	if (d->kind == SYM_DATA_SECTION && streq(d->name, ".text") && d->addr <= fn
	    && fn < d->addr + d->size)
		s->text++;
	return 0;
}

static int stop_at_third(void *arg, const struct sym_data *d)
{
	(void)d;
	return ++*(int *)arg == 3 ? 42 : 0;
}

static int test_data_objects(struct reg *r)
{
	struct data_seen s = { .r = r };
	int calls = 0;

	known_table[1] = sink[0]; /* keep it alive */
	CHECK(sym_elf_data_objects("/proc/self/exe", r->exe_bias, collect, &s) == 0);
	CHECK(s.table == 1);
	CHECK(s.table_d.addr == (uint64_t)(uintptr_t)known_table);
	CHECK(s.table_d.size == 4000);
	CHECK(s.bss);
	CHECK(s.tls == 1);
	CHECK(s.tls_d.size == sizeof(known_tls));
	CHECK(s.tls_d.section != NULL); /* was ".tdata" */
	/* The TLS offset is where this thread's copy sits in the module's block. */
	CHECK(r->exe_tls != NULL);
	CHECK((char *)r->exe_tls + s.tls_d.addr == (char *)known_tls);
	CHECK(s.global_alias == 1 && s.local_target == 0);
	CHECK(s.mangled == 1);
	/* Demangling is best effort: required only where libstdc++ exists. */
	void *cxx = dlopen("libstdc++.so.6", RTLD_LAZY);
	if (cxx)
		dlclose(cxx);
	CHECK(!cxx || streq(s.mangled_name, "ns::mangledVar"));
	CHECK(cxx || streq(s.mangled_name, "_ZN2ns10mangledVarE"));
	CHECK(s.text == 1);

	CHECK(sym_elf_data_objects("/proc/self/exe", r->exe_bias, stop_at_third, &calls) == 42);
	CHECK(calls == 3);
	CHECK(sym_elf_data_objects("/nonexistent/file", 0, collect, &s) == -ENOENT);
	if (access("/etc/hostname", R_OK) == 0)
		CHECK(sym_elf_data_objects("/etc/hostname", 0, collect, &s) < 0);
	CHECK(sym_elf_data_objects("/dev/null", 0, collect, &s) < 0);
	return 0;
}

/* Loading ahead on a thread gives the same answers, and the ctx stays
 * usable while it runs (every call waits for it). */
static int test_load_async(struct reg *r)
{
	struct reg a = { 0 };
	struct sym_frame f[8], g[8];

	sym_ctx_load_async(NULL);
	if (setup(&a))
		return 1;
	sym_ctx_load_async(a.ctx);
	sym_ctx_load_async(a.ctx); /* again: waits for the first */
	/* looking up while it loads */
	const uint64_t addrs[] = { (uint64_t)(uintptr_t)&known_function + 4, (uint64_t)(uintptr_t)&getpid + 1 };
	for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
		const int n = sym_ctx_lookup(a.ctx, addrs[i], f, 8);
		CHECK(n >= 1 && n == sym_ctx_lookup(r->ctx, addrs[i], g, 8));
		CHECK(streq(f[0].function, g[0].function) && streq(f[0].module, g[0].module));
		CHECK(f[0].line == g[0].line);
	}
	/* registering while it loads (the ThreadSanitizer build of this test,
	 * scripts/test.sh, reports the race on the module table if it does
	 * not wait; libdw's own state is out of its sight, uninstrumented) */
	sym_ctx_load_async(a.ctx);
	CHECK(sym_ctx_add_module(a.ctx, "/nonexistent/libnope.so", 0x1000, 0x1000, 0x2000) == -ENOENT);
	sym_ctx_load_async(a.ctx);
	sym_ctx_free(a.ctx); /* while loading: waits */
	return 0;
}

/* Each file's objects are read once and kept: a second walk at another
 * bias gives the same objects moved by the difference (TLS offsets
 * stay), and a file replaced at its path is read again. */
struct objs {
	int n;
	uint64_t sum_addr, sum_tls;
	uint64_t table_addr;
};

static int count_objs(void *arg, const struct sym_data *d)
{
	struct objs *o = arg;

	o->n++;
	if (d->kind == SYM_DATA_TLS)
		o->sum_tls += d->addr;
	else
		o->sum_addr += d->addr;
	if (d->kind == SYM_DATA_OBJECT && streq(d->name, "known_table"))
		o->table_addr = d->addr;
	return 0;
}

static int copy_file(const char *from, const char *to)
{
	char cmd[2 * PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", from, to);
	return system(cmd);
}

static int test_data_objects_kept(struct reg *r)
{
	struct objs a = { 0 }, b = { 0 }, c = { 0 }, sh = { 0 };
	const uint64_t shift = 0x10000000;
	char tmp[] = "/tmp/test_sym_objsXXXXXX", path[64];

	CHECK(sym_elf_data_objects(r->exe, r->exe_bias, count_objs, &a) == 0);
	CHECK(sym_elf_data_objects(r->exe, r->exe_bias + shift, count_objs, &b) == 0);
	CHECK(a.n > 10 && b.n == a.n);
	CHECK(a.table_addr == (uint64_t)(uintptr_t)known_table);
	CHECK(b.table_addr == a.table_addr + shift);
	CHECK(b.sum_tls == a.sum_tls);
	CHECK(mkdtemp(tmp) != NULL);
	snprintf(path, sizeof(path), "%s/f", tmp);
	CHECK(copy_file(r->exe, path) == 0);
	CHECK(sym_elf_data_objects(path, 0, count_objs, &c) == 0 && c.n == a.n);
	unlink(path);
	CHECK(copy_file("/bin/sh", path) == 0);
	CHECK(sym_elf_data_objects("/bin/sh", 0, count_objs, &sh) == 0);
	memset(&c, 0, sizeof(c));
	CHECK(sym_elf_data_objects(path, 0, count_objs, &c) == 0);
	unlink(path);
	rmdir(tmp);
	CHECK(c.n == sh.n && c.sum_addr == sh.sum_addr && c.n != a.n);
	return 0;
}

int main(void)
{
	struct reg r = { 0 };
	int failed = 0;

	known_tls[1] = sink[6];
	global_alias[1] = sink[7];
	mangled_var[1] = known_function(2);
	if (setup(&r))
		return 1;
	failed |= test_known_function(&r);
	failed |= test_inlined(&r);
	failed |= test_shared_library(&r);
	failed |= test_unknown_and_errors(&r);
	failed |= test_range_from_file(&r);
	failed |= test_shared_files(&r);
	failed |= test_data_objects(&r);
	failed |= test_data_objects_kept(&r);
	failed |= test_load_async(&r);
	sym_ctx_free(r.ctx);
	if (failed)
		fprintf(stderr, "test_sym: FAILED\n");
	return failed;
}
