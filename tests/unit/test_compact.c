// SPDX-License-Identifier: MIT
/* The launcher's compressed copy of a growing data file (record/compact.h):
 * raw stream chunks come out compressed and every other chunk as it was,
 * in order, whatever the writers had finished at each step; a chunk cut
 * short stays as its bytes; a header marked after the start is marked in
 * the copy; what is not a data file is left alone, with no copy behind. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "check.h"
#include "record/compact.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

static char dir[] = "/tmp/mp-compact-XXXXXX";

struct built {
	uint8_t bytes[1 << 16];
	size_t len;
};

/* A chunk of type with a payload of n bytes seeded by seed (runs of equal
 * bytes: compressible), raw or compressed with cctx. */
static size_t chunk(uint8_t *out, unsigned type, uint32_t seq, uint8_t *payload, size_t n, unsigned seed,
		    ZSTD_CCtx *cctx)
{
	for (size_t i = 0; i < n; i++)
		payload[i] = (uint8_t)(seed + i / 64);
	struct mp_chunk_header h = { .type = (uint16_t)type, .pid = 42, .tid = 7, .proc_id = 3, .seq = seq,
				     .accesses = type == MP_CHUNK_STREAM ? (MP_CHUNK_PLAIN | 100u) : 0 };
	return trace_chunk_build(&h, payload, n, out, cctx, 1);
}

static void append(int fd, const void *p, size_t n)
{
	CHECK_EQ(write(fd, p, n), (ssize_t)n);
}

static size_t leftovers(void)
{
	size_t n = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while ((e = readdir(d)))
		n += strncmp(e->d_name, "t.data.", 7) == 0;
	closedir(d);
	return n;
}

