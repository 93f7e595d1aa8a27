// SPDX-License-Identifier: MIT
/* `memprism dump [FILE]`: every chunk and record as text, for debugging and
 * for checking what a writer produced (like `perf script -D`). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/mp_error.h"
#include "trace/trace_reader.h"

static const char *const event_names[] = {
	[MP_EV_ALLOC] = "alloc",	 [MP_EV_FREE] = "free",		    [MP_EV_MMAP] = "mmap",
	[MP_EV_MUNMAP] = "munmap",	 [MP_EV_MREMAP] = "mremap",	    [MP_EV_THREAD_START] = "thread_start",
	[MP_EV_THREAD_EXIT] = "thread_exit", [MP_EV_MODULE] = "module",	    [MP_EV_REGION_BEGIN] = "region_begin",
	[MP_EV_REGION_END] = "region_end", [MP_EV_NAME_RANGE] = "name_range", [MP_EV_GROUP_DEF] = "group_def",
	[MP_EV_STACK_DEF] = "stack_def", [MP_EV_FORK] = "fork",		    [MP_EV_THREAD_NAME] = "thread_name",
	[MP_EV_MAP_INITIAL] = "map_initial", [MP_EV_TLS_BLOCK] = "tls_block",
	[MP_EV_MODULE_UNLOAD] = "module_unload", [MP_EV_FAULT] = "fault",	    [MP_EV_SAMPLE] = "sample",
	[MP_EV_LOST] = "lost",		 [MP_EV_SAMPLE_DEF] = "sample_def",
	[MP_EV_AFFINITY] = "affinity", [MP_EV_MEMPOLICY] = "set_mempolicy", [MP_EV_MBIND] = "mbind",
	[MP_EV_MOVE_PAGES] = "move_pages",
};

static int run(int argc, char **argv);

static const struct cli_opt opts[] = {
	CLI_OPT("accesses", 'a', NULL, "every access and translation too (long)"),
	CLI_TABLE(cli_opts_quiet_help),
	CLI_END,
};

const struct cli_cmd cli_cmd_dump = {
	.name = "dump",
	.run = run,
	.summary = "print the raw chunks, events and accesses of a data file",
	.usage = "[OPTIONS] [FILE]",
	.about = "Prints every chunk of a data file (default memprism.data) and its events;\n"
		 "with --accesses, every access too (long).\n",
	.opts = opts,
	.examples = (const struct cli_example[]){
		{ "memprism dump | less",
		  "the chunks and events of memprism.data" },
		{ "memprism dump --accesses run.data",
		  "every access and translation too" },
		{ 0 },
	},
	.see_also = "memprism-report(1)",
};

static int run(int argc, char **argv)
{
	struct cli_parse p;
	int accesses = 0, c;
	cli_parse_init(&p, &cli_cmd_dump, argc, argv);
	while ((c = cli_parse_next(&p)) != -1) {
		if (c == CLI_EXIT)
			return p.status;
		if (c == 'a')
			accesses = 1;
	}
	const char *path;
	if (cli_data_path(argc, argv, optind, &path))
		return 2;
	struct trace_reader *r = trace_reader_open(path);
	if (!r) {
		cli_data_error(-errno, path, optind < argc, "memprism record -- PROGRAM");
		return 1;
	}
	const struct mp_file_header *h = trace_reader_header(r);
	printf("file %s: format v%u, meta %u bytes", path, h->version, h->meta_len);
	if (h->flags & MP_FILE_WRITE_FAILED)
		printf(", a write failed during the recording (%s)", strerror(MP_FILE_WRITE_ERRNO(h->flags)));
	printf("\n");
	char rank[32], size[32], var[64], host[256];
	if (trace_reader_meta(r, "rank", rank, sizeof(rank)))
		printf("  rank %s of %s (%s) on host %s\n", rank,
		       trace_reader_meta(r, "rank_size", size, sizeof(size)) && strcmp(size, "0") ? size : "?",
		       trace_reader_meta(r, "rank_var", var, sizeof(var)) ? var : "?",
		       trace_reader_meta(r, "host", host, sizeof(host)) ? host : "?");
	struct trace_chunk ch;
	while (trace_reader_next(r, &ch)) {
		printf("@%llu chunk type %u codec %u pid %u tid %u proc %016llx seq %u raw %u stored %u",
		       (unsigned long long)ch.offset, ch.hdr.type, ch.hdr.codec, ch.hdr.pid, ch.hdr.tid & MP_TID_MASK,
		       (unsigned long long)ch.hdr.proc_id, ch.hdr.seq, ch.hdr.raw_len, ch.hdr.stored_len);
		if (ch.hdr.type == MP_CHUNK_STREAM && ch.hdr.tid >> MP_TID_CONTEXT_SHIFT == MP_TID_CONTEXT_VALGRIND)
			printf(" valgrind");
		else if (ch.hdr.type == MP_CHUNK_STREAM && ch.hdr.tid >> MP_TID_CONTEXT_SHIFT)
			printf(" signal-handlers %u", ch.hdr.tid >> MP_TID_CONTEXT_SHIFT);
		putchar('\n');
		if (ch.hdr.type == MP_CHUNK_PAGEMAP) {
			struct trace_pagemap pm;
			struct trace_pagemap_run run;
			if (trace_pagemap_open(&ch, &pm)) {
				printf("  malformed pagemap chunk\n");
				continue;
			}
			printf("  pagemap pid %llu time %llu, %llu runs\n", (unsigned long long)pm.pid,
			       (unsigned long long)pm.time, (unsigned long long)pm.nruns);
			int k;
			while ((k = trace_pagemap_next(&pm, &run)) == 1)
				if (accesses)
					printf("  pages %#llx +%llu -> frame %#llx%s%s\n",
					       (unsigned long long)(run.vpage << 12), (unsigned long long)run.npages,
					       (unsigned long long)run.pfn, run.flags & MP_PAGEMAP_THP ? " thp" : "",
					       run.flags & MP_PAGEMAP_HUGETLB ? " hugetlb" : "");
			if (k < 0)
				printf("  (then a malformed run)\n");
			continue;
		}
		if (ch.hdr.type != MP_CHUNK_STREAM && ch.hdr.type != MP_CHUNK_SAMPLES)
			continue;
		struct trace_dec d;
		struct trace_rec rec;
		unsigned long long nacc = 0;
		int plain = 1; /* accesses (no range of 4 KiB or more), EPOCH and TIME records only */
		trace_dec_init(&d, ch.data, ch.len);
		int k;
		while ((k = trace_dec_next(&d, &rec)) == 1) {
			plain &= (rec.cls == MP_REC_ACCESS && !(rec.range && rec.size >= 4096)) ||
				 rec.cls == MP_REC_EPOCH || rec.cls == MP_REC_TIME;
			switch (rec.cls) {
			case MP_REC_ACCESS:
				nacc++;
				if (accesses)
					printf("  %s %#llx size %llu ip %#llx\n", rec.write ? "st" : "ld",
					       (unsigned long long)rec.addr, (unsigned long long)rec.size,
					       (unsigned long long)rec.ip);
				break;
			case MP_REC_EPOCH:
				if (accesses)
					printf("  epoch %llu\n", (unsigned long long)rec.epoch);
				break;
			case MP_REC_TIME:
				printf("  time %llu cpu %llu\n", (unsigned long long)rec.f[0], (unsigned long long)rec.f[1]);
				break;
			case MP_REC_EVENT:
				printf("  [%llu] %s", (unsigned long long)rec.epoch,
				       rec.event < sizeof(event_names) / sizeof(event_names[0]) && event_names[rec.event]
					       ? event_names[rec.event]
					       : "?");
				for (unsigned i = 0; i < rec.nf; i++)
					printf(" %#llx", (unsigned long long)rec.f[i]);
				if (rec.str_len && (rec.event == MP_EV_AFFINITY || rec.event == MP_EV_MOVE_PAGES)) {
					/* binary: a CPU mask, or (page delta, node) varints */
					printf(" 0x");
					for (size_t i = 0; i < rec.str_len; i++)
						printf("%02x", (unsigned char)rec.str[i]);
				} else if (rec.str_len) {
					printf(" \"%.*s\"", (int)rec.str_len, rec.str);
				}
				printf("\n");
				break;
			default:
				printf("  record class %u\n", rec.cls);
			}
		}
		printf("  %llu accesses%s", nacc, k < 0 ? " (then a malformed record)" : "");
		if (ch.hdr.accesses & MP_CHUNK_PLAIN) {
			/* the header's count, which a replay dropping accesses trusts */
			unsigned n = ch.hdr.accesses & ~MP_CHUNK_PLAIN;
			printf(", header: plain, %u%s", n,
			       !plain || n != nacc || k < 0 ? " (WRONG: the records say otherwise)" : "");
		}
		printf("\n");
	}
	uint64_t off;
	int st = trace_reader_status(r, &off);
	if (st)
		printf("stopped at byte %llu: %s\n", (unsigned long long)off, mp_strerror(st));
	trace_reader_close(r);
	return cli_finish_stdout();
}
