/* SPDX-License-Identifier: MIT */
/* Internals of the model: one set-associative array type serves caches,
 * TLBs and paging-structure caches alike. */
#ifndef MP_MODEL_INT_H
#define MP_MODEL_INT_H

#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "common/mp_memlevel.h"
#include "model/model.h"
#include "model/model_burst.h"

enum {
	MC_DIRTY = 1,
	MC_EXCL = 2, /* no other core has the line (MESI E/M) */
	/* burst sampling's first touches (mp_model_track_first): a line
	 * filled from DRAM for the first time, not yet referenced again
	 * (FIRST), or referenced again in its burst (REUSED); the burst's
	 * tag (mp_model_set_burst) in the high nibble */
	MC_FIRST = 4,
	MC_REUSED = 8,
	/* a data line seen in a second burst (the tag's), not since */
	MC_SECOND = MC_FIRST | MC_REUSED,
	MC_BURST = 0xf0,
	MC_BURST_SHIFT = 4,
	MC_MARKS = MC_FIRST | MC_REUSED | MC_BURST,
};

/* A set-associative array of keys. Everything about one set lies in one
 * block, so a lookup and the replacement that may follow touch a few
 * adjacent host cache lines instead of one line in each of several arrays:
 *   uint8_t  fp[ways16]    a byte of the key's hash, 0 = empty; ways16 is
 *                          ways rounded up to 16 (the padding stays 0)
 *   uint64_t order         LRU up to 16 ways: nibble i = the way of rank i
 *                          in recency (0 = most recent)
 *   uint32_t mru, lru      or, LRU over 16 ways: the ends of a list of the
 *                          ways in recency order
 *   uint32_t plru          or, PLRU: a tree of ways-1 bits
 *   uint8_t  flags[ways]   MC_*
 *   uint64_t tag[ways]     key + 1; 0 = empty
 *   uint32_t next[ways], prev[ways]
 *                          LRU over 16 ways: the list's links (next: older)
 *   uint32_t owner[ways]   only when made with owners
 * Up to 16 ways, the first three fill one host cache line, the block's
 * first (blocks are whole lines).
 * A lookup compares 16 fingerprints at once and the full tag only where one
 * matches; a miss, the common case of a streaming model, never reads the
 * tags. With the recency order in one word (or list), the LRU victim is a
 * shift (or the list's end) instead of a scan of the ways' use stamps.
 * Entry index: set << wshift | way (no division to find an entry's set). */
struct model_cache {
	uint32_t sets, ways; /* sets: the sets stored (model_cache_keep_every) */
	uint32_t all_sets; /* the sets of the geometry */
	unsigned keep_shift; /* only every (1 << keep_shift)-th set is stored */
	uint64_t set_mask; /* all_sets - 1 when all_sets is a power of two */
	unsigned __int128 mod_m; /* else ceil(2^128 / all_sets), for mc_mod */
	int pow2;
	unsigned repl; /* enum mp_repl */
	unsigned levels; /* PLRU tree depth: log2(ways) */
	uint32_t plru_set[32], plru_clr[32]; /* PLRU: the tree bits a use of way w sets and clears */
	uint8_t plru_leaf[256]; /* PLRU up to 8 ways: the leaf each tree word points to (mc_plru_victim) */
	unsigned wshift; /* ways <= 1 << wshift */
	int nibble_lru; /* LRU kept in `order` (ways <= 16), else in a list */
	uint32_t set_bytes, off_tag, off_order, off_links, off_owner, off_flags, off_plru; /* fingerprints at 0; 0: absent */
	uint8_t *mem;
};

struct model_victim {
	uint64_t key;
	uint32_t owner;
	uint8_t flags;
};

/* entries = sets * ways. 0 or -ENOMEM / -EINVAL (PLRU needs power-of-two ways
 * up to 32; entries must be a multiple of ways). */
int model_cache_init(struct model_cache *c, uint64_t entries, unsigned ways, unsigned repl, int with_owner);
void model_cache_fini(struct model_cache *c);

