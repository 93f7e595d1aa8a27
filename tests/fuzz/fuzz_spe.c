// SPDX-License-Identifier: MIT
/* libFuzzer target: arbitrary bytes as an SPE AUX range, decoded record by
 * record as the pmu source does (resuming after garbage, stopping at a cut
 * record), each record turned into a data source and an outcome. Must never
 * read outside the input, loop, or crash. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/mp_datasrc.h"
#include "record/spe_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exact-size copy, so ASan sees any read past the end */
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	size_t pos = 0, used;
	struct mp_spe_record r;
	int ret;
	while (pos < size && (ret = mp_spe_decode(buf + pos, size - pos, &used, &r)) != 0 && ret != -ENODATA) {
		if (!used || used > size - pos)
			abort(); /* no progress, or past the end: a decoder bug */
		pos += used;
		if (ret == 1) {
			struct mp_outcome o;
			mp_outcome_from_data_src(mp_spe_data_src(&r, (int)(r.events & 1)), r.total_lat, 1, &o);
		}
	}
	free(buf);
	return 0;
}
