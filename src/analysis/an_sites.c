// SPDX-License-Identifier: MIT
/*
 * Allocation sites. A heap block's (or a mapping's) row is its allocation
 * site: the first frame of its allocation stack that is not memprism's
 * runtime, not an installed library's (unless --lib-sites) and not an
 * allocation wrapper. Which functions are wrappers is judged here from what
 * they do in the trace, not from their names (docs/attribution.md has the
 * rule and why): a function is one when it allocates from one line only,
 * its callers can be sites, and it hands what it allocates on: its own
 * code makes at most a quarter of the accesses to those blocks, and it is
 * called from two lines or more, or its callers use the blocks. Only when
 * the trace has no access to the blocks at all (a program not built with
 * memprism cc) does the name decide, as a last resort. `-w NAME` makes NAME
 * a wrapper, `--not-wrapper NAME` never one, `--no-wrapper-heuristic` leaves
 * only those and the modules' rules.
 *
 * The judgement needs the whole trace (every stack, every access), so it
 * runs after the replay (an_sites_label); what-if page rules, matched
 * during the replay, ask an_sites_may_match instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis/an_int.h"
#include "common/mp_path.h"
#include "sym/sym.h"

#define SITES_ROUNDS 16 /* judgement rounds at most (each moves sites up a frame or settles) */
#define OWN_SHARE 4 /* a wrapper's own code makes at most 1 / OWN_SHARE of its blocks' accesses */

/* memprism's runtime: its hooks are never a site */
static int runtime_module(const char *m)
{
	return m && strncmp(m, "libmemprism-rt", 14) == 0;
}

/* memprism.h's inline wrappers (memprism_malloclike), inlined into the
 * program's allocator: memprism's code, never a site */
static int api_frame(const struct an_frame *f)
{
	return f->function && strncmp(f->function, "memprism_", 9) == 0 && f->file &&
	       strcmp(mp_base_name(f->file), "memprism.h") == 0;
}

/* Code of an installed library: a module under the directories the dynamic
 * linker searches by default and Debian installs libraries in, as opposed
 * to the program and the libraries built with it. A block that zlib, libc
 * or an MPI library allocates for the program is sited at the program's
 * call, wherever the library keeps its code. The program itself (exe) is
 * never one, though Debian installs some there too (gcc's cc1, postgres,
 * chromium under /usr/lib/...): its blocks would all be sited at _start. */
static int installed_library(const char *path, const char *exe)
{
	static const char *const dirs[] = { "/lib/",	   "/lib32/",	  "/lib64/",	  "/libx32/",	    "/usr/lib/",
					    "/usr/lib32/", "/usr/lib64/", "/usr/libx32/", "/usr/local/lib/" };
	if (!path || (exe && strcmp(path, exe) == 0))
		return 0;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (strncmp(path, dirs[i], strlen(dirs[i])) == 0)
			return 1;
	return 0;
}

static int contains_ci(const char *s, const char *needle)
{
	size_t n = strlen(needle);
	for (; *s; s++)
		if (strncasecmp(s, needle, n) == 0)
			return 1;
	return 0;
}

/* The last resort, where the trace shows nothing a function did with its
 * blocks: a name that says "I allocate for my caller". */
static int wrapper_name(const char *fn)
{
	size_t n = strlen(fn);
	return contains_ci(fn, "alloc") || contains_ci(fn, "strdup") || strncmp(fn, "new_", 4) == 0 ||
	       (n > 4 && strcmp(fn + n - 4, "_new") == 0);
}

static int named_in(const char *fn, const char *const *names, size_t n)
{
	for (size_t i = 0; fn && i < n; i++)
		if (strcmp(fn, names[i]) == 0)
			return 1;
	return 0;
}

/* Never a site, whatever the judgement: the runtime, memprism.h, an
 * installed library's code (without --lib-sites), a function named with -w. */
static int forced_skip(const struct an_opts *o, const struct an_frame *f)
{
	if (runtime_module(f->module) || api_frame(f) || (f->library && !o->lib_sites))
		return 1;
	return named_in(f->function, o->wrappers, o->nwrappers);
}

/* Can f's caller, c, be a site in its place? Code of the program (or of
 * the same module as f: a library's own wrappers under --lib-sites), with
 * a name. So main and a thread's function, called from libc, are never
 * skipped. */
