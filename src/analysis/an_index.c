// SPDX-License-Identifier: MIT
/*
 * The file's chunk index, read before the replay: every chunk header is
 * walked once and each STREAM chunk joins the an_stream of its (process,
 * thread) in sequence order, without being decompressed. PROCESS, END and
 * RUN_END records fill the processes and the result; PAGEMAP and SAMPLES
 * chunks are noted for their stages. What a recording never writes
 * (duplicates, gaps, damaged chunks) is counted and said once each.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_int.h"
#include "analysis/an_samples.h"
#include "common/mp_error.h"
#include "common/varint.h"
#include "trace/trace_reader.h"

/* --- reading the file's chunk index ------------------------------------- */

static char *strndup_s(const char *s, size_t n)
{
	char *r = malloc(n + 1);
	if (r) {
		memcpy(r, s, n);
		r[n] = 0;
	}
	return r;
}

/* What indexing found that a recording never writes (docs/trace-format.md,
 * "Damaged files"): counted, and said once each at the end. */
struct index_damage {
	struct mp_hashmap seen; /* chunk_identity -> file offset + 1 */
	uint64_t chunks, processes;
	uint64_t dups, dup_off, dup_of; /* the first copy, and the chunk it copies */
	/* threads whose chunks are out of sequence: chunks after a later one
	 * (or its seq again), seqs missing; the first such thread */
	uint64_t unordered, late, missing;
	uint32_t unordered_pid, unordered_tid;
	uint64_t unknown, unknown_off;
	unsigned unknown_type;
};

/* A chunk's identity: every header field (the CRC of its payload among
 * them), hashed. Writers never write a chunk other than a thread's twice
 * (a thread's: stream_copy). */
static uint64_t chunk_identity(const struct mp_chunk_header *h)
{
	uint64_t k = mp_hash64((uint64_t)h->type << 48 ^ (uint64_t)h->codec << 32 ^ h->pid);
	k = mp_hash64(k ^ h->tid ^ (uint64_t)h->seq << 32);
	k = mp_hash64(k ^ h->proc_id);
	k = mp_hash64(k ^ h->raw_len ^ (uint64_t)h->stored_len << 32);
	k = mp_hash64(k ^ h->payload_crc ^ (uint64_t)h->accesses << 32);
	return k | 1;
}

/* 1 if the chunk was seen before (its copy is skipped), 0 if not, or
 * -ENOMEM. */
static int chunk_seen(struct index_damage *dmg, const struct trace_chunk *c)
{
	uint64_t key = chunk_identity(&c->hdr);
	uint64_t *v = mp_hashmap_get(&dmg->seen, key);
	if (!v)
		return mp_hashmap_put(&dmg->seen, key, c->offset + 1) ? -ENOMEM : 0;
	if (!dmg->dups++) {
		dmg->dup_off = c->offset;
		dmg->dup_of = *v - 1;
	}
	return 1;
}

static int by_seq(const void *x, const void *y)
{
	const struct an_chunk_ref *a = x, *b = y;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return a->off < b->off ? -1 : a->off > b->off;
}

/* Whether the chunk at offset b holds the records of the chunk at a, or
 * the first of them, decoded: 1, 0, or -errno. */
static int records_of(struct an_state *st, uint64_t a, uint64_t b)
{
	struct trace_chunk ca, cb;
	if (!trace_reader_read_at(st->reader, a, &ca))
		return 0;
	/* (a zstd chunk's records are in the reader's buffer, which the
	 * next read reuses) */
	uint8_t *copy = malloc(ca.len ? ca.len : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, ca.data, ca.len);
	int same = trace_reader_read_at(st->reader, b, &cb) && cb.len <= ca.len && !memcmp(copy, cb.data, cb.len);
	free(copy);
	return same;
}

/* A chunk of stream s whose seq an earlier chunk of s has, holding its
 * records or the first of them: the copy `record` appends of a killed
 * process's buffer that the runtime wrote in the instant before the kill
 * (docs/trace-format.md, "STREAM chunks of killed processes"), framed as
 * the launcher frames it (compressed where the runtime wrote it raw, under
 * Valgrind; for a buffer that was filling, no record count, and its
 * records up to the thread's last event, where the runtime wrote all).
 * 1 if c is one (skipped: not damage), 0 if not, or -errno. */
static int stream_copy(struct an_state *st, const struct an_stream *s, const struct trace_chunk *c)
{
	if (!s->chunks.n || c->hdr.seq > s->chunks.v[s->chunks.n - 1].seq)
		return 0; /* (every chunk of a recording but such copies) */
	for (size_t k = s->chunks.n; k-- > 0;)
		if (s->chunks.v[k].seq == c->hdr.seq)
			return records_of(st, s->chunks.v[k].off, c->offset);
	return 0;
}

/* 1 if the stream has its thread's first chunk. (A seq 0 after chunks
 * that lack one is that chunk, late; after one, a new thread's.) */
static int has_seq0(const struct an_stream *s)
{
	if (s->chunks.v[0].seq == 0)
		return 1;
	for (size_t k = 1; k < s->chunks.n; k++) /* (damaged files only) */
		if (s->chunks.v[k].seq == 0)
			return 1;
	return 0;
}