/* Set sampling: only keys that are multiples of n reach c, so only sets
 * that are multiples of n are used (n, a power of two, divides the sets):
 * keep those alone, an n-th of the memory (and of the host cache lines the
 * model's lookups miss). Empties c. 0 or -EINVAL / -ENOMEM (c unchanged). */
int model_cache_keep_every(struct model_cache *c, unsigned n);
void model_cache_clear(struct model_cache *c);

/* key % all_sets without a division (a 64-bit one waits 40-90 cycles on
 * every lookup of a cache of 3 * 2^n sets: Intel's LLCs of 20 ways, an
 * STLB of 1536 entries): with m = ceil(2^128 / d), the remainder is the
 * high 128 bits of (m * key mod 2^128) * d, exact for any 64-bit key and
 * 32-bit d (Lemire, Kaser and Kurz, "Faster Remainder by Direct
 * Computation"). */
static inline uint64_t mc_mod(const struct model_cache *c, uint64_t key)
{
	const unsigned __int128 low = c->mod_m * key;
	const uint64_t d = c->all_sets;
	const unsigned __int128 lo = (unsigned __int128)(uint64_t)low * d;
	return (uint64_t)(((unsigned __int128)(uint64_t)(low >> 64) * d + (lo >> 64)) >> 64);
}

/* The stored set of a key (its set, of all_sets, over the keeping's step). */
static inline uint64_t model_cache_set(const struct model_cache *c, uint64_t key)
{
	return (c->pow2 ? key & c->set_mask : mc_mod(c, key)) >> c->keep_shift;
}

static inline uint8_t *model_cache_block(const struct model_cache *c, uint64_t set)
{
	return c->mem + set * c->set_bytes;
}

static inline uint64_t model_cache_idx(const struct model_cache *c, uint64_t set, unsigned way)
{
	return set << c->wshift | way;
}

static inline uint64_t *mc_tag(const struct model_cache *c, uint64_t idx)
{
	return (uint64_t *)(model_cache_block(c, idx >> c->wshift) + c->off_tag) + (idx & ((1u << c->wshift) - 1));
}

static inline uint8_t *mc_flags(const struct model_cache *c, uint64_t idx)
{
	return model_cache_block(c, idx >> c->wshift) + c->off_flags + (idx & ((1u << c->wshift) - 1));
}

/* Only for caches made with owners. */
static inline uint32_t *mc_owner(const struct model_cache *c, uint64_t idx)
{
	return (uint32_t *)(model_cache_block(c, idx >> c->wshift) + c->off_owner) + (idx & ((1u << c->wshift) - 1));
}

/* The fingerprint of a key: never 0, which marks an empty way. */
static inline uint8_t mc_fp(uint64_t key)
{
	uint8_t f = (uint8_t)((key * 0x9e3779b97f4a7c15ull) >> 56);
	return f ? f : 1;
}

/* Bit i set: byte i of the 16 at p equals b. SSE2 is part of x86-64; the
 * loop is for other targets. */
static inline unsigned mc_match16(const uint8_t *p, uint8_t b)
{
#ifdef __SSE2__
	__m128i v = _mm_loadu_si128((const __m128i *)p);
	/* (b in every byte made in a general register: with _mm_set1_epi8 gcc
	 * stores b as a byte and loads it as a word, a store-forwarding stall) */
	__m128i splat = _mm_set1_epi32((int)(b * 0x01010101u));
	return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, splat));
#else
	unsigned m = 0;
	for (unsigned i = 0; i < 16; i++)
		m |= (unsigned)(p[i] == b) << i;
	return m;
#endif
}

/* Where a key goes in a cache: its stored set, the set's block and the
 * key's fingerprint. They depend on the key alone, so a lookup's serve the
 * insert that follows a miss (whatever happened to the set in between). */
struct mc_at {
	uint8_t *blk;
	uint64_t set;
	uint8_t fp;
};

