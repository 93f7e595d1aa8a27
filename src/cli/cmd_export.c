// SPDX-License-Identifier: MIT
/* `memprism export (--sqlite DB | --paraver PREFIX | --dhat FILE) [OPTIONS] [FILE]` */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_merge.h"
#include "cli/cli.h"
#include "common/mp_error.h"
#include "export/export.h"

enum { K_BINNED = CLI_K_CMD, K_DHAT };

static int run(int argc, char **argv);

static const struct cli_opt opts[] = {
	CLI_OPT("sqlite", 's', "DB",
	  "an SQLite database: tables run, objects, stacks, threads,\n"
	  "functions, allocations, frees, regions, and every\n"
	  "counted access (view accesses; docs/report-formats.md)"),
	CLI_OPT("binned", K_BINNED, NULL,
	  "instead of every access, time x address bins per\n"
	  "object (table access_bins): small for long runs"),
	CLI_OPT("paraver", 'p', "PREFIX",
	  "Paraver trace PREFIX.prv/.pcf/.row: every counted access\n"
	  "as an event (object, address, load/store) of its thread,\n"
	  "and region begin/end"),
	CLI_OPT("dhat", K_DHAT, "FILE",
	  "DHAT's JSON (Valgrind's dh_view.html opens it): per heap\n"
	  "allocation stack, blocks, bytes, bytes read and written,\n"
	  "lifetimes (ns), live bytes at its and the heap's maximum\n"
	  "and at the end; - for standard output"),
	CLI_OPT("roi", 'r', "NAME", "only accesses made while region NAME was open"),
	CLI_OPT("alloc-wrapper", 'w', "FN", "treat function FN as an allocation wrapper (repeatable)"),
	CLI_OPT("not-wrapper", CLI_K_NOT_WRAPPER, "FN", "never treat function FN as one (repeatable)"),
	CLI_OPT("context", CLI_K_CONTEXT, "N", "callers after each heap and mmap site, as report's --context"),
	CLI_OPT("lib-sites", CLI_K_LIB_SITES, NULL, "a frame in an installed library can be a site"),
	CLI_OPT("force", CLI_K_FORCE, NULL,
	  "several data files: export them even when they\n"
	  "record different programs, or two of them the same rank"),
	CLI_OPT("jobs", 'j', "N",
	  "several data files: replay N at once (default: one\n"
	  "per CPU); the same files written, memory for N replays"),
	CLI_TABLE(cli_opts_quiet_help),
	CLI_END,
};

const struct cli_cmd cli_cmd_export = {
	.name = "export",
	.run = run,
	.summary = "write an SQLite database, a Paraver trace or DHAT's JSON of the attributed accesses",
	.usage = "(--sqlite DB | --paraver PREFIX | --dhat FILE) [OPTIONS] [FILE|DIR...]",
	.about = "Writes the analysed trace for other tools. FILE defaults to memprism.data.\n"
		 "--dhat and --paraver take several files, or a directory of them (an MPI\n"
		 "job's ranks): DHAT's allocation sites merged, Paraver's ranks as tasks of\n"
		 "one application; --sqlite takes one (docs/mpi.md).\n",
	.opts = opts,
	.examples = (const struct cli_example[]){
		{ "memprism export --sqlite run.db",
		  "objects, threads, allocations, regions and every access, for SQL" },
		{ "memprism export --paraver run",
		  "run.prv, run.pcf and run.row for Paraver" },
		{ "memprism export --dhat dhat.json",
		  "the heap's allocation sites for DHAT's viewer: open\n"
		  "/usr/libexec/valgrind/dh_view.html and load dhat.json" },
		{ "memprism export --dhat job.json run/",
		  "an MPI job's ranks, their allocation sites merged, for DHAT's viewer" },
		{ "memprism export --paraver job run/",
		  "an MPI job's ranks as the tasks of one Paraver application" },
		{ 0 },
	},
	.see_also = "memprism-report(1), sqlite3(1)",
};

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

/* Several files: each file's damage or failure is said as it is read. */
static void on_file(void *arg, const char *path, const struct an_result *res, int err)
{
	struct damage_ctx *d = arg;
	if (err)
		cli_error("warning: %s was not read: %s; the export goes on without it", path, mp_strerror(err));
	else
		d->status |= cli_damage(res, path, 0);
}

/* --dhat and --paraver of several files (--sqlite refused): 0 or the exit
 * status. */
