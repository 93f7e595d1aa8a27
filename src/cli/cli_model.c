// SPDX-License-Identifier: MIT
/* The model options every command that models takes: --model, --pages,
 * --thread-map and the sampling ones, as option rows (cli_opt.h) and as
 * what they set. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/mp_error.h"
#include "host/host.h"
#include "report/report.h"

static int parse_page(const char *s, unsigned *shift)
{
	if (!strcasecmp(s, "4k") || !strcasecmp(s, "4kib"))
		*shift = 12;
	else if (!strcasecmp(s, "2m") || !strcasecmp(s, "2mib"))
		*shift = 21;
	else if (!strcasecmp(s, "1g") || !strcasecmp(s, "1gib"))
		*shift = 30;
	else
		return -1;
	return 0;
}

int cli_parse_bursts(const char *arg, uint64_t *on, uint64_t *off)
{
	char *end;
	*on = *off = 0;
	if (arg[0] >= '0' && arg[0] <= '9') {
		*on = strtoull(arg, &end, 10);
		if (*end == ',' && end[1] >= '0' && end[1] <= '9')
			*off = strtoull(end + 1, &end, 10);
	}
	if (!*on || !*off || *end || *on == UINT64_MAX || *off == UINT64_MAX) {
		cli_error("--sample-bursts wants ON,OFF: two access counts > 0, e.g. 1000000,9000000 (not '%s')", arg);
		return 2;
	}
	return 0;
}

void cli_machine_host(struct mp_machine *m)
{
	struct mp_host_cpu h;
	mp_host_cpu_read(&h);
	mp_machine_host(m, &h);
}

/* A machine file's text: 0, or -errno with the message in err. */
static int machine_file(const char *path, struct mp_machine *m, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	/* (a machine file is a few dozen short lines) */
	char text[64 * 1024];
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	int e = ferror(f) ? errno : 0;
	fclose(f);
	if (e) {
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	text[n] = 0;
	return mp_machine_parse(text, path, m, err, errlen);
}

int cli_machine_resolve(const char *spec, struct mp_machine *m, char *err, size_t errlen)
{
	if (strcmp(spec, "host") == 0) {
		cli_machine_host(m);
		return 0;
	}
	if (mp_machine_preset(spec, m) == 0)
		return 0;
	if (strchr(spec, '/') || access(spec, F_OK) == 0)
		return machine_file(spec, m, err, errlen);
	size_t at =
		(size_t)snprintf(err, errlen, "unknown machine \"%s\": give host, a machine file, or one of:", spec);
	for (const char *const *p = mp_machine_presets(); *p && at < errlen; p++)
		at += (size_t)snprintf(err + at, errlen - at, " %s", *p);
	return -MP_ERR_USAGE;
}

static int model_option_apply(struct cli_model *m, int c, const char *arg);

/* Keeps option `name` ARG for the findings' what-if commands (rp_opts). */
static void echo_arg(struct cli_model *m, const char *name, const char *arg)
{
	if (m->nargs + 2 <= sizeof(m->args) / sizeof(m->args[0])) {
		m->args[m->nargs++] = name;
		m->args[m->nargs++] = arg;
	}
}

int cli_model_option(struct cli_model *m, int c, const char *arg)
{
	static const struct {
		int c;
		const char *name;
	} echoed[] = { { 'm', "--model" },
		       { CLI_K_PAGES, "--pages" },
		       { CLI_K_SAMPLE_SETS, "--sample-sets" },
		       { CLI_K_SAMPLE_BURSTS, "--sample-bursts" },
		       { CLI_K_THREAD_MAP, "--thread-map" } };
	int rc = model_option_apply(m, c, arg);
	for (size_t i = 0; rc == 0 && i < sizeof(echoed) / sizeof(echoed[0]); i++)
		if (echoed[i].c == c)
			echo_arg(m, echoed[i].name, arg);
	return rc;
}

static int model_option_apply(struct cli_model *m, int c, const char *arg)
{
	char err[512];
	switch (c) {
	case 'm':
		if (cli_machine_resolve(arg, &m->machine, err, sizeof(err))) {
			cli_error("--model: %s", err);
			return 2;
		}
		m->have = 1;
		return 0;
	case CLI_K_PAGES: {
		const char *eq = strrchr(arg, '=');
		unsigned shift;
		if (parse_page(eq ? eq + 1 : arg, &shift) || (eq && eq == arg)) {
			cli_error("--pages wants SIZE or PATTERN=SIZE with SIZE 4K, 2M or 1G "
				  "(got '%s')",
				  arg);
			return 2;
		}
		if (!eq) {
			m->page_shift = shift;
			return 0;
		}
		if (m->nrules == CLI_MAX_PAGE_RULES) {
			cli_error("too many --pages rules (at most %d)", CLI_MAX_PAGE_RULES);
			return 2;
		}
		size_t n = (size_t)(eq - arg);
		if (n >= sizeof(m->patterns[0]))
			n = sizeof(m->patterns[0]) - 1;
		memcpy(m->patterns[m->nrules], arg, n);
		m->patterns[m->nrules][n] = 0;
		m->rules[m->nrules] = (struct an_page_rule){ m->patterns[m->nrules], shift };
		m->nrules++;
		return 0;
	}
	case CLI_K_SAMPLE_SETS: {
		char *end;
		unsigned long n = strtoul(arg, &end, 10);
		if (!*arg || *end || n == 0 || n > 4096 || (n & (n - 1))) {
			cli_error("--sample-sets wants a power of two from 1 to 4096: model 1 in N cache sets "
				  "(got '%s')",
				  arg);
			return 2;
		}
		m->sample_sets = (unsigned)n;
		return 0;
	}
	case CLI_K_SAMPLE_BURSTS:
		return cli_parse_bursts(arg, &m->burst_on, &m->burst_off);
	case CLI_K_MODEL_THREADS: {
		char *end;
		unsigned long n = strtoul(arg, &end, 10);
		if (!*arg || *end || n == 0 || n > 64) {
			cli_error("--model-threads wants a number of threads from 1 to 64 (got '%s')", arg);
			return 2;
		}
		m->threads = (unsigned)n;
		return 0;
	}
	case CLI_K_THREAD_MAP:
		if (!strcmp(arg, "recorded"))
			m->thread_map = AN_MAP_RECORDED;
		else if (!strcmp(arg, "spread"))
			m->thread_map = AN_MAP_SPREAD;
		else {
			cli_error("--thread-map wants recorded or spread (got '%s')", arg);
			return 2;
		}
		return 0;
	}
	return 1;
}

int cli_model_apply(struct cli_model *m, struct an_opts *ao, int need_model)
{
	char err[256];
	if (!m->have && (need_model || m->nrules || m->page_shift || m->sample_sets || m->burst_on || m->threads)) {
		if (!need_model) {
			cli_error("--pages, --thread-map, --sample-sets, --sample-bursts and --model-threads need a "
				  "model: add --model host, a preset or a machine file");
			return 2;
		}
		cli_machine_host(&m->machine);
		m->have = 1;
	}
	if (!m->have)
		return 0;
	ao->machine = &m->machine;
	ao->page_shift = m->page_shift;
	ao->page_rules = m->rules;
	ao->npage_rules = m->nrules;
	ao->thread_map = (enum an_thread_map)m->thread_map;
	if (m->sample_sets > 1 && mp_machine_sample_sets_ok(&m->machine, m->sample_sets, err, sizeof(err))) {
		cli_error("--sample-sets %u: %s", m->sample_sets, err);
		return 2;
	}
	ao->sample_sets = m->sample_sets;
	ao->burst_on = m->burst_on;
	ao->burst_off = m->burst_off;
	ao->model_threads = m->threads;
	return 0;
}

/* One run of the checks' file with the command's model options and the
 * rules in first (the burst-sampled file's checks, one by one), or with
 * the checks beside the model (walk_checks: all at once); walks_only. */
static int check_run(const struct cli_check *k, const struct rp_walk_check *first, const struct an_page_rule *checks,
		     size_t n, struct an_result **r)
{
	const struct cli_model *a = k->model;
	static struct cli_model b; /* large: not on the stack */
	if (first && a->nrules >= CLI_MAX_PAGE_RULES)
		return -ENOSPC;
	b = *a;
	size_t at = 0;
	if (first) {
		snprintf(b.patterns[0], sizeof(b.patterns[0]), "%s", first->what);
		b.rules[at++] = (struct an_page_rule){ b.patterns[0], first->shift };
	}
	for (size_t i = 0; i < a->nrules; i++, at++) {
		snprintf(b.patterns[at], sizeof(b.patterns[at]), "%s", a->rules[i].pattern);
		b.rules[at] = (struct an_page_rule){ b.patterns[at], a->rules[i].shift };
	}
	b.nrules = at;
	struct an_opts ao = k->ao;
	ao.page_rows = 0;
	if (cli_model_apply(&b, &ao, 1))
		return -EINVAL;
	ao.walks_only = 1; /* (the check compares walks alone) */
	ao.walk_checks = checks;
	ao.nwalk_checks = n;
	ao.jobs = cli_jobs(); /* (a file's processes at once, each check on TLBs of their own) */
	ao.progress = cli_progress;
	ao.progress_arg = n > 1 ? "checking the findings' what-ifs" : "checking a finding's what-if";
	int err = an_run(k->path, &ao, r);
	cli_progress_end();
	return err;
}

/* The checks asked last time, again (their names compared as strings:
 * the bytes past each one's end are whatever they were). */
static int same_checks(const struct cli_check *k, size_t n, const struct rp_walk_check *checks)
{
	if (!k->done || n != k->n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (checks[i].shift != k->checks[i].shift || strcmp(checks[i].what, k->checks[i].what))
			return 0;
	return 1;
}

int cli_check_pages(void *arg, size_t n, const struct rp_walk_check *checks, uint64_t *walks)
{
	struct cli_check *k = arg;
	/* (the same findings shown twice, as text and as the HTML page's
	 * JSON, are checked once) */
	if (same_checks(k, n, checks)) {
		memcpy(walks, k->walks, n * sizeof(*walks));
		return 0;
	}
	if (n > sizeof(k->checks) / sizeof(k->checks[0]))
		return -ENOSPC;
	struct an_page_rule rules[sizeof(k->checks) / sizeof(k->checks[0])];
	for (size_t i = 0; i < n; i++)
		rules[i] = (struct an_page_rule){ checks[i].what, checks[i].shift };
	if (k->res && an_result_check_walks(k->res, k->ao.machine, rules, n, cli_jobs(), walks) == 0)
		goto done;
	struct an_result *r = NULL;
	int err = check_run(k, NULL, rules, n, &r);
	if (!err && r->check_walks)
		memcpy(walks, r->check_walks, n * sizeof(*walks));
	else if (!err) {
		/* burst-sampled: each check's walks are its own run's
		 * estimates, scaled by thread */
		for (size_t i = 0; i < n && !err; i++) {
			an_result_free(r);
			r = NULL;
			err = check_run(k, &checks[i], NULL, 0, &r);
			if (!err)
				walks[i] = r->mem_total.walks;
		}
	}
	an_result_free(r);
	if (err)
		return err;
done:
	k->done = 1;
	k->n = n;
	memcpy(k->checks, checks, n * sizeof(*checks));
	memcpy(k->walks, walks, n * sizeof(*walks));
	return 0;
}

const struct rp_machine *cli_rp_machine(const struct mp_machine *m, struct rp_machine *out)
{
	if (!m)
		return NULL;
	unsigned t4 = m->dtlb[MP_PAGE_4K].entries, t2 = m->dtlb[MP_PAGE_2M].entries;
	if ((m->stlb_sizes & (1u << MP_PAGE_4K)) && m->stlb.entries > t4)
		t4 = m->stlb.entries;
	if ((m->stlb_sizes & (1u << MP_PAGE_2M)) && m->stlb.entries > t2)
		t2 = m->stlb.entries;
	*out = (struct rp_machine){ .line = m->line,
				    .l1d_size = m->l1d.size,
				    .l1d_ways = m->l1d.ways,
				    .llc_size = m->llc.size,
				    .tlb_4k = t4,
				    .tlb_2m = t2 };
	return out;
}

void cli_model_note(const struct cli_model *m)
{
	if (m->have && m->machine.notes[0] && !strcmp(m->machine.name, "host"))
		cli_note("note: model host: %s", m->machine.notes);
}

static void presets(FILE *out)
{
	for (const char *const *p = mp_machine_presets(); *p; p++)
		fprintf(out, " %s", *p);
}

const struct cli_opt cli_opts_model[] = {
	CLI_TEXT("model options (caches, TLBs, page walks; figures labelled as modelled):"),
	{ .name = "model", .key = 'm', .arg = "MACHINE", .help = "host, a machine file, or a preset:", .help_more = presets },
	CLI_OPT("pages", CLI_K_PAGES, "SIZE", "page size of everything: 4K (default), 2M or 1G"),
	CLI_OPT("pages", CLI_K_PAGES, "PATTERN=SIZE",
	  "objects whose label contains PATTERN in SIZE pages\n"
	  "(what-if: huge pages for one object; repeatable)"),
	CLI_OPT("thread-map", CLI_K_THREAD_MAP, "MAP",
	  "recorded (default: the CPU each thread ran on) or spread\n"
	  "(threads take cores round-robin)"),
	CLI_OPT("model-threads", CLI_K_MODEL_THREADS, "N",
	  "the exact model on N threads (default: 2 with two\n"
	  "CPUs or more), the same figures: at 2, the model\n"
	  "beside the replay where references miss (faster\n"
	  "there), on the replay's thread where they hit;\n"
	  "beyond, cache sets apart (docs/model.md, \"On\n"
	  "several threads\")"),
	CLI_END,
};

const struct cli_opt cli_opts_sampling[] = {
	CLI_OPT("sample-sets", CLI_K_SAMPLE_SETS, "N",
	  "model L2 and the LLC for 1 in N of their sets (a\n"
	  "power of two): less work where references miss L1;\n"
	  "beyond-L1 and DRAM figures become estimates, L1 and\n"
	  "TLB figures stay exact (L1: but for the middle of\n"
	  "long ranges, estimated from their sampled lines)"),
	CLI_OPT("sample-bursts", CLI_K_SAMPLE_BURSTS, "ON,OFF",
	  "of a full trace, replay each thread's accesses in\n"
	  "bursts of ON with OFF dropped between them, as\n"
	  "`record --sample-bursts ON,OFF` would have recorded\n"
	  "them: every figure becomes an estimate, the model\n"
	  "runs on ON/(ON+OFF) of the accesses"),
	CLI_END,
};