static int caller_ok(const struct an_frame *f, const struct an_frame *c)
{
	if (!c->function || runtime_module(c->module) || api_frame(c))
		return 0;
	if (f->module && c->module && strcmp(f->module, c->module) == 0)
		return 1;
	return !c->library;
}

static void site_text(char *buf, size_t cap, const struct an_frame *f)
{
	if (f->function && f->file)
		snprintf(buf, cap, "%s (%s:%d)", f->function, mp_base_name(f->file), f->line);
	else if (f->function)
		snprintf(buf, cap, "%s (%s)", f->function, f->module ? f->module : "?");
	else if (f->module) /* (the file's address: the same in every run, whatever the load address) */
		snprintf(buf, cap, "%s+0x%llx", f->module, (unsigned long long)f->module_addr);
	else
		snprintf(buf, cap, "0x%llx", (unsigned long long)f->addr);
}

/* What the user reads: "heap SITE", "mmap SITE", "file SITE NAME". */
static void label_text(char *buf, size_t cap, const struct an_class *c, const char *where)
{
	if (c->kind == AN_KIND_MMAP_FILE)
		snprintf(buf, cap, "file %s %s", where, c->file ? c->file : "?");
	else
		snprintf(buf, cap, "%s %s", c->kind == AN_KIND_HEAP ? "heap" : "mmap", where);
}

/* Symbolizes an allocation stack: every return address becomes its inline
 * chain (innermost first). The strings belong to the process's sym ctx. */
static int symbolize_stack(struct an_state *st, const struct an_stack *s, struct an_frame *out, int max)
{
	struct an_proc *p = &st->procs.v[s->proc];
	int k = 0;
	for (int i = 0; i < s->n && k < max; i++) {
		struct sym_frame sf[8];
		uint64_t a = s->frames[i] ? s->frames[i] - 1 : 0;
		int n = p->sym ? sym_ctx_lookup(p->sym, a, sf, 8) : 0;
		if (n <= 0) {
			out[k++] = (struct an_frame){ .addr = s->frames[i] };
			continue;
		}
		for (int j = 0; j < n && k < max; j++)
			out[k++] = (struct an_frame){ .addr = s->frames[i],
						      .module_addr = s->frames[i] - sf[j].bias,
						      .function = sf[j].function,
						      .file = sf[j].file,
						      .module = sf[j].module,
						      .line = sf[j].line,
						      .inlined = sf[j].inlined,
						      .library = installed_library(sf[j].module_path, p->exe) };
	}
	return k;
}

/* The stack of class cls, symbolized into frames; -1 if it has none. */
static int class_frames(struct an_state *st, uint32_t cls, struct an_frame *frames)
{
	uint32_t si = cls < st->class_stack.n ? st->class_stack.v[cls] : UINT32_MAX;
	if (si == UINT32_MAX || si >= st->stacks.n)
		return -1;
	return symbolize_stack(st, &st->stacks.v[si], frames, AN_MAX_FRAMES);
}

static uint64_t fn_key(const char *function, const char *module)
{
	return mp_hash_str(function, mp_hash_str(module ? module : "", 0x5173));
}

static void context_text(char *buf, size_t cap, const struct an_frame *frames, int n, int site, int levels);

static int labels(struct an_state *st, uint32_t cls, int contexts, an_label_fn fn, void *arg);

struct pattern_in {
	const char *pattern;
};

static int pattern_in(void *arg, const char *label, int context)
{
	(void)context;
	return strstr(label, ((const struct pattern_in *)arg)->pattern) != NULL;
}

int an_sites_may_match(struct an_state *st, uint32_t cls, const char *pattern)
{
	struct pattern_in p = { pattern };
	return an_sites_labels(st, cls, strstr(pattern, " <- ") != NULL, pattern_in, &p) == 1;
}

int an_sites_labels(struct an_state *st, uint32_t cls, int contexts, an_label_fn fn, void *arg)
{
	/* (of processes replayed at once, a child's inherited classes have
	 * its parent's stacks, symbolized in its parent's sym ctx) */
	if (!st->sym_mu)
		return labels(st, cls, contexts, fn, arg);
	pthread_mutex_lock(st->sym_mu);
	const int m = labels(st, cls, contexts, fn, arg);
	pthread_mutex_unlock(st->sym_mu);
	return m;
}

