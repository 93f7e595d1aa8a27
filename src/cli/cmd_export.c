// SPDX-License-Identifier: MIT
/* `memprism export (--sqlite DB | --paraver PREFIX) [OPTIONS] [FILE]` */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "export/export.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: memprism export (--sqlite DB | --paraver PREFIX) [OPTIONS] [FILE]\n\n"
		     "Writes the analysed trace for other tools. FILE defaults to memprism.data.\n\n"
		     "  -s, --sqlite DB          an SQLite database: tables run, objects, stacks, threads,\n"
		     "                           functions, allocations, frees, regions, and every\n"
		     "                           counted access (view accesses; docs/report-formats.md)\n"
		     "      --binned             instead of every access, time x address bins per\n"
		     "                           object (table access_bins): small for long runs\n"
		     "  -p, --paraver PREFIX     Paraver trace PREFIX.prv/.pcf/.row: every counted access\n"
		     "                           as an event (object, address, load/store) of its thread,\n"
		     "                           and region begin/end\n"
		     "  -r, --roi NAME           only accesses made while region NAME was open\n"
		     "  -w, --alloc-wrapper FN   treat function FN as an allocation wrapper (repeatable)\n"
		     "      --not-wrapper FN     never treat function FN as one (repeatable)\n"
		     "      --lib-sites          a frame in an installed library can be a site\n"
		     "  -h, --help               this help\n");
}

struct damage_ctx {
	const char *path;
	int seen, status;
};

/* Each export replays the file: its damage is said once. */
static void on_result(void *arg, const struct an_result *res)
{
	struct damage_ctx *d = arg;
	if (!d->seen++)
		d->status = cli_damage(res, d->path, 0);
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sqlite", required_argument, NULL, 's' },
		{ "paraver", required_argument, NULL, 'p' },
		{ "binned", no_argument, NULL, 'B' },
		{ "roi", required_argument, NULL, 'r' },
		{ "alloc-wrapper", required_argument, NULL, 'w' },
		{ "not-wrapper", required_argument, NULL, 'W' },
		{ "lib-sites", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sqlite = NULL, *paraver = NULL, *wrappers[64], *not_wrappers[64];
	struct ex_opts o = { 0 };
	size_t nw = 0, nnot = 0;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:p:r:w:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			sqlite = optarg;
			break;
		case 'p':
			paraver = optarg;
			break;
		case 'B':
			o.binned = 1;
			break;
		case 'r':
			o.roi = optarg;
			break;
		case 'w':
			if (nw == sizeof(wrappers) / sizeof(wrappers[0])) {
				cli_error("too many --alloc-wrapper options (at most 64)");
				return 2;
			}
			wrappers[nw++] = optarg;
			break;
		case 'W':
			if (nnot == sizeof(not_wrappers) / sizeof(not_wrappers[0])) {
				cli_error("too many --not-wrapper options (at most 64)");
				return 2;
			}
			not_wrappers[nnot++] = optarg;
			break;
		case 'L':
			o.lib_sites = 1;
			break;
		case 'h':
			usage(stdout);
			return cli_finish_stdout();
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!sqlite && !paraver) {
		cli_error("export what? give --sqlite DB or --paraver PREFIX (see `memprism export --help`)");
		return 2;
	}
	if (o.binned && !sqlite) {
		cli_error("--binned is an option of --sqlite");
		return 2;
	}
	if (cli_data_path(argc, argv, optind, &o.data_path))
		return 2;
	o.wrappers = wrappers;
	o.nwrappers = nw;
	o.not_wrappers = not_wrappers;
	o.nnot_wrappers = nnot;
	struct damage_ctx dmg = { .path = o.data_path };
	o.on_result = on_result;
	o.result_arg = &dmg;
	char err[1024];
	if (sqlite && ex_sqlite_write(sqlite, &o, err, sizeof(err))) {
		cli_error("sqlite export: %s", err);
		return 1;
	}
	if (paraver && ex_paraver_write(paraver, &o, err, sizeof(err))) {
		cli_error("paraver export: %s", err);
		return 1;
	}
	return dmg.status;
}
