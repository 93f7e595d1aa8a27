/* SPDX-License-Identifier: MIT */
/*
 * Analysis: read a memprism.data file, rebuild every process's objects over
 * time from the recorded events, attribute each access to the object it
 * touched at the moment it happened, and aggregate. The report module renders
 * an an_result; the analysis never prints.
 */
#ifndef MP_ANALYSIS_H
#define MP_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "common/mp_memlevel.h"

enum an_kind {
	AN_KIND_HEAP,
	AN_KIND_STATIC,
	AN_KIND_TLS, /* a thread-local variable: one instance per thread */
	AN_KIND_STACK,
	AN_KIND_MMAP_ANON,
	AN_KIND_MMAP_FILE,
	AN_KIND_SECTION,
	AN_KIND_NAMED,
	AN_KIND_GROUP,
	AN_KIND_MAPPING, /* present at start-up: [heap], libraries' pages, ... */
	AN_KIND_UNKNOWN,
	AN_KIND_COUNT
};
const char *an_kind_name(enum an_kind k);

struct an_counts {
	uint64_t loads, stores;
	uint64_t bytes_loaded, bytes_stored;
};

/* Where the numbers of an an_mem come from: never mixed in one result. */
enum an_mem_origin {
	AN_MEM_NONE, /* full trace without a model: access counts only */
	AN_MEM_MEASURED, /* PMU samples (record --source pmu) */
	AN_MEM_MODELLED, /* the memory-system model (report --model) */
};

#define AN_LAT_BUCKETS 16 /* latency histogram: bucket i holds [2^i, 2^(i+1)) cycles */

/* What the memory system did with a set of accesses (struct mp_outcome,
 * aggregated). Measured figures are samples scaled by their period. */
struct an_mem {
	uint64_t refs; /* accesses with an outcome (modelled: cache-line references) */
	uint64_t level[MP_LVL_COUNT]; /* refs by the level that served them */
	uint64_t tlb[MP_TLB_COUNT]; /* refs by translation outcome */
	uint64_t dram_reads, dram_writes; /* memory requests (ORMBP): fills and writebacks */
	/* of dram_reads, fills for stores (write-allocate: a store that
	 * misses reads its line first), plain stores only (a memset or
	 * memcpy is not one: large ones skip that read on real machines) */
	uint64_t store_fills;
	uint64_t walks; /* page walks (= refs with tlb == MP_TLB_WALK, plus prefetch walks) */
	uint64_t walk_refs; /* memory references the walks made (paging-structure entries) */
	uint64_t walk_dram; /* of walk_refs, those served by DRAM (DRAM reads flagged page-walk) */
	uint64_t remote; /* refs served by another NUMA node */
	uint64_t latency_sum; /* cycles, over refs with a known latency */
	uint64_t latency_n;
	uint64_t latency_hist[AN_LAT_BUCKETS];
	/* model with --sample-sets: L1 misses of sampled lines (modelled beyond
	 * L1; their latencies apart) and of the other lines (not modelled) */
	uint64_t miss_modelled, miss_unmodelled;
	uint64_t miss_latency_sum, miss_latency_hist[AN_LAT_BUCKETS];
};

/* Adds b's figures to a. */
void an_mem_add(struct an_mem *a, const struct an_mem *b);

/* A page that missed the first-level DTLB at least once (model only). */
struct an_page {
	uint32_t proc; /* replay process index */
	uint32_t pid;
	uint64_t addr; /* page start (virtual) */
	uint8_t shift; /* page size: 12, 21, 30 */
	uint32_t cls; /* an_result.classes index of the object last seen on it */
	uint64_t dtlb_misses; /* first-level DTLB misses (STLB hits + walks) */
	uint64_t walks;
	uint64_t walk_refs;
};

/* Page faults (record --source faults): what first touches placed. */
struct an_faults {
	uint64_t faults; /* completed page faults, minor and major */
	uint64_t major; /* of which needed I/O */
	uint64_t pages; /* pages whose first fault (first touch) landed in this row */
};

