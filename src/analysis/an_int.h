/* SPDX-License-Identifier: MIT */
/* Internal state shared by the analysis files, one stage each, in the
 * order of tests/layout/stages.txt (CONTRIBUTING.md): an_run.c the entry;
 * an_replay.c the replay and attribution (an_procs.c: a file's processes
 * at once); an_registry.c classes, stacks,
 * threads, processes; an_symbols.c modules and statics; an_sites.c
 * allocation sites, the wrapper judgement and labels; an_bursts.c burst
 * sampling's estimates; an_result.c the final tables. */
#ifndef MP_AN_INT_H
#define MP_AN_INT_H

#include <pthread.h>
#include <stdio.h>

#include "analysis/an_objmap.h"
#include "analysis/analysis.h"
#include "common/hashmap.h"
#include "common/vec.h"
#include "model/model.h"
#include "trace/trace_reader.h"

struct sym_ctx;
struct an_pat_stream; /* an_pattern.h */

struct an_tls_var {
	char *name;
	uint64_t offset, size; /* within the module's TLS block */
};

struct an_module {
	char *path;
	uint64_t bias, lo, hi;
	uint64_t time; /* when it was loaded (MODULE's time) */
	MP_VEC(struct an_tls_var) tls; /* read from the ELF file on first use */
	int tls_loaded;
};

struct an_proc {
	uint64_t id, parent_id, fork_epoch;
	uint32_t pid, ppid, image;
	char *exe;
	int instrumented, have_record, ended;
	uint64_t start_time; /* PROCESS record's time: places samples among exec images */
	uint64_t end_status, recorded, accesses;
	uint64_t lost, handler_jumps; /* END: accesses of handlers too deep to record; longjmps out of handlers */
	MP_VEC(uint32_t) streams;
	MP_VEC(struct an_module) modules;
	struct an_objmap map;
	struct mp_hashmap groups; /* group id -> class */
	struct sym_ctx *sym;
	int sym_loading; /* its modules' debug info is loading ahead (an_sym_load_ahead) */
	int roi_depth;
	uint32_t *kids; /* the processes it forked, by fork epoch (an_replay_all) */
	uint32_t nkids, kids_next; /* and the first whose fork its replay has not passed */
	uint32_t parent_at, kid_at; /* its parent's index (or UINT32_MAX), and its place in its kids */
	struct an_forks *forks; /* what its children's maps are made from (an_fork.c) */
};

#define AN_LOOKUPS 6 /* object lookups a stream keeps: a loop's stack, globals and blocks (an_replay.c) */
/* the longest skip a DROPPED record may tell of in a trace that does not
 * give its bursts: a day of a thread's accesses at 10 G a second */
#define AN_SKIP_MAX (1ull << 50)
#define AN_IP_BITS 5 /* code addresses a stream keeps at hand: 1 << this, in pairs of slots (an_replay.c, fn_of) */
#define AN_PAT_RECENT 4 /* pattern summaries a stream keeps at hand */
#define AN_PART_RECENT 8 /* burst sampling: parts a stream keeps at hand (a power of two) */
/* translations a stream keeps at hand for the model (a power of two):
 * allocheavy's and smallobj's references go from page to page */
#define AN_PH_SLOTS 64
#define AN_OWN_CACHE 64 /* model line owners a stream keeps at hand (a power of two) */
#define AN_PAIR_BITS 3 /* (class, function) tallies a stream keeps at hand: 1 << this */

#define AN_AHEAD 16 /* lookahead (an_look_ahead), records: covers a host memory miss or two */
#define AN_AHEAD_BATCH 4 /* records the lookahead decodes at a time (an_look_ahead_moves) */
/* After its translation slot, a line's model sets are hinted this many
 * records later, and the set its L2 victim will go to later still: each
 * hint reads what the one before it fetched. */
#define AN_AHEAD_SETS 8
#define AN_AHEAD_VICTIM 12
/* ... which pays from this size of the model's sets (mp_model_set_bytes):
 * below, they stay in the host's caches and the hints cost more than they
 * save (Nehalem's 1.1 MiB: randacc +17%) */
#define AN_AHEAD_SET_BYTES (4u << 20)
#define AN_AHEAD_KEEP 256 /* records looked ahead for after a reference missed the DTLB */
#define AN_AHEAD_CREDIT 16 /* and added after a line missed L2, up to AN_AHEAD_KEEP */
#define AN_AHEAD_PAGES 16384 /* pages from which the lookahead pays (tables of 1.5 MiB and more) */
/* Lookups in the map: a lookup that misses the stream's own arms the
 * lookahead when the map holds this many objects (its tree and objects
 * of 2 MiB and more: past the host's L2). Each record's object is hinted
 * in steps (an_objmap_hint_step), one every AN_AHEAD_STEP records. */
#define AN_AHEAD_OBJECTS 32768
#define AN_AHEAD_STEP 4
/* Where the map's shadow names the small blocks, a granule's name is read
 * this many records after its slot was hinted, and its object hinted. */
#define AN_AHEAD_NAME 8

struct an_chunk_ref {
	uint64_t off;
	uint32_t accesses;
	uint32_t seq; /* the header's: a thread's chunks replay in its order */
};

/* A translation a stream keeps at hand (an_stream.ph): page, frame,
 * flags, and the times [lo, hi) it holds for (hi 0: none). */
struct an_ph_slot {
	uint64_t vpage, paddr, lo, hi;
	uint32_t flags;
	int ok;
};
/* The slots of a stream that has none of its own: empty, read and never
 * written (an_model.c). */
extern struct an_ph_slot an_ph_none[AN_PH_SLOTS];

