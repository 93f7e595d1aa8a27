/* SPDX-License-Identifier: MIT */
/*
 * The memory-system model: what a machine's caches, TLBs and page walker
 * would do with a stream of accesses. Private L1D and L2 per core, one LLC
 * per socket, write-back write-allocate with dirty writebacks to DRAM,
 * invalidation-based coherence between cores; per-core L1 DTLBs by page
 * size, a unified STLB, paging-structure caches, and page walks whose
 * paging-structure loads go through the data caches like any other load.
 *
 * Pure computation: no I/O. The caller (the analysis) splits accesses into
 * cache-line references, says which core makes each, which address space
 * and page size it is in, and which object owns it; the model says where
 * each reference was served and reports every DRAM write (a dirty line
 * leaving the last level) with the owner of that line, so memory requests
 * can be attributed to objects as in the ORMBP traces.
 */
#ifndef MP_MODEL_H
#define MP_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "model/machine.h"

struct mp_model;

/* Outcome of one cache-line reference. */
struct mp_model_out {
	uint8_t level; /* enum mp_mem_level: L1, L2, L3, LOCAL_DRAM or REMOTE_CACHE;
			* UNKNOWN: an L1 miss of a line outside the sampled sets */
	uint8_t tlb; /* enum mp_tlb_outcome */
	uint8_t walk_refs; /* paging-structure loads of the page walk, if any */
	uint8_t walk_dram; /* of those, served by DRAM */
	uint8_t again; /* MP_AGAIN_*: see mp_model_seq */
	uint32_t latency; /* modelled cycles: translation + data */
};

/* mp_model_out.again: a load (store) with the same core, space, addresses,
 * page size and owner would be an L1 and DTLB hit that changes nothing, for
 * as long as *mp_model_seq() stays as it was after this reference. */
enum { MP_AGAIN_LOAD = 1, MP_AGAIN_STORE = 2 };

/* Called for every DRAM write (a dirty line written back), with the owner
 * given when the line was last written and its line address. */
/* (physical: line_addr is a physical address, the reference that brought the
 * line in gave one; else virtual) */
typedef void (*mp_model_wb_fn)(void *arg, uint32_t owner, uint64_t line_addr, int physical);

/* New model of machine m (copied). NULL and errno (ENOMEM, EINVAL for a
 * machine mp_machine_check refuses). Free with mp_model_free. */
struct mp_model *mp_model_new(const struct mp_machine *m);
/* A model of m for mp_model_translate alone: its data caches have one set
 * each (a machine's LLC would take megabytes to make and clear, unused). */
struct mp_model *mp_model_new_translating(const struct mp_machine *m);
void mp_model_free(struct mp_model *m);

void mp_model_set_writeback(struct mp_model *m, mp_model_wb_fn fn, void *arg);

/*
 * Set sampling: model L2 and the LLC for 1 in n of their sets only (n a
 * power of two dividing every cache's set count), chosen by the low bits of
 * the line address, so each modelled set sees every reference to its lines
 * and behaves exactly as in a full run. L1, the TLBs and walks stay
 * complete: every line goes through L1 (its hits are exact), and an L1 miss
 * of a line outside the sample is MP_LVL_UNKNOWN, adds no cycles and never
 * reaches DRAM or walk_dram. The sampled lines' misses estimate the others'.
 * L2 and the LLC keep only the sample's sets (an n-th of their memory).
 * 0, or -EINVAL with the reason in err (m unchanged), or -ENOMEM (m is
 * then unusable: free it). Call before the first access.
 */
int mp_model_sample_sets(struct mp_model *m, unsigned n, char *err, size_t errlen);

/* Total cores (sockets x cores per socket). */
unsigned mp_model_ncores(const struct mp_model *m);

#define MP_MODEL_NO_OWNER UINT32_MAX

/* One reference to the line holding addr by core (< mp_model_ncores), in
 * address space `space` (0..2^16-1), in a page of 2^page_shift bytes (12,
 * 21 or 30). TLBs are indexed by (space, addr); caches by paddr when it is
 * non-zero (processes then share frames as they really do), else by
 * (space, addr). owner is any id the caller likes; it comes back with the
 * DRAM writes of this line. */
void mp_model_access(struct mp_model *m, unsigned core, uint32_t space, uint64_t addr, uint64_t paddr, int write,
		     unsigned page_shift, uint32_t owner, struct mp_model_out *out);

/* The translation alone of a reference mp_model_access would make (the
 * same arguments): the DTLBs, STLB and paging-structure caches change as
 * there, the walk's loads are not made (the caches stay as they are).
 * out->tlb and out->walk_refs as mp_model_access gives them; level
 * MP_LVL_UNKNOWN, walk_dram 0. Which references walk depends on the TLBs
 * alone, so a model fed only this, with the same references, walks where
 * one fed mp_model_access does: a what-if on page sizes that only counts
 * walks needs no caches. A repeat mp_model_access answers without a
 * translation (out.again) is a DTLB hit that changes nothing here too,
 * and need not be made. */
void mp_model_translate(struct mp_model *m, unsigned core, uint32_t space, uint64_t addr, unsigned page_shift,
			struct mp_model_out *out);

/* Host memory a core's references beyond its L1 may read: its L2's sets
 * and its socket's LLC's, in bytes. */
uint64_t mp_model_set_bytes(const struct mp_model *m);