/* One page's first touch (record --source faults). */
struct an_touch {
	uint64_t addr; /* page address */
	uint32_t pid, tid; /* the thread that touched it first */
	uint32_t cpu; /* where that thread ran then */
	int node; /* that CPU's NUMA node: first-touch policy places the page there */
	uint32_t cls; /* index into an_result.classes */
	uint32_t thread; /* index into an_result.threads */
	uint64_t time, ip; /* when, and the code that touched it */
	uint64_t faults; /* faults on the page while it belonged to this row */
};

#define AN_MAX_FRAMES 64

/* An allocation stack, symbolized. */
struct an_frame {
	uint64_t addr;
	uint64_t module_addr; /* addr in its module's file (what addr2line -e MODULE takes); with module */
	const char *function, *file, *module; /* NULL when unknown */
	int line;
	int inlined;
	int library; /* code of an installed library (under the system's library directories) */
};

/* A report row of the object view: one allocation stack (heap), one static
 * variable, one thread's stack, one mapping, one named object... */
struct an_class {
	enum an_kind kind;
	char *label; /* what the user reads: "a0 = malloc … main (arrays.c:68)" */
	char *site; /* allocation site "function (file:line)", or the label */
	char *function; /* function of the site frame, or NULL */
	char *file; /* a mapped file's name as it stays from run to run (an_file_name), or NULL */
	struct an_counts c;
	struct an_mem mem;
	/* model: L1 hits, and L1 misses outside the set sample, not yet in
	 * mem (an_model_finish adds them) */
	uint64_t fast_l1, fast_unk;
	struct an_faults faults;
	uint64_t instances;
	uint64_t bytes_allocated; /* sum of instance sizes */
	uint64_t max_size;
	uint32_t *threads; /* indices into an_result.threads that touched it */
	size_t nthreads, threads_cap;
	/* allocation stack (heap/mmap), innermost first: the wrappers' and
	 * libraries' frames, then the site (stack[site_frame]) and its callers */
	struct an_frame *stack;
	int nstack, site_frame;
	int first_alloc_thread; /* index into threads, -1 if none */
	/* the functions whose code made its counted accesses (heap and
	 * mmap rows; a merged row: the most of its stacks'), and the most
	 * accesses one of them made */
	uint32_t users;
	uint64_t top_user;
	int carved; /* blocks of the program's own allocator (memprism_malloclike) */
};

struct an_thread {
	uint32_t pid, tid;
	char name[64];
	struct an_counts c;
	struct an_mem mem;
	struct an_faults faults;
	uint64_t allocations;
	/* Burst sampling (record --sample-bursts): accesses the thread recorded
	 * (inside --roi or not) and skipped. Its figures, here and in every row
	 * it touched, are its recorded ones x sample_factor, (recorded +
	 * skipped) / recorded: 1.0 when it skipped nothing. */
	uint64_t recorded, skipped;
	double sample_factor;
	/* and the model's line references of its recorded long ranges
	 * (memset, memcpy of a page or more), which are scaled alike */
	uint64_t range_lines;
};

struct an_function {
	char *name; /* "function (file:line of its first sample)" or module+offset */
	char *module;
	struct an_counts c;
	struct an_mem mem;
	struct an_faults faults;
	/* source lines (an_result.lines) only: the file as the debug
	 * information names it and the line (NULL, 0: none); the object its
	 * accesses went to most (its label), with how many, and how many
	 * objects they went to */
	char *file;
	int line;
	char *top_object;
	uint64_t top_object_accesses;
	uint32_t objects;
};

struct an_process {
	uint32_t pid, ppid;
	uint64_t proc_id, parent_proc;
	char *exe;
	int instrumented;
	int ended; /* END chunk seen: the runtime shut down cleanly */
	uint64_t end_status; /* 0, or 0x100 + signal when it died of one */
	uint64_t accesses, chunks_lost;
};

/* What a damaged file's result is worth (an_result.damaged, bits; the
 * warnings say what was found). The commands exit non-zero on
 * AN_DAMAGE_UNTRUSTED. */