struct an_stream {
	uint32_t proc, tid, thread;
	/* its chunks: file offset and header's access count (trace_format.h:
	 * MP_CHUNK_PLAIN | accesses, or 0) */
	MP_VEC(struct an_chunk_ref) chunks;
	size_t next_chunk;
	uint8_t *data;
	size_t cap;
	struct trace_dec dec;
	struct trace_rec rec;
	/* a second decoder up to ahead_n records ahead of dec, whose accesses
	 * get the host memory they will need prefetched (an_look_ahead) */
	struct trace_dec ahead;
	unsigned ahead_n;
	unsigned ahead_on; /* records to look ahead for: while pages miss the DTLB or lookups the stream's */
	uint64_t ahead_page; /* the last page hinted */
	uint64_t miss_page; /* the last page that missed the DTLB (an_model.c) */
	uint64_t miss_line; /* the last line that missed L2 while sets are hinted */
	uint64_t span_stack; /* burst sampling: the stack's deepest page in the footprint's bound, 0: none */
	int done, warned;
	uint64_t epoch;
	uint64_t stack_lo;
	/* stream-local stack id -> an_stack index, and in the high half its
	 * heap class + 1 once a malloc used it (0: not yet) */
	struct mp_hashmap stack_ids;
	/* the last objects looked up, the latest first: each valid for [lo,
	 * hi) while the map has not changed there since change number gen
	 * (stream_lookup) */
	struct an_lookup {
		struct an_obj *obj;
		uint64_t gen, lo, hi;
	} look[AN_LOOKUPS];
	uint32_t last_cls;
	uint64_t last_ip;
	uint32_t last_fn; /* an_ip index + 1 */
	/* the code address before last_ip, and its an_ip + 1 (0: none): a
	 * loop's load and store alternate two */
	uint64_t other_ip;
	uint32_t other_fn;
	/* counts of the current run of counted accesses to class run_cls, not
	 * yet added to the class (an_replay.c, flush_run); and of the runs
	 * before, not yet added to the thread, process and totals (end of the
	 * stream) */
	struct an_counts run, sum;
	uint32_t run_cls;
	/* tallies added to the thread and totals at the end of the stream:
	 * accesses outside --roi, accesses skipped (DROPPED records), and the
	 * model's line refs indexed by physical address and in THP */
	uint64_t outside_roi, skipped, refs_physical, refs_thp;
	/* skips so far: which burst the stream is in. A skip the runtime
	 * broke off for events (an allocation-heavy program's mallocs) leaves
	 * a DROPPED record for each part: only the first after recorded
	 * accesses (in_skip clear) begins a skip */
	unsigned bursts;
	int in_skip;
	/* --sample-bursts at replay (st->replay_on): accesses left in the
	 * current burst or skip, which of the two, and the skip's accesses not
	 * yet told (as a DROPPED record would) */
	uint64_t replay_left, replay_skipped;
	int replay_skipping;
	/* burst sampling (st->parts): classes looked up in an_part_get and
	 * their parts + 1 (0: none), in slot cls % AN_PART_RECENT (a loop's
	 * accesses go to a few objects in turn: one slot missed at each) */
	struct {
		uint32_t cls, part;
	} part_recent[AN_PART_RECENT];
	/* opts->patterns: the summary of (pat_cls, this thread), NULL if none
	 * yet, and those of recent classes (any slot; a new one replaces them
	 * in turn, pat_next): a loop body touches a few objects in turn */
	struct an_pat_stream *pat;
	uint32_t pat_cls;
	struct an_pat_recent {
		struct an_pat_stream *pat;
		uint32_t cls;
	} pat_recent[AN_PAT_RECENT];
	unsigned pat_next;
	struct an_ip_slot {
		uint64_t ip;
		uint32_t fn;
	} ipc[1u << AN_IP_BITS]; /* recent code addresses and their an_ip + 1 */
	/* model, burst sampling: the class of the run of L1 hits in fast_n
	 * (an_model_fast_add) */
	uint32_t fast_cls;
	unsigned core, core_of; /* model: core of the thread, for cpu core_of - 1 */
	/* model, --thread-map spread: its thread's place among the file's
	 * threads, the index the serial replay gives it (an_replay_places) */
	uint32_t place;
	/* model: the translations looked up last, a slot for each page
	 * number modulo AN_PH_SLOTS (an_ph_slot). Made at the stream's first
	 * lookup and freed at its end (a program's 20,000 short threads need
	 * them while each runs, not all at once): an_ph_none before and
	 * after; ph_last: the last lookup's */
	struct an_ph_slot *ph;
	unsigned ph_last;
	/* model: L1 hits not yet in the thread's and total's rows (its
	 * end), and, under set sampling, L1 misses outside the sample */
	uint64_t fast_n, fast_unk;
	/* model: the last one-line reference, while mp_model_seq stays at
	 * rep_seq, and which kinds of it change nothing (MP_AGAIN_*) */
	uint64_t rep_a, rep_seq;
	/* model: owners of recent references (an_model.c, owner_of): object
	 * row and code address, and the owner's index + 1 (0: none), in the
	 * slot of their hash; a loop body's few objects and code addresses */
	struct an_own_slot {
		uint32_t row, fn, own;
	} ownc[AN_OWN_CACHE];
	uint32_t rep_cls, rep_fn; /* rep_fn: the code's function (a store's owner has it) */
	/* counted accesses per (class << 32 | an_ip + 1), the wrapper
	 * judgement's evidence (an_sites.c): a few at hand, in the slot of
	 * their hash, the rest in st->pairs (key 0: empty) */
	struct an_pair_slot {
		uint64_t key, n;
	} pairs[1u << AN_PAIR_BITS];
	unsigned rep_core;
	uint8_t rep_again, rep_shift, rep_phys, rep_thp;
	unsigned cpu; /* CPU of the latest TIME record or event */
	/* model lookahead, when it hints the model's sets (last: out of the
	 * way of the fields above, which every record reads): the last
	 * AN_AHEAD records looked at, each new line's address + 1 (0: none)
	 * and, once translated, its frame and what was hinted (AN_AHEAD_SETS;
	 * the model on threads: nothing, each worker hints its own) */
	struct {
		uint64_t a1, paddr;
		unsigned hinted;
	} ahead_lines[AN_AHEAD];
	uint64_t ahead_line; /* the last line put there */
	unsigned ahead_seq;
	/* lookahead among many objects: of the last AN_AHEAD accesses looked
	 * at off the stream's lookups, the address + 1 (0: none) and the way
	 * down the map to its object so far */
	struct {
		uint64_t a1;
		struct an_objmap_hint h;
	} ahead_objs[AN_AHEAD];
	unsigned ahead_oseq;
	unsigned ahead_tree; /* ahead_oseq of the last way down the tree begun */
	/* and through the map's shadow: of the last AN_AHEAD records, the
	 * slot of the granule hinted (NULL: none); the last granule hinted */
	const uint32_t *ahead_names[AN_AHEAD];
	uint64_t ahead_granule;
	/* of the last AN_AHEAD records the lookahead decoded (in the slot of
	 * ahead_oseq), each access as decoded, with the decoder's position
	 * before it (at; NULL: not an access) and its state after, for the
	 * replay to take instead of decoding it again (an_ahead_taken) */
	struct an_ahead_acc {
		const uint8_t *at, *p;
		uint64_t last_addr, last_ip, prev_ip;
		struct trace_acc a;
		/* the small block the map's shadow named for it, and the map's
		 * generation then (obj NULL: none) */
		const struct an_obj *obj;
		uint64_t gen;
	} ahead_acc[AN_AHEAD];
	/* of the access the replay took last from the lookahead: its address
	 * and the block named for it (an_ahead_taken; obj NULL: none); the
	 * last block the replay took so (an_replay.c, ahead_lookup) */
	struct {
		uint64_t addr, gen;
		const struct an_obj *obj, *last;
	} ahead_named;
};

