// SPDX-License-Identifier: MIT
/* `memprism annotate [OPTIONS] [FUNCTION|FILE...]`: the source of the
 * lines that made the accesses, with their counts and objects. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "cli/cli.h"
#include "common/mp_error.h"
#include "report/report.h"
#include "trace/trace_format.h"

enum { K_SOURCE_DIR = CLI_K_CMD, K_THRESHOLD };

static int run(int argc, char **argv);

static const struct cli_opt opts[] = {
	CLI_OPT("input", 'i', "FILE", "the data file (default memprism.data)"),
	CLI_OPT("source-dir", K_SOURCE_DIR, "DIR",
	  "look for source files that moved here too: the path\n"
	  "the debug information names, under DIR, then its base\n"
	  "name (repeatable)"),
	CLI_OPT("context", 'C', "N", "source lines shown around each line with accesses (default 2)"),
	CLI_OPT("threshold", K_THRESHOLD, "PCT",
	  "show lines with at least PCT% of all accesses (default\n"
	  "0.1; 0 shows every line with accesses)"),
	CLI_OPT("roi", 'r', "NAME", "count only accesses made while region NAME was open"),
	CLI_TABLE(cli_opts_quiet_help),
	CLI_TEXT("With --model, each line also shows the DRAM reads and page walks the model\n"
		 "gave its accesses."),
	CLI_TABLE(cli_opts_model),
	CLI_TABLE(cli_opts_sampling),
	CLI_END,
};

const struct cli_cmd cli_cmd_annotate = {
	.name = "annotate",
	.run = run,
	.summary = "the source lines that made the accesses, with their counts and objects",
	.usage = "[OPTIONS] [FUNCTION|FILE...]",
	.about = "Shows the source of the lines that made the recorded accesses, file by file,\n"
		 "most accesses first: each line's accesses, share, loads and stores (with\n"
		 "--model its DRAM reads and page walks too), and the object its accesses went\n"
		 "to most; a few lines of context around them, the hottest lines marked '>'.\n"
		 "FUNCTION or FILE (a base name, or a path's last parts) picks what to show.\n"
		 "The program must have been built with -g.\n",
	.opts = opts,
	.examples = (const struct cli_example[]){
		{ "memprism annotate", "every source file with accesses, most accessed first" },
		{ "memprism annotate kernel", "only the lines of function kernel" },
		{ "memprism annotate --model host app.c",
		  "app.c's lines with the DRAM reads and page walks the model gives them" },
		{ "memprism annotate --source-dir ~/src/app -i run.data",
		  "sources moved since the build: look for them under ~/src/app" },
		{ 0 },
	},
	.see_also = "memprism-report(1)",
};

/* Does path name a memprism data file (its magic)? */
static int is_data_file(const char *path)
{
	char magic[sizeof(MP_FILE_MAGIC) - 1];
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	int yes = fread(magic, 1, sizeof(magic), f) == sizeof(magic) && !memcmp(magic, MP_FILE_MAGIC, sizeof(magic));
	fclose(f);
	return yes;
}

static int run(int argc, char **argv)
{
	static struct cli_model model; /* large: not on the stack */
	memset(&model, 0, sizeof(model));
	struct an_opts ao = { 0 };
	struct rp_annotate_opts a = { .data_path = "memprism.data", .context = 2, .threshold = 0.1 };
	const char *dirs[64];
	size_t ndirs = 0;
	struct cli_parse p;
	int c;
	cli_parse_init(&p, &cli_cmd_annotate, argc, argv);
	while ((c = cli_parse_next(&p)) != -1) {
		switch (c) {
		case CLI_EXIT:
			return p.status;
		case 'i':
			a.data_path = optarg;
			break;
		case K_SOURCE_DIR:
			if (ndirs == sizeof(dirs) / sizeof(dirs[0])) {
				cli_error("too many --source-dir options (at most 64)");
				return 2;
			}
			dirs[ndirs++] = optarg;
			break;
		case 'C': {
			size_t n;
			if (cli_parse_count("--context", optarg, 1000, &n))
				return 2;
			a.context = (unsigned)n;
			break;
		}
		case K_THRESHOLD: {
			char *end;
			errno = 0;
			double t = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(t >= 0 && t <= 100)) {
				cli_error("--threshold wants a percentage from 0 to 100 (got '%s')", optarg);
				return 2;
			}
			a.threshold = t;
			break;
		}
		case 'r':
			ao.roi = optarg;
			break;
		case 'q':
			break;
		default:
			if (cli_model_option(&model, c, optarg))
				return 2;
		}
	}
	a.what = (const char *const *)argv + optind;
	a.nwhat = (size_t)(argc - optind);
	for (size_t i = 0; i < a.nwhat; i++)
		if (is_data_file(a.what[i])) {
			/* (report and the other views take the file as an argument) */
			cli_error("'%s' is a data file: annotate's arguments pick functions and source files, and "
				  "the data file comes with -i (memprism annotate -i %s [FUNCTION|FILE...])",
				  a.what[i], a.what[i]);
			return 2;
		}
	a.source_dirs = dirs;
	a.nsource_dirs = ndirs;
	if (cli_model_apply(&model, &ao, 0))
		return 2;
	struct an_result *res = NULL;
	ao.progress = cli_progress;
	ao.progress_arg = "reading the trace";
	int err = an_run(a.data_path, &ao, &res);
	cli_progress_end();
	if (err) {
		cli_data_error(err, a.data_path, strcmp(a.data_path, "memprism.data") != 0, "memprism record -- PROGRAM");
		return 1;
	}
	cli_model_note(&model);
	int damage = cli_damage(res, a.data_path, 1);
	err = rp_render_annotate(stdout, res, &a);
	an_result_free(res);
	if (err) {
		cli_error("cannot annotate: %s", mp_strerror(err));
		return 1;
	}
	return cli_finish_stdout() | damage;
}
