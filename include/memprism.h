/* SPDX-License-Identifier: MIT */
/*
 * memprism.h: annotate a program for the memprism profiler.
 *
 * Regions of interest, user-named objects, allocation groups and the blocks
 * of the program's own allocators. The functions live in memprism's runtime
 * (libmemprism-rt.so), which `memprism cc` links in. They are declared weak,
 * so a program that includes this header but is built and run without
 * memprism still links and runs: the inline wrappers below then do nothing.
 */
#ifndef MEMPRISM_H
#define MEMPRISM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Begin / end a named region of interest. Regions are process-wide spans in
 * time: `memprism report --roi NAME` counts the accesses of every thread made
 * while NAME is open. Begin and end may come from different threads. */
void mp_region_begin(const char *name) __attribute__((weak));
void mp_region_end(const char *name) __attribute__((weak));

/* Name [addr, addr+len) as an object called `name` from now on. Named objects
 * take precedence over heap blocks, statics and mappings that overlap them. */
void mp_object_name(const void *addr, size_t len, const char *name) __attribute__((weak));

/* Allocations made by this thread between mp_group_begin(name) and
 * mp_group_end() are reported as one synthetic object called `name` (for
 * programs made of many tiny allocations). Groups do not nest. */
void mp_group_begin(const char *name) __attribute__((weak));
void mp_group_end(void) __attribute__((weak));

/* The blocks of the program's own allocator (a pool, arena, slab or free
 * list carving small objects out of memory it holds), as Valgrind's
 * MALLOCLIKE_BLOCK and FREELIKE_BLOCK: call memprism_malloclike(addr, size)
 * where the allocator hands [addr, addr+size) out, and
 * memprism_freelike(addr) where it takes that block back, before it may
 * hand the memory out again. In between, the block is an object of its own,
 * sited like a heap block at the first frame of its allocation stack that
 * is not an allocation wrapper (the allocator itself usually is one: see
 * docs/attribution.md), and takes precedence over the heap block, static or
 * mapping it was carved from (the pool keeps the rest). A block whose
 * memory goes (the pool is freed or unmapped) ends with it. Blocks do not
 * overlap: a new one over part of a live one takes that part. */
void mp_malloclike(const void *addr, size_t size) __attribute__((weak));
void mp_freelike(const void *addr) __attribute__((weak));

static inline void memprism_region_begin(const char *name)
{
	if (mp_region_begin)
		mp_region_begin(name);
}
static inline void memprism_region_end(const char *name)
{
	if (mp_region_end)
		mp_region_end(name);
}
static inline void memprism_object_name(const void *addr, size_t len, const char *name)
{
	if (mp_object_name)
		mp_object_name(addr, len, name);
}
static inline void memprism_group_begin(const char *name)
{
	if (mp_group_begin)
		mp_group_begin(name);
}
static inline void memprism_group_end(void)
{
	if (mp_group_end)
		mp_group_end();
}
/* (always inlined: the runtime takes the allocation stack from its caller,
 * which must be the allocator, at any optimization level) */
static inline __attribute__((always_inline)) void memprism_malloclike(const void *addr, size_t size)
{
	if (mp_malloclike)
		mp_malloclike(addr, size);
}
static inline __attribute__((always_inline)) void memprism_freelike(const void *addr)
{
	if (mp_freelike)
		mp_freelike(addr);
}

#ifdef __cplusplus
}
#endif
#endif