struct an_stack {
	uint32_t proc;
	int n;
	uint64_t *frames;
};

struct an_ip {
	uint32_t proc;
	uint32_t thread; /* burst sampling: the thread whose accesses these are; else UINT32_MAX */
	uint64_t ip;
	struct an_counts c;
	struct an_mem mem;
	uint64_t fast_l1; /* model: L1 hits not yet in mem (an_model_finish) */
	uint64_t fast_unk; /* model: L1 misses outside the set sample not yet in mem */
	struct an_faults faults;
	/* the class + 1 of its latest counted accesses and how many, not yet
	 * in the wrapper judgement's tallies (an_replay.c, ip_pair): a code
	 * address mostly touches one object row */
	uint32_t pair_cls;
	uint64_t pair_n;
};

/* Burst sampling (record --sample-bursts): one thread's share of a class's
 * figures. A thread's estimates are its recorded figures x its own factor,
 * (recorded + skipped) / recorded, known only once its stream has ended: so
 * class figures are kept per (class, thread) until then (an_bursts.c,
 * an_bursts_apply). Code addresses and threads are kept per thread anyway. */
struct an_part {
	uint32_t cls, thread;
	struct an_counts c;
	struct an_mem mem;
};

struct an_model; /* an_model_int.h */
/* What the replay's loops need of the model to take a repeated reference
 * without a call (an_model_repeat): its line mask and mp_model_seq (the
 * model on threads: a counter of its submissions), and whether the model
 * runs on threads. */
struct an_model_rep {
	uint64_t line_mask;
	const uint64_t *seq;
	int par;
};
struct an_phys; /* an_phys.c */
#define AN_PHYS_MAX_PAGES (1ull << 28) /* translations kept at most (an_phys_load) */
struct an_smp; /* an_samples.c */
struct an_cpu; /* an_cputime.c */
struct an_numa; /* an_numa.c */

struct an_par; /* an_procs.c */

struct an_state {
	const struct an_opts *opts;
	struct an_result *res;
	const char *path; /* the file (an_procs.c opens a reader of its own for each process) */
	struct trace_reader *reader;
	/* the processes replayed at once (an_procs.c): the file's state while
	 * they run, and each one's own state, or NULL: one after another */
	struct an_par *par;
	/* the processes replayed at once: held around every use of a
	 * process's sym ctx, which a child's replay reads too (the stacks of
	 * the objects it inherited are its parent's); NULL: one replay */
	pthread_mutex_t *sym_mu;
	MP_VEC(struct an_proc) procs;
	unsigned sym_loads; /* processes whose debug info loads ahead */
	MP_VEC(struct an_stream) streams;
	MP_VEC(struct an_class) classes;
	MP_VEC(uint32_t) class_stack; /* class -> an_stack index, UINT32_MAX if labelled */
	MP_VEC(struct an_stack) stacks;
	MP_VEC(struct an_thread) threads;
	MP_VEC(struct an_ip) ips;
	/* burst sampling: class figures per (class, thread), instead of in the
	 * classes and totals; parts_on: the trace says it was recorded in bursts */
	MP_VEC(struct an_part) parts;
	struct mp_hashmap part_index; /* (thread << 32 | class) + 1 -> parts index */
	struct an_part part_sink; /* an_part_of's answer on ENOMEM (the replay then fails) */
	int parts_on;
	/* the longest skip a DROPPED record may tell of: the sample_bursts
	 * meta's OFF, else AN_SKIP_MAX; a longer one is damage */
	uint64_t skip_max;
	/* the bursts' lengths (ON, OFF): the sample_bursts meta's, or the
	 * replay's (an_opts.burst_on, replay_on set: the replay drops the
	 * skips' accesses of a full trace as the recorder would have); 0 0
	 * when not sampled */
	uint64_t burst_on, burst_off;
	int replay_on;
	MP_VEC(char *) warnings;
	struct mp_hashmap proc_index, class_index, stack_index, thread_index, ip_index;
	struct an_smp *smp; /* sampled sources (an_samples.c), NULL when none */
	struct an_cpu *cpu; /* the inst source's CPU-time samples (an_cputime.c), NULL when none */
	uint32_t unknown_cls;
	struct an_model *model; /* NULL unless opts->machine */
	struct an_model_rep model_rep; /* set with model */
	struct an_numa *numa; /* NULL unless a NUMA topology is simulated or asked for */
	MP_VEC(uint64_t) pagemap_chunks; /* file offsets of PAGEMAP chunks */
	struct an_phys *phys; /* translations, NULL if none were recorded */
	uint64_t nchunks, chunks_done;
	int oom, has_forks;
	uint32_t run_pid; /* the program's pid (its RUN_END's), 0 if unknown */
	/* what the file may have the replay hold (an_bound) and what it holds:
	 * the threads' decoded records (their current chunks), live objects
	 * (the map of the process replayed: made as its replay starts, gone
	 * as it ends), interned stack frames; *_warned: past it, said once.
	 * Threads and code addresses past theirs go to one row each
	 * (thread_sink, an_ip_get) */
	uint64_t file_bytes;
	uint64_t held, held_max;
	uint64_t objects_live, objects_max;
	uint64_t frames, frames_max;
	uint64_t threads_max, ips_max;
	uint32_t thread_sink; /* + 1, 0: none yet */
	int held_warned, objects_warned, frames_warned, threads_warned, ips_warned;
	/* counted accesses per (class with an allocation stack << 32 | an_ip
	 * + 1), for the wrapper judgement (an_sites.c); pairs past pairs_max
	 * are not kept (the judgement then has less evidence) */
	struct mp_hashmap pairs;
	uint64_t pairs_max;
};

/*
 * Bounds on what a file may have the analysis hold (docs/trace-format.md,
 * "Bounds"). A few bytes can claim any amount: a varint count, a zstd
 * frame of one record repeated (64 MiB from 2 KiB, each with another code
 * address or object). Each bound is a floor or so many per KiB of the
 * file, whichever is more; real recordings stay far below (their threads'
 * chunks are at most 1 MiB, and a record costs a byte of file or more).
 * Past a bound is damage: warned, left out.
 */
