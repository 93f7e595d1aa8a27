// SPDX-License-Identifier: MIT
/*
 * Burst sampling at replay (--sample-bursts ON,OFF with report): a
 * stream's accesses past each burst are dropped as the recorder would not
 * have written them, whole chunks undecoded where their headers allow.
 * Part of the replay (an_replay.c), whose cursor it moves.
 */
#include "analysis/an_int.h"
#include "trace/trace_reader.h"

/* The skip's accesses so far, told as the recorder's DROPPED record tells
 * them (replay_proc): a skip that events broke into parts is one skip. */
static void replay_skip_told(struct an_state *st, struct an_stream *s)
{
	if (!s->replay_skipped)
		return;
	st->res->skipped_accesses += s->replay_skipped;
	s->skipped += s->replay_skipped;
	s->bursts += !s->in_skip;
	s->in_skip = 1;
	s->rep_again = 0; /* (the next access goes to the model: mp_model_set_burst) */
	s->replay_skipped = 0;
}

/* --sample-bursts at replay, in a skip: the stream's next chunks that hold
 * only accesses, fewer than the skip has left, are dropped whole, without
 * decompressing or decoding them (their headers count the accesses).
 * randacc's 230K accesses a chunk: 3 of a skip of 900K's 4. */
void an_replay_skip_chunks(struct an_state *st, struct an_stream *s)
{
	uint64_t n0 = s->replay_skipped;
	for (; s->next_chunk < s->chunks.n; s->next_chunk++) {
		uint32_t a = s->chunks.v[s->next_chunk].accesses;
		if (!(a & MP_CHUNK_PLAIN) || (a & ~MP_CHUNK_PLAIN) >= s->replay_left)
			break;
		s->replay_left -= a & ~MP_CHUNK_PLAIN;
		s->replay_skipped += a & ~MP_CHUNK_PLAIN;
		st->chunks_done++;
	}
	if (s->replay_skipped != n0)
		replay_skip_told(st, s);
}

/* The stream's pending access falls in a skip: it and the accesses after
 * it in the skip are dropped, as the recorder would not have written them.
 * Returns 1 when the skip ended with an access pending in s->rec (the
 * next burst's first), 0 at a record that is not an access (an event
 * breaks the skip, as the recorder's do) or the stream's end. */
int an_replay_skip(struct an_state *st, struct an_stream *s)
{
	/* the decoder and the counts in locals, which the compiler keeps in
	 * registers: most of a replayed trace's accesses pass through here,
	 * decoded only to reach the next burst (allocheavy: 20M of 22M) */
	struct trace_dec d = s->dec;
	uint64_t left = s->replay_left, skipped = s->replay_skipped;
	for (;;) {
		skipped++;
		struct trace_acc a;
		if (!--left) {
			s->dec = d;
			s->replay_left = left;
			s->replay_skipped = skipped;
			replay_skip_told(st, s);
			s->replay_skipping = 0;
			s->replay_left = st->burst_on;
			s->in_skip = 0;
			an_look_ahead(st, s, 1); /* (it was left behind) */
			if (trace_dec_acc(&s->dec, &a)) {
				trace_rec_set_access(&s->rec, &a);
				return 1;
			}
			an_cursor_advance(st, s);
			return !s->done && s->rec.cls == MP_REC_ACCESS;
		}
		if (trace_dec_acc(&d, &a)) {
			/* (nothing reads the pending record before the next one
			 * replaces it: no copy into s->rec) */
			if (a.range && a.size >= 4096 && st->model) {
				s->dec = d;
				an_model_span_range(st, s, a.addr, a.size);
			}
			continue;
		}
		s->dec = d;
		s->replay_left = left;
		s->replay_skipped = skipped;
		replay_skip_told(st, s);
		an_cursor_advance(st, s);
		if (s->done || s->rec.cls != MP_REC_ACCESS)
			return 0;
		d = s->dec;
		left = s->replay_left;
		skipped = s->replay_skipped;
	}
}
