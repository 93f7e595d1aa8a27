// SPDX-License-Identifier: MIT
/* Number and string formatting shared by the report views (see rp_int.h). */
#include "report/rp_int.h"

#include <stdio.h>

const char *rp_grouped(char *buf, size_t cap, uint64_t v)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v), o = 0;
	for (int i = 0; i < n && (size_t)o + 2 < cap; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = 0;
	return buf;
}

const char *rp_human(char *buf, size_t cap, uint64_t b)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	int i = 0;
	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, cap, "%llu B", (unsigned long long)b);
	else
		snprintf(buf, cap, "%.1f %s", v, u[i]);
	return buf;
}

void rp_csv_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* The length of the well-formed UTF-8 sequence at s (RFC 3629: no
 * overlong forms, surrogates or code points past U+10FFFF), 0 if there is
 * none. By hand: the strings are a trace's (paths, names, command lines),
 * bytes to Linux, and this is all JSON needs of them. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range */
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		lo = c == 0xe0 ? 0xa0 : 0x80;
		hi = c == 0xed ? 0x9f : 0xbf;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		lo = c == 0xf0 ? 0x90 : 0x80;
		hi = c == 0xf4 ? 0x8f : 0xbf;
	} else
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

void rp_json_str(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		unsigned char ch = *p;
		size_t n = utf8_len(p);
		if (!n) {
			fputs("\\ufffd", out); /* a byte that is no UTF-8: JSON must be */
			p++;
		} else if (n > 1) {
			fwrite(p, 1, n, out);
			p += n;
		} else {
			if (ch == '"' || ch == '\\')
				fprintf(out, "\\%c", ch);
			else if (ch < 0x20)
				fprintf(out, "\\u%04x", ch);
			else
				fputc(ch, out);
			p++;
		}
	}
	fputc('"', out);
}

uint64_t rp_latency_quantile(const struct an_mem *m, double q)
{
	uint64_t n = 0;
	for (int i = 0; i < AN_LAT_BUCKETS; i++)
		n += m->latency_hist[i];
	if (!n)
		return 0;
	uint64_t need = (uint64_t)((double)n * q), sum = 0;
	for (int i = 0; i < AN_LAT_BUCKETS; i++) {
		sum += m->latency_hist[i];
		if (sum > need || i == AN_LAT_BUCKETS - 1)
			return (2ull << i) - 1;
	}
	return 0;
}

const char *rp_latency_text(char *buf, size_t cap, const struct an_mem *m)
{
	uint64_t n = 0;
	size_t at = 0;
	buf[0] = 0;
	for (int i = 0; i < AN_LAT_BUCKETS; i++)
		n += m->latency_hist[i];
	for (int i = 0; n && i < AN_LAT_BUCKETS && at < cap; i++) {
		uint64_t h = m->latency_hist[i];
		if (h * 100 < n)
			continue;
		uint64_t lo = i ? 1ull << i : 0, hi = (2ull << i) - 1;
		at += (size_t)snprintf(buf + at, cap - at, "%s%llu-%llu%s:%.0f%%", at ? " " : "", (unsigned long long)lo,
				       (unsigned long long)hi, i == AN_LAT_BUCKETS - 1 ? "+" : "",
				       100.0 * (double)h / (double)n);
	}
	return buf;
}

void rp_latency_section(FILE *out, const struct rp_lat_row *rows, size_t n, size_t limit, const char *what)
{
	int any = 0;
	for (size_t i = 0; i < n && !any; i++)
		any = rows[i].mem->latency_n != 0;
	if (!any)
		return;
	fprintf(out, "\nlatency distribution (%s cycles; buckets with >= 1%% of the row's latencies):\n", what);
	for (size_t i = 0; i < n && (!limit || i < limit); i++) {
		char b[512];
		if (!rows[i].mem->latency_n)
			continue;
		fprintf(out, "  p50 %5llu  p90 %5llu  p99 %5llu  %-40s %s\n",
			(unsigned long long)rp_latency_quantile(rows[i].mem, 0.5),
			(unsigned long long)rp_latency_quantile(rows[i].mem, 0.9),
			(unsigned long long)rp_latency_quantile(rows[i].mem, 0.99), rp_latency_text(b, sizeof(b), rows[i].mem),
			rows[i].label);
	}
}

void rp_json_rank_head(FILE *out, int rank, const char *host, unsigned pid, const char *key, const char *label,
		       const char *status)
{
	if (rank >= 0)
		fprintf(out, "{\"rank\":%d", rank);
	else
		fprintf(out, "{\"rank\":null");
	fprintf(out, ",\"host\":");
	rp_json_str(out, host);
	fprintf(out, ",\"pid\":%u,\"%s\":", pid, key);
	rp_json_str(out, label);
	fprintf(out, ",\"status\":");
	rp_json_str(out, status);
}