#define AN_HELD_FLOOR (1ull << 30) /* decoded records held at once: 1,000 threads' full chunks */
#define AN_HELD_PER_KIB (16u << 10)
#define AN_PAGES_FLOOR (1ull << 22) /* page translations: 16 GiB of 4 KiB pages */
#define AN_PAGES_PER_KIB 1024 /* (~120 bytes of table each) */
#define AN_SAMPLES_FLOOR (1ull << 20) /* samples kept (a recording's take ~2 bytes each) */
#define AN_SAMPLES_PER_KIB 1024
#define AN_OBJECTS_FLOOR (1ull << 22) /* objects live at once, every process together */
#define AN_OBJECTS_PER_KIB 1024
#define AN_FRAMES_FLOOR (1ull << 22) /* stack frames interned (32 MiB) */
#define AN_FRAMES_PER_KIB 1024
#define AN_THREADS_FLOOR (1ull << 16) /* threads (a thread's first chunk alone takes more) */
#define AN_THREADS_PER_KIB 16
#define AN_IPS_FLOOR (1ull << 18) /* code addresses (~700 bytes of tallies each) */
#define AN_IPS_PER_KIB 64
#define AN_PAGE_ROWS_FLOOR (1ull << 19) /* pages with a row of the TLB view (~500 bytes each, all told) */
#define AN_PAGE_ROWS_PER_KIB 64
#define AN_PLACED_FLOOR (1ull << 22) /* pages NUMA placement remembers (16 GiB) */
#define AN_PLACED_PER_KIB 1024
#define AN_PAIRS_FLOOR (1ull << 20) /* (class, code address) tallies of the wrapper judgement */
#define AN_PAIRS_PER_KIB 64

static inline uint64_t an_bound(const struct an_state *st, uint64_t floor, uint64_t per_kib)
{
	/* (file sizes are far below 2^48: no overflow) */
	uint64_t b = st->file_bytes / 1024 * per_kib;
	return (b > floor ? b : floor) >> st->opts->bounds_shift;
}

/* A count estimated from a sample: v x f, rounded (burst sampling's
 * factors, an_bursts.c's an_bursts_apply and the tables scaled after it). */
static inline uint64_t an_scaled(uint64_t v, double f)
{
	if (f == 1.0)
		return v;
	/* (past what a uint64_t holds, a damaged trace's factor: its largest
	 * value, not undefined behaviour) */
	double x = (double)v * f + 0.5;
	return x < 18446744073709551616.0 ? (uint64_t)x : UINT64_MAX;
}

/* an_table.c: calloc(n, size) for a big table probed at random: its pages written up
 * front (none left to the shared zero page), and transparent huge pages
 * asked for, so a probe costs no host TLB miss. Free with free(). */
void *an_table_calloc(size_t n, size_t size);
/* A linear-probing table of cap entries of size bytes copied into a new
 * one of ncap: each used entry (used(e)) at its home(e, ncap) or the next
 * free slot on. The new table (an_table_calloc), or NULL on ENOMEM; tab is
 * left to the caller. */
void *an_table_regrow(const void *tab, size_t cap, size_t ncap, size_t size, size_t (*home)(const void *e, size_t cap),
		      int (*used)(const void *e));

/* an_phys.c: translations over time (PAGEMAP chunks); keep: into a table
 * the model and NUMA placement look up (st->phys), else the records are
 * only read through, for what they say of the file. */
int an_phys_load(struct an_state *st, int keep);
void an_phys_free(struct an_state *st);
/* An empty table (NULL on ENOMEM); an_phys_del frees it (NULL is fine). */
struct an_phys *an_phys_new(void);
void an_phys_del(struct an_phys *ph);
/* Page vpage of pid had frame pfn (0: none) as of time. 0 or -ENOMEM. */
int an_phys_add(struct an_phys *ph, uint32_t pid, uint64_t vpage, uint64_t pfn, uint32_t flags, uint64_t time);
/* an_phys_lookup through the kept answers: 1 and *paddr, *flags when
 * vaddr had a frame at time; either way the answer holds for every time in
 * [*lo, *hi) (OUT). */
int an_phys_translate(struct an_phys *ph, uint32_t pid, uint64_t vaddr, uint64_t time, uint64_t *paddr, uint32_t *flags,
		      uint64_t *lo, uint64_t *hi);
/* Prefetches the table slot of (pid, vaddr)'s page. */
void an_phys_prefetch(const struct an_phys *ph, uint32_t pid, uint64_t vaddr);
/* 1 and *paddr (*flags: MP_PAGEMAP_*) if vaddr of pid had a frame at time. */
int an_phys_lookup(const struct an_state *st, uint32_t pid, uint64_t vaddr, uint64_t time, uint64_t *paddr,
		   uint32_t *flags);
/* 1 and the (pid, vaddr) whose page had paddr's frame at time (the latest
 * before it, else the first after): the reverse page table. */
int an_phys_reverse(const struct an_state *st, uint64_t paddr, uint64_t time, uint32_t *pid, uint64_t *vaddr);

/* The st->ips index of code address ip of process proc (and of thread,
 * under burst sampling; else UINT32_MAX), made on first sight; past the
 * file's bound (an_bound), new addresses share address 0's. UINT32_MAX on
 * ENOMEM (st->oom set). */
uint32_t an_ip_get(struct an_state *st, uint32_t proc, uint32_t thread, uint64_t ip);

/* an_part_get past the stream's last answer. */
uint32_t an_part_find(struct an_state *st, struct an_stream *s, uint32_t cls);

/* Burst sampling: the st->parts index of (cls, s's thread), made on first
 * use; UINT32_MAX on ENOMEM (st->oom set). Only while st->parts_on.
 * Inline: the model asks it for every access, mostly for the class
 * asked before. */
static inline uint32_t an_part_get(struct an_state *st, struct an_stream *s, uint32_t cls)
{
	const unsigned k = cls % AN_PART_RECENT;
	if (s->part_recent[k].part && s->part_recent[k].cls == cls)
		return s->part_recent[k].part - 1;
	return an_part_find(st, s, cls);
}

/* The part itself (valid until the next part is made). */
static inline struct an_part *an_part_of(struct an_state *st, struct an_stream *s, uint32_t cls)
{
	uint32_t i = an_part_get(st, s, cls);
	return i == UINT32_MAX ? &st->part_sink : &st->parts.v[i];
}

/* an_sites.c: allocation sites. After the replay and an_pairs_finish:
 * judges which functions are allocation wrappers (from the stacks and
 * st->pairs) and labels every class with an allocation stack; 0 or
 * -ENOMEM. */
int an_sites_label(struct an_state *st);
/* an_pairs.c: the tallies code addresses keep go to st->pairs (after
 * the replay, before an_sites_label). */
void an_pairs_finish(struct an_state *st);
/* A stream's slot of (class, code address) tallies to st->pairs, and then
 * empty; all of the stream's (at its end). */
