// SPDX-License-Identifier: MIT
/* `memprism memtrace [OPTIONS] [FILE]`: the ORMBP paper's object-relative
 * memory trace, <paddr, r/w, time, pid, vaddr, object, page-walk>: every DRAM
 * request the model makes (line fills, writebacks, page-walk loads), with
 * the object it belongs to. CSV or a compact binary form (docs/model.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "cli/cli.h"
#include "common/mp_error.h"

static int run(int argc, char **argv);

static const struct cli_opt opts[] = {
	CLI_OPT("output", 'o', "FILE", "where to write (default: standard output)"),
	CLI_OPT("format", 'f', "FORMAT", "csv (default) or bin (docs/model.md)"),
	CLI_OPT("roi", 'r', "NAME", "only requests made while region NAME was open"),
	CLI_TABLE(cli_opts_quiet_help),
	CLI_TABLE(cli_opts_model),
	/* (taken, to say why not: a sampled model makes only some requests) */
	CLI_OPT("sample-sets", CLI_K_SAMPLE_SETS, "N",
	  "refused: memtrace writes every DRAM request, and a\n"
	  "sampled model makes only some (report, tlb and whatif\n"
	  "take it)"),
	CLI_OPT("sample-bursts", CLI_K_SAMPLE_BURSTS, "ON,OFF", "refused, as --sample-sets"),
	CLI_END,
};

const struct cli_cmd cli_cmd_memtrace = {
	.name = "memtrace",
	.run = run,
	.summary = "every modelled DRAM request with its object: the ORMBP paper's trace",
	.usage = "[OPTIONS] [FILE]",
	.about = "Writes the object-relative memory trace of the ORMBP paper (Object-Relative\n"
		 "Memory Behavior Profiling): every DRAM request of the model (line fills,\n"
		 "writebacks, page-walk loads) as <paddr, r/w, time, pid, vaddr, object,\n"
		 "page-walk>. All MODELLED. FILE defaults to memprism.data, the machine to host.\n",
	.opts = opts,
	.formats = 1u << CLI_FMT_CSV | 1u << CLI_FMT_BIN,
	.examples = (const struct cli_example[]){
		{ "memprism memtrace -o trace.csv",
		  "every modelled DRAM request with its object, as CSV" },
		{ 0 },
	},
	.see_also = "memprism-report(1)",
};

struct sink {
	FILE *out;
	int bin;
	uint64_t n, reads, writes, walks, physical;
	const struct an_result *res; /* NULL during the run: pids come from the replay */
	uint32_t *pids; /* proc index -> pid, filled lazily from the records */
};

/* Binary record: 40 bytes, little-endian (the machine's byte order: x86-64,
 * arm64). proc indexes the trailer's PIDS table, object its OBJECTS table. */
struct mt_rec {
	uint64_t paddr, vaddr, time;
	uint32_t proc, object;
	uint32_t flags; /* bit 0 write, bit 1 page-walk load */
	uint32_t reserved;
};

static void on_dram(void *arg, const struct an_dram *d)
{
	struct sink *s = arg;
	if (!d->counted)
		return;
	s->n++;
	if (d->walk)
		s->walks++;
	else if (d->write)
		s->writes++;
	else
		s->reads++;
	if (s->bin) {
		struct mt_rec r = { d->paddr, d->vaddr, d->time,
				    d->proc,  d->cls,	(uint32_t)d->write | (uint32_t)d->walk << 1,
				    0 };
		fwrite(&r, sizeof(r), 1, s->out);
	} else {
		fprintf(s->out, "%llx,%c,%llu,%u,0x%llx,%u,%d\n", (unsigned long long)d->paddr, d->write ? 'W' : 'R',
			(unsigned long long)d->time, d->proc, (unsigned long long)d->vaddr, d->cls, d->walk);
		if (d->paddr)
			s->physical++;
	}
}

