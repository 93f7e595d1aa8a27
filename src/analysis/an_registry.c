// SPDX-License-Identifier: MIT
/*
 * The replay's registry: object classes (by label, or by allocation stack
 * and mapped file), interned allocation stacks, threads, processes, code
 * addresses and burst sampling's (class, thread) parts. Each is made on
 * first sight, with an index the replay and the stages after it use;
 * past the file's bounds (an_bound) new threads and code addresses share
 * one row each. Nothing here calls a later stage.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_int.h"

/* --- classes ----------------------------------------------------------- */

/* Class keyed by a label (statics, stacks, mappings, names). */
uint32_t an_class_by_label(struct an_state *st, enum an_kind kind, const char *label)
{
	uint64_t key = mp_hash_str(label, (uint64_t)kind << 56);
	uint64_t *v = mp_hashmap_get(&st->class_index, key);
	if (v)
		return (uint32_t)*v;
	struct an_class c = { .kind = kind, .first_alloc_thread = -1 };
	c.label = strdup(label);
	if (!c.label || mp_vec_push(&st->classes, c)) {
		free(c.label);
		st->oom = 1;
		return st->unknown_cls;
	}
	uint32_t idx = (uint32_t)(st->classes.n - 1);
	if (mp_hashmap_put(&st->class_index, key, idx))
		st->oom = 1;
	return idx;
}

/* Class keyed by an allocation stack (heap blocks, mmaps) and, for a
 * mapped file, the file's stable name (an_file_name): labelled at the end,
 * once symbols are known. */
uint32_t an_class_by_stack(struct an_state *st, enum an_kind kind, uint32_t stack, const char *file)
{
	uint64_t key = mp_hash64(((uint64_t)stack << 8 | kind) + 0x51ed27);
	if (file)
		key = mp_hash_str(file, key);
	key |= 1;
	uint64_t *v = mp_hashmap_get(&st->class_index, key);
	if (v)
		return (uint32_t)*v;
	struct an_class c = { .kind = kind, .first_alloc_thread = -1 };
	if (file && !(c.file = strdup(file))) {
		st->oom = 1;
		return st->unknown_cls;
	}
	/* class_stack is indexed by class: padded for the label classes made
	 * since the last stack's, then this one's */
	while (st->class_stack.n < st->classes.n)
		if (mp_vec_push(&st->class_stack, UINT32_MAX)) {
			free(c.file);
			st->oom = 1;
			return st->unknown_cls;
		}
	if (mp_vec_push(&st->classes, c) || mp_vec_push(&st->class_stack, stack)) {
		free(c.file);
		st->oom = 1;
		return st->unknown_cls;
	}
	uint32_t idx = (uint32_t)(st->classes.n - 1);
	if (mp_hashmap_put(&st->class_index, key, idx))
		st->oom = 1;
	return idx;
}

void an_class_add_thread(struct an_class *c, uint32_t thread)
{
	/* (the thread added last, mostly: the processes of a shell's loop
	 * replayed in turn, each meeting libc's rows again and again) */
	if (c->nthreads && c->threads[c->nthreads - 1] == thread)
		return;
	for (size_t i = 0; i < c->nthreads; i++)
		if (c->threads[i] == thread)
			return;
	if (c->nthreads == c->threads_cap) {
		size_t cap = c->threads_cap ? c->threads_cap * 2 : 4;
		uint32_t *n = realloc(c->threads, cap * sizeof(*n));
		if (!n)
			return;
		c->threads = n;
		c->threads_cap = cap;
	}
	c->threads[c->nthreads++] = thread;
}

void an_class_add_instance(struct an_state *st, uint32_t cls, uint64_t size, uint32_t thread)
{
	struct an_class *c = &st->classes.v[cls];
	c->instances++;
	c->bytes_allocated += size;
	if (size > c->max_size)
		c->max_size = size;
	if (c->first_alloc_thread < 0 && thread != UINT32_MAX)
		c->first_alloc_thread = (int)thread;
}

void an_class_free_fields(struct an_class *c)
{
	free(c->label);
	free(c->site);
	free(c->function);
	free(c->file);
	free(c->threads);
	for (int j = 0; j < c->nstack; j++) {
		free((char *)c->stack[j].function);
		free((char *)c->stack[j].file);
		free((char *)c->stack[j].module);
	}
	free(c->stack);
}

void an_registry_fini(struct an_state *st)
{
	for (size_t i = 0; i < st->classes.n; i++)
		an_class_free_fields(&st->classes.v[i]);
	mp_vec_free(&st->classes);
	mp_vec_free(&st->class_stack);
	for (size_t i = 0; i < st->stacks.n; i++)
		free(st->stacks.v[i].frames);
	mp_vec_free(&st->stacks);
	mp_vec_free(&st->threads);
	mp_vec_free(&st->ips);
	mp_hashmap_fini(&st->class_index);
	mp_hashmap_fini(&st->stack_index);
	mp_hashmap_fini(&st->thread_index);
	mp_hashmap_fini(&st->ip_index);
}

/* Stacks that differ only below the allocation site (or in wrappers) get
 * the same label: one row. */

/* --- stacks ------------------------------------------------------------- */

