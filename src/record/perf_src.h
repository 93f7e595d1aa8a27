/* SPDX-License-Identifier: MIT */
/*
 * Sampling sources for `memprism record`: perf events opened on the program
 * (one per CPU and event, inherited by every thread and child), their rings
 * drained while it runs, and the samples appended to the data file as
 * SAMPLES chunks (trace_format.h). Library code: returns errors, prints
 * nothing.
 */
#ifndef MP_PERF_SRC_H
#define MP_PERF_SRC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/probe.h"

/* One event to open on every CPU. */
struct mp_perf_spec {
	const char *name; /* e.g. "page-faults-min", "mem-loads ldlat=30" */
	unsigned kind; /* enum mp_sample_kind */
	uint32_t type; /* perf_event_attr.type */
	uint64_t config, config1, config2;
	uint64_t period; /* sample every period events */
	uint64_t sample_type; /* PERF_SAMPLE_*; IDENTIFIER is added */
	int precise_ip; /* 0..3 */
	int exclude_kernel;
	size_t aux_bytes; /* AUX area per CPU (Arm SPE: records arrive there), 0 none */
};

/* Options of the pmu source. */
struct mp_pmu_opts {
	uint64_t period; /* 0: default per flavour */
	unsigned ldlat; /* Intel load-latency threshold in cycles, 0: default 30 */
	int callchain; /* sample user callchains */
	unsigned jitter_pct; /* vary the period by up to +-jitter_pct % (0 fixed) */
	const char *sysfs_root; /* PMU directories; NULL: /sys/bus/event_source/devices */
};

/*
 * The events of a source on this machine. faults: minor and major page
 * faults. pmu: by flavour (probe): Intel mem-loads/mem-stores and the STLB
 * miss events from the core PMU's sysfs event descriptions, AMD ibs_op, Arm
 * SPE (the arm_spe PMU, configured through its sysfs format/ files). Fills
 * up to max specs and returns how many, or a negative error (-ENOENT: no
 * event description or no arm_spe PMU found). Names point to
 * static or buf storage (buf: caller's, >= 1024 bytes, alive while specs are).
 */
int mp_perf_specs(enum mp_source src, const struct mp_probe *probe, const struct mp_pmu_opts *o,
		  struct mp_perf_spec *specs, int max, char *buf, size_t buf_len);

/* The inst source's CPU-time samples (MP_SK_CPU_TIME): cpu-clock, user
 * mode only, one sample every period_ns of a thread's CPU time, with ip,
 * tid, time and cpu. Fills *sp (its name static). */
void mp_perf_cpu_spec(struct mp_perf_spec *sp, uint64_t period_ns);

/* Parses a sysfs event description ("event=0xcd,umask=0x1,ldlat=3") with
 * the PMU's format/ directory (e.g. "config:0-7") into config words.
 * format_dir NULL: the Intel core PMU defaults (event 0-7, umask 8-15,
 * ldlat config1 0-15 ...). 0, -EINVAL for a term it cannot place, -ERANGE
 * for a value wider than its field. */
int mp_perf_parse_event(const char *desc, const char *format_dir, uint64_t *config, uint64_t *config1,
			uint64_t *config2);

/* The first of names (NULL-terminated, libpfm4 syntax "EVENT:UMASK") that
 * libpfm4 knows for this machine's core PMU (LIBPFM_FORCE_PMU may name
 * another model), encoded into sp->config/config1/config2. 0 and *used set,
 * -ENOENT if none is known here, -ENODEV if libpfm4 cannot start. */
int mp_perf_pfm_event(const char *const *names, struct mp_perf_spec *sp, const char **used);

/*
 * A sampling period varied uniformly within +-pct % of period (at least 1),
 * from the xorshift state *rng (seed it non-zero). Periodic code then cannot
 * stay in step with the sampler, and each sample still reports the period
 * it stood for (PERF_SAMPLE_PERIOD).
 */
uint64_t mp_period_jitter(uint64_t period, unsigned pct, uint64_t *rng);

struct mp_perf_session;

struct mp_perf_session_opts {
	size_t ring_pages; /* data pages per CPU ring, a power of two */
	int children; /* keep samples of the program's child processes too */
	unsigned jitter_pct; /* re-draw each event's period after every drain (not AUX events) */
	uint64_t seed; /* for the jitter; 0: from the clock */
};

/*
 * Opens specs on every CPU for pid (inherited by its threads and children,
 * counting from its next exec: enable_on_exec), maps one ring per CPU (and
 * an AUX area for specs that have one), and appends samples to out_fd (an
 * O_APPEND data file) as it drains. Samples of processes other than pid are
 * dropped unless o->children. *out owned by the caller: close with
 * mp_perf_session_close. Returns 0 or -errno from perf_event_open/mmap.
 */
int mp_perf_session_open(pid_t pid, const struct mp_perf_spec *specs, int nspecs, const struct mp_perf_session_opts *o,
			 int out_fd, struct mp_perf_session **out);

/* A ring in memory rather than mapped from perf: the perf mmap layout
 * (meta page, then data_size bytes; the meta page's data_offset/data_size
 * win when set) and optionally an AUX area. */
struct mp_perf_mem_ring {
	void *base;
	size_t data_size;
	void *aux; /* aux_size bytes, a power of two; NULL: none */
	size_t aux_size;
	int cpu;
	uint64_t id; /* the event id its records carry (spec 0 on this ring) */
};

/*
 * A session over rings the caller owns (alive until close) instead of
 * perf events: no perf_event_open, mmap or ioctl (so no period jitter);
 * draining, decoding and writing are the live session's. For replaying
 * saved rings and for tests. 0, -EINVAL or -ENOMEM.
 */
int mp_perf_session_open_mem(pid_t pid, const struct mp_perf_spec *specs, int nspecs,
			     const struct mp_perf_session_opts *o, const struct mp_perf_mem_ring *rings, int nrings,
			     int out_fd, struct mp_perf_session **out);

/* Descriptors to poll(2) for readable rings: returns the count, fills up to max. */
int mp_perf_session_fds(const struct mp_perf_session *s, int *fds, int max);

/* Drains every ring into the data file. 0 or -errno (write error). */
int mp_perf_session_drain(struct mp_perf_session *s);

struct mp_perf_stats {
	uint64_t samples, faults, lost, chunks, bad_records;
	uint64_t other_procs; /* samples of child processes dropped (no children option) */
	uint64_t aux_truncated; /* AUX records the kernel marked truncated (SPE buffer full) */
	uint64_t period_changes; /* PERF_EVENT_IOC_PERIOD calls that took */
};

/* Final drain and flush, closes events; *stats (if given) gets the final
 * counts. Returns 0 or the first error of the session (write errors are
 * latched). Accepts NULL. */
int mp_perf_session_close(struct mp_perf_session *s, struct mp_perf_stats *stats);

#endif