enum an_damage {
	/* parts of the file could not be read (a torn tail, a chunk or
	 * record that does not decode, a chunk of an unknown type, a count
	 * past the bounds of docs/trace-format.md): the figures cover the rest */
	AN_DAMAGE_PARTIAL = 1,
	/* the chunks contradict a recording (a chunk twice, a thread's chunks
	 * out of sequence, no process at all): the figures cannot be trusted */
	AN_DAMAGE_UNTRUSTED = 2,
};

struct an_tlog; /* a model run's translations (an_opts.log_translations) */

struct an_result {
	struct an_class *classes;
	size_t nclasses;
	struct an_thread *threads;
	size_t nthreads;
	struct an_function *functions;
	size_t nfunctions;
	/* the same code addresses by source line (innermost frame, inlined
	 * functions included): name "FILE:LINE function", FILE the base name;
	 * addresses without a line keep their function's name */
	struct an_function *lines;
	size_t nlines;
	struct an_process *procs;
	size_t nprocs;
	struct an_counts total; /* every attributed access (after --roi) */
	enum an_mem_origin mem_origin; /* what the an_mem figures are, if any */
	/* model with set sampling (--sample-sets N): L1 and translation figures
	 * are complete; each row's figures beyond L1 are its modelled misses' x
	 * (its L1 misses / its modelled ones), walk loads from DRAM x N. 0: none */
	unsigned mem_sample_sets;
	/* objects with L1 misses none of which was modelled (beyond L1 their
	 * figures are unknown, left 0), and their references */
	uint64_t mem_unsampled_objects, mem_unsampled_refs;
	/* set sampling: line references in the middle of long ranges whose L1
	 * hit or miss was estimated, not modelled (MP_MODEL_SKIPPED) */
	uint64_t mem_l1_estimated;
	struct an_mem mem_total;
	uint64_t *check_walks; /* an_opts.walk_checks' walks, nwalk_checks of them; NULL: not made */
	struct an_tlog *tlog; /* an_opts.log_translations' (an_result_check_walks) */
	int tlog_dropped; /* not whole: no checks from it */
	uint64_t accesses_outside_roi;
	char **warnings;
	size_t nwarnings;
	uint32_t *class_map; /* replay class -> classes index (for an_access.cls) */
	size_t nclass_map;
	struct an_page *pages; /* model: pages with DTLB misses, in first-miss order */
	size_t npages;
	char machine[64]; /* model: the machine's name */
	uint64_t phys_pages; /* pages with recorded translations (pagemap) */
	uint64_t refs_physical; /* model: counted line refs indexed by physical address */
	uint64_t refs_thp; /* model: counted line refs in transparent huge pages */
	int run_status; /* launcher's record: exit code, 0x100+signal, -1 unknown */
	char cmdline[1024];
	uint64_t min_size; /* record --min-size: smaller heap blocks were not tracked */
	int damaged; /* enum an_damage bits: what is wrong with the file, 0 nothing */
	/* errno of a write to the file that failed during the recording (the
	 * header's MP_FILE_WRITE_FAILED: a full disk stopped it), 0 none */
	int write_errno;
	uint64_t trace_bytes;
	uint64_t allocations, frees;
	int have_roi; /* the --roi region was found */
	/* Burst sampling (record --sample-bursts): accesses recorded and skipped
	 * by the runtime. When some were skipped, every count is an estimate: the
	 * sum over threads of each thread's recorded figure x its own factor
	 * (an_thread.sample_factor). sample_factor is the overall one,
	 * (recorded + skipped) / recorded, 1.0 when nothing was skipped. */
	uint64_t recorded_accesses, skipped_accesses;
	double sample_factor;
	/* the skips were made at replay (an_opts.burst_on), not by the recorder */
	int bursts_replayed;
	/* Sampled sources (record --source faults|pmu; an_samples.c). */
	char source[16]; /* what the recording observed: "inst", "faults" or "pmu" */
	/* the inst source: the modules of the run that memprism cc (or gcc)
	 * did not build, whose own loads and stores are not in the trace
	 * (base names, sorted, once each; not the C library, whose mem and
	 * str calls are seen as ranges, nor the loader or the runtime) */
	char **unseen_modules;
	size_t nunseen_modules;
	/* The inst source's CPU-time samples (record: cpu-clock, user mode,
	 * one every cpu_period_ns of a thread's time; an_cputime.c), for how
	 * much of the program's work the trace does not see. cpu_samples: the
	 * program's, in its processes that ran the runtime, less the
	 * runtime's own and its zstd's (cpu_runtime_samples: recording's
	 * cost, not the program's work); unseen_cpu[i]: those in unseen_modules[i] (NULL
	 * when cpu_samples is 0); libc_unseen: those in the C library outside
	 * the mem and str functions whose calls the trace holds as ranges,
	 * and the functions with most of them (by samples, "" past the last).
	 * All 0 when the recording sampled no CPU time. */
	uint64_t cpu_samples, cpu_runtime_samples, cpu_period_ns;
	uint64_t cpu_lost; /* the kernel dropped them: its rings were full */
	uint64_t cpu_unplaced; /* of processes without the runtime (not in cpu_samples) */
	uint64_t *unseen_cpu;
	uint64_t libc_unseen;
	struct an_cpu_fn {
		char name[64];
		uint64_t samples;
	} libc_unseen_fns[3];
	struct an_faults faults; /* every fault counted (after --roi) */
	uint64_t samples; /* pmu samples counted (after --roi) */
	uint64_t samples_lost; /* records the kernel dropped: its rings were full */
	uint64_t samples_outside_roi; /* faults and samples outside the --roi region */
	uint64_t samples_unplaced; /* of a process that left no record (runtime not loaded) */
	struct an_touch *touches; /* first touch of each page, in time order */
	size_t ntouches;
	struct an_numa_result *numa; /* NUMA locality (an_numa.h); NULL when not analysed */
};

