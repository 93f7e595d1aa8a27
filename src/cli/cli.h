/* SPDX-License-Identifier: MIT */
/* The memprism command line: one cmd_<name>.c per command, dispatched from
 * the table in main.c. Only this folder talks to the user. */
#ifndef MP_CLI_H
#define MP_CLI_H

#include <stdio.h>

#include "analysis/analysis.h"
#include "model/machine.h"

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_cc(int argc, char **argv);
int cmd_cxx(int argc, char **argv);
int cmd_gcc(int argc, char **argv);
int cmd_gxx(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_tlb(int argc, char **argv);
int cmd_memtrace(int argc, char **argv);
int cmd_whatif(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_fold(int argc, char **argv);
int cmd_numa(int argc, char **argv);

/* Model options of report and tlb (cli_model.c), and -q / --quiet, which
 * every command that runs the model has (its notes go to stderr). Add
 * CLI_MODEL_LONGOPTS to the getopt_long table, "q" to the short options,
 * and pass unknown option codes to cli_model_option. */
enum {
	CLI_OPT_MODEL = 'm',
	CLI_OPT_PAGES = 0x1001,
	CLI_OPT_THREAD_MAP = 0x1002,
	CLI_OPT_SAMPLE_SETS = 0x1003,
	CLI_OPT_SAMPLE_BURSTS = 0x1004,
};
#define CLI_MODEL_LONGOPTS                                                                                             \
	{ "quiet", no_argument, NULL, 'q' }, { "model", required_argument, NULL, CLI_OPT_MODEL },                      \
		{ "pages", required_argument, NULL, CLI_OPT_PAGES },                                                   \
		{ "thread-map", required_argument, NULL, CLI_OPT_THREAD_MAP },                                         \
		{ "sample-sets", required_argument, NULL, CLI_OPT_SAMPLE_SETS },                                       \
	{                                                                                                              \
		"sample-bursts", required_argument, NULL, CLI_OPT_SAMPLE_BURSTS                                        \
	}
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
};
/* 0 handled, 2 bad value (message printed), 1 not a model option. */
int cli_model_option(struct cli_model *m, int c, const char *arg);
/* Fills ao's model fields; need_model: use the host when none was given.
 * 0 or 2 (message printed). */
int cli_model_apply(struct cli_model *m, struct an_opts *ao, int need_model);
/* The model options' help; sampling: list --sample-sets and --sample-bursts
 * (memtrace refuses them). */
void cli_model_help(FILE *out, int sampling);
/* --sample-bursts ON,OFF (record's and the model's): 0, or 2 with the
 * message printed. */
int cli_parse_bursts(const char *arg, uint64_t *on, uint64_t *off);
/* After a run that read the trace: what `host` had to guess (cli_note). */
void cli_model_note(const struct cli_model *m);
int cmd_doctor(int argc, char **argv);

struct rp_opts;
/* report --html FILE (cli_html.c): 0 or 1 (message printed). */
int cli_report_html(const char *html, struct an_opts *ao, struct rp_opts *ro);

/* The terminal (cli_tty.c). */
extern int cli_quiet; /* --quiet: no notes, no progress */
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

/* "memprism: ..." on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Flushes stdout and reports a write error (full disk, closed pipe): 0 or 1. */
int cli_finish_stdout(void);

#endif