static int labels(struct an_state *st, uint32_t cls, int contexts, an_label_fn fn, void *arg)
{
	const struct an_opts *o = st->opts;
	struct an_frame frames[AN_MAX_FRAMES];
	const struct an_class *c = &st->classes.v[cls];
	int n = class_frames(st, cls, frames), r;
	if (n < 0)
		return c->label ? fn(arg, c->label, 0) : 0;
	char where[600], label[1200];
	if (n == 0) {
		label_text(label, sizeof(label), c, "unknown site");
		return fn(arg, label, 0);
	}
	for (int j = 0; j < n; j++) {
		if (j + 1 < n && forced_skip(o, &frames[j]))
			continue;
		site_text(where, sizeof(where), &frames[j]);
		label_text(label, sizeof(label), c, where);
		if ((r = fn(arg, label, 0)))
			return r;
		/* or with its calling context: a rule may name one caller's row */
		if (contexts) {
			context_text(where, sizeof(where), frames, n, j, n);
			label_text(label, sizeof(label), c, where);
			if ((r = fn(arg, label, 1)))
				return r;
		}
		/* could the judgement take this frame for a wrapper? */
		const struct an_frame *f = &frames[j];
		if (j + 1 >= n || o->no_wrapper_heuristic || !f->function ||
		    named_in(f->function, o->not_wrappers, o->nnot_wrappers) || !caller_ok(f, &frames[j + 1]))
			return 0;
	}
	return 0;
}

/* --- the judgement ------------------------------------------------------- */

/* A function that some class's site search reached, and what it did. */
struct site_fn {
	uint64_t key;
	const char *name;
	int pinned; /* --not-wrapper */
	int wrapper; /* judged so in the last round */
	/* this round: the lines it allocates from (the first's hash, and
	 * whether there was another), the lines it is called from, whether a
	 * caller cannot be a site, accesses to its blocks by its own code, by
	 * its callers' code and by all */
	uint64_t site, caller;
	int more_sites, more_callers, bad_caller;
	uint64_t own, up, total;
};

/* What a class's frame j (below its last) tells the judgement, worked out
 * once: the rounds only add these up. */
struct site_step {
	uint32_t fn; /* fns index + 1; 0: the frame has no function (it is a site) */
	uint8_t forced; /* forced_skip */
	uint8_t ok; /* caller_ok */
	uint64_t line, caller; /* line_key of the frame and of its caller */
	uint64_t own, up; /* accesses to the class by its code, by its callers' */
};

struct sites {
	struct an_state *st;
	size_t nclasses;
	struct an_frame **frames; /* per class, NULL: no stack */
	int *nframes;
	struct site_step **steps; /* per class, nframes - 1 of them */
	uint64_t *accesses; /* per class: its counted accesses */
	MP_VEC(struct site_fn) fns;
	struct mp_hashmap fn_index; /* fn_key -> fns index + 1 */
	/* (class << 32 ^ fn_key) -> accesses to the class by that function's
	 * code (own: the innermost function of the code address; chain: any
	 * function of its inline chain, a helper inlined into a caller), and
	 * class + 1 -> accesses to the class in all */
	struct mp_hashmap own, chain, total;
};

/* The function of frame f: fns index + 1, made on first sight; 0 when f
 * has no function (or on ENOMEM, st->oom). */
static uint32_t fn_of(struct sites *S, const struct an_frame *f)
{
	if (!f->function)
		return 0;
	uint64_t key = fn_key(f->function, f->module);
	uint64_t *v = mp_hashmap_get(&S->fn_index, key);
	if (v)
		return (uint32_t)*v;
	const struct an_opts *o = S->st->opts;
	struct site_fn s = { .key = key,
			     .name = f->function,
			     .pinned = named_in(f->function, o->not_wrappers, o->nnot_wrappers) };
	if (mp_vec_push(&S->fns, s) || mp_hashmap_put(&S->fn_index, key, S->fns.n)) {
		S->st->oom = 1;
		return 0;
	}
	return (uint32_t)S->fns.n;
}

static uint64_t accesses_by(const struct mp_hashmap *m, uint32_t cls, uint64_t key)
{
	const uint64_t *v = mp_hashmap_get(m, ((uint64_t)cls << 32 ^ key) | 1);
	return v ? *v : 0;
}

static int add_to(struct mp_hashmap *m, uint64_t key, uint64_t n)
{
	uint64_t *v = mp_hashmap_get(m, key);
	if (v) {
		*v += n;
		return 0;
	}
	return mp_hashmap_put(m, key, n);
}

/* The evidence of the replay (st->pairs), by function: each code
 * address's innermost function (an inlined wrapper's accesses are its
 * own), and every function of its inline chain. */
