// SPDX-License-Identifier: MIT
/*
 * The analysis's entry point: an_run opens the trace, sizes its bounds to
 * the file, sets the stages up (model, NUMA placement), replays every
 * process (an_replay.c), then hands the replay's state through the stages
 * after it in order (sites, sampling's estimates, functions, merged
 * classes, pages, samples, NUMA tables) into one struct an_result, and
 * frees the state. It is the only file that calls every stage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_int.h"
#include "analysis/an_numa.h"
#include "analysis/an_samples.h"
#include "common/mp_error.h"
#include "common/mp_path.h"
#include "sym/sym.h"

static void state_fini(struct an_state *st)
{
	for (size_t i = 0; i < st->procs.n; i++) {
		struct an_proc *p = &st->procs.v[i];
		free(p->exe);
		mp_vec_free(&p->streams);
		for (size_t j = 0; j < p->modules.n; j++) {
			free(p->modules.v[j].path);
			for (size_t k = 0; k < p->modules.v[j].tls.n; k++)
				free(p->modules.v[j].tls.v[k].name);
			mp_vec_free(&p->modules.v[j].tls);
		}
		mp_vec_free(&p->modules);
		an_objmap_fini(&p->map);
		mp_hashmap_fini(&p->groups);
		sym_ctx_free(p->sym);
		free(p->kids);
		an_fork_fini(p);
	}
	mp_vec_free(&st->procs);
	for (size_t i = 0; i < st->streams.n; i++) {
		mp_vec_free(&st->streams.v[i].chunks);
		free(st->streams.v[i].data);
		if (st->streams.v[i].ph != an_ph_none)
			free(st->streams.v[i].ph);
		mp_hashmap_fini(&st->streams.v[i].stack_ids);
	}
	mp_vec_free(&st->streams);
	an_registry_fini(st);
	mp_vec_free(&st->parts);
	mp_hashmap_fini(&st->part_index);
	an_samples_free(st);
	an_cpu_free(st);
	for (size_t i = 0; i < st->warnings.n; i++)
		free(st->warnings.v[i]);
	mp_vec_free(&st->warnings);
	mp_hashmap_fini(&st->proc_index);
	mp_hashmap_fini(&st->pairs);
	an_model_fini(st);
	an_numa_fini(st);
	an_phys_free(st);
	mp_vec_free(&st->pagemap_chunks);
	trace_reader_close(st->reader);
}

/* The processes into r->procs, each with what its records tell of how it
 * ended said as a warning; 0 or -ENOMEM. */
static int procs_to_result(struct an_state *st, struct an_result *r)
{
	r->procs = calloc(st->procs.n ? st->procs.n : 1, sizeof(*r->procs));
	if (!r->procs)
		return -ENOMEM;
	for (size_t i = 0; i < st->procs.n; i++) {
		struct an_proc *p = &st->procs.v[i];
		struct an_process *q = &r->procs[r->nprocs++];
		*q = (struct an_process){ .pid = p->pid, .ppid = p->ppid, .proc_id = p->id,
					  .parent_proc = p->parent_id, .instrumented = p->instrumented,
					  .ended = p->ended, .end_status = p->end_status,
					  .accesses = p->accesses };
		q->exe = p->exe;
		p->exe = NULL;
		if (!p->have_record)
			an_warn(st, "process %u: its start record is missing (damaged file?)", p->pid);
		else if (!p->ended && r->write_errno)
			an_warn(st, "process %u (%s) has no end record: writing the data file failed during the "
				     "recording (%s%s), which stopped it; its last unwritten records are lost",
				p->pid, mp_base_name(q->exe ? q->exe : "?"), strerror(r->write_errno),
				r->write_errno == ENOSPC ? ": the disk was full" : "");
		else if (!p->ended && p->pid == st->run_pid && r->run_status >= 0x100)
			an_warn(st, "process %u (%s) was killed by signal %d (SIG%s) before it could shut down: the "
				     "accesses each of its threads made after its last event (an allocation, free, "
				     "mapping, ...) are missing",
				p->pid, mp_base_name(q->exe ? q->exe : "?"), r->run_status - 0x100,
				sigabbrev_np(r->run_status - 0x100) ? sigabbrev_np(r->run_status - 0x100) : "?");
		else if (!p->ended)
			an_warn(st, "process %u (%s) did not shut down (killed by a signal, as by kill -9 or the "
				     "out-of-memory killer?): the accesses each of its threads made after its last "
				     "event (an allocation, free, mapping, ...) are missing",
				p->pid, mp_base_name(q->exe ? q->exe : "?"));
		else if (p->end_status >= 0x100 && p->end_status < MP_END_EXEC)
			an_warn(st, "process %u (%s) died of signal %llu; everything it recorded was saved",
				p->pid, mp_base_name(q->exe ? q->exe : "?"), (unsigned long long)(p->end_status - 0x100));
		if (p->lost)
			an_warn(st, "process %u (%s): %llu accesses and events of signal handlers nested too deep "
				     "to record are not counted",
				p->pid, mp_base_name(q->exe ? q->exe : "?"), (unsigned long long)p->lost);
		if (p->handler_jumps)
			an_warn(st, "process %u (%s): %llu signal handlers left by longjmp; the code each one "
				     "interrupted may miss the accesses of the loop iteration it was in",
				p->pid, mp_base_name(q->exe ? q->exe : "?"), (unsigned long long)p->handler_jumps);
	}
	return 0;
}