/* A thread writes its chunks in order, one write(2) each: seq 0, 1, 2...
 * Those of a damaged file that are not are counted, and put in sequence
 * for the replay. */
static void check_sequences(struct an_state *st, struct index_damage *d)
{
	for (size_t i = 0; i < st->streams.n; i++) {
		struct an_stream *s = &st->streams.v[i];
		uint64_t late = 0, missing = 0, want = 0;
		uint32_t top = 0;
		for (size_t k = 0; k < s->chunks.n; k++) {
			uint32_t q = s->chunks.v[k].seq;
			late += k && q <= top;
			top = q > top ? q : top;
		}
		if (late)
			qsort(s->chunks.v, s->chunks.n, sizeof(*s->chunks.v), by_seq);
		for (size_t k = 0; k < s->chunks.n; k++) {
			uint32_t q = s->chunks.v[k].seq;
			missing += q > want ? q - want : 0;
			want = (uint64_t)q + 1 > want ? (uint64_t)q + 1 : want;
		}
		if (!late && !missing)
			continue;
		if (!d->unordered++) {
			d->unordered_pid = st->procs.v[s->proc].pid;
			d->unordered_tid = s->tid;
		}
		d->late += late;
		d->missing += missing;
	}
}

/* The warnings of what indexing found, and what the result is worth. */
static void index_report(struct an_state *st, const struct index_damage *d)
{
	if (d->dups) {
		st->res->damaged |= AN_DAMAGE_UNTRUSTED;
		an_warn(st,
			"chunks that appear twice: %llu (the first copy at byte %llu, of the chunk at byte %llu): "
			"the copies are skipped, but the file was damaged or edited after it was recorded",
			(unsigned long long)d->dups, (unsigned long long)d->dup_off, (unsigned long long)d->dup_of);
	}
	if (d->unordered) {
		st->res->damaged |= AN_DAMAGE_UNTRUSTED;
		an_warn(st,
			"chunks out of sequence in %llu of the threads (the first: thread %u of pid %u): %llu after "
			"a later one, %llu missing; replayed in sequence, but chunks that moved or went missing "
			"were damaged or edited after recording",
			(unsigned long long)d->unordered, d->unordered_tid, d->unordered_pid,
			(unsigned long long)d->late, (unsigned long long)d->missing);
	}
	if (d->unknown) {
		st->res->damaged |= AN_DAMAGE_PARTIAL;
		an_warn(st, "chunks of an unknown type: %llu (the first: type %u at byte %llu): skipped (a newer "
			    "memprism's?)",
			(unsigned long long)d->unknown, d->unknown_type, (unsigned long long)d->unknown_off);
	}
	/* (no process and no thread's records, but the launcher saw the run
	 * end: the program ran without the runtime, which record said; an_run
	 * warns) */
	if (!d->processes && (st->res->run_status == -1 || st->nchunks)) {
		st->res->damaged |= AN_DAMAGE_UNTRUSTED;
		if (!d->chunks)
			an_warn(st, "the file holds no process: it has no chunk at all (the recording wrote its "
				    "header only)");
		else
			an_warn(st, "the file holds no process: none of its %llu chunks starts one (the program ran "
				    "without memprism's runtime?)",
				(unsigned long long)d->chunks);
	}
}

/* A thread's chunk c joins its stream (a new one for a new thread); tids:
 * (process, tid) -> the tid's latest stream. 0 or -errno. */
static int index_stream(struct an_state *st, const struct trace_chunk *c, struct mp_hashmap *tids)
{
	int pi = an_proc_get(st, c->hdr.proc_id, c->hdr.pid);
	if (pi < 0)
		return pi;
	struct an_proc *p = &st->procs.v[pi];
	/* the stream of this tid; a seq restarting at 0 is a new thread that
	 * reuses the tid */
	const uint64_t key = (uint64_t)(pi + 1) << 32 | c->hdr.tid;
	const uint64_t *at = mp_hashmap_get(tids, key);
	struct an_stream *s = at ? &st->streams.v[*at] : NULL;
	int err = s ? stream_copy(st, s, c) : 0;
	if (err)
		return err < 0 ? err : 0; /* (a copy: taken once, from its first) */
	if (!s || (c->hdr.seq == 0 && s->chunks.n && has_seq0(s))) {
		struct an_stream ns = { .proc = (uint32_t)pi, .tid = c->hdr.tid };
		if (mp_vec_push(&st->streams, ns) || mp_vec_push(&p->streams, (uint32_t)(st->streams.n - 1)) ||
		    mp_hashmap_put(tids, key, st->streams.n - 1))
			return -ENOMEM;
		s = &st->streams.v[st->streams.n - 1];
	}
	if (mp_vec_push(&s->chunks, ((struct an_chunk_ref){ c->offset, c->hdr.accesses, c->hdr.seq })))
		return -ENOMEM;
	st->nchunks++;
	return 0;
}