void an_pair_spill(struct an_state *st, struct an_pair_slot *e);
void an_pairs_flush(struct an_state *st, struct an_stream *s);
/* an_replay.c: fetches the stream's next record into s->rec; sets s->done
 * at the end. */
void an_cursor_advance(struct an_state *st, struct an_stream *s);
/* an_replay_skip.c, burst sampling at replay: the next chunks a skip
 * drops whole; the stream's pending access falls in a skip: it and the
 * rest of the skip dropped (1: the next burst's first access pending in
 * s->rec; 0: a record that is not an access, or the end). */
void an_replay_skip_chunks(struct an_state *st, struct an_stream *s);
int an_replay_skip(struct an_state *st, struct an_stream *s);
/* During the replay, before the judgement: 1 if pattern is in a label
 * class cls (with an allocation stack) may get, whichever of the frames
 * above its allocator the judgement takes for wrappers. */
int an_sites_may_match(struct an_state *st, uint32_t cls, const char *pattern);
/* The labels an_sites_may_match looks for a pattern in, each given to fn
 * (context: a label with its calling context, given only with contexts:
 * a pattern with " <- " is looked for in those too) until fn returns
 * non-zero, which is returned; else 0. */
typedef int (*an_label_fn)(void *arg, const char *label, int context);
int an_sites_labels(struct an_state *st, uint32_t cls, int contexts, an_label_fn fn, void *arg);

/* an_model.c: the memory-system model over the replay (no-ops without one) */
int an_model_init(struct an_state *st);
void an_model_fini(struct an_state *st);
/* Models one access of stream s to class cls; counted: inside --roi. */
void an_model_access(struct an_state *st, struct an_stream *s, uint32_t cls, const struct trace_rec *r,
		     int counted, struct mp_outcome *out);
/* Adds the stream's L1 hits (an_model_count_fast) and L1 misses outside
 * the set sample, not yet in its thread's row, to the tables. */
void an_model_flush_fast(struct an_state *st, struct an_stream *s);

/* n more L1 hits (unk: L1 misses outside the set sample) of the stream to
 * class cls, added up at once: the class's in an_class.fast_l1 and
 * fast_unk (an_model_finish), the thread's and the total's when the
 * stream ends. Under burst sampling, a run of one class, added to its
 * part when the class changes (a part is looked up, not indexed). */
static inline void an_model_fast_add(struct an_state *st, struct an_stream *s, uint32_t cls, uint64_t n,
				     uint64_t unk)
{
	if (st->parts_on) {
		if ((s->fast_n || s->fast_unk) && s->fast_cls != cls)
			an_model_flush_fast(st, s);
		s->fast_cls = cls;
	} else {
		st->classes.v[cls].fast_l1 += n;
		st->classes.v[cls].fast_unk += unk;
	}
	s->fast_n += n;
	s->fast_unk += unk;
}

/* an_model_fast_add of n L1 hits, counted to the stream's code address too. */
static inline void an_model_count_fast(struct an_state *st, struct an_stream *s, uint32_t cls, uint64_t n)
{
	an_model_fast_add(st, s, cls, n, 0);
	if (s->last_fn)
		st->ips.v[s->last_fn - 1].fast_l1 += n;
}

/* an_model_repeat's reference that is no plain repeat: a store to a line
 * the stream's repeatable reference loaded, 1 if the model took it in
 * place (mp_model_store_again); on the model's threads, 2 if the repeat
 * joined the run of the stream's last submission, counted there
 * (an_model_par.c); else 0. */
#define AN_AGAIN_THREADS 4 /* an_stream.rep_again: beside MP_AGAIN_*, the model on threads */
int an_model_again(struct an_state *st, struct an_stream *s, uint32_t cls, int write, int counted);

/* Whether slot t holds the translation of the page of a at time now. */
static inline int an_ph_holds(const struct an_ph_slot *t, uint64_t a, uint64_t now)
{
	return t->vpage == a >> 12 && now >= t->lo && now < t->hi;
}

/* The frame of address a from the slot of its page (0: none recorded). */
static inline uint64_t an_ph_frame(const struct an_ph_slot *t, uint64_t a)
{
	return t->ok ? (t->paddr & ~4095ull) | (a & 4095) : 0;
}

/* The stream's previous one-line reference again, and the model said it
 * changes nothing (or a store after a load, which the model takes in
 * place): counted (if counted) as an L1 hit without asking the
 * model, and 1 comes back; else 0, and an_model_access does the rest.
 * Inline, so that the replay's runs of accesses take repeats without a
 * call (an_model_access asks it first too). */
static inline int an_model_repeat(struct an_state *st, struct an_stream *s, uint32_t cls, uint64_t addr,
				  uint64_t size, int write, int counted)
{
	const uint64_t mask = st->model_rep.line_mask, a = addr & mask, now = s->dec.time;
	const uint64_t last = addr + (size ? size : 1) - 1;
	if (!(a == s->rep_a && (last & mask) == a && last >= addr && cls == s->rep_cls && s->core_of == s->cpu + 1 &&
	      s->core == s->rep_core && s->rep_again && s->rep_seq == *st->model_rep.seq &&
	      (!st->phys || an_ph_holds(&s->ph[s->ph_last], a, now))))
		return 0;
	/* A store repeats only in the function of the last one (it owns the
	 * line, and its writeback); a store after a load of the line (a
	 * read-modify-write), or from another function, is made in place. On
	 * the model's threads (rep_again AN_AGAIN_THREADS) neither holds: the
	 * repeat joins its submission's run, counted there. (One call out of
	 * line for both, so that this stays inline in the replay's loop.) */
	const int again =
		write ? (s->rep_again & MP_AGAIN_STORE) && s->last_fn == s->rep_fn : (s->rep_again & MP_AGAIN_LOAD);
	if (!again) {
		const int how = an_model_again(st, s, cls, write, counted);
		if (how != 1)
			return how != 0;
	}
	if (counted) {
		s->refs_physical += s->rep_phys;
		s->refs_thp += s->rep_thp;
		an_model_count_fast(st, s, cls, 1);
	}
	return 1;
}

/* After stream s decoded a record, while s->ahead_on, when
 * an_look_ahead_moves says so: moves its lookahead on, up to AN_AHEAD
 * records ahead, prefetching the host memory that the lookups and the
 * model of the accesses ahead will read (changes no state); restart:
 * s->dec started a new chunk. */
void an_look_ahead(struct an_state *st, struct an_stream *s, int restart);
/* The replay of stream s took a record, while s->ahead_on: its lookahead
 * moves on. Mostly it only counts: the lookahead decodes AN_AHEAD_BATCH
 * records at a time, once it is that many less than AN_AHEAD ahead (a
 * call a record, its prologue and the decoder's state copied for it, was
 * a tenth of the lookahead's cost). Returns 1 if it called an_look_ahead,
 * which reads s->dec: the caller's decoder must be there before. */