/* The recorded command line into out (len bytes), cut with " ..." where
 * it is longer, not within a character. */
static void command_line(char *out, size_t len, const char *cmd)
{
	size_t n = strlen(cmd);
	if (n < len) {
		memcpy(out, cmd, n + 1);
		return;
	}
	n = len - 5;
	while (n && ((unsigned char)cmd[n] & 0xc0) == 0x80)
		n--;
	memcpy(out, cmd, n);
	memcpy(out + n, " ...", 5);
}

/* The fewest sets of the machine's data caches a sampled model may keep
 * (an_opts.walks_only): the largest power of two that divides every
 * level's set count, up to 1024. */
static unsigned walk_sets(const struct mp_machine *m)
{
	char err[256];
	unsigned n = 1024;
	while (n > 1 && mp_machine_sample_sets_ok(m, n, err, sizeof(err)))
		n /= 2;
	return n;
}

int an_run(const char *path, const struct an_opts *o, struct an_result **out)
{
	static const struct an_opts defaults;
	struct an_state st;
	memset(&st, 0, sizeof(st));
	st.opts = o ? o : &defaults;
	struct an_result *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->run_status = -1;
	st.res = r;
	st.path = path;
	st.reader = trace_reader_open(path);
	if (!st.reader) {
		int err = -errno;
		free(r);
		return err;
	}
	if (st.opts->skip_checksums)
		trace_reader_skip_checksums(st.reader);
	st.file_bytes = trace_reader_size(st.reader);
	st.held_max = an_bound(&st, AN_HELD_FLOOR, AN_HELD_PER_KIB);
	st.objects_max = an_bound(&st, AN_OBJECTS_FLOOR, AN_OBJECTS_PER_KIB);
	st.frames_max = an_bound(&st, AN_FRAMES_FLOOR, AN_FRAMES_PER_KIB);
	st.threads_max = an_bound(&st, AN_THREADS_FLOOR, AN_THREADS_PER_KIB);
	st.ips_max = an_bound(&st, AN_IPS_FLOOR, AN_IPS_PER_KIB);
	st.pairs_max = an_bound(&st, AN_PAIRS_FLOOR, AN_PAIRS_PER_KIB);
	char buf[8192];
	if (trace_reader_meta(st.reader, "cmdline", buf, sizeof(buf)))
		command_line(r->cmdline, sizeof(r->cmdline), buf);
	if (!trace_reader_meta(st.reader, "source", r->source, sizeof(r->source)))
		snprintf(r->source, sizeof(r->source), "inst");
	if (trace_reader_meta(st.reader, "min_size", buf, sizeof(buf)))
		r->min_size = strtoull(buf, NULL, 10);
	/* recorded in bursts: class figures are kept per thread (an_part) */
	st.parts_on = trace_reader_meta(st.reader, "sample_bursts", buf, sizeof(buf)) != NULL;
	unsigned long long on, off;
	if (st.parts_on && sscanf(buf, "%llu,%llu", &on, &off) == 2 && on && off) {
		st.burst_on = on;
		st.burst_off = off;
	}
	st.skip_max = st.burst_off ? st.burst_off : AN_SKIP_MAX;
	if (st.opts->burst_on && st.opts->burst_off) {
		if (st.parts_on) {
			trace_reader_close(st.reader);
			free(r);
			return -MP_ERR_SAMPLED;
		}
		/* (a DROPPED record in a full trace, a thread without a buffer,
		 * may tell of any number: skip_max stays) */
		st.parts_on = st.replay_on = r->bursts_replayed = 1;
		st.burst_on = st.opts->burst_on;
		st.burst_off = st.opts->burst_off;
	}
	struct an_opts walk_opts;
	if (st.opts->walks_only && st.opts->machine && !st.parts_on && st.opts->sample_sets <= 1) {
		walk_opts = *st.opts;
		walk_opts.sample_sets = walk_sets(st.opts->machine);
		st.opts = &walk_opts;
	}
	st.unknown_cls = an_class_by_label(&st, AN_KIND_UNKNOWN, "unknown (no object recorded at the address)");
	int err = an_model_init(&st);
	if (!err)
		err = an_numa_init(&st);
	if (err) {
		an_model_fini(&st);
		trace_reader_close(st.reader);
		free(r);
		return err;
	}
	if (st.opts->machine)
		snprintf(r->machine, sizeof(r->machine), "%s", st.opts->machine->name);
	err = an_replay_all(&st);
	if (err == AN_REPLAY_AGAIN) {
		/* (the processes' replays at once may not decide what the
		 * serial one does: an_procs.c) */
		struct an_opts serial = *st.opts;
		serial.jobs = 1;
		state_fini(&st);
		an_result_free(r);
		return an_run(path, &serial, out);
	}
	if (!err && st.oom)
		err = -ENOMEM;
	if (err)
		goto fail;
	an_model_finish(&st);
	an_pairs_finish(&st);
	if (st.oom)
		err = -ENOMEM;
	if (err || (err = an_sites_label(&st)) != 0)
		goto fail;
	an_bursts_apply(&st, r);
	if ((err = an_model_scale_sets(&st)) != 0)
		goto fail;
	uint32_t *line_of = NULL;
	err = an_result_functions(&st, r, &line_of);
	uint32_t *remap = calloc(st.classes.n + 1, sizeof(*remap));
	if (!remap && !err)
		err = -ENOMEM;
	if (!err)
		err = an_result_classes(&st, r, remap);
	if (!err)
		err = an_result_line_objects(&st, r, line_of, remap);
	free(line_of);
	if (!err)
		err = an_model_pages(&st, remap);
	if (!err)
		err = an_samples_finish(&st, r, remap);
	if (!err)
		err = an_numa_finish(&st, r, remap);
	r->class_map = remap;
	r->nclass_map = remap ? st.classes.n : 0;
	if (err)
		goto fail;
	r->threads = st.threads.v;
	r->nthreads = st.threads.n;
	st.threads.v = NULL;
	st.threads.n = 0;
	if ((err = procs_to_result(&st, r)) != 0 || (err = an_unseen_modules(&st, r)) != 0 ||
	    (err = an_cpu_result(&st, r)) != 0)
		goto fail;
	if (!st.procs.n && r->run_status != -1)
		an_warn(&st, "no process of the program recorded anything: it ran without memprism's runtime "
			     "(statically linked, built for another machine or word size, or set-user-ID, "
			     "set-group-ID or with file capabilities: `memprism record` said which)");
	if (st.opts->roi && !r->have_roi)
		an_warn(&st, "region '%s' never began: no access counted (names are case-sensitive)", st.opts->roi);
	r->trace_bytes = 0;
	r->warnings = st.warnings.v;
	r->nwarnings = st.warnings.n;
	st.warnings.v = NULL;
	st.warnings.n = 0;
	state_fini(&st);
	*out = r;
	return 0;
fail:
	state_fini(&st);
	an_result_free(r);
	return err;
}