/* What-if: objects whose label contains pattern live in 2^shift pages. */
struct an_page_rule {
	const char *pattern;
	unsigned shift;
};

enum an_thread_map {
	AN_MAP_RECORDED, /* a thread runs on the core of the CPU it was recorded on */
	AN_MAP_SPREAD, /* threads take cores round-robin in order of appearance */
};

struct mp_machine;
struct an_numa_opts; /* an_numa.h */
struct an_numa_result;

/* One attributed access, handed to an_opts.on_access as the replay makes
 * it, for consumers of the stream itself (plots, exports, flows). */
struct an_access {
	uint32_t proc; /* an_result.procs index */
	uint32_t thread; /* an_result.threads index */
	uint32_t cls; /* replay class: an_result.class_map[cls] is the classes index */
	uint64_t addr, size, ip;
	uint64_t epoch;
	uint64_t time; /* ns (CLOCK_MONOTONIC) of the thread's latest event or chunk stamp */
	unsigned cpu;
	int write;
	int counted; /* inside --roi (always 1 without --roi) */
	int from_node, to_node; /* NUMA: the thread's and the page's node; -1 without a topology */
	const struct mp_outcome *outcome; /* model: deepest level, worst TLB outcome, summed latency; else NULL */
};

/* One DRAM request of the model (the ORMBP paper's object-relative memory trace):
 * a line fill (read), a writeback (write) or a page-walk load served by DRAM. */
struct an_dram {
	uint32_t proc, thread; /* the thread whose access caused it */
	uint32_t cls; /* replay class of the line's object (walks: the translated access's) */
	uint64_t vaddr; /* line address (walks: the translated address) */
	uint64_t paddr; /* physical line address, 0 if unknown */
	uint64_t time; /* as an_access.time */
	int write, walk, counted;
};

/* One event of the replay (allocation, free, mapping, thread start/exit,
 * region begin/end, ...), handed to an_opts.on_event after it was applied. */
