// SPDX-License-Identifier: MIT
/* `memprism fold REGION [OPTIONS] [FILE]`: the instances of a region folded
 * into one synthetic instance (an_fold.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/an_fold.h"
#include "cli/cli.h"
#include "common/mp_error.h"

#define STR_(x) #x
#define STR(x) STR_(x)

static int run(int argc, char **argv);

static const struct cli_opt opts[] = {
	CLI_OPT("bins", 'b', "N", "phase bins over [0, 1) (default 20, at most " STR(AN_FOLD_MAX_BINS) ")"),
	CLI_OPT("objects", 'o', "N", "objects shown per bin in text (default 3, 0 for all)"),
	CLI_OPT("format", 'f', "FORMAT",
	  "text (default), csv, or html: one offline page with the\n"
	  "address and access-rate plots over folded time"),
	CLI_TABLE(cli_opts_quiet_help),
	CLI_END,
};

const struct cli_cmd cli_cmd_fold = {
	.name = "fold",
	.run = run,
	.summary = "fold the instances of a region into one: objects and addresses over its phase",
	.usage = "REGION [OPTIONS] [FILE]",
	.about = "Folds every instance of region REGION (memprism_region_begin/end, per thread)\n"
		 "into one synthetic instance: per phase of the instance, which objects are\n"
		 "accessed, how often, and where in them. Phase = the access's ordinal within its\n"
		 "instance / the instance's accesses. FILE defaults to memprism.data.\n",
	.opts = opts,
	.formats = 1u << CLI_FMT_TEXT | 1u << CLI_FMT_CSV | 1u << CLI_FMT_HTML,
	.examples = (const struct cli_example[]){
		{ "memprism fold iter",
		  "fold the instances of region \"iter\" into one: objects, addresses over its phase" },
		{ "memprism fold iter -f html > fold.html",
		  "the same as plots" },
		{ 0 },
	},
	.see_also = "memprism-report(1)",
};

/* The two replays (an_run_two_pass): the first finds the instances, the
 * plan sizes the folded grid, the second fills it. */
struct fold_run {
	struct an_fold *f;
	const char *region, *data;
	int damage, none; /* none: no complete instance (said) */
};

static void scan_access(void *arg, const struct an_access *a)
{
	an_fold_scan_access(((struct fold_run *)arg)->f, a);
}

static void scan_event(void *arg, const struct an_event *e)
{
	an_fold_scan_event(((struct fold_run *)arg)->f, e);
}

static int plan(void *arg, const struct an_result *res)
{
	struct fold_run *r = arg;
	r->damage = cli_damage(res, r->data, 0);
	if (!an_fold_instances(r->f)) {
		cli_error("no complete instance of region '%s' in %s", r->region, r->data);
		r->none = 1;
		return -ENOENT;
	}
	return an_fold_plan(r->f, res);
}

static void fill_access(void *arg, const struct an_access *a)
{
	an_fold_fill_access(((struct fold_run *)arg)->f, a);
}