static inline int an_look_ahead_moves(const struct an_stream *s)
{
	return s->ahead_n <= AN_AHEAD - AN_AHEAD_BATCH || s->ahead_on <= 1;
}
static inline void an_look_ahead_took(struct an_stream *s)
{
	s->ahead_n--;
	s->ahead_on--;
}
/* The access at decoder d's position, if the lookahead of stream s decoded
 * it already: then *a and d as trace_dec_acc would leave them, and 1. The
 * lookahead's decoder began as a copy of the stream's and read the same
 * bytes, so at the same position it was in the same state. */
static inline int an_ahead_taken(struct an_stream *s, struct trace_dec *d, struct trace_acc *a)
{
	if (!s->ahead_n)
		return 0;
	const struct an_ahead_acc *x = &s->ahead_acc[(s->ahead_oseq - s->ahead_n) % AN_AHEAD];
	if (x->at != d->p)
		return 0;
	*a = x->a;
	s->ahead_named.addr = x->a.addr;
	s->ahead_named.gen = x->gen;
	s->ahead_named.obj = x->obj;
	d->p = x->p;
	d->last_addr = x->last_addr;
	d->last_ip = x->last_ip;
	d->prev_ip = x->prev_ip;
	return 1;
}
/* A lookup of stream s went to the map m: arms the lookahead when the map
 * is big enough for it to pay. */
static inline void an_look_ahead_arm(struct an_stream *s, const struct an_objmap *m)
{
	if (m->live >= AN_AHEAD_OBJECTS)
		s->ahead_on = AN_AHEAD_KEEP;
}
/* Writes dirty lines back (keeping them): at --roi boundaries, so the region
 * pays for the writebacks of its own stores; counted: charge them. */
void an_model_clean(struct an_state *st, struct an_stream *s, int counted);
/* Adds the stream's pending L1 hits to the tables (end of stream). */
void an_model_stream_done(struct an_state *st, struct an_stream *s);
/* Before a process's replay: a machine of its own, cold, unless no
 * process ran on the current one yet (or burst sampling keeps one for the
 * file). The last one's dirty lines are left uncounted, as at the end of a
 * run. 0 or a negative errno. */
int an_model_proc_begin(struct an_state *st);
/* an_procs.c: a process's state after its replay: its machine freed, its
 * page rows kept (an_model_drop_machine); how many rows it made; whether n
 * rows fit the file's bound (else the serial replay decides which pages
 * get none); its rows added to the file's f after those of the processes
 * before it, their classes through cmap. 0 or -ENOMEM. */
void an_model_drop_machine(struct an_state *st);
size_t an_model_rows(const struct an_state *st);
int an_model_rows_fit(const struct an_state *st, uint64_t n);
int an_model_rows_fold(struct an_state *f, const struct an_state *st, const uint32_t *cmap);
/* The what-if rules (--pages PATTERN=SIZE) the process's classes met,
 * added to the file's f after those of the processes before it, each
 * class once, their classes through cmap. 0 or -ENOMEM. */
int an_model_rules_fold(struct an_state *f, const struct an_state *st, const uint32_t *cmap);
/* The page-walk checks' walks (an_opts.walk_checks) of the process's
 * replay, each check on TLBs of its own, cold when the process began (as
 * the serial replay renews them at each process), added to the file's f. */
void an_model_checks_fold(struct an_state *f, struct an_state *st);
/* an_model_checks.c: frees a list of translation logs (an_result.tlog). */
void an_tlog_free(struct an_tlog *l);
/* After the replay: adds the code addresses' pending L1 hits. */
void an_model_finish(struct an_state *st);
/* Burst sampling's tallies of a row until its figures are estimates, kept
 * by the model stage apart from the row's figures (struct an_mem): counted
 * for each part, thread and code address during the replay and at its end
 * (an_model_finish), weighed and scaled by the row's factor
 * (an_bursts_apply), then taken back from the figures (an_model_scale_sets,
 * the classes' and the total's as the sums of their parts'). */
struct an_burst_tally {
	/* dirty lines left cached at the end that stand for writebacks the
	 * skipped accesses would have caused: scaling by a factor f adds
	 * f - 1 DRAM writes for each; and those of LLC sets that had not
	 * evicted (_p): they stand for as many writebacks only where the
	 * program's footprint made lines come and go, by the share of it the
	 * LLC could not hold (an_fit.evict_p) */
	uint64_t dram_writes_left, dram_writes_left_p;
	/* first fills of lines that stayed in use across a skip, by where
	 * the next burst found them (once[0..2]: L1, L2, LLC), and the cycles
	 * of their DRAM latency over that level's; scaling by a factor f
	 * leaves f - 1 of each, the fills the skipped accesses would have hit
	 * instead (anm_on_first, anm_burst_window) */
	uint64_t once[3], once_lat;
	/* the same for first walks of pages found in the DTLB (once_walk[0])
	 * or the STLB ([1]) after skips: f - 1 of each scaled walk is taken
	 * back (its references as the row's walks average; its cycles are not
	 * kept apart from the access's and stay) */
	uint64_t once_walk[2];
	/* and first fills of paging-structure lines that stayed in use, by
	 * their walker's row: f - 1 of each walk reference from DRAM is taken
	 * back (its cycles stay, as a first walk's do) */
	uint64_t once_walk_dram;
	/* first fills of lines seen in two bursts or more but not in use in
	 * the first (first_unused), and of lines seen in one burst only
	 * (first_single): where the footprint fits the LLC, each of the first
	 * stands for one fill, each of the second for itself and its share of
	 * the lines no burst saw; scaled, they join once[2] */
	uint64_t first_unused, first_single;
	/* the same for pages' first walks, where the page footprint fits the
	 * STLB; scaled, they join once_walk[1] */
	uint64_t walk_unused, walk_single;
};
/* The rows that keep an an_burst_tally. */
enum an_tally_rows { AN_TALLY_PART, AN_TALLY_THREAD, AN_TALLY_IP, AN_TALLY_ROWS };
/* Row i's tally (st->parts, threads or ips index), NULL where nothing was
 * counted for it (no model, no burst sampling: all zero). */
struct an_burst_tally *an_model_tally(struct an_state *st, enum an_tally_rows rows, size_t i);
/* The model's estimates, after the burst sampling's factors (an_bursts.c,
 * an_bursts_apply): burst sampling's first fills of lines in use across
 * skips become hits (an_burst_tally.once); set sampling (--sample-sets)
 * scales each row's modelled misses up to all its misses, a ratio that
 * holds for a row's weighted sum as a whole. 0, or -ENOMEM. */