static int run(int argc, char **argv)
{
	static struct cli_model model;
	memset(&model, 0, sizeof(model));
	struct an_opts ao = { 0 };
	const char *outpath = NULL;
	struct cli_parse p;
	int bin = 0, c;
	cli_parse_init(&p, &cli_cmd_memtrace, argc, argv);
	while ((c = cli_parse_next(&p)) != -1) {
		switch (c) {
		case CLI_EXIT:
			return p.status;
		case 'o':
			outpath = optarg;
			break;
		case 'f': {
			enum cli_format f;
			if (cli_parse_format("memtrace", optarg, cli_cmd_memtrace.formats, &f))
				return 2;
			bin = f == CLI_FMT_BIN;
			break;
		}
		case 'r':
			ao.roi = optarg;
			break;
		default:
			if (cli_model_option(&model, c, optarg))
				return 2;
		}
	}
	const char *path;
	if (cli_data_path(argc, argv, optind, &path))
		return 2;
	if (bin && !outpath) {
		cli_error("--format bin needs --output FILE");
		return 2;
	}
	if (cli_model_apply(&model, &ao, 1))
		return 2;
	if (ao.sample_sets > 1 || ao.burst_on) {
		cli_error("%s: memtrace writes every DRAM request, and a sampled model makes only some; use it "
			  "with report, tlb or whatif",
			  ao.burst_on ? "--sample-bursts" : "--sample-sets");
		return 2;
	}
	/* Records are written during the replay, before the object labels and
	 * pids are final: CSV rows get them from a second pass over a temporary
	 * body; the binary form carries a trailer table instead. */
	FILE *body = bin ? fopen(outpath, "wb") : tmpfile();
	if (!body) {
		cli_error("cannot open %s: %s", bin ? outpath : "a temporary file", strerror(errno));
		return 1;
	}
	struct sink sk = { .out = body, .bin = bin };
	if (bin) {
		static const char magic[16] = "MPMEMTRACE1\0\0\0\0";
		fwrite(magic, sizeof(magic), 1, body);
	}
	ao.on_dram = on_dram;
	ao.hook_arg = &sk;
	struct an_result *res = NULL;
	ao.progress = cli_progress;
	ao.progress_arg = "modelling the trace";
	int err = an_run(path, &ao, &res);
	cli_progress_end();
	if (err) {
		fclose(body);
		cli_data_error(err, path, optind < argc, "memprism record -- PROGRAM");
		return 1;
	}
	cli_model_note(&model);
	const int damage = cli_damage(res, path, 0);
	int rc = 0;
	if (bin) {
		/* trailer: "OBJECTS\n", then per replay class "id\tlabel\n", then
		 * per process "pid index\tpid\n" after "PIDS\n" */
		fprintf(body, "OBJECTS\n");
		for (size_t i = 0; i < res->nclass_map; i++)
			fprintf(body, "%zu\t%s\n", i, res->classes[res->class_map[i]].label);
		fprintf(body, "PIDS\n");
		for (size_t i = 0; i < res->nprocs; i++)
			fprintf(body, "%zu\t%u\n", i, res->procs[i].pid);
		if (fclose(body) != 0) {
			cli_error("error writing %s: %s", outpath, strerror(errno));
			rc = 1;
		}
	} else {
		FILE *out = outpath ? fopen(outpath, "w") : stdout;
		if (!out) {
			cli_error("cannot open %s: %s", outpath, strerror(errno));
			fclose(body);
			an_result_free(res);
			return 1;
		}
		fprintf(out, "paddr,rw,time,pid,vaddr,object,page_walk\n");
		rewind(body);
		char line[256];
		while (fgets(line, sizeof(line), body)) {
			char rw;
			unsigned long long pa, t, va;
			unsigned proc, cls;
			int walk;
			if (sscanf(line, "%llx,%c,%llu,%u,0x%llx,%u,%d", &pa, &rw, &t, &proc, &va, &cls, &walk) != 7)
				continue;
			const char *label = cls < res->nclass_map ? res->classes[res->class_map[cls]].label : "?";
			/* paddr empty: no translation recorded for that page */
			if (pa)
				fprintf(out, "0x%llx", pa);
			fprintf(out, ",%c,%llu,%u,0x%llx,\"", rw, t, proc < res->nprocs ? res->procs[proc].pid : 0, va);
			for (const char *q = label; *q; q++) {
				if (*q == '"')
					fputc('"', out);
				fputc(*q, out);
			}
			fprintf(out, "\",%d\n", walk);
		}
		fclose(body);
		if (out != stdout && fclose(out) != 0) {
			cli_error("error writing %s: %s", outpath, strerror(errno));
			rc = 1;
		}
	}
	cli_note("memtrace: %llu DRAM requests (%llu reads, %llu writes, %llu page-walk loads), modelled on %s; "
		 "%llu with a physical address%s",
		 (unsigned long long)sk.n, (unsigned long long)sk.reads, (unsigned long long)sk.writes,
		 (unsigned long long)sk.walks, res->machine, (unsigned long long)sk.physical,
		 res->phys_pages ? "" : " (no translations recorded: record as root)");
	if (res->skipped_accesses)
		/* (a request is one request: nothing here can be scaled) */
		cli_note("memtrace: the trace was recorded in bursts (%llu accesses recorded, %llu skipped): these "
			 "are the bursts' requests only, unscaled; `report --model` gives the estimates",
			 (unsigned long long)res->recorded_accesses, (unsigned long long)res->skipped_accesses);
	an_result_free(res);
	if (!rc && !outpath)
		rc = cli_finish_stdout();
	return rc | damage;
}
