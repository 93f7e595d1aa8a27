/* SPDX-License-Identifier: MIT */
/*
 * Options as data (git's and perf's parse-options): each command describes
 * its options once, in a table of rows { long name, short letter or key,
 * argument name, help }, and from that one table come getopt_long's
 * option array, its short-option string, the `--help` text and
 * `memprism --list-opts COMMAND`. Option sets several commands share (the
 * model's, -q and -h) are tables of their own, included by row. Parsing
 * also says, the same way for every command, what is wrong with an
 * unknown, ambiguous or argument-less option, and handles -h and -q.
 */
#ifndef MP_CLI_OPT_H
#define MP_CLI_OPT_H

#include <getopt.h>
#include <stdio.h>

/*
 * One row. An option row has a name; a row without one is either text
 * printed as it is in the help (a heading, a remark) or, with `table`, the
 * rows of another table. The same name may have two rows (two forms of one
 * option, each with its own help); getopt sees it once.
 */
struct cli_opt {
	const char *name; /* long name, without "--" */
	int key; /* what parsing returns: the short letter ('b', also -b), or a CLI_K_* / command key above 0xff */
	const char *arg; /* the argument's name in the help ("FILE"); NULL: the option takes none */
	const char *help; /* lines after the option, '\n' between them; a text row's whole text */
	const struct cli_opt *table; /* a row that includes another table */
	void (*help_more)(FILE *out); /* appended to the help's last line (what only the running binary knows) */
};
#define CLI_OPT(name_, key_, arg_, help_) { .name = (name_), .key = (key_), .arg = (arg_), .help = (help_) }
#define CLI_TEXT(text) { .help = (text) }
#define CLI_TABLE(t) { .table = (t) }
#define CLI_END { 0 }

/* Keys of long-only options: shared ones here, a command's own from
 * CLI_K_CMD on. */
enum {
	CLI_K_PAGES = 0x1001,
	CLI_K_THREAD_MAP,
	CLI_K_SAMPLE_SETS,
	CLI_K_SAMPLE_BURSTS,
	CLI_K_FORCE,
	CLI_K_NOT_WRAPPER,
	CLI_K_NO_WRAPPER_HEURISTIC,
	CLI_K_LIB_SITES,
	CLI_K_CONTEXT,
	CLI_K_MODEL_THREADS,
	CLI_K_CMD = 0x2001,
};

/* An example of a command's use: shown by its --help and its man page. */
struct cli_example {
	const char *line; /* the command line, "memprism report --by site" */
	const char *what; /* what it does, one or two short lines */
};
/* A section of the man page only (the report's columns): a title in
 * capitals and its text, paragraphs apart by an empty line; a line that
 * starts with spaces starts a new line, indented as it is. */
struct cli_man_section {
	const char *title;
	const char *text;
};

/* A command: its name, what runs it, its one line in `memprism --help`,
 * and its help page, made of usage, about, the option table and the
 * examples. The man page memprism-NAME(1) is made of the same, and the
 * sections of its own. */
struct cli_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	const char *usage; /* after "usage: memprism NAME " */
	const char *about; /* the paragraphs before the options, ending in '\n' */
	const struct cli_opt *opts; /* NULL: the arguments are another program's (cc: the compiler's) */
	unsigned column; /* where the options' help starts; 0: 27 */
	int stop_at_operand; /* options end at the first operand (record: the program's are its own) */
	const struct cli_example *examples; /* ending in { 0 }; NULL: none */
	const struct cli_man_section *man; /* ending in { 0 }; NULL: none */
	const char *see_also; /* other pages, "memprism-record(1), valgrind(1)" */
	unsigned views; /* --by: the views it takes (1u << CLI_VIEW_...); 0: no --by */
	unsigned formats; /* --format: the formats it takes (1u << CLI_FMT_...); 0: no --format */
};

