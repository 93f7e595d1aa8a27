/* SPDX-License-Identifier: MIT */
/* The memprism command line: one cmd_<name>.c per command, dispatched from
 * the table in main.c. Only this folder talks to the user. */
#ifndef MP_CLI_H
#define MP_CLI_H

#include <stdio.h>

#include "analysis/analysis.h"
#include "model/machine.h"
#include "report/report.h"

#include "cli/cli_opt.h"

/* The commands, in `memprism --help`'s order (main.c's table): each
 * cmd_<name>.c defines its own, with its option table. */
extern const struct cli_cmd cli_cmd_cc, cli_cmd_cxx, cli_cmd_gcc, cli_cmd_gxx, cli_cmd_record, cli_cmd_report,
	cli_cmd_annotate, cli_cmd_tlb, cli_cmd_numa, cli_cmd_whatif, cli_cmd_diff, cli_cmd_memtrace, cli_cmd_fold, cli_cmd_export, cli_cmd_dump,
	cli_cmd_doctor;

/* The model options (cli_model.c): rows cli_opts_model and, where the
 * command samples, cli_opts_sampling in the command's table; parsing hands
 * their keys ('m', CLI_K_PAGES, CLI_K_THREAD_MAP, CLI_K_SAMPLE_SETS,
 * CLI_K_SAMPLE_BURSTS) to cli_model_option. */
#define CLI_MAX_PAGE_RULES 32
struct cli_model {
	struct mp_machine machine;
	int have;
	/* the model options as given, option and value (the what-if commands
	 * the findings suggest repeat them) */
	const char *args[2 * (CLI_MAX_PAGE_RULES + 8)];
	size_t nargs;
	unsigned page_shift;
	int thread_map;
	unsigned sample_sets; /* 0: every set */
	uint64_t burst_on, burst_off; /* --sample-bursts at replay; 0: every access */
	struct an_page_rule rules[CLI_MAX_PAGE_RULES];
	char patterns[CLI_MAX_PAGE_RULES][256];
	size_t nrules;
	unsigned threads; /* --model-threads; 0: the replay's alone */
};
/* --model host: the machine this host's CPU reports (src/host's facts,
 * the model's plausibility checks). */
void cli_machine_host(struct mp_machine *m);
/* --model SPEC: "host", a preset or a machine file. 0, or a negative error
 * with the message in err. */
int cli_machine_resolve(const char *spec, struct mp_machine *m, char *err, size_t errlen);
/* 0 handled, 2 bad value (message printed), 1 not a model option. */
int cli_model_option(struct cli_model *m, int key, const char *arg);
/* Fills ao's model fields; need_model: use the host when none was given.
 * 0 or 2 (message printed). */
int cli_model_apply(struct cli_model *m, struct an_opts *ao, int need_model);
/* --sample-bursts ON,OFF (record's and the model's): 0, or 2 with the
 * message printed. */
int cli_parse_bursts(const char *arg, uint64_t *on, uint64_t *off);
/* The model's machine in the report's terms (rp_opts.machine, the
 * findings' sizes), into *out; NULL without a model. */
struct rp_machine;
const struct rp_machine *cli_rp_machine(const struct mp_machine *m, struct rp_machine *out);
/* After a run that read the trace: what `host` had to guess (cli_note). */
void cli_model_note(const struct cli_model *m);
/* The what-ifs behind page-walk findings (rp_opts.check_pages, arg a
 * struct cli_check): the trace at path analysed again with ao's options
 * and model's, each check's WHAT in pages of 1 << shift bytes as if its
 * rule came first; all in one replay (an_opts.walk_checks) but for a
 * burst-sampled file. The last answer is kept for the same checks. */
struct cli_check {
	const char *path;
	struct an_opts ao; /* the command's, before its hooks */
	const struct cli_model *model;
	/* the run's result, if it kept its translations
	 * (an_opts.log_translations): the checks read them, no replay */
	const struct an_result *res;
	int done;
	size_t n;
	struct rp_walk_check checks[8];
	uint64_t walks[8];
};
int cli_check_pages(void *arg, size_t n, const struct rp_walk_check *checks, uint64_t *walks);

/* The option groups the commands that analyse a recording share
 * (cli_group.c), each parsed in one place; the rows, with their help, are
 * in each command's table. The allocation sites' group: -w/--alloc-wrapper
 * FN and --not-wrapper FN (repeatable), --no-wrapper-heuristic,
 * --lib-sites, --context N (keys 'w', CLI_K_NOT_WRAPPER,
 * CLI_K_NO_WRAPPER_HEURISTIC, CLI_K_LIB_SITES, CLI_K_CONTEXT). */
#define CLI_MAX_WRAPPERS 64
struct cli_sites {
	const char *wrappers[CLI_MAX_WRAPPERS], *not_wrappers[CLI_MAX_WRAPPERS];
	size_t nwrappers, nnot;
	int no_heuristic, lib_sites;
	int context; /* an_opts.context: 0 the default, -1 none, else N callers */
};
/* 0 handled, 2 bad value (message printed), 1 not one of the group. */
int cli_sites_option(struct cli_sites *s, int key, const char *arg);
/* Fills ao's allocation-site fields (s must outlive ao's use). */
void cli_sites_apply(const struct cli_sites *s, struct an_opts *ao);