static void test_growing(void)
{
	char path[64];
	snprintf(path, sizeof(path), "%s/t.data", dir);
	static uint8_t c1[20000], c2[20000], c3[20000], c4[20000], pay[3][8000];
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	size_t n1 = chunk(c1, MP_CHUNK_STREAM, 0, pay[0], 8000, 1, NULL); /* the tool's: raw */
	size_t n2 = chunk(c2, MP_CHUNK_PROCESS, 0, pay[1], 300, 2, NULL); /* a raw process chunk stays raw */
	size_t n3 = chunk(c3, MP_CHUNK_STREAM, 1, pay[2], 8000, 3, cctx); /* the runtime's: compressed */
	CHECK_EQ(((struct mp_chunk_header *)c3)->codec, MP_CODEC_ZSTD);
	CHECK_EQ(((struct mp_chunk_header *)c1)->codec, MP_CODEC_RAW);
	const char meta[] = "source=valgrind\n";
	struct mp_file_header fh;
	trace_file_header_init(&fh, strlen(meta), meta, 0, 0);
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL, 0640);
	append(fd, &fh, sizeof(fh));
	append(fd, meta, strlen(meta));
	append(fd, c1, n1);
	append(fd, c2, 100); /* a writer half-way through a chunk */

	struct mp_compact *c;
	CHECK_EQ(mp_compact_open(path, 1, &c), 0);
	CHECK_EQ(leftovers(), 1);
	CHECK_EQ(mp_compact_step(c, 0), 0);
	append(fd, c2 + 100, n2 - 100);
	CHECK_EQ(mp_compact_step(c, 1), 1); /* (one chunk, then the bound) */
	append(fd, c3, n3);
	/* the fourth chunk is cut short for good (a writer killed in its write) */
	size_t n4 = chunk(c4, MP_CHUNK_STREAM, 2, pay[0], 8000, 4, NULL);
	append(fd, c4, n4 / 2);
	CHECK_EQ(trace_file_mark_failed(fd, ENOSPC), 0);
	close(fd);
	const off_t raw_size = (off_t)(sizeof(fh) + strlen(meta) + n1 + n2 + n3 + n4 / 2);
	uint64_t raw = 0, stored = 0;
	CHECK_EQ(mp_compact_finish(c, &raw, &stored), 0);
	CHECK_EQ(raw, (uint64_t)raw_size);
	struct stat st;
	CHECK_EQ(stat(path, &st), 0);
	CHECK_EQ((uint64_t)st.st_size, stored);
	CHECK(stored < raw - 7000); /* (the raw chunk of 8,000 bytes in runs of 64) */
	CHECK_EQ(st.st_mode & 0777, 0640);
	CHECK_EQ(leftovers(), 0);

	struct trace_reader *r = trace_reader_open(path);
	CHECK(r != NULL);
	CHECK(trace_reader_header(r)->flags & MP_FILE_WRITE_FAILED);
	CHECK_EQ(MP_FILE_WRITE_ERRNO(trace_reader_header(r)->flags), ENOSPC);
	char buf[64];
	CHECK(trace_reader_meta(r, "source", buf, sizeof(buf)) && !strcmp(buf, "valgrind"));
	const uint8_t *want[] = { pay[0], pay[1], pay[2] };
	const size_t wlen[] = { 8000, 300, 8000 };
	const unsigned types[] = { MP_CHUNK_STREAM, MP_CHUNK_PROCESS, MP_CHUNK_STREAM };
	const unsigned codecs[] = { MP_CODEC_ZSTD, MP_CODEC_RAW, MP_CODEC_ZSTD };
	struct trace_chunk ch;
	/* (pay[0] was refilled for the fourth chunk: the first's payload again) */
	for (size_t i = 0; i < 8000; i++)
		pay[0][i] = (uint8_t)(1 + i / 64);
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(trace_reader_next(r, &ch), 1);
		CHECK_EQ(ch.hdr.type, types[i]);
		CHECK_EQ(ch.hdr.codec, codecs[i]);
		CHECK_EQ(ch.hdr.pid, 42u);
		CHECK_EQ(ch.hdr.tid, 7u);
		CHECK_EQ(ch.hdr.proc_id, 3u);
		CHECK_EQ(ch.hdr.seq, (uint32_t)(i == 2));
		CHECK_EQ(ch.hdr.accesses, types[i] == MP_CHUNK_STREAM ? (MP_CHUNK_PLAIN | 100u) : 0u);
		CHECK_EQ(ch.len, wlen[i]);
		CHECK(memcmp(ch.data, want[i], wlen[i]) == 0);
	}
	/* the cut chunk: where the reader stops, as it did in the raw file */
	CHECK_EQ(trace_reader_next(r, &ch), 0);
	uint64_t at = 0;
	CHECK(trace_reader_status(r, &at) != 0);
	CHECK_EQ(at, stored - n4 / 2);
	trace_reader_close(r);
	FILE *f = fopen(path, "rb");
	static uint8_t tail[20000];
	fseek(f, (long)(stored - n4 / 2), SEEK_SET);
	CHECK_EQ(fread(tail, 1, n4 / 2, f), n4 / 2);
	fclose(f);
	CHECK(memcmp(tail, c4, n4 / 2) == 0);
	unlink(path);
	ZSTD_freeCCtx(cctx);
}

static void test_not_data(void)
{
	char path[64];
	snprintf(path, sizeof(path), "%s/t.data", dir);
	FILE *f = fopen(path, "w");
	fputs("not a memprism data file, but long enough for a header\n", f);
	fclose(f);
	struct mp_compact *c = NULL;
	CHECK_EQ(mp_compact_open(path, 1, &c), -EINVAL);
	CHECK_EQ(leftovers(), 0);
	unlink(path);
	CHECK_EQ(mp_compact_open("/dev/null", 1, &c), -EINVAL); /* (nothing to put in its place) */
	CHECK_EQ(mp_compact_open(path, 1, &c), -ENOENT);
}

int main(void)
{
	CHECK(mkdtemp(dir) != NULL);
	test_growing();
	test_not_data();
	rmdir(dir);
	return check_done("test_compact");
}