int an_model_scale_sets(struct an_state *st);
/* Burst sampling: the distinct lines the model's references touched (an
 * estimate, UINT64_MAX beyond what it can tell), else 0. */
uint64_t an_model_footprint(const struct an_state *st);
/* Burst sampling: the program's footprint as the bursts tell it
 * (an_model_fit, after an_model_finish has listed the lines left). */
struct an_fit {
	uint64_t llc; /* the modelled LLC's lines */
	uint64_t lines; /* the lines the bursts touched (an_model_footprint) */
	/* the lines of the data objects the bursts touched, whole, and of the
	 * other objects' pages they touched (an_model_span_lines): a bound
	 * sampling cannot fool; UINT64_MAX past twice the LLC */
	uint64_t bound;
	int tracked; /* first fills were tracked: the next three are known */
	uint64_t f1, f2; /* data lines seen in one burst, in two (those the model kept) */
	double unseen; /* the lines no burst saw: Chao1, at most f1 x OFF / ON */
	double footprint; /* lines + unseen */
	int fits; /* footprint and bound fit the LLC: first fills count once */
	double evict_p; /* 1 - llc / footprint, or 0: the share the LLC cannot hold */
};
/* Fills *f; returns f->fits. */
int an_model_fit(const struct an_state *st, struct an_fit *f);
/* Burst sampling, first walks tracked: the pages (per core) seen in one
 * and two bursts, the pages the bursts walked, and what a first walk of
 * a page seen in one burst stands for (Chao1 over the pages of threads
 * that skipped, within the bound of each core's pages: *w). 1 if each
 * core's pages fit its STLB: then a page's first walk counts once when
 * two bursts saw it, *w times when one did (an_burst_tally.walk_unused,
 * walk_single). */
int an_model_walk_weight(const struct an_state *st, double *w, uint64_t *once, uint64_t *twice, uint64_t *pages);
/* Burst sampling: object o was touched in a burst: a data object's pages
 * go into the bound of the footprint (an_model_span_lines), once, and
 * into the walk bound of the core the stream's thread is on, once per
 * core (o->spanned). */
void an_model_span(struct an_state *st, struct an_stream *s, struct an_obj *o);
/* --sample-bursts at replay: a long range (memset, memcpy, strlen) the
 * skip drops goes into the bound too, whose bursts seldom hold one
 * (without it, 32 MiB buffers whose traffic is all in such calls came
 * out -87%). */
void an_model_span_range(struct an_state *st, struct an_stream *s, uint64_t addr, uint64_t size);
/* The lines of the data objects the bursts touched, whole, and of the
 * pages of other objects they touched (UINT64_MAX past twice the LLC): a
 * bound of the program's footprint that sampling cannot fool. */
uint64_t an_model_span_lines(const struct an_state *st);
/* The share of the modelled LLC's sets that had evicted a line when the
 * replay ended (an_model_finish): 0 to 1. */
double an_model_llc_filled(const struct an_state *st);
/* Moves the page table to the result; remap: state class -> result class. */
int an_model_pages(struct an_state *st, const uint32_t *remap);

/* an_numa.c: NUMA placement and locality (no-ops unless st->numa) */
int an_numa_init(struct an_state *st);
void an_numa_fini(struct an_state *st);
/* Thread and page placement calls, thread starts, unmaps. */
void an_numa_event(struct an_state *st, struct an_stream *s, const struct trace_rec *r);
/* Places and counts one access (placement happens outside --roi too). */
void an_numa_access(struct an_state *st, struct an_stream *s, uint32_t cls, const struct trace_rec *r,
		    int counted);
/* The nodes of the access an_numa_access placed last. */
void an_numa_last(const struct an_state *st, int *from, int *to);
/* 1 and the nodes of stream s's thread and of addr's page (placing it). */
int an_numa_nodes(struct an_state *st, struct an_stream *s, uint64_t addr, unsigned *from, unsigned *to);
/* A PMU sample for the measured tables (from an_samples.c). */
struct an_numa_sample {
	uint32_t thread, cls; /* an_state thread and replay class */
	unsigned cpu;
	int write;
	uint64_t time, epoch, addr, phys; /* phys 0: unknown */
	const struct mp_outcome *out; /* the decoded data source; weight = period */
};

/* Counts a PMU sample in the measured tables: its data source decides
 * local or remote (with a simulated topology it is only counted as left out). */
void an_numa_sample(struct an_state *st, const struct an_numa_sample *smp);
/* Cycles of a DRAM access from node from to memory on node to. */
unsigned an_numa_latency(const struct an_state *st, unsigned from, unsigned to, unsigned local);
/* Builds res->numa; remap: state class -> result class. */
int an_numa_finish(struct an_state *st, struct an_result *res, const uint32_t *remap);
/* an_procs.c's processes replayed apart: st's NUMA placement as like's
 * (its topology and options, nothing placed yet; none if like has none),
 * 0 or -ENOMEM; whether pages are placed on their recorded frames (whose
 * translations are one table's by pid); the pages st placed, and whether
 * n of them fit the file's bound; st's tables and placements added to
 * f's after those of the processes before it, classes and threads
 * through cmap and tmap (no thread in two states), 0 or -ENOMEM. */
int an_numa_init_like(struct an_state *st, const struct an_state *like);
int an_numa_frames(const struct an_state *st);
/* Whether placement by recorded frames would read the translations (an_phys_load). */
int an_numa_wants_frames(const struct an_state *st);
uint64_t an_numa_pages_held(const struct an_state *st);
int an_numa_pages_fit(const struct an_state *st, uint64_t n);
int an_numa_fold(struct an_state *f, const struct an_state *st, const uint32_t *cmap, const uint32_t *tmap);