/* A hint, nothing modelled: the host memory a reference to addr (as
 * mp_model_access takes it) by core will read in L2, the LLC and for the
 * page walk's last level, fetched into the host's caches. A replay calls
 * it some records ahead: over a large LLC these reads miss the host's
 * caches, and one at a time they stall it. A line the core's L1 holds now
 * and a 4 KiB page its TLBs hold are not hinted: by the reference they
 * will most likely still be there, and most references hit. Returns what
 * was hinted (MP_HINT_*), for mp_model_prefetch_victim. */
enum { MP_HINT_LINE = 1, MP_HINT_WALK = 2 };
unsigned mp_model_prefetch(const struct mp_model *m, unsigned core, uint32_t space, uint64_t addr, uint64_t paddr);

/* The second hint, once the first has had time to arrive: if the line, or
 * its page walk's last level, would miss L2, the LLC set where the L2 line
 * it displaces would go; hinted: mp_model_prefetch's answer (only those). */
void mp_model_prefetch_victim(const struct mp_model *m, unsigned core, uint32_t space, uint64_t addr, uint64_t paddr,
			      unsigned hinted);

/* Lines a call of mp_model_access_lines takes at most. */
#define MP_MODEL_LINES_MAX 64

/* n (1..MP_MODEL_LINES_MAX) consecutive lines from the one holding addr
 * (paddr: the first line's physical address, or 0), all in one 4 KiB page:
 * the same as n calls of mp_model_access, one per line in address order.
 * out: the first line's outcome; level[i]: the level that served line i
 * (level[0] == out->level). Lines after the first hit the DTLB entry the
 * first one left most recent and make no walk: their latency is
 * mp_model_latency of their level, and out->again is unset for n > 1.
 * (One call per page of a memset or memcpy instead of one per line.)
 * skip: see MP_MODEL_SKIPPED below; 0 models every line. Returns the
 * number of lines skipped. */
unsigned mp_model_access_lines(struct mp_model *m, unsigned core, uint32_t space, uint64_t addr, uint64_t paddr,
			       unsigned n, int write, unsigned page_shift, uint32_t owner, int skip,
			       struct mp_model_out *out, uint8_t *level);

/*
 * Set sampling, long ranges. A memset of 64 MiB sends a million lines
 * through L1, 15 in 16 of them outside the sample, where all L1 can say is
 * hit or miss. With skip set, mp_model_access_lines models only the page's
 * first line and the lines in the sample; each other line's level is
 * MP_MODEL_SKIPPED, and the caller estimates its L1 hit or miss from the
 * sampled lines of the skipped pages. The sets the skipped lines would
 * have filled are emptied (mp_model_range_end) and filled again by the
 * range's last mp_model_range_tail_lines lines, modelled in full: as many
 * distinct lines per set as L1 has ways, which leave a set holding them
 * whatever it held before. A page whose lines another core's L1 may
 * hold (mp_model_range_begin took note of those pages) is not skipped, so
 * what a store takes away from other cores stays exact.
 */
#define MP_MODEL_SKIPPED 0xff

/* Lines at the end of a range that must go through L1 in full (L1's size
 * in whole 4 KiB pages, plus one), or 0: no skipping, because the model
 * has no set sampling or L1's sets span more than a page (a page's lines
 * would not reach every set). */
uint64_t mp_model_range_tail_lines(const struct mp_model *m);

/* Before the lines of a range that will be skipped (core as in
 * mp_model_access): the pages other active cores' L1s hold lines of. 0 or
 * -ENOMEM (skipping is then refused for the range's pages). */
int mp_model_range_begin(struct mp_model *m, unsigned core);

/* After a range's skipped pages, before its last range_tail lines: if as
 * many pages were skipped as L1 has ways, the sets the skipped lines map
 * to held nothing but them at this point of the real run, so core's L1
 * drops what those sets hold (lines from before the range, paging-structure
 * lines no skipped line pushed out), and the tail fills them as the real
 * run did. Lines outside the sample have no level below L1 to write to. */
void mp_model_range_end(struct mp_model *m, unsigned core);

/* The modelled cycles of a reference served by level (a DTLB hit). */
unsigned mp_model_latency(const struct mp_model *m, unsigned level);

/* A counter that changes whenever the model's state may have (every
 * reference other than one that changes nothing, mp_model_clean,
 * mp_model_flush): callers may skip references that out.again says change
 * nothing while it stands still. Valid until mp_model_free. */
const uint64_t *mp_model_seq(const struct mp_model *m);

/* A store by `core` to the line and page of its previous reference, which
 * was a load whose out.again said MP_AGAIN_LOAD (and *mp_model_seq() is as
 * it was after it): when no other core holds the line, done in place (the
 * line becomes dirty under owner, an L1 and DTLB hit; afterwards a load or
 * a store by this owner is again a repeat) and 1 comes back; else 0, and
 * the caller makes it through mp_model_access. A read-modify-write's store
 * then costs a few instructions instead of a reference's. */
int mp_model_store_again(struct mp_model *m, unsigned core, uint32_t owner);

/* Writes back every dirty line once (each DRAM write reported as usual)
 * and leaves it cached, clean: what a write-back-without-invalidate would do.
 * Used at region boundaries so a region is charged the writebacks of the
 * lines its own stores dirtied, not those of the code before it. */
void mp_model_clean(struct mp_model *m);

/* Writes back every dirty line (each DRAM write reported as usual) and
 * empties caches and TLBs: the state a cold start or a flush would leave. */
void mp_model_flush(struct mp_model *m);

#endif