static int run_merged(int argc, char **argv, int optind, int force, const char *sqlite, const char *paraver,
		      const char *dhat, struct ex_opts *o)
{
	if (sqlite) {
		/* every access of one process, at its addresses and on its clock, in
		 * tables keyed by its ids: of several files there is no one such
		 * database (docs/mpi.md) */
		cli_error("--sqlite of several data files: not merged (its tables are one process's accesses, "
			  "objects and threads by their ids); export each file on its own, or use --paraver or "
			  "--dhat, which take several");
		return 2;
	}
	struct an_merge *m;
	int status = cli_merge_open(argc, argv, optind, force, &m);
	if (status)
		return status;
	cli_merge_say_missing(m);
	size_t n = an_merge_nparts(m);
	const char **files = calloc(n ? n : 1, sizeof(*files));
	if (!files) {
		an_merge_free(m);
		cli_error("out of memory");
		return 1;
	}
	char(*node)[200] = calloc(n ? n : 1, sizeof(*node));
	const char **nodes = calloc(n ? n : 1, sizeof(*nodes));
	if (!node || !nodes) {
		free(files);
		free(node);
		free(nodes);
		an_merge_free(m);
		cli_error("out of memory");
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct an_merge_part *p = an_merge_part(m, i);
		files[i] = p->path; /* (in rank order) */
		if (p->rank >= 0) /* Paraver's node: "rank 3 (host)" */
			snprintf(node[i], sizeof(node[i]), "rank %d (%s)", p->rank, p->host[0] ? p->host : "?");
		else
			snprintf(node[i], sizeof(node[i]), "%s", p->path);
		nodes[i] = node[i];
	}
	struct damage_ctx dmg = { 0 };
	o->on_file = on_file;
	o->result_arg = &dmg;
	o->jobs = cli_jobs();
	char err[1024];
	status = 0;
	if (paraver && ex_paraver_write_many(paraver, o, files, nodes, n, err, sizeof(err))) {
		cli_error("paraver export: %s", err);
		status = 1;
	}
	if (!status && dhat && ex_dhat_write_many(dhat, o, files, n, err, sizeof(err))) {
		cli_error("dhat export: %s", err);
		status = 1;
	}
	free(files);
	free(node);
	free(nodes);
	an_merge_free(m);
	return status ? status : dmg.status;
}

static int run(int argc, char **argv)
{
	const char *sqlite = NULL, *paraver = NULL, *dhat = NULL;
	struct ex_opts o = { 0 };
	struct cli_sites sites = { 0 };
	struct cli_parse p;
	int c, force = 0;
	cli_parse_init(&p, &cli_cmd_export, argc, argv);
	while ((c = cli_parse_next(&p)) != -1) {
		switch (c) {
		case CLI_EXIT:
			return p.status;
		case 's':
			sqlite = optarg;
			break;
		case 'p':
			paraver = optarg;
			break;
		case K_DHAT:
			dhat = optarg;
			break;
		case K_BINNED:
			o.binned = 1;
			break;
		case 'r':
			o.roi = optarg;
			break;
		case CLI_K_FORCE:
			force = 1;
			break;
		default:
			if (cli_sites_option(&sites, c, optarg))
				return 2;
		}
	}
	/* (SQLite and Paraver write files of their own: no stream) */
	if ((sqlite && !strcmp(sqlite, "-")) || (paraver && !strcmp(paraver, "-"))) {
		cli_error("--%s wants a file %s, not '-' (only --dhat writes to standard output)", sqlite ? "sqlite" : "paraver",
			  sqlite ? "name" : "name's prefix (PREFIX.prv, .pcf and .row)");
		return 2;
	}
	if (!sqlite && !paraver && !dhat) {
		cli_error("export what? give --sqlite DB, --paraver PREFIX or --dhat FILE (see `memprism export --help`)");
		return 2;
	}
	if (o.binned && !sqlite) {
		cli_error("--binned is an option of --sqlite");
		return 2;
	}
	o.wrappers = sites.wrappers;
	o.nwrappers = sites.nwrappers;
	o.not_wrappers = sites.not_wrappers;
	o.nnot_wrappers = sites.nnot;
	o.lib_sites = sites.lib_sites;
	o.context = sites.context;
	if (cli_merge_wanted(argc, argv, optind))
		return run_merged(argc, argv, optind, force, sqlite, paraver, dhat, &o);
	if (cli_data_path(argc, argv, optind, &o.data_path))
		return 2;
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
	if (dhat && ex_dhat_write(dhat, &o, err, sizeof(err))) {
		cli_error("dhat export: %s", err);
		return 1;
	}
	return dmg.status;
}