/* an_warn.c: keeps a warning for the result (at most 100, each once). */
void an_warn(struct an_state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* an_registry.c: classes, stacks, threads, processes, code addresses
 * (an_ip_get and an_part_find above), each made on first sight. On
 * ENOMEM st->oom is set. */
/* The class of label (statics, stacks, mappings, names). */
uint32_t an_class_by_label(struct an_state *st, enum an_kind kind, const char *label);
/* The class of an allocation stack (heap blocks, mmaps) and, for a mapped
 * file, its stable name file (an_file_name), else NULL: labelled after
 * the replay (an_sites_label). */
uint32_t an_class_by_stack(struct an_state *st, enum an_kind kind, uint32_t stack, const char *file);
/* Adds thread to the class's set of threads that touched it. */
void an_class_add_thread(struct an_class *c, uint32_t thread);
/* One more instance of cls, of size bytes, made by thread. */
void an_class_add_instance(struct an_state *st, uint32_t cls, uint64_t size, uint32_t thread);
/* Frees what the class owns (not c itself). */
void an_class_free_fields(struct an_class *c);
/* Frees the registry's classes, stacks, threads and code addresses and
 * their indexes (a file's state, or one process's in an_procs.c). */
void an_registry_fini(struct an_state *st);
/* The st->stacks index of the n frames of process proc, interned;
 * UINT32_MAX past the file's bound (warned) or on ENOMEM. */
uint32_t an_stack_intern(struct an_state *st, uint32_t proc, const uint64_t *frames, int n);
/* The st->threads index of (pid, tid); past the file's bound, one shared row. */
uint32_t an_thread_get(struct an_state *st, uint32_t pid, uint32_t tid);
/* The st->procs index of process proc_id (pid: its pid), or -ENOMEM. */
int an_proc_get(struct an_state *st, uint64_t proc_id, uint32_t pid);

/* Adds b's counts to a (an_mem_add, analysis.h: the model's). */
static inline void an_counts_add(struct an_counts *a, const struct an_counts *b)
{
	a->loads += b->loads;
	a->stores += b->stores;
	a->bytes_loaded += b->bytes_loaded;
	a->bytes_stored += b->bytes_stored;
}

/* an_bursts.c: burst sampling's estimates, after the replay and the site
 * judgement: each thread's figures times its own factor, classes and
 * totals the sums of their parts, warnings on what they rest on. */
void an_bursts_apply(struct an_state *st, struct an_result *r);

/* an_result.c: the replay's state into the result's tables (an_run calls
 * them in turn). */
/* Code addresses -> r->functions; 0 or -ENOMEM. */
int an_result_functions(struct an_state *st, struct an_result *r, uint32_t **line_of);
int an_result_line_objects(struct an_state *st, struct an_result *r, const uint32_t *line_of,
			   const uint32_t *remap);
/* Classes with the same label merged into r->classes; remap (OUT): state
 * class -> result class. 0 or -ENOMEM. */
int an_result_classes(struct an_state *st, struct an_result *r, uint32_t *remap);

/* A mapped file's name as it stays from run to run, into out: path, but
 * for a temporary file (deleted while mapped, or under /tmp, /var/tmp,
 * /dev/shm) whose random part is masked: mkstemp's last six characters,
 * when they are letters and digits, as XXXXXX (or six before a suffix that
 * are of two kinds), O_TMPFILE's #INODE as #N. */
void an_file_name(char *out, size_t cap, const char *path);
/* an_index.c: walks the file's chunk headers: each STREAM chunk to its
 * stream, processes, ends, PAGEMAP and SAMPLES chunks noted; 0 or a
 * negative errno. */
int an_index_chunks(struct an_state *st);
/* an_events.c: applies event record r of stream s to its process's map
 * and the registry. */
void an_event_apply(struct an_state *st, struct an_stream *s, const struct trace_rec *r);
/* 1 if n more objects may be live at once (the file's bound); else 0,
 * damage noted and warned once. */
int an_map_room(struct an_state *st, uint64_t n);
/* an_replay.c: indexes the file's chunks and replays every process,
 * parents first (with opts->jobs > 1, several at once: an_procs.c); 0, a
 * negative errno, or AN_REPLAY_AGAIN: the file must be replayed again
 * one process after another, from a new state (an_run does it). */
#define AN_REPLAY_AGAIN 1
int an_replay_all(struct an_state *st);
/* Replays process pi's streams into st; 0 or -ENOMEM. */
int an_replay_proc(struct an_state *st, uint32_t pi);
/* an_fork.c: process pi's replay has passed the events up to epoch: the
 * children forked there take its modules, and its map as it stands is
 * noted for them. */
void an_fork_passed(struct an_state *st, uint32_t pi, uint64_t epoch);
/* Child ci's map as its parent's stood at its fork, before its replay
 * (replayed at once: once its parent's replay has ended). 0 or -ENOMEM. */
int an_fork_inherit(struct an_state *st, uint32_t ci);
/* What a parent kept for its children, freed. */
void an_fork_fini(struct an_proc *p);
/* Sets each stream's place (its thread's index among the file's threads)
 * to what the serial replay of the processes order[0..n) makes it, before
 * a replay of them at once, whose states number their threads apart.
 * 0 or -ENOMEM. */
int an_replay_places(struct an_state *st, const uint32_t *order, size_t n);

/* an_procs.c: the processes of one file replayed on several threads, each
 * into a state of its own, folded into st in the serial order.
 * 1 if st's replay may run its processes at once (opts->jobs > 1, more
 * than one process, and nothing that needs one replay in the file's time
 * order: samples, burst sampling, hooks, pages
 * placed on recorded frames or translated by a pid two processes have,
 * damage found while indexing). */
int an_par_wanted(const struct an_state *st);
/* Replays the processes order[0..n) (parents first; parent[i]: the index
 * of process i's parent, UINT32_MAX none) on up to opts->jobs threads
 * and folds their states into st in that order. 0, a negative errno, or
 * AN_REPLAY_AGAIN (a replay found damage, or the states together may
 * pass one of the file's bounds: which the serial replay decides). */
int an_par_replay(struct an_state *st, const uint32_t *order, const uint32_t *parent, size_t n);
/* Class cls of state from, looked up or made in state to by what it is
 * (its label, or its allocation stack and file): a forked child's map,
 * made from its parent's, whose objects' classes are the parent's state's. */
uint32_t an_par_class(struct an_state *from, struct an_state *to, uint32_t cls);
/* Process pi's own state. */
struct an_state *an_par_state(struct an_par *par, uint32_t pi);
/* Process pi's first access: its first modules are known; their debug info
 * loads on another core while the replay goes on (the first two processes
 * only: forked children would each load the same libraries again). */
void an_sym_load_ahead(struct an_state *st, uint32_t pi);
void an_module_loaded(struct an_state *st, struct an_proc *p, uint64_t time, const char *path, uint64_t bias,
		      uint64_t lo, uint64_t hi);
void an_proc_inherit_modules(struct an_state *st, struct an_proc *child, const struct an_proc *parent);
/* The inst source: the base names of the run's modules not built by
 * memprism cc or gcc into r->unseen_modules. 0 or -ENOMEM. */
int an_unseen_modules(struct an_state *st, struct an_result *r);
/* 1 if the module of base name base is memprism's runtime, or a library
 * only the runtime needs in p (its zstd): its code is recording's. */
int an_module_runtimes(const struct an_proc *p, const char *base);
void an_tls_block(struct an_state *st, struct an_proc *p, uint32_t thread, uint64_t bias, uint64_t addr,
		  uint64_t size);

#endif