static inline __attribute__((always_inline)) struct mc_at mc_at(const struct model_cache *c, uint64_t key)
{
	uint64_t set = model_cache_set(c, key);
	return (struct mc_at){ model_cache_block(c, set), set, mc_fp(key) };
}

/* Index of key's entry (at: mc_at's for it) or -1. */
static inline __attribute__((always_inline)) int64_t mc_find_at(const struct model_cache *c, const struct mc_at *at,
								uint64_t key)
{
	const uint64_t *tag = (const uint64_t *)(at->blk + c->off_tag), t = key + 1;
	uint32_t base = 0;
	do { /* (ways >= 1: no test before the first group) */
		/* padding ways match nothing: their fingerprint is 0 */
		for (unsigned m = mc_match16(at->blk + base, at->fp); m; m &= m - 1) {
			unsigned w = base + (unsigned)__builtin_ctz(m);
			if (tag[w] == t)
				return (int64_t)model_cache_idx(c, at->set, w);
		}
	} while ((base += 16) < c->ways);
	return -1;
}

/* Index of key's entry or -1. */
static inline int64_t model_cache_find(const struct model_cache *c, uint64_t key)
{
	const struct mc_at at = mc_at(c, key);
	return mc_find_at(c, &at, key);
}

/* The host lines of key's set (a hint: nothing changes). With write
 * intent: a miss goes on to an insert there. */
static inline void model_cache_prefetch(const struct model_cache *c, uint64_t key)
{
	const uint8_t *blk = model_cache_block(c, model_cache_set(c, key));
	for (uint32_t o = 0; o < c->set_bytes; o += 64)
		__builtin_prefetch(blk + o, 1);
}

/* The recency word of an LRU set of up to 16 ways. */
static inline uint64_t *mc_order(const struct model_cache *c, uint64_t set)
{
	return (uint64_t *)(model_cache_block(c, set) + c->off_order);
}

/* Way `way` becomes the most recent in a recency word: its nibble moves to
 * rank 0 and the ranks before it move down one. Only ranks below `ways`
 * hold ways; the first nibble equal to `way` there is its rank. */
static inline uint64_t mc_order_use(uint64_t order, unsigned way)
{
	const uint64_t ones = 0x1111111111111111ull;
	uint64_t x = order ^ (ones * way);
	/* lowest zero nibble of x: exact for the lowest one */
	uint64_t z = (x - ones) & ~x & (ones << 3);
	unsigned r4 = (unsigned)__builtin_ctzll(z) & ~3u; /* rank * 4 */
	uint64_t below = order & ((1ull << r4) - 1);
	uint64_t above = r4 + 4 < 64 ? order >> (r4 + 4) << (r4 + 4) : 0;
	return above | below << 4 | way;
}

/* An LRU set of over 16 ways: its list's ends (at off_order: most, least
 * recent) and links (next: the way used before, prev: after). */
static inline uint32_t *mc_list_ends(const struct model_cache *c, uint64_t set)
{
	return (uint32_t *)(model_cache_block(c, set) + c->off_order);
}

static inline void mc_list_use(const struct model_cache *c, uint8_t *blk, uint32_t way)
{
	uint32_t *ends = (uint32_t *)(blk + c->off_order);
	if (ends[0] == way)
		return;
	uint32_t *next = (uint32_t *)(blk + c->off_links), *prev = next + c->ways;
	/* out of the list (not the head, so it has a prev) */
	uint32_t p = prev[way], n = next[way];
	next[p] = n;
	if (ends[1] == way)
		ends[1] = p;
	else
		prev[n] = p;
	/* in at the head */
	next[way] = ends[0];
	prev[ends[0]] = way;
	ends[0] = way;
}

/* Tree-PLRU use of way `way` of the set of block blk. Tree nodes are
 * numbered 1..ways-1 in heap order; bit n of the set's word is node n: 0
 * evict from the left half next, 1 from the right. */