int an_index_chunks(struct an_state *st)
{
	struct trace_chunk c;
	struct index_damage dmg = { 0 };
	int err = 0;
	mp_hashmap_init(&dmg.seen);
	struct mp_hashmap tids; /* (process, tid) -> its latest stream (index_stream) */
	mp_hashmap_init(&tids);
	/* threads' records and page tables are decoded when read (cursor_load,
	 * an_phys_load), not here too: a third of a plain report's time */
	const uint32_t later = 1u << MP_CHUNK_STREAM | 1u << MP_CHUNK_PAGEMAP;
	while (trace_reader_next_lazy(st->reader, &c, later)) {
		int pi;
		dmg.chunks++;
		/* (a stream's copies are told from damage by their records:
		 * stream_copy) */
		if (c.hdr.type != MP_CHUNK_STREAM && (err = chunk_seen(&dmg, &c)) != 0) {
			if (err < 0)
				goto out;
			err = 0;
			continue; /* (a copy counts once) */
		}
		switch (c.hdr.type) {
		case MP_CHUNK_PROCESS: {
			struct trace_proc tp;
			if (trace_proc_decode(&c, &tp)) {
				an_warn(st, "a process record is malformed; skipped");
				break;
			}
			dmg.processes++;
			pi = an_proc_get(st, c.hdr.proc_id, (uint32_t)tp.pid);
			if (pi < 0) {
				err = pi;
				goto out;
			}
			struct an_proc *p = &st->procs.v[pi];
			p->ppid = (uint32_t)tp.ppid;
			p->parent_id = tp.parent_proc;
			p->fork_epoch = tp.fork_epoch;
			if (tp.parent_proc)
				st->has_forks = 1;
			p->instrumented = !!(tp.flags & MP_PROC_INSTRUMENTED);
			p->have_record = 1;
			p->start_time = tp.time;
			free(p->exe);
			p->exe = strndup_s(tp.exe, tp.exe_len);
			p->image = (uint32_t)mp_hash_str(p->exe ? p->exe : "", 0);
			break;
		}
		case MP_CHUNK_STREAM:
			if ((err = index_stream(st, &c, &tids)) != 0)
				goto out;
			break;
		case MP_CHUNK_END: {
			struct trace_end te;
			pi = an_proc_get(st, c.hdr.proc_id, c.hdr.pid);
			if (pi < 0) {
				err = pi;
				goto out;
			}
			if (trace_end_decode(&c, &te) == 0) {
				st->procs.v[pi].ended = 1;
				st->procs.v[pi].end_status = te.status;
				st->procs.v[pi].recorded = te.accesses;
				st->procs.v[pi].lost = te.dropped;
				st->procs.v[pi].handler_jumps = te.handler_jumps;
			}
			break;
		}
		case MP_CHUNK_RUN_END: {
			struct trace_dec d;
			uint64_t status;
			trace_dec_init(&d, c.data, c.len);
			if (mp_get_uv(&d.p, d.end, &status) == 0) {
				st->res->run_status = (int)status;
				st->run_pid = c.hdr.pid;
			}
			break;
		}
		case MP_CHUNK_PAGEMAP:
			if (mp_vec_push(&st->pagemap_chunks, c.offset)) {
				err = -ENOMEM;
				goto out;
			}
			break;
		case MP_CHUNK_SAMPLES:
			an_samples_chunk(st, &c);
			break;
		default:
			/* a newer writer's chunk type: skip it */
			if (!dmg.unknown++) {
				dmg.unknown_off = c.offset;
				dmg.unknown_type = c.hdr.type;
			}
			break;
		}
	}
	check_sequences(st, &dmg);
	const struct mp_file_header *fh = trace_reader_header(st->reader);
	int werr = (fh->flags & MP_FILE_WRITE_FAILED) ? MP_FILE_WRITE_ERRNO(fh->flags) : 0;
	st->res->write_errno = werr;
	uint64_t off;
	int rerr = trace_reader_status(st->reader, &off);
	if (rerr) {
		st->res->damaged |= AN_DAMAGE_PARTIAL;
		if (werr)
			an_warn(st, "data file damaged at byte %llu (%s): a write to it failed during the recording "
				    "(%s%s), which stopped there; read up to the last good chunk",
				(unsigned long long)off, mp_strerror(rerr), strerror(werr),
				werr == ENOSPC ? ": the disk was full" : "");
		else
			an_warn(st, "data file damaged at byte %llu (%s): read up to the last good chunk",
				(unsigned long long)off, mp_strerror(rerr));
	} else if (dmg.processes && st->res->run_status == -1) {
		/* `record` writes the run's end once the program has ended: a file
		 * without it, its chunks all whole, stopped between two (cut at
		 * a chunk's end, or the recording killed) */
		st->res->damaged |= AN_DAMAGE_PARTIAL;
		an_warn(st, "the file has no end of run: the recording stopped before the program ended (memprism "
			    "record killed, or the file cut short at a chunk's end); the figures are those of what "
			    "was recorded");
	}
	index_report(st, &dmg);
out:
	mp_hashmap_fini(&dmg.seen);
	mp_hashmap_fini(&tids);
	return err;
}
