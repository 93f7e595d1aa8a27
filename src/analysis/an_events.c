// SPDX-License-Identifier: MIT
/*
 * Events of the replay: each ALLOC, FREE, MMAP, MODULE, THREAD_START,
 * NAME_RANGE, ... record changes its process's object map (an_objmap.c)
 * and the registry as of its epoch; the replay (an_replay.c) applies them
 * in merge order, before every access that read their epoch.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/an_int.h"
#include "trace/trace_reader.h"

/* --- events ------------------------------------------------------------- */

static void str_copy(char *dst, size_t cap, const struct trace_rec *r)
{
	size_t n = r->str_len < cap - 1 ? r->str_len : cap - 1;
	memcpy(dst, r->str, n);
	dst[n] = 0;
}

/* 1 if the n characters at s could be mkstemp's random ones: letters and
 * digits; with mixed, of two kinds at least (not a word like "output"). */
static int alnum_run(const char *s, size_t n, int mixed)
{
	int lower = 0, upper = 0, digit = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		lower |= c >= 'a' && c <= 'z';
		upper |= c >= 'A' && c <= 'Z';
		digit |= c >= '0' && c <= '9';
		if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9'))
			return 0;
	}
	return !mixed || lower + upper + digit >= 2;
}

void an_file_name(char *out, size_t cap, const char *path)
{
	static const char deleted[] = " (deleted)";
	static const char *const tmp[] = { "/tmp/", "/var/tmp/", "/dev/shm/" };
	size_t n = strlen(path), dl = sizeof(deleted) - 1;
	int gone = n > dl && strcmp(path + n - dl, deleted) == 0;
	if (gone)
		n -= dl;
	int temp = gone;
	for (size_t i = 0; i < sizeof(tmp) / sizeof(tmp[0]); i++)
		temp |= strncmp(path, tmp[i], strlen(tmp[i])) == 0;
	char name[512];
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, path, n);
	name[n] = 0;
	if (temp) {
		char *b = strrchr(name, '/');
		b = b ? b + 1 : name;
		size_t bl = strlen(b);
		char *dot = strrchr(b, '.');
		/* (mkstemp's six are masked whatever they are: a random six is
		 * all lower-case, word-like, once in 180 draws, and the row must
		 * be the same in every run; a suffix's six, only when they do
		 * not look like a word, so that data.txt stays itself) */
		if (b[0] == '#' && bl > 1 && strspn(b + 1, "0123456789") == bl - 1) {
			snprintf(b, (size_t)(name + sizeof(name) - b), "#N"); /* O_TMPFILE: #INODE */
		} else if (bl >= 6 && alnum_run(b + bl - 6, 6, 0)) {
			memcpy(b + bl - 6, "XXXXXX", 6); /* mkstemp */
		} else if (dot && dot - b >= 6 && alnum_run(dot - 6, 6, 1)) {
			memcpy(dot - 6, "XXXXXX", 6); /* mkstemps, with a suffix */
		}
	}
	snprintf(out, cap, "%s%s", name, gone ? deleted : "");
}

static uint32_t stack_of(struct an_state *st, struct an_stream *s, uint64_t local)
{
	uint64_t *v = local ? mp_hashmap_get(&s->stack_ids, local) : NULL;
	return v ? (uint32_t)*v : UINT32_MAX;
}

/* A block the stream's thread just allocated goes first in its lookups:
 * it is most likely what the thread touches next, and a lookup in the map
 * for each new block's first touch is a tenth of allocheavy's report. */
static void stream_prime(struct an_stream *s, const struct an_objmap *m, struct an_obj *o)
{
	if (!an_objmap_on_top(m, o))
		return; /* (a named range may cover part of it: let a lookup clip) */
	memmove(&s->look[1], &s->look[0], (AN_LOOKUPS - 1) * sizeof(s->look[0]));
	s->look[0] = (struct an_lookup){ .obj = o, .gen = m->gen, .lo = o->lo, .hi = o->hi };
}

/* 1 if the maps may take n more objects; 0 past the file's bound (said
 * once), and the object is counted but not placed. */
int an_map_room(struct an_state *st, uint64_t n)
{
	if (st->objects_live + n <= st->objects_max)
		return 1;
	st->res->damaged |= AN_DAMAGE_PARTIAL;
	if (!st->objects_warned++)
		an_warn(st,
			"more than %llu objects live at once, more than a file of %llu bytes can hold (a damaged "
			"file?): the later ones are counted, not placed",
			(unsigned long long)st->objects_max, (unsigned long long)st->file_bytes);
	return 0;
}

/* An ALLOC record: a block of the program's allocator, or of its own
 * (MP_FN_MALLOCLIKE, carved over its pool; MP_FN_FREELIKE gives one back). */