static inline void mc_plru_use(const struct model_cache *c, uint8_t *blk, unsigned way)
{
	uint32_t *word = (uint32_t *)(blk + c->off_plru);
	*word = (*word & ~c->plru_clr[way]) | c->plru_set[way];
}

/* Way `way` of the set of block blk becomes the most recently used. */
static inline __attribute__((always_inline)) void mc_touch_way(const struct model_cache *c, uint8_t *blk, unsigned way)
{
	if (c->repl != MP_REPL_LRU)
		mc_plru_use(c, blk, way);
	else if (c->nibble_lru) {
		uint64_t *order = (uint64_t *)(blk + c->off_order);
		if ((*order & 15) != way) /* (the most recent again: a page's next line) */
			*order = mc_order_use(*order, way);
	} else {
		mc_list_use(c, blk, way);
	}
}

/* Marks entry idx most recently used. */
static inline __attribute__((always_inline)) void model_cache_touch(struct model_cache *c, uint64_t idx)
{
	mc_touch_way(c, model_cache_block(c, idx >> c->wshift), (unsigned)(idx & ((1u << c->wshift) - 1)));
}

/* The leaf the tree of word `bits` points to (node numbering:
 * mc_plru_use). */
static inline unsigned mc_plru_walk(unsigned levels, uint32_t bits)
{
	unsigned node = 1;
	for (unsigned l = 0; l < levels; l++)
		node = node * 2 + ((bits >> node) & 1);
	return node - (1u << levels);
}

/* The leaf the set's tree points to: up to 8 ways (nodes 1..7, the low
 * byte of the word), a table's, made by mc_plru_walk (a walk is a chain of
 * dependent shifts, one per level, on every insert into L1 and L2). */
static inline unsigned mc_plru_victim(const struct model_cache *c, const uint8_t *blk)
{
	uint32_t bits = *(const uint32_t *)(blk + c->off_plru);
	if (c->levels <= 3)
		return c->plru_leaf[bits & 255];
	return mc_plru_walk(c->levels, bits);
}

/* The way an insert into the set of block blk takes: the lowest empty way first
 * (fingerprint 0; the padding past the ways is 0 too, hence the bound),
 * else the replacement policy's victim. */
static inline __attribute__((always_inline)) unsigned mc_victim_way(const struct model_cache *c, const uint8_t *blk)
{
	uint32_t base = 0;
	do { /* (as in mc_find_at) */
		unsigned m = mc_match16(blk + base, 0);
		if (m) {
			unsigned way = base + (unsigned)__builtin_ctz(m);
			if (way < c->ways)
				return way;
			break;
		}
	} while ((base += 16) < c->ways);
	if (c->repl == MP_REPL_PLRU)
		return mc_plru_victim(c, blk);
	if (c->nibble_lru)
		return (unsigned)(*(const uint64_t *)(blk + c->off_order) >> (4 * (c->ways - 1))) & 15;
	return ((const uint32_t *)(blk + c->off_order))[1];
}

/* Inserts key (absent; at: mc_at's for it), as most recently used; an
 * empty way first, else the replacement policy's victim. Returns the entry
 * index; *v gets the evicted entry and the return of *evicted says
 * whether there was one. Inline for the model's hot paths (a fill per
 * level of a missing line), where *v and *evicted stay in registers;
 * model_cache_insert elsewhere. */
static inline __attribute__((always_inline)) uint64_t mc_insert_at(struct model_cache *c, const struct mc_at *at,
								   uint64_t key, uint32_t owner, uint8_t flags,
								   struct model_victim *v, int *evicted)
{
	uint8_t *blk = at->blk;
	uint64_t *tag = (uint64_t *)(blk + c->off_tag);
	unsigned way = mc_victim_way(c, blk);
	uint32_t *own = c->off_owner ? (uint32_t *)(blk + c->off_owner) : NULL;
	uint8_t *fl = blk + c->off_flags;
	*evicted = 0;
	if (tag[way]) {
		*evicted = 1;
		v->key = tag[way] - 1;
		v->flags = fl[way];
		v->owner = own ? own[way] : MP_MODEL_NO_OWNER;
	}
	tag[way] = key + 1;
	blk[way] = at->fp;
	fl[way] = flags;
	if (own)
		own[way] = owner;
	mc_touch_way(c, blk, way);
	return model_cache_idx(c, at->set, way);
}