/* The shared tables: -q and -h (every command that reads a trace), -h
 * alone, the model's options and its sampling options. */
extern const struct cli_opt cli_opts_quiet_help[], cli_opts_help[], cli_opts_model[], cli_opts_sampling[];
/* --force of the commands that merge several data files (cli_merge.c) */
extern const struct cli_opt cli_opts_merge[];

#define CLI_MAX_OPTS 64
struct cli_parse {
	const struct cli_cmd *cmd;
	int argc;
	char **argv;
	struct option longopts[CLI_MAX_OPTS + 1];
	char shortopts[3 * CLI_MAX_OPTS + 4];
	int status; /* after CLI_EXIT: the command's exit status */
};
#define CLI_EXIT (-2)

/* Sets up getopt_long for cmd's table (optind from 1). */
void cli_parse_init(struct cli_parse *p, const struct cli_cmd *cmd, int argc, char **argv);
/*
 * The next option: its key, with its argument in optarg; -1 after the
 * last (optind at the first operand); CLI_EXIT when the command ends here
 * with p->status: -h printed the help (0, 1 on a write error), or an
 * unknown or ambiguous option or a missing argument was said (2). -q sets
 * cli_quiet and is also returned.
 */
int cli_parse_next(struct cli_parse *p);

/* The command's help page, from its table. */
void cli_help(FILE *out, const struct cli_cmd *cmd);
/* Every long option getopt takes for cmd, one a line ("--by=" when it
 * wants an argument), for completion scripts and the help test. */
void cli_list_opts(FILE *out, const struct cli_cmd *cmd);
/* Every short option getopt takes for cmd with its long name, one a line
 * ("-b --by=": '=' when it wants an argument), for completion. */
void cli_list_shorts(FILE *out, const struct cli_cmd *cmd);
/* The words an option's argument may be, one a line, for completion:
 * --by's views and --format's formats as cmd takes them, --model's
 * machines, --source's sources; nothing for a free argument. opt is the
 * long name without "--". */
void cli_list_values(FILE *out, const struct cli_cmd *cmd, const char *opt);

/* The man pages (cli_man.c), in roff: memprism-NAME(1) from the same
 * table as the help, and memprism(1) of the commands. */
void cli_man_page(FILE *out, const struct cli_cmd *cmd);
void cli_man_overview(FILE *out, const struct cli_cmd *const *cmds, size_t n);

/* For the generators: the row that ends a table, and a key that is also a
 * short option (a letter or digit). */
int cli_opt_is_end(const struct cli_opt *o);
int cli_opt_short_key(int key);

/* The values of --by and --format, one vocabulary for every command;
 * each command takes those in its mask (1u << CLI_VIEW_..., 1u <<
 * CLI_FMT_...). */
enum cli_view {
	CLI_VIEW_OBJECT,
	CLI_VIEW_SITE,
	CLI_VIEW_KIND,
	CLI_VIEW_THREAD,
	CLI_VIEW_FUNCTION,
	CLI_VIEW_PAGE,
	CLI_VIEW_MATRIX,
	CLI_VIEW_TIMELINE,
	CLI_VIEW_FINDING,
	CLI_VIEW_RANK, /* one row per data file (rank) */
	CLI_VIEW_PROCESS, /* one row per process */
	CLI_VIEW_LINE, /* one row per source line of the accessing code */
};
enum cli_format { CLI_FMT_TEXT, CLI_FMT_CSV, CLI_FMT_JSON, CLI_FMT_HTML, CLI_FMT_BIN };
/* --by VIEW (the plural, "sites", is the same): 0 and *out, or 2 after
 * saying which views cmd has. */
int cli_parse_by(const char *cmd, const char *arg, unsigned mask, enum cli_view *out);
/* --format FORMAT: 0 and *out, or 2 after saying which formats cmd has. */
int cli_parse_format(const char *cmd, const char *arg, unsigned mask, enum cli_format *out);

#endif