static int gather_accesses(struct sites *S)
{
	struct an_state *st = S->st;
	const struct mp_hashmap *m = &st->pairs;
	for (size_t i = 0; i < m->cap; i++) {
		uint64_t key = m->keys[i], n = m->vals[i];
		if (!key)
			continue;
		uint32_t cls = (uint32_t)(key >> 32), ipi = (uint32_t)key - 1;
		if (cls >= S->nclasses || ipi >= st->ips.n)
			continue;
		if (add_to(&S->total, (uint64_t)cls + 1, n))
			return -ENOMEM;
		const struct an_ip *ip = &st->ips.v[ipi];
		struct an_proc *p = &st->procs.v[ip->proc];
		struct sym_frame sf[8];
		int nf = p->sym ? sym_ctx_lookup(p->sym, ip->ip - 1, sf, 8) : 0;
		for (int j = 0; j < nf; j++) {
			if (!sf[j].function)
				continue;
			uint64_t k = ((uint64_t)cls << 32 ^ fn_key(sf[j].function, sf[j].module)) | 1;
			/* (a function new to the class is one more of its users) */
			if (j == 0 && !mp_hashmap_get(&S->own, k))
				st->classes.v[cls].users++;
			if (add_to(&S->chain, k, n) || (j == 0 && add_to(&S->own, k, n)))
				return -ENOMEM;
		}
	}
	/* and each class's busiest user, now that the counts are whole */
	for (size_t i = 0; i < m->cap; i++) {
		uint64_t key = m->keys[i];
		uint32_t cls = (uint32_t)(key >> 32), ipi = (uint32_t)key - 1;
		if (!key || cls >= S->nclasses || ipi >= st->ips.n)
			continue;
		const struct an_ip *ip = &st->ips.v[ipi];
		struct an_proc *p = &st->procs.v[ip->proc];
		struct sym_frame sf[8];
		if (!p->sym || sym_ctx_lookup(p->sym, ip->ip - 1, sf, 8) <= 0 || !sf[0].function)
			continue;
		uint64_t n = accesses_by(&S->own, cls, fn_key(sf[0].function, sf[0].module));
		struct an_class *c = &st->classes.v[cls];
		c->top_user = n > c->top_user ? n : c->top_user;
	}
	return 0;
}

/* Accesses to class cls by the code of a function that calls frame j
 * (frames above it; the most of any one of them). */
static uint64_t callers_use(const struct sites *S, uint32_t cls, int j)
{
	const struct an_frame *fr = S->frames[cls];
	uint64_t most = 0, self = fr[j].function ? fn_key(fr[j].function, fr[j].module) : 0;
	for (int k = j + 1; k < S->nframes[cls]; k++) {
		if (!fr[k].function)
			continue;
		uint64_t key = fn_key(fr[k].function, fr[k].module);
		uint64_t n = key == self ? 0 : accesses_by(&S->chain, cls, key);
		most = n > most ? n : most;
	}
	return most;
}

/* A line of code as the rows tell lines apart: its site text; without
 * line information (a library without debug info), the call itself. */
static uint64_t line_key(const struct an_frame *f)
{
	char where[600];
	if (f->file && f->line)
		site_text(where, sizeof(where), f);
	else
		snprintf(where, sizeof(where), "%s@0x%llx", f->function ? f->function : "?",
			 (unsigned long long)f->addr);
	return mp_hash_str(where, 0x11e);
}

/* Class cls's steps (struct site_step): 0 or -ENOMEM. */
static int prepare(struct sites *S, uint32_t cls)
{
	const struct an_opts *o = S->st->opts;
	const struct an_frame *fr = S->frames[cls];
	const int n = S->nframes[cls];
	const uint64_t *t = mp_hashmap_get(&S->total, (uint64_t)cls + 1);
	S->accesses[cls] = t ? *t : 0;
	S->steps[cls] = calloc(n > 1 ? (size_t)(n - 1) : 1, sizeof(struct site_step));
	if (!S->steps[cls])
		return -ENOMEM;
	for (int j = 0; j + 1 < n; j++) {
		struct site_step *p = &S->steps[cls][j];
		p->forced = (uint8_t)forced_skip(o, &fr[j]);
		if (p->forced)
			continue;
		p->fn = fn_of(S, &fr[j]);
		if (!p->fn)
			continue;
		p->ok = (uint8_t)caller_ok(&fr[j], &fr[j + 1]);
		p->line = line_key(&fr[j]);
		p->caller = line_key(&fr[j + 1]);
		p->own = accesses_by(&S->own, cls, S->fns.v[p->fn - 1].key);
		p->up = callers_use(S, cls, j);
	}
	return S->st->oom ? -ENOMEM : 0;
}