/* mc_insert_at, the key's place found here. */
static inline __attribute__((always_inline)) uint64_t mc_insert(struct model_cache *c, uint64_t key, uint32_t owner,
								uint8_t flags, struct model_victim *v, int *evicted)
{
	const struct mc_at at = mc_at(c, key);
	return mc_insert_at(c, &at, key, owner, flags, v, evicted);
}

/* mc_insert, out of line. */
uint64_t model_cache_insert(struct model_cache *c, uint64_t key, uint32_t owner, uint8_t flags, struct model_victim *v,
			    int *evicted);

/* Removes entry idx. */
static inline void model_cache_drop(struct model_cache *c, uint64_t idx)
{
	/* empty entries are the first victims (model_cache_insert): the
	 * recency order needs no change */
	*mc_tag(c, idx) = 0;
	*mc_flags(c, idx) = 0;
	model_cache_block(c, idx >> c->wshift)[idx & ((1u << c->wshift) - 1)] = 0;
}

/* Entry indices run below this (with holes when ways is not a power of two). */
static inline uint64_t model_cache_nidx(const struct model_cache *c)
{
	return (uint64_t)c->sets << c->wshift;
}

/* Index idx (below model_cache_nidx) is an entry and holds a key. */
static inline int model_cache_used(const struct model_cache *c, uint64_t idx)
{
	return (idx & ((1u << c->wshift) - 1)) < c->ways && *mc_tag(c, idx);
}

static inline uint64_t model_cache_key(const struct model_cache *c, uint64_t idx)
{
	return *mc_tag(c, idx) - 1;
}

/* The model's state, shared by its files (model.c: the access path;
 * model_burst.c: burst sampling's entry points). */
#define VA_MASK ((1ull << 48) - 1)
#define PT_BIT (1ull << 62) /* a paging-structure line (its walker's) */
#define PHYS_BIT (1ull << 61) /* a physical line: no address-space bits */
#define SPACE_SHIFT 42

struct model_core {
	struct model_cache l1, l2;
	struct model_cache dtlb[MP_PAGE_SIZES]; /* an absent array: sets == 0 */
	struct model_cache stlb;
	struct model_cache psc[3]; /* PML4E, PDPTE, PDE caches */
	unsigned socket;
	int active;
	uint64_t last_key, last_idx; /* fast path: the line of the last reference */
	uint64_t last_page, last_tlb_idx; /* and its L1 DTLB entry */
	int last_tlb_ps;
};

struct mp_model {
	struct mp_machine mach;
	unsigned ncores, line_shift;
	struct model_core *core;
	struct model_cache *llc; /* one per socket */
	unsigned *active; /* cores that made a reference, in order */
	unsigned nactive;
	uint8_t *socket_active;
	unsigned nsockets_active;
	unsigned lat[MP_LVL_COUNT]; /* level_latency's, for the levels line_ref returns */
	mp_model_wb_fn wb;
	void *wb_arg;
	uint64_t seq; /* mp_model_seq */
	uint64_t sample_mask; /* set sampling: lines with key & mask != 0 stay out of L2 and the LLC */
	/* mp_model_range_begin: pages (page keys + 1, open addressing) that
	 * other cores' L1s held lines of; held_cap 0 = nothing noted */
	uint64_t *held;
	size_t held_cap, held_n;
	int held_bad; /* the note failed (no memory): skip nothing */
	uint64_t skipped_pages; /* pages skipped since mp_model_range_begin */
	/* a bit per LLC set (any socket) that has evicted a line, and while
	 * mp_model_flush_turned runs (1), writebacks only from those sets;
	 * while mp_model_flush_told runs (2), all, none turning */
	uint64_t *turned;
	int flush_turned;
	int wb_turned; /* in a writeback callback of the end's flushes: llc_set_turned of its line */
	/* mp_model_track_first: the call, a bitmap of the hashes of the data
	 * lines filled so far (1 << first_log2 bits), one of the pages walked
	 * by each core (1 << page_log2), the burst's tag as MC_BURST holds it */
	mp_model_first_fn first_fn;
	mp_model_same_fn same_fn;
	mp_model_first_walk_fn first_walk_fn;
	void *first_arg;
	uint64_t *first_seen, *page_seen;
	unsigned first_log2, page_log2;
	uint8_t burst_tag;
	uint64_t first_lines, first_pages; /* first fills (data lines) and walks marked so far */
};

