/* SPDX-License-Identifier: MIT */
/* Internal to src/report: formatting helpers (rp_util.c) and the views of
 * the sampled sources (rp_faults.c). */
#ifndef MP_RP_INT_H
#define MP_RP_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/report.h"

/* 1234567 -> "1,234,567" into buf. */
const char *rp_grouped(char *buf, size_t cap, uint64_t v);
/* bytes -> "1.5 MiB" into buf. */
const char *rp_human(char *buf, size_t cap, uint64_t b);
void rp_csv_str(FILE *out, const char *s);
void rp_json_str(FILE *out, const char *s);

/* Views of a `record --source faults` result (every --by, --by page too). */
int rp_render_faults(FILE *out, const struct an_result *res, const struct rp_opts *o);
/* Views of a `record --source pmu` result (measured level shares); text and
 * CSV (JSON: the text is rendered). -EINVAL for --by page. */
int rp_render_pmu(FILE *out, const struct an_result *res, const struct rp_opts *o);

#endif