/* The site of class cls's stack as the wrappers judged so far have it:
 * the first frame that is neither skipped by force nor a wrapper whose
 * caller can be a site. With tally, each function the search passes
 * (the site's included) gets this class as evidence. */
static int site_of(struct sites *S, uint32_t cls, int tally)
{
	const int n = S->nframes[cls];
	int j = 0;
	for (; j + 1 < n; j++) {
		const struct site_step *p = &S->steps[cls][j];
		if (p->forced)
			continue;
		if (!p->fn)
			break;
		struct site_fn *f = &S->fns.v[p->fn - 1];
		if (tally) {
			if (!f->site)
				f->site = p->line;
			else if (f->site != p->line)
				f->more_sites = 1;
			if (!f->caller)
				f->caller = p->caller;
			else if (f->caller != p->caller)
				f->more_callers = 1;
			f->bad_caller |= !p->ok;
			f->own += p->own;
			f->up += p->up;
			f->total += S->accesses[cls];
		}
		if (!(f->wrapper && p->ok))
			break;
	}
	return j;
}

/* The rule (docs/attribution.md, "Allocation sites"). */
static int judge(const struct an_opts *o, const struct site_fn *f)
{
	if (f->pinned || o->no_wrapper_heuristic || f->more_sites || f->bad_caller)
		return 0;
	if (!f->total)
		return wrapper_name(f->name); /* nothing to go by but the name */
	return f->own * OWN_SHARE <= f->total && (f->more_callers || f->up);
}

/* Rounds until no judgement changes: a function judged a wrapper lets the
 * search reach its callers, whose evidence grows by its classes. */