/* A line's key: physical when paddr is known, else (space, address);
 * space and addr as mp_model_access masks them. */
static inline uint64_t line_key(const struct mp_model *m, uint32_t space, uint64_t addr, uint64_t paddr)
{
	return paddr ? PHYS_BIT | (paddr & VA_MASK) >> m->line_shift
		     : (uint64_t)space << SPACE_SHIFT | addr >> m->line_shift;
}

/* The pieces of mp_model_access that a model on several threads
 * (model_par.c) runs apart. The front: the TLBs and paging-structure
 * caches of a reference by core (< ncores; the core becomes active), as
 * mp_model_translate changes them, and the keys of the lines
 * mp_model_access would then reference in its order: the walk's
 * paging-structure lines (out->walk_refs), then the data line. Returns
 * their number; out as mp_model_translate gives it. */
#define MODEL_FRONT_KEYS 5
unsigned model_front(struct mp_model *m, unsigned core, uint32_t space, uint64_t addr, uint64_t paddr,
		     unsigned page_shift, uint32_t owner, struct mp_model_out *out, uint64_t keys[MODEL_FRONT_KEYS]);
/* The caches' part: one reference to the line of a key model_front gave
 * (walk lines are loads), by core; the level that served it. A line's
 * sets in every cache, its copies in other cores and the victims it
 * displaces all share its key modulo the smallest cache's set count, so
 * models fed the keys of disjoint classes of that modulus never meet. */
unsigned model_line(struct mp_model *m, unsigned core, uint64_t key, int write, uint32_t owner);
/* That modulus: the largest power of two dividing every data cache's
 * set count (line keys with equal residues share their sets). */
uint64_t model_class_mod(const struct mp_model *m);
/* n (1..64) references by core to key's line again, the first right
 * after the line's last reference (bit i of writes: the i-th is a store),
 * by one owner, as the serial replay makes them: a repeat that changes
 * nothing (mp_model_access's `again`) is an L1 hit, another a reference.
 * lv[i]: the i-th one's level, ORed with 0x80 for a store. Returns how
 * many were not L1 hits (a line the reference's own fill pushed out of L1
 * through an inclusive LLC). */
unsigned model_repeats(struct mp_model *m, unsigned core, uint64_t key, uint64_t writes, unsigned n, uint32_t owner,
		       uint8_t *lv);
/* A model that will only see line keys of one residue modulo n (a power
 * of two dividing every cache's set count): L2 and the LLC keep that
 * residue's sets alone, an n-th of their memory (model_cache_keep_every:
 * a set's index over n names it for any one residue). Call before the
 * first reference. 0 or -ENOMEM (the model is then unusable). */
int model_keep_residue(struct mp_model *m, unsigned n);
/* Core k becomes active (cores are snooped in the order they became so). */
void model_activate(struct mp_model *m, unsigned core);
unsigned model_nactive(const struct mp_model *m);
/* A hint: the host memory of key's L2 and LLC sets for core. */
void model_prefetch_key(const struct mp_model *m, unsigned core, uint64_t key);
/* The second hint, once the first has arrived: the LLC set key's L2
 * victim would go to, if key would miss L2 (mp_model_prefetch_victim). */
void model_prefetch_victim_key(const struct mp_model *m, unsigned core, uint64_t key);

#endif
