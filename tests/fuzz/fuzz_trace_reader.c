// SPDX-License-Identifier: MIT
/* libFuzzer target: arbitrary bytes through the reader, the record decoder
 * and the whole analysis (attribution, labels). Must never crash or leak. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "model/machine.h"
#include "trace/trace_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Each input runs twice: as a user's file would (checksums verified), and
 * with checksums ignored so that mutations reach the decoders behind them. */
static void run_reader(const uint8_t *data, size_t size, int skip)
{
	struct trace_reader *r = trace_reader_open_mem(data, size);
	if (r) {
		if (skip)
			trace_reader_skip_checksums(r);
		struct trace_chunk c;
		while (trace_reader_next(r, &c)) {
			struct trace_dec d;
			struct trace_rec rec;
			trace_dec_init(&d, c.data, c.len);
			while (trace_dec_next(&d, &rec) == 1) {
				uint64_t frames[8];
				if (rec.cls == MP_REC_EVENT && rec.event == MP_EV_STACK_DEF)
					trace_stack_frames(&rec, frames, 8);
			}
			struct trace_proc tp;
			struct trace_end te;
			trace_proc_decode(&c, &tp);
			trace_end_decode(&c, &te);
		}
		trace_reader_close(r);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	run_reader(data, size, 0);
	run_reader(data, size, 1);
	/* The full analysis reads a path: go through a temporary file. */
	char path[] = "/tmp/mp-fuzz-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		static struct mp_machine mm;
		static int have_mm;
		if (!have_mm)
			have_mm = mp_machine_preset("nehalem-e5504", &mm) == 0 ? 1 : -1;
		for (int run = 0; run < 3; run++) {
			struct an_result *res = NULL;
			/* a mutated count may claim any amount: the bounds on
			 * what the analysis holds, lowered, keep it within the
			 * fuzzer's memory limit and time (a pagemap run of 2^36
			 * pages, a chunk of one record repeated 64 MiB long) */
			struct an_opts o = { .roi = "kernel", .skip_checksums = run > 0, .bounds_shift = 6 };
			if (run == 2) {
				/* the model too (bursts, ranges, walks), over the
				 * whole trace; a mutated length may claim a TiB, which
				 * the model takes a line at a time: 16 MiB at most */
				if (have_mm < 0)
					break;
				o.roi = NULL;
				o.machine = &mm;
				o.max_model_range = 1u << 24;
				o.page_rows = 1; /* (the TLB view's) */
			}
			if (an_run(path, &o, &res) == 0)
				an_result_free(res);
		}
	}
	close(fd);
	unlink(path);
	return 0;
}