/* One command's groups: the output group, -r/--roi NAME, -f/--format
 * FORMAT (one of cmd's formats), -n/--limit N into ro, and --force; the
 * sites' group; the model's (cli_model_option). */
struct rp_opts;
struct cli_group {
	const struct cli_cmd *cmd; /* whose formats, and its name in messages */
	struct rp_opts *ro; /* NULL: no output group */
	int force; /* --force (cli_opts_merge) */
	struct cli_sites sites;
	struct cli_model *model; /* NULL: no model group */
};
/* An option of one of g's groups: 0 handled; 2 a bad value (message
 * printed) or a key of none of them. */
int cli_group_option(struct cli_group *g, int key, const char *arg);

/* report --html FILE (cli_html.c): 0 or 1 (message printed). */
int cli_report_html(const char *html, struct an_opts *ao, struct rp_opts *ro);
/* The page of res into html ("-": standard output): 0, or a negative
 * errno with the message printed. */
int cli_write_html(const char *html, const struct an_result *res, const struct rp_opts *ro,
		   const struct an_bins *bins);

/* The terminal (cli_tty.c). */
extern int cli_quiet; /* -q, --quiet (set by cli_parse_next): no notes, no progress */
unsigned cli_term_width(void); /* stdout's columns if a terminal, else 0 */
int cli_use_color(void); /* stdout a terminal that wants colours (no NO_COLOR) */
/* "memprism: ..." on stderr unless --quiet (notes, not errors) */
void cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* an_opts.progress: "memprism: WHAT 42%" on a TTY stderr; arg is WHAT */
void cli_progress(void *arg, uint64_t done, uint64_t total);
void cli_progress_end(void);
/* ", ~12 s left" (or min, h) at the rate so far, into buf; "" in the first
 * second or without a rate. Returns buf. */
const char *cli_eta_text(char *buf, size_t cap, double elapsed, uint64_t done, uint64_t total);

/* A count for option opt (such as "--context"), 0 to max (SIZE_MAX: no
 * bound): 0 and *out, or 2 with a message naming opt. */
int cli_parse_count(const char *opt, const char *arg, size_t max, size_t *out);
/* --limit N: 0 and *out, or 2 with a message. */
int cli_parse_limit(const char *arg, size_t *out);
/* The optional data-file operand at argv[optind] (default memprism.data):
 * 0 and *path set, or 2 after saying that only one file is taken. */
int cli_data_path(int argc, char **argv, int optind, const char **path);
/* Says why an_run could not read path (named: given on the command line,
 * else the default memprism.data, whose absence gets `record_hint`). */
void cli_data_error(int err, const char *path, int named, const char *record_hint);

/* After an_run read path: says on stderr that the file is damaged, and its
 * warnings when the output does not show them (warnings_shown 0). Returns
 * the exit status the result calls for: 1 when its figures cannot be
 * trusted (AN_DAMAGE_UNTRUSTED: the output is still written), else 0. */
int cli_damage(const struct an_result *res, const char *path, int warnings_shown);

/* Several data files (cli_merge.c, docs/mpi.md): 1 when the operands from
 * optind on are more than one file, or a directory. */
int cli_merge_wanted(int argc, char **argv, int optind);
/* Reads the operands' files (none: memprism.data) into a merge (--jobs at once): refuses files of
 * different programs and a rank given twice (unless force), warns of a
 * file that cannot be read, a damaged one and a rank without a file, and
 * goes on. 0 and *out (an_merge_free), or the exit status (message said).
 * ao's progress fields are set. */
struct an_merge;
int cli_merge_run(int argc, char **argv, int optind, int force, struct an_opts *ao, struct an_merge **out);
/* The files of the operands and the checks of cli_merge_run, without
 * analysing them (the exports replay each file themselves). */
int cli_merge_open(int argc, char **argv, int optind, int force, struct an_merge **out);
/* Warns of the ranks of the job the files name without a file of their own. */
void cli_merge_say_missing(const struct an_merge *m);
/* --jobs N (cli_parse_next takes it for every command with the merge's
 * options): 0, or 2 with the message printed. */
int cli_parse_jobs(const char *arg);
/* The analyses at once: --jobs, else one per online CPU (at most 64). */
unsigned cli_jobs(void);
/* The same again over the same files (whatif's B): no checks said twice. */
int cli_merge_again(int argc, char **argv, int optind, struct an_opts *ao, struct an_merge **out);

/* "memprism: ..." on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Flushes stdout and reports a write error (full disk, closed pipe): 0 or 1. */
int cli_finish_stdout(void);
void cli_files_max(void); /* the soft limit of open files raised to the hard one (main.c) */

#endif