struct an_event {
	uint32_t proc, thread; /* as an_access */
	unsigned type; /* enum mp_event_type (src/trace/trace_format.h, docs/trace-format.md) */
	uint64_t epoch;
	uint64_t time; /* ns (CLOCK_MONOTONIC) */
	unsigned cpu;
	uint32_t cls; /* ALLOC, MMAP: replay class of the new object; else UINT32_MAX */
	const uint64_t *f; /* fields in format order (f[0] time), valid during the call */
	unsigned nf;
	const char *str; /* region name, path, thread name...: not NUL-terminated */
	size_t str_len;
};

struct an_patterns; /* an_pattern.h */

struct an_opts {
	const char *roi; /* count only accesses while this region is open */
	/* memory-system model: NULL for none */
	const struct mp_machine *machine;
	unsigned page_shift; /* default page size (0: 4 KiB) */
	const struct an_page_rule *page_rules;
	size_t npage_rules;
	enum an_thread_map thread_map;
	/* model: keep TLB misses and walks per page (an_result.pages: the tlb
	 * view, the HTML report); other views never read them */
	int page_rows;
	/* model: data caches for 1 in sample_sets of their sets (mp_model_sample_sets);
	 * 0 or 1: all */
	unsigned sample_sets;
	/* model: the caller reads the page walks alone (an_result.mem_total's
	 * walks: a what-if of page sizes checked): in a full trace's replay
	 * the data caches are then modelled for as few of their sets as the
	 * machine allows, which leaves every walk as it is (the TLBs see every
	 * reference) at a fraction of the cost */
	int walks_only;
	/* model: what-ifs of page sizes that count page walks alone, all made
	 * in one replay instead of the run's own model: check i is the run with
	 * walk_checks[i] ahead of page_rules (the first rule), and the walks
	 * of all its counted references go to an_result.check_walks[i]. Each
	 * has TLBs of its own fed the same references (mp_model_translate:
	 * which references walk depends on the TLBs alone), so K checks cost
	 * one replay instead of K. The caller reads check_walks alone: the
	 * run's own model is not fed (its figures stay 0). Not under burst
	 * sampling, whose walks are estimates scaled by thread (check_walks
	 * stays NULL, and the run is an ordinary one). */
	const struct an_page_rule *walk_checks;
	size_t nwalk_checks;
	/* model: keep the run's translations (an_result.tlog), so that page-walk
	 * what-ifs asked after it (an_result_check_walks) read them instead of
	 * replaying the trace with walk_checks. Costs memory: a few bytes a
	 * reference that is not a repeat (dropped past 512 MiB a process
	 * replayed at once, and then the what-ifs replay). */
	int log_translations;
	/* NUMA placement (an_numa.h); NULL: only when the trace recorded --numa */
	const struct an_numa_opts *numa;
	/* stream consumers (NULL: none); called in replay order */
	void (*on_access)(void *arg, const struct an_access *a);
	void (*on_dram)(void *arg, const struct an_dram *d);
	void (*on_event)(void *arg, const struct an_event *e); /* not STACK_DEF */
	void *hook_arg;
	/* access patterns (an_pattern.h) collected into this, as
	 * an_patterns_on_access would as a hook but without a call per access
	 * (NULL: none; the caller owns it) */
	struct an_patterns *patterns;
	/* called now and then during the replay: chunks done of total (NULL: none) */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
	/* allocation sites (docs/attribution.md): functions always taken for
	 * allocation wrappers (-w), never taken for one (--not-wrapper), and
	 * no judging of the others from what they do */
	const char *const *wrappers;
	size_t nwrappers;
	const char *const *not_wrappers;
	size_t nnot_wrappers;
	int no_wrapper_heuristic;
	int lib_sites; /* a library's frame can be a site (profiling the library itself) */
	/* calling context in a heap or mmap row's site (" <- CALLER" per
	 * level): 0 one level where a site's blocks come from several
	 * callers, N > 0 that many levels everywhere, < 0 none */
	int context;
	int skip_checksums; /* fuzzing only: see trace_reader_skip_checksums */
	/* tests: a loop's repeated records replayed an access at a time, not
	 * a run of periods at once (an_period.h): the same result, slower */
	int each_access;
	uint64_t max_model_range; /* bytes of one access the model takes at most (0: 1 TiB) */
	/* fuzzing: every bound on what a file may have the analysis hold
	 * (docs/trace-format.md, "Bounds") >> this, so that inputs of a few
	 * KiB reach them fast (0: as documented) */
	unsigned bounds_shift;
	/* burst sampling at replay (--sample-bursts ON,OFF; both or neither):
	 * of each thread's accesses, ON replayed, then OFF dropped, and so on,
	 * as `record --sample-bursts` would have recorded them; a trace
	 * recorded in bursts is refused (-MP_ERR_SAMPLED) */
	uint64_t burst_on, burst_off;
	/* processes of the file replayed at once, each on a thread of its own
	 * (a program that forks writes its children into its file): 0 or 1,
	 * one after another. The result is the same whatever the number. Only
	 * a replay without samples, burst sampling or hooks
	 * runs its processes at once (an_procs.c), and with a model only
	 * without walk_checks; the others replay them one after another. */
	unsigned jobs;
	/* an exact model of one process at a time on this many threads: the
	 * replay's and model_threads - 1 workers (docs/model.md, "On several
	 * threads"); 1: the replay's alone; 0: two where the process may run
	 * on more than one CPU (its affinity), but one for each of several
	 * analyses at once (an_merge's jobs). The same result either way. */
	unsigned model_threads;
	/* tests: at two model threads, the references in each window over
	 * which the replay judges where the model runs (its thread or the
	 * worker's; 0: 65536), so that small files change over often */
	unsigned model_window;
};