static void event_alloc(struct an_state *st, struct an_stream *s, struct an_proc *p, const uint64_t *f)
{
	struct an_objmap *m = &p->map;
	uint64_t addr = f[2], size = f[3], group = f[6];
	uint32_t cls;
	if (f[5] == MP_FN_FREELIKE) {
		if (an_objmap_remove_at(m, AN_LAYER_CARVED, addr) >= 0)
			st->res->frees++;
		return;
	}
	uint64_t *gv = group ? mp_hashmap_get(&p->groups, group) : NULL;
	if (gv) {
		cls = (uint32_t)*gv;
	} else {
		/* the stack's heap class is kept beside it (class + 1 in
		 * the high half): one lookup a malloc, not two */
		uint64_t *sv = f[4] ? mp_hashmap_get(&s->stack_ids, f[4]) : NULL;
		if (!sv) {
			cls = an_class_by_label(st, AN_KIND_HEAP, "heap (allocation stack unknown)");
		} else if (*sv >> 32) {
			cls = (uint32_t)(*sv >> 32) - 1;
		} else {
			cls = an_class_by_stack(st, AN_KIND_HEAP, (uint32_t)*sv, NULL);
			*sv |= (uint64_t)(cls + 1) << 32;
		}
	}
	an_class_add_instance(st, cls, size, s->thread);
	/* a block of the program's own allocator lies over the pool it
	 * came from, which keeps the rest (an_objmap.h) */
	const int layer = f[5] == MP_FN_MALLOCLIKE ? AN_LAYER_CARVED : AN_LAYER_OBJECT;
	if (layer == AN_LAYER_CARVED)
		st->classes.v[cls].carved = 1;
	struct an_obj *o =
		an_map_room(st, 1) ? an_objmap_insert(m, layer, addr, addr + (size ? size : 1), cls) : NULL;
	if (o)
		stream_prime(s, m, o);
	st->res->allocations++;
	st->threads.v[s->thread].allocations++;
}

/* An MMAP record: a file's or an anonymous mapping, by its site. */
static void event_mmap(struct an_state *st, struct an_stream *s, struct an_objmap *m, const struct trace_rec *r)
{
	const uint64_t *f = r->f;
	char buf[512];
	uint64_t addr = f[2], len = f[3];
	uint32_t cls, stk = stack_of(st, s, f[7]);
	if (r->str_len) {
		/* a file's row: its site and its name as it stays from
		 * run to run */
		char path[400];
		str_copy(path, sizeof(path), r);
		memcpy(buf, "file ", 5);
		an_file_name(buf + 5, sizeof(buf) - 5, path);
		cls = stk == UINT32_MAX ? an_class_by_label(st, AN_KIND_MMAP_FILE, buf)
					: an_class_by_stack(st, AN_KIND_MMAP_FILE, stk, buf + 5);
	} else {
		cls = stk == UINT32_MAX ? an_class_by_label(st, AN_KIND_MMAP_ANON, "anonymous mmap")
					: an_class_by_stack(st, AN_KIND_MMAP_ANON, stk, NULL);
	}
	an_class_add_instance(st, cls, len, s->thread);
	if (an_map_room(st, 1))
		an_objmap_insert(m, AN_LAYER_MAP, addr, addr + len, cls);
}

static void apply_event_in(struct an_state *st, struct an_stream *s, const struct trace_rec *r);

void an_event_apply(struct an_state *st, struct an_stream *s, const struct trace_rec *r)
{
	const struct an_objmap *m = &st->procs.v[s->proc].map;
	const size_t live = m->live;
	apply_event_in(st, s, r);
	st->objects_live += (uint64_t)m->live - live; /* (or fewer: unsigned wrap) */
}