static int judge_all(struct sites *S)
{
	for (int round = 0; round < SITES_ROUNDS; round++) {
		for (size_t i = 0; i < S->fns.n; i++) {
			struct site_fn *f = &S->fns.v[i];
			f->site = f->caller = 0;
			f->more_sites = f->more_callers = f->bad_caller = 0;
			f->own = f->up = f->total = 0;
		}
		for (size_t c = 0; c < S->nclasses; c++)
			if (S->frames[c])
				site_of(S, (uint32_t)c, 1);
		int changed = 0;
		for (size_t i = 0; i < S->fns.n; i++) {
			struct site_fn *f = &S->fns.v[i];
			int w = judge(S->st->opts, f);
			changed |= w != f->wrapper;
			f->wrapper = w;
		}
		if (!changed)
			break;
	}
	return 0;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* The site's text, and levels of its callers after it: "f (a.c:3) <- g
 * (a.c:9)" (as many as the stack has). */
static void context_text(char *buf, size_t cap, const struct an_frame *frames, int n, int site, int levels)
{
	if (n == 0) {
		snprintf(buf, cap, "unknown site");
		return;
	}
	site_text(buf, cap, &frames[site]);
	for (int k = 1; k <= levels && site + k < n; k++) {
		size_t len = strlen(buf);
		if (len + 5 >= cap)
			break;
		memcpy(buf + len, " <- ", 5);
		site_text(buf + len + 4, cap - len - 4, &frames[site + k]);
	}
}

/* Labels class cls "KIND SITE" at frame site of its n frames, with levels
 * of its calling context; the row keeps the whole stack, its strings
 * copied out of the sym ctx. */
static int label_class(struct an_class *c, const struct an_frame *frames, int n, int site, int levels)
{
	char buf[1200], where[600];
	context_text(where, sizeof(where), frames, n, site, levels);
	label_text(buf, sizeof(buf), c, where);
	c->label = strdup(buf);
	c->site = strdup(where);
	c->function = n ? dup_or_null(frames[site].function) : NULL;
	if (!c->label || !c->site)
		return -ENOMEM;
	c->site_frame = site;
	if (n > 0) {
		c->stack = calloc((size_t)n, sizeof(*c->stack));
		if (!c->stack)
			return -ENOMEM;
		c->nstack = n;
		for (int j = 0; j < n; j++) {
			struct an_frame f = frames[j];
			f.function = dup_or_null(f.function);
			f.file = dup_or_null(f.file);
			f.module = dup_or_null(f.module);
			c->stack[j] = f;
		}
	}
	return 0;
}

/* Every class's label, with its calling context as st->opts->context
 * says: by default one level up for the sites whose blocks come from
 * several callers (a generic constructor's), so each caller's blocks are
 * a row of their own. */
static int label_all(struct sites *S)
{
	int depth = S->st->opts->context, err = 0;
	int *site = calloc(S->nclasses + 1, sizeof(*site));
	struct mp_hashmap caller, several; /* site text -> its first caller's; sites with several */
	mp_hashmap_init(&caller);
	mp_hashmap_init(&several);
	if (!site)
		return -ENOMEM;
	for (size_t c = 0; c < S->nclasses; c++) {
		if (!S->frames[c])
			continue;
		site[c] = site_of(S, (uint32_t)c, 0);
		if (depth != 0 || !S->nframes[c])
			continue;
		char where[600], up[600];
		context_text(where, sizeof(where), S->frames[c], S->nframes[c], site[c], 0);
		context_text(up, sizeof(up), S->frames[c], S->nframes[c], site[c], 1);
		uint64_t h = mp_hash_str(where, 1), hu = mp_hash_str(up, 2) | 1, *v = mp_hashmap_get(&caller, h);
		if (!v ? mp_hashmap_put(&caller, h, hu) : *v != hu && mp_hashmap_put(&several, h, 1)) {
			err = -ENOMEM;
			break;
		}
	}
	for (size_t c = 0; c < S->nclasses && !err; c++) {
		if (!S->frames[c])
			continue;
		int levels = depth > 0 ? depth : 0;
		if (depth == 0 && S->nframes[c]) {
			char where[600];
			context_text(where, sizeof(where), S->frames[c], S->nframes[c], site[c], 0);
			levels = mp_hashmap_get(&several, mp_hash_str(where, 1)) ? 1 : 0;
		}
		err = label_class(&S->st->classes.v[c], S->frames[c], S->nframes[c], site[c], levels);
	}
	mp_hashmap_fini(&caller);
	mp_hashmap_fini(&several);
	free(site);
	return err;
}

int an_sites_label(struct an_state *st)
{
	struct sites S = { .st = st, .nclasses = st->classes.n };
	int err = -ENOMEM;
	mp_hashmap_init(&S.fn_index);
	mp_hashmap_init(&S.own);
	mp_hashmap_init(&S.chain);
	mp_hashmap_init(&S.total);
	S.frames = calloc(S.nclasses + 1, sizeof(*S.frames));
	S.nframes = calloc(S.nclasses + 1, sizeof(*S.nframes));
	S.steps = calloc(S.nclasses + 1, sizeof(*S.steps));
	S.accesses = calloc(S.nclasses + 1, sizeof(*S.accesses));
	if (!S.frames || !S.nframes || !S.steps || !S.accesses)
		goto out;
	for (size_t c = 0; c < S.nclasses; c++) {
		struct an_frame frames[AN_MAX_FRAMES];
		if (st->classes.v[c].label)
			continue;
		int n = class_frames(st, (uint32_t)c, frames);
		if (n < 0)
			continue;
		S.frames[c] = malloc((size_t)(n ? n : 1) * sizeof(*frames));
		if (!S.frames[c])
			goto out;
		memcpy(S.frames[c], frames, (size_t)n * sizeof(*frames));
		S.nframes[c] = n;
	}
	if ((err = gather_accesses(&S)) != 0)
		goto out;
	for (size_t c = 0; c < S.nclasses; c++)
		if (S.frames[c] && (err = prepare(&S, (uint32_t)c)) != 0)
			goto out;
	if ((err = judge_all(&S)) != 0)
		goto out;
	if ((err = label_all(&S)) != 0)
		goto out;
	err = st->oom ? -ENOMEM : 0;
out:
	for (size_t c = 0; S.frames && c < S.nclasses; c++)
		free(S.frames[c]);
	for (size_t c = 0; S.steps && c < S.nclasses; c++)
		free(S.steps[c]);
	free(S.frames);
	free(S.nframes);
	free(S.steps);
	free(S.accesses);
	mp_vec_free(&S.fns);
	mp_hashmap_fini(&S.fn_index);
	mp_hashmap_fini(&S.own);
	mp_hashmap_fini(&S.chain);
	mp_hashmap_fini(&S.total);
	return err;
}