/* Analyses the data file at path. 0 and *out (free with an_result_free), or
 * a negative error (-ENOENT, -MP_ERR_FORMAT, ...). Damage inside the file is
 * not an error: the result says so in warnings and `damaged`. */
int an_run(const char *path, const struct an_opts *o, struct an_result **out);
void an_result_free(struct an_result *r);
/* Page-walk what-ifs of a model run kept with an_opts.log_translations:
 * what an_run with walk_checks = checks[0..n) gives in check_walks, into
 * walks[], from the run's logged translations instead of a replay. 0;
 * -ENOENT: no whole log (not asked, burst sampling, the model on threads,
 * over its bound) or a check in pages of the size they were mapped in,
 * which the log does not keep: replay then; -ENOMEM. The checks run on
 * up to `jobs` threads, each on its own. */
int an_result_check_walks(const struct an_result *r, const struct mp_machine *machine,
			  const struct an_page_rule *checks, size_t n, unsigned jobs, uint64_t *walks);

/* A view that places each access against the whole trace (time x address
 * bins, folded regions) replays it twice: the first replay, with o's
 * hooks, learns the extents; plan sizes the view from its result; the
 * second replay, with the hooks below (and o's other options, without its
 * patterns), fills it. Without either hook there is no second replay. */
struct an_two_pass {
	void (*on_access)(void *arg, const struct an_access *a); /* the second replay's hooks */
	void (*on_event)(void *arg, const struct an_event *e);
	int (*plan)(void *arg, const struct an_result *first); /* 0 or a negative error; NULL: nothing */
	int (*error)(void *arg); /* after the second replay: its hooks' error (0: none); NULL: none */
	void *arg; /* the hooks' and callbacks' argument (the second replay's hook_arg) */
};
enum an_pass { AN_PASS_FIRST, AN_PASS_PLAN, AN_PASS_SECOND };
/* The two replays of path. *first (OUT, free with an_result_free) is the
 * first replay's result, kept even when a later stage fails (NULL when the
 * first replay did). 0, or a negative error with *stage (OUT) saying which
 * stage failed: reading the file, the plan, or the second replay. */
int an_run_two_pass(const char *path, const struct an_opts *o, const struct an_two_pass *tp,
		    struct an_result **first, enum an_pass *stage);

#endif