static void apply_event_in(struct an_state *st, struct an_stream *s, const struct trace_rec *r)
{
	struct an_proc *p = &st->procs.v[s->proc];
	struct an_objmap *m = &p->map;
	char buf[512];
	const uint64_t *f = r->f;
	switch (r->event) {
	case MP_EV_STACK_DEF: {
		uint64_t frames[AN_MAX_FRAMES];
		int n = trace_stack_frames(r, frames, AN_MAX_FRAMES);
		if (n < 0)
			break;
		uint32_t g = an_stack_intern(st, s->proc, frames, n);
		if (g != UINT32_MAX && f[0] && mp_hashmap_put(&s->stack_ids, f[0], g))
			st->oom = 1;
		break;
	}
	case MP_EV_ALLOC:
		event_alloc(st, s, p, f);
		break;
	case MP_EV_FREE: {
		uint64_t hi = 0;
		if (an_objmap_take_at(m, AN_LAYER_OBJECT, f[2], &hi) >= 0) {
			st->res->frees++;
			/* the blocks carved from it end with it */
			if (!an_objmap_layer_empty(m, AN_LAYER_CARVED))
				an_objmap_punch(m, AN_LAYER_CARVED, f[2], hi);
		}
		break;
	}
	case MP_EV_MMAP:
		event_mmap(st, s, m, r);
		break;
	case MP_EV_MUNMAP:
		if (!an_objmap_layer_empty(m, AN_LAYER_CARVED))
			an_objmap_punch(m, AN_LAYER_CARVED, f[2], f[2] + f[3]);
		an_objmap_punch(m, AN_LAYER_MAP, f[2], f[2] + f[3]);
		an_objmap_punch(m, AN_LAYER_BASE, f[2], f[2] + f[3]);
		break;
	case MP_EV_MREMAP: {
		struct an_obj *o = an_objmap_at(m, AN_LAYER_MAP, f[2]);
		uint32_t cls = o ? o->cls : an_class_by_label(st, AN_KIND_MMAP_ANON, "anonymous mmap");
		if (!an_objmap_layer_empty(m, AN_LAYER_CARVED))
			an_objmap_punch(m, AN_LAYER_CARVED, f[2], f[2] + f[3]);
		an_objmap_punch(m, AN_LAYER_MAP, f[2], f[2] + f[3]);
		if (an_map_room(st, 1))
			an_objmap_insert(m, AN_LAYER_MAP, f[4], f[4] + f[5], cls);
		break;
	}
	case MP_EV_THREAD_START: {
		uint32_t tid = (uint32_t)f[2];
		s->stack_lo = f[4];
		if (f[5] > f[4]) {
			if (f[3] == 0)
				snprintf(buf, sizeof(buf), "main thread stack (pid %u)", p->pid);
			else
				snprintf(buf, sizeof(buf), "stack of thread %u", tid);
			uint32_t cls = an_class_by_label(st, AN_KIND_STACK, buf);
			an_class_add_instance(st, cls, f[5] - f[4], s->thread);
			if (an_map_room(st, 1))
				an_objmap_insert(m, AN_LAYER_OBJECT, f[4], f[5], cls);
		}
		break;
	}
	case MP_EV_THREAD_EXIT:
		break; /* the stack may still be read by a joiner until it is reused */
	case MP_EV_THREAD_NAME:
		str_copy(st->threads.v[s->thread].name, sizeof(st->threads.v[s->thread].name), r);
		break;
	case MP_EV_MODULE:
		str_copy(buf, sizeof(buf), r);
		an_module_loaded(st, p, f[0], buf, f[1], f[2], f[3]);
		break;
	case MP_EV_REGION_BEGIN:
	case MP_EV_REGION_END:
		if (st->opts->roi && r->str_len == strlen(st->opts->roi) &&
		    memcmp(r->str, st->opts->roi, r->str_len) == 0) {
			st->res->have_roi = 1;
			int was = p->roi_depth;
			p->roi_depth += r->event == MP_EV_REGION_BEGIN ? 1 : -1;
			if (p->roi_depth < 0)
				p->roi_depth = 0;
			/* the model charges a region the writebacks of its own stores */
			if ((was == 0) != (p->roi_depth == 0))
				an_model_clean(st, s, was > 0);
		}
		break;
	case MP_EV_NAME_RANGE: {
		memcpy(buf, "named ", 6);
		str_copy(buf + 6, sizeof(buf) - 6, r);
		uint32_t cls = an_class_by_label(st, AN_KIND_NAMED, buf);
		an_class_add_instance(st, cls, f[2], s->thread);
		if (an_map_room(st, 1))
			an_objmap_insert(m, AN_LAYER_NAMED, f[1], f[1] + f[2], cls);
		break;
	}
	case MP_EV_GROUP_DEF: {
		memcpy(buf, "group ", 6);
		str_copy(buf + 6, sizeof(buf) - 6, r);
		uint32_t cls = an_class_by_label(st, AN_KIND_GROUP, buf);
		if (f[1] && mp_hashmap_put(&p->groups, f[1], cls))
			st->oom = 1;
		break;
	}
	case MP_EV_MODULE_UNLOAD:
		/* its statics (object layer), blocks carved from them and
		 * sections (map layer) end */
		if (!an_objmap_layer_empty(m, AN_LAYER_CARVED))
			an_objmap_punch(m, AN_LAYER_CARVED, f[2], f[3]);
		an_objmap_punch(m, AN_LAYER_OBJECT, f[2], f[3]);
		an_objmap_punch(m, AN_LAYER_MAP, f[2], f[3]);
		break;
	case MP_EV_TLS_BLOCK:
		an_tls_block(st, p, s->thread, f[1], f[2], f[3]);
		break;
	case MP_EV_MAP_INITIAL: {
		if (r->str_len) {
			memcpy(buf, "mapping ", 8);
			str_copy(buf + 8, sizeof(buf) - 8, r);
		} else {
			snprintf(buf, sizeof(buf), "mapping [anonymous]");
		}
		uint32_t cls = an_class_by_label(st, AN_KIND_MAPPING, buf);
		if (an_map_room(st, 1))
			an_objmap_insert(m, AN_LAYER_BASE, f[1], f[1] + f[2], cls);
		break;
	}
	default:
		break;
	}
}