static int fill_error(void *arg)
{
	return an_fold_error(((struct fold_run *)arg)->f);
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

static void json_str(const char *s)
{
	putchar('"');
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\' || ch == '<')
			printf("\\u%04x", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

/* The folded instance as a page: per object, its addresses (min-max band
 * and mean) over folded time, and every object's accesses per instance
 * over folded time. Plain canvas drawing, no library, no network. */
static void fold_html(const struct an_fold *f, const struct an_result *res, const char *region, const char *data,
		      unsigned bins, const uint32_t *objs, size_t no)
{
	printf("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>memprism fold</title>\n"
	       "<style>body{font:13px sans-serif;margin:16px}canvas{border:1px solid #ccc;margin:4px 0}"
	       "h3{margin:14px 0 2px}</style></head><body>\n<h2 id=\"title\"></h2><div id=\"app\"></div>"
	       "<pre id=\"status\">rendering</pre>\n<script type=\"application/json\" id=\"d\">");
	printf("{\"region\":");
	json_str(region);
	printf(",\"data\":");
	json_str(data);
	printf(",\"instances\":%llu,\"bins\":%u,\"objects\":[", (unsigned long long)an_fold_instances(f), bins);
	for (size_t i = 0; i < no && i < 12; i++) {
		printf("%s{\"label\":", i ? "," : "");
		json_str(res->classes[objs[i]].label);
		printf(",\"cells\":[");
		for (unsigned b = 0; b < bins; b++) {
			const struct an_fold_cell *x = an_fold_cell(f, objs[i], b);
			uint64_t n = x->loads + x->stores;
			printf("%s[%llu,%llu,%llu,%llu,%.1f]", b ? "," : "", (unsigned long long)x->loads,
			       (unsigned long long)x->stores, (unsigned long long)(n ? x->addr_min : 0),
			       (unsigned long long)(n ? x->addr_max : 0), n ? x->addr_sum / (double)n : 0.0);
		}
		printf("]}");
	}
	printf("]}</script>\n<script>\n"
	       "(function(){const "
	       "D=JSON.parse(document.getElementById('d').textContent),app=document.getElementById('app');\n"
	       "document.getElementById('title').textContent='Region '+D.region+' folded: '+D.instances+' instances, "
	       "'+D.bins+' phase bins ('+D.data+')';\n"
	       "const W=600,H=160,L=70,col=['#1f77b4','#d62728','#2ca02c','#9467bd','#ff7f0e','#8c564b'];\n"
	       "function canvas(h){const c=document.createElement('canvas');c.width=L+W+10;c.height=h+30;return c;}\n"
	       "function "
	       "axes(x,h,lab){x.strokeStyle='#999';x.strokeRect(L-.5,9.5,W+1,h+1);x.fillStyle='#333';x.font='11px "
	       "sans-serif';"
	       "x.textAlign='center';for(let "
	       "i=0;i<=4;i++)x.fillText((i/4).toFixed(2),L+W*i/4,h+24);x.textAlign='left';x.fillText(lab,4,h+24);}\n"
	       "let h3=document.createElement('h3');h3.textContent='Accesses per instance over folded "
	       "time';app.append(h3);\n"
	       "const rc=canvas(H),rx=rc.getContext('2d');axes(rx,H,'phase');let mx=1;\n"
	       "for(const o of D.objects)for(const c of o.cells)mx=Math.max(mx,(c[0]+c[1])/D.instances);\n"
	       "D.objects.forEach((o,k)=>{rx.strokeStyle=col[k%%6];rx.lineWidth=2;rx.beginPath();o.cells.forEach((c,b)="
	       ">{const "
	       "x=L+W*(b+.5)/D.bins,y=10+H-H*((c[0]+c[1])/D.instances)/"
	       "mx;b?rx.lineTo(x,y):rx.moveTo(x,y);});rx.stroke();});\n"
	       "rx.fillStyle='#333';rx.fillText(mx.toFixed(1)+'/inst',4,18);app.append(rc);\n"
	       "const lg=document.createElement('div');D.objects.forEach((o,k)=>{const "
	       "s=document.createElement('span');s.style.color=col[k%%6];s.textContent='\\u25a0 '+o.label+'  "
	       "';lg.append(s);});app.append(lg);\n"
	       "D.objects.forEach((o,k)=>{const t=document.createElement('h3');t.textContent=o.label+': addresses over "
	       "folded time (band min-max, line mean; red: stores)';app.append(t);\n"
	       "const c=canvas(H),x=c.getContext('2d');c.className='fold-obj';axes(x,H,'phase');let top=1;for(const z "
	       "of o.cells)top=Math.max(top,z[3]);\n"
	       "o.cells.forEach((z,b)=>{if(!(z[0]+z[1]))return;const "
	       "x0=L+W*b/D.bins,w=Math.max(1,W/"
	       "D.bins-1);x.fillStyle=z[1]>z[0]?'rgba(214,39,40,.35)':'rgba(31,119,180,.35)';"
	       "const "
	       "y0=10+H-H*z[3]/top,y1=10+H-H*z[2]/"
	       "top;x.fillRect(x0,y0,w,Math.max(1,y1-y0));x.fillStyle='#000';x.fillRect(x0,10+H-H*z[4]/top,w,1.5);});\n"
	       "x.fillStyle='#333';x.fillText('+'+top,4,18);app.append(c);});\n"
	       "document.getElementById('status').textContent='ok objects='+D.objects.length+' "
	       "plots='+document.querySelectorAll('canvas.fold-obj').length+' bins='+D.bins;})();\n"
	       "</script></body></html>\n");
}

static int run(int argc, char **argv)
{
	long bins = 20, nobj = 3;
	struct cli_parse p;
	int csv = 0, c;
	cli_parse_init(&p, &cli_cmd_fold, argc, argv);
	while ((c = cli_parse_next(&p)) != -1) {
		switch (c) {
		case CLI_EXIT:
			return p.status;
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
		case 'f': {
			enum cli_format f;
			if (cli_parse_format("fold", optarg, cli_cmd_fold.formats, &f))
				return 2;
			csv = f == CLI_FMT_HTML ? 2 : f == CLI_FMT_CSV;
			break;
		}
		}
	}
	if (optind >= argc) {
		cli_error("fold which region? `memprism fold REGION [FILE]` (names from memprism_region_begin)");
		return 2;
	}
	const char *region = argv[optind++];
	const char *data;
	struct stat sb;
	if (optind >= argc && stat(region, &sb) == 0 && S_ISREG(sb.st_mode)) {
		/* `fold good.data`: the file taken for a region would send the
		 * user looking for memprism.data */
		cli_error("fold which region of %s? `memprism fold REGION %s` (REGION: a name given to "
			  "memprism_region_begin)",
			  region, region);
		return 2;
	}
	int named = optind < argc;
	if (cli_data_path(argc, argv, optind, &data))
		return 2;
	struct an_fold *f = an_fold_new(region, (unsigned)bins);
	struct an_result *res = NULL;
	struct fold_run run = { .f = f, .region = region, .data = data };
	enum an_pass stage;
	int rc = 1, err, damage = 0;
	if (!f) {
		cli_error("out of memory");
		return 1;
	}
	const struct an_opts ao = { .on_access = scan_access, .on_event = scan_event, .hook_arg = &run };
	const struct an_two_pass tp = { .on_access = fill_access, .plan = plan, .error = fill_error, .arg = &run };
	err = an_run_two_pass(data, &ao, &tp, &res, &stage);
	damage = run.damage;
	if (err && stage == AN_PASS_FIRST)
		cli_data_error(err, data, named, "memprism record -- PROGRAM");
	else if (err && !run.none)
		cli_error("cannot fold %s: %s", data, mp_strerror(err));
	if (err)
		goto out;
	const uint32_t *objs;
	size_t no = an_fold_objects(f, &objs);
	uint64_t inst = an_fold_instances(f);
	if (csv == 2) {
		fold_html(f, res, region, data, (unsigned)bins, objs, no);
	} else if (csv) {
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
	rc = cli_finish_stdout() | damage;
out:
	an_result_free(res);
	an_fold_free(f);
	return rc;
}
