// SPDX-License-Identifier: MIT
/* `memprism fold REGION [OPTIONS] [FILE]`: the instances of a region folded
 * into one synthetic instance (an_fold.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_fold.h"
#include "cli/cli.h"
#include "common/mp_error.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: memprism fold REGION [OPTIONS] [FILE]\n\n"
		"Folds every instance of region REGION (memprism_region_begin/end, per thread)\n"
		"into one synthetic instance: per phase of the instance, which objects are\n"
		"accessed, how often, and where in them. Phase = the access's ordinal within its\n"
		"instance / the instance's accesses. FILE defaults to memprism.data.\n\n"
		"options:\n"
		"  -b, --bins N             phase bins over [0, 1) (default 20, at most %d)\n"
		"  -o, --objects N          objects shown per bin in text (default 3, 0 for all)\n"
		"  -f, --format FORMAT      text (default) or csv\n"
		"  -h, --help               this help\n",
		AN_FOLD_MAX_BINS);
}

static void scan_access(void *arg, const struct an_access *a)
{
	an_fold_scan_access(arg, a);
}

static void csv_str(const char *s)
{
	putchar('"');
	for (; s && *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static int num(const char *s, long max, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || end == s || v < 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

int cmd_fold(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "bins", required_argument, NULL, 'b' },
		{ "objects", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long bins = 20, nobj = 3;
	int csv = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "b:o:f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (num(optarg, AN_FOLD_MAX_BINS, &bins) || bins == 0) {
				cli_error("--bins wants a number from 1 to %d, not '%s'", AN_FOLD_MAX_BINS, optarg);
				return 2;
			}
			break;
		case 'o':
			if (num(optarg, 1000000, &nobj)) {
				cli_error("--objects wants a number >= 0, not '%s'", optarg);
				return 2;
			}
			break;
		case 'f':
			if (!strcmp(optarg, "csv"))
				csv = 1;
			else if (strcmp(optarg, "text")) {
				cli_error("unknown format '%s' (text, csv)", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return cli_finish_stdout();
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		cli_error("fold which region? `memprism fold REGION [FILE]` (names from memprism_region_begin)");
		return 2;
	}
	const char *region = argv[optind++];
	if (argc - optind > 1) {
		cli_error("one data file at a time (got '%s' and '%s')", argv[optind], argv[optind + 1]);
		return 2;
	}
	const char *data = optind < argc ? argv[optind] : "memprism.data";
	struct an_fold *f = an_fold_new(region, (unsigned)bins);
	struct an_result *res = NULL, *res2 = NULL;
	int rc = 1, err;
	if (!f) {
		cli_error("out of memory");
		return 1;
	}
	struct an_opts ao = { .on_access = scan_access, .on_event = an_fold_scan_event, .hook_arg = f };
	if ((err = an_run(data, &ao, &res))) {
		cli_error("cannot read %s: %s", data, mp_strerror(err));
		goto out;
	}
	if (!an_fold_instances(f)) {
		cli_error("no complete instance of region '%s' in %s", region, data);
		goto out;
	}
	ao.on_access = an_fold_fill_access;
	ao.on_event = NULL;
	if ((err = an_fold_plan(f, res)) || (err = an_run(data, &ao, &res2)) || (err = an_fold_error(f))) {
		cli_error("cannot fold %s: %s", data, mp_strerror(err));
		goto out;
	}
	const uint32_t *objs;
	size_t no = an_fold_objects(f, &objs);
	uint64_t inst = an_fold_instances(f);
	if (csv) {
		printf("bin,phase_lo,phase_hi,object,accesses,loads,stores,per_instance,offset_min,offset_mean,"
		       "offset_max\n");
		for (unsigned b = 0; b < (unsigned)bins; b++)
			for (size_t i = 0; i < no; i++) {
				const struct an_fold_cell *x = an_fold_cell(f, objs[i], b);
				uint64_t n = x->loads + x->stores;
				if (!n)
					continue;
				printf("%u,%.6f,%.6f,", b, (double)b / (double)bins, (double)(b + 1) / (double)bins);
				csv_str(res->classes[objs[i]].label);
				printf(",%llu,%llu,%llu,%.3f,%llu,%.3f,%llu\n", (unsigned long long)n,
				       (unsigned long long)x->loads, (unsigned long long)x->stores,
				       (double)n / (double)inst, (unsigned long long)x->addr_min,
				       x->addr_sum / (double)n, (unsigned long long)x->addr_max);
			}
	} else {
		printf("memprism fold: region '%s' in %s\n", region, data);
		printf("instances: %llu, accesses folded: %llu, %ld phase bins (phase = ordinal of the access in "
		       "its instance / the instance's accesses)\n\n",
		       (unsigned long long)inst, (unsigned long long)an_fold_accesses(f), bins);
		printf("%-15s %12s %10s %6s %6s  %-28s %s\n", "phase", "accesses", "per inst", "share", "loads",
		       "offset mean [min, max]", "object");
		for (unsigned b = 0; b < (unsigned)bins; b++) {
			uint64_t tot = 0;
			for (size_t i = 0; i < no; i++) {
				const struct an_fold_cell *x = an_fold_cell(f, objs[i], b);
				tot += x->loads + x->stores;
			}
			long shown = 0;
			char ph[32];
			snprintf(ph, sizeof(ph), "[%.3f,%.3f)", (double)b / (double)bins,
				 (double)(b + 1) / (double)bins);
			if (!tot)
				printf("%-15s %12d\n", ph, 0);
			for (size_t i = 0; i < no && (!nobj || shown < nobj); i++) {
				const struct an_fold_cell *x = an_fold_cell(f, objs[i], b);
				uint64_t n = x->loads + x->stores;
				if (!n)
					continue;
				char off[64];
				snprintf(off, sizeof(off), "%.0f [%llu, %llu]", x->addr_sum / (double)n,
					 (unsigned long long)x->addr_min, (unsigned long long)x->addr_max);
				printf("%-15s %12llu %10.1f %5.1f%% %5.1f%%  %-28s %s\n", shown ? "" : ph,
				       (unsigned long long)n, (double)n / (double)inst, 100.0 * (double)n / (double)tot,
				       100.0 * (double)x->loads / (double)n, off, res->classes[objs[i]].label);
				shown++;
			}
		}
	}
	rc = cli_finish_stdout();
out:
	an_result_free(res);
	an_result_free(res2);
	an_fold_free(f);
	return rc;
}