uint32_t an_stack_intern(struct an_state *st, uint32_t proc, const uint64_t *frames, int n)
{
	uint64_t h = 0x84222325cbf29ce4ull ^ (uint64_t)n ^ ((uint64_t)st->procs.v[proc].image << 40);
	for (int i = 0; i < n; i++)
		h = mp_hash64(h ^ frames[i]);
	h |= 1;
	uint64_t *v = mp_hashmap_get(&st->stack_index, h);
	if (v)
		return (uint32_t)*v;
	if (st->frames + (uint64_t)n > st->frames_max) {
		/* (a file may define each of a million stacks in a few bytes:
		 * the same frames but one) */
		st->res->damaged |= AN_DAMAGE_PARTIAL;
		if (!st->frames_warned++)
			an_warn(st,
				"the allocation stacks have more than %llu frames, more than a file of %llu bytes can "
				"hold (a damaged file?): the later stacks are unknown",
				(unsigned long long)st->frames_max, (unsigned long long)st->file_bytes);
		return UINT32_MAX;
	}
	st->frames += (uint64_t)n;
	struct an_stack s = { .proc = proc, .n = n };
	s.frames = malloc((size_t)(n ? n : 1) * sizeof(uint64_t));
	if (!s.frames || mp_vec_push(&st->stacks, s)) {
		free(s.frames);
		st->oom = 1;
		return UINT32_MAX;
	}
	memcpy(s.frames, frames, (size_t)n * sizeof(uint64_t));
	uint32_t idx = (uint32_t)(st->stacks.n - 1);
	if (mp_hashmap_put(&st->stack_index, h, idx))
		st->oom = 1;
	return idx;
}

/* --- threads ------------------------------------------------------------ */

/* A thread past the file's bound: the one row, pid 0 tid 0, that all of
 * them share (made once, past the bound). */
static uint32_t thread_over(struct an_state *st)
{
	st->res->damaged |= AN_DAMAGE_PARTIAL;
	if (!st->threads_warned++)
		an_warn(st,
			"more than %llu threads, more than a file of %llu bytes can hold (a damaged file?): the "
			"later ones are counted as one, thread 0 of pid 0",
			(unsigned long long)st->threads_max, (unsigned long long)st->file_bytes);
	if (!st->thread_sink) {
		struct an_thread t = { .sample_factor = 1.0 };
		if (mp_vec_push(&st->threads, t)) {
			st->oom = 1;
			return 0;
		}
		st->thread_sink = (uint32_t)st->threads.n;
	}
	return st->thread_sink - 1;
}

uint32_t an_thread_get(struct an_state *st, uint32_t pid, uint32_t tid)
{
	uint64_t key = ((uint64_t)pid << 32 | tid) | (1ull << 63);
	uint64_t *v = mp_hashmap_get(&st->thread_index, key);
	if (v)
		return (uint32_t)*v;
	if (st->threads.n >= st->threads_max)
		return thread_over(st);
	struct an_thread t = { .pid = pid, .tid = tid, .sample_factor = 1.0 };
	if (mp_vec_push(&st->threads, t)) {
		st->oom = 1;
		return 0;
	}
	uint32_t idx = (uint32_t)(st->threads.n - 1);
	if (mp_hashmap_put(&st->thread_index, key, idx))
		st->oom = 1;
	return idx;
}

/* --- code addresses ----------------------------------------------------- */

uint32_t an_ip_get(struct an_state *st, uint32_t proc, uint32_t thread, uint64_t ip)
{
	uint64_t key = mp_hash64(ip ^ ((uint64_t)proc << 48));
	if (thread != UINT32_MAX)
		key = mp_hash64(key ^ thread);
	key |= 1;
	uint64_t *v = mp_hashmap_get(&st->ip_index, key);
	if (v)
		return (uint32_t)*v;
	if (ip && st->ips.n >= st->ips_max) {
		/* (a chunk of one record repeated, each a step to another
		 * code address, made 22 M of them: 12 GB) */
		st->res->damaged |= AN_DAMAGE_PARTIAL;
		if (!st->ips_warned++)
			an_warn(st,
				"more than %llu code addresses, more than a file of %llu bytes can hold (a damaged "
				"file?): the later ones are counted as one, address 0",
				(unsigned long long)st->ips_max, (unsigned long long)st->file_bytes);
		return an_ip_get(st, proc, thread, 0);
	}
	struct an_ip nip = { .proc = proc, .thread = thread, .ip = ip };
	if (mp_vec_push(&st->ips, nip) || mp_hashmap_put(&st->ip_index, key, st->ips.n - 1)) {
		st->oom = 1;
		return UINT32_MAX;
	}
	return (uint32_t)(st->ips.n - 1);
}

/* --- burst sampling: (class, thread) parts ------------------------------ */

uint32_t an_part_find(struct an_state *st, struct an_stream *s, uint32_t cls)
{
	uint64_t key = ((uint64_t)s->thread << 32 | cls) + 1;
	uint64_t *v = mp_hashmap_get(&st->part_index, key);
	uint32_t idx;
	if (v) {
		idx = (uint32_t)*v;
	} else {
		struct an_part np = { .cls = cls, .thread = s->thread };
		if (mp_vec_push(&st->parts, np) || mp_hashmap_put(&st->part_index, key, st->parts.n - 1)) {
			st->oom = 1;
			return UINT32_MAX;
		}
		idx = (uint32_t)(st->parts.n - 1);
	}
	s->part_recent[cls % AN_PART_RECENT].cls = cls;
	s->part_recent[cls % AN_PART_RECENT].part = idx + 1;
	return idx;
}

/* --- processes ---------------------------------------------------------- */

int an_proc_get(struct an_state *st, uint64_t proc_id, uint32_t pid)
{
	uint64_t *v = mp_hashmap_get(&st->proc_index, proc_id | 1);
	if (v)
		return (int)*v;
	struct an_proc p = { .id = proc_id, .pid = pid };
	an_objmap_init(&p.map);
	mp_hashmap_init(&p.groups);
	if (mp_vec_push(&st->procs, p)) {
		st->oom = 1;
		return -ENOMEM;
	}
	int idx = (int)st->procs.n - 1;
	if (mp_hashmap_put(&st->proc_index, proc_id | 1, (uint64_t)idx))
		st->oom = 1;
	return idx;
}
