// SPDX-License-Identifier: MIT
/* The launcher's end of the runtime's shared buffers (record/live.h): the
 * filling and queued buffers of processes that are gone become STREAM
 * chunks in each thread's order with their headers' fields, empty ones and
 * ones whose bounds the program could have damaged give none, a process
 * still running is left alone until the end, and every region collected is
 * free again, its pages given back. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "common/mp_live.h"
#include "record/live.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

static struct mp_live *map_by_path(const struct mp_live_arena *a, int *fd)
{
	*fd = open(mp_live_path(a), O_RDWR);
	CHECK(*fd >= 0);
	void *p = mmap(NULL, sizeof(struct mp_live), PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	CHECK(p != MAP_FAILED);
	return p;
}

/* Region i's buffer b holds n bytes of v: state, seq and the header's access count. */
static void fill(struct mp_live *g, int fd, uint32_t i, int b, uint32_t state, uint32_t seq, uint32_t n, uint8_t v,
		 uint32_t accesses)
{
	struct mp_live_buf *x = &g->region[i].buf[b];
	x->off = (uint32_t)b * (1u << 20);
	x->seq = seq;
	x->len = n;
	x->accesses = accesses;
	x->state = state;
	uint8_t *tmp = malloc(n ? n : 1);
	memset(tmp, v, n);
	if (n && n <= MP_LIVE_REGION_BYTES)
		CHECK(pwrite(fd, tmp, n, (off_t)(g->data_off + (uint64_t)i * g->region_bytes + x->off)) == (ssize_t)n);
	free(tmp);
}

static void own(struct mp_live *g, uint32_t i, enum mp_live_owner state, uint32_t pid, uint64_t proc_id, uint32_t tid)
{
	g->region[i].owner = mp_live_owner(state, pid);
	g->region[i].proc_id = proc_id;
	g->region[i].tid = tid;
}

struct want {
	uint32_t pid, tid, seq, accesses, len;
	uint64_t proc_id;
	uint8_t v;
};

static void check_chunks(const char *path, const struct want *w, unsigned n)
{
	struct trace_reader *r = trace_reader_open(path);
	CHECK(r != NULL);
	if (!r)
		return;
	struct trace_chunk c;
	unsigned k = 0;
	while (trace_reader_next(r, &c) == 1) {
		CHECK(k < n);
		if (k >= n)
			break;
		CHECK_EQ(c.hdr.type, MP_CHUNK_STREAM);
		CHECK_EQ(c.hdr.pid, w[k].pid);
		CHECK_EQ(c.hdr.tid, w[k].tid);
		CHECK_EQ(c.hdr.proc_id, w[k].proc_id);
		CHECK_EQ(c.hdr.seq, w[k].seq);
		CHECK_EQ(c.hdr.accesses, w[k].accesses);
		CHECK_EQ(c.len, w[k].len);
		int same = 1;
		for (size_t j = 0; j < c.len; j++)
			same &= c.data[j] == w[k].v;
		CHECK(same);
		k++;
	}
	CHECK_EQ(k, n);
	trace_reader_close(r);
}

int main(void)
{
	struct mp_live_arena *a;
	CHECK_EQ(mp_live_open(&a), 0);
	int fd;
	struct mp_live *g = map_by_path(a, &fd);
	CHECK_EQ(g->magic, MP_LIVE_MAGIC);
	CHECK_EQ(g->nregions, MP_LIVE_REGIONS);
	CHECK(g->data_off >= sizeof(*g) && g->data_off % 4096 == 0);

	/* a pid that is gone */
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	int st;
	CHECK(waitpid(dead, &st, 0) == dead);
	const uint32_t me = (uint32_t)getpid(), d = (uint32_t)dead;

	/* 0: a killed thread's queued chunk 5 and the chunk 6 it was filling */
	own(g, 0, MP_LIVE_OWNED, d, 77, 1234);
	fill(g, fd, 0, 0, MP_LIVE_QUEUED, 5, 100, 0xa5, MP_CHUNK_PLAIN | 7);
	fill(g, fd, 0, 1, MP_LIVE_FILLING, 6, 50, 0x5a, 123);
	/* 1: a process still running */
	own(g, 1, MP_LIVE_OWNED, me, 78, 99);
	fill(g, fd, 1, 0, MP_LIVE_FILLING, 0, 10, 0x11, 0);
	/* 2: retired by a process that exited: its buffers were written */
	own(g, 2, MP_LIVE_RETIRED, d, 79, 5);
	fill(g, fd, 2, 0, MP_LIVE_EMPTY, 3, 30, 0x22, 0);
	/* 3: a length past the region (the program wrote over it), and nothing committed */
	own(g, 3, MP_LIVE_OWNED, d, 80, 6);
	fill(g, fd, 3, 0, MP_LIVE_FILLING, 2, MP_LIVE_REGION_BYTES, 0x33, 0);
	fill(g, fd, 3, 1, MP_LIVE_FILLING, 3, 0, 0x33, 0);
	/* 4: the queued chunk in the second buffer: it goes first */
	own(g, 4, MP_LIVE_OWNED, d, 81, 7);
	fill(g, fd, 4, 0, MP_LIVE_FILLING, 9, 20, 0x44, 0);
	fill(g, fd, 4, 1, MP_LIVE_QUEUED, 8, 40, 0x45, MP_CHUNK_PLAIN | 3);
	g->used = 5;

	char path[] = "/tmp/test_live_XXXXXX";
	int out = mkstemp(path);
	CHECK(out >= 0);
	struct mp_file_header h;
	trace_file_header_init(&h, 0, "", 0, 0);
	CHECK(write(out, &h, sizeof(h)) == (ssize_t)sizeof(h));
	int ao = open(path, O_WRONLY | O_APPEND);
	CHECK(ao >= 0);

	uint64_t chunks = 0;
	CHECK_EQ(mp_live_collect(a, ao, 0, &chunks), 0);
	CHECK_EQ(chunks, 4);
	const struct want w1[] = {
		{ d, 1234, 5, MP_CHUNK_PLAIN | 7, 100, 77, 0xa5 },
		{ d, 1234, 6, 0, 50, 77, 0x5a },
		{ d, 7, 8, MP_CHUNK_PLAIN | 3, 40, 81, 0x45 },
		{ d, 7, 9, 0, 20, 81, 0x44 },
	};
	check_chunks(path, w1, 4);
	/* collected regions are free and empty; the running process's is not */
	for (uint32_t i = 0; i < 5; i++) {
		CHECK_EQ(g->region[i].owner, i == 1 ? mp_live_owner(MP_LIVE_OWNED, me) : 0);
		CHECK_EQ(g->region[i].buf[0].state, i == 1 ? MP_LIVE_FILLING : MP_LIVE_EMPTY);
		CHECK_EQ(g->region[i].buf[1].state, MP_LIVE_EMPTY);
	}
	/* region 0's pages were given back: its bytes read as zeros */
	uint8_t back[100];
	CHECK(pread(fd, back, sizeof(back), (off_t)g->data_off) == (ssize_t)sizeof(back));
	int zero = 1;
	for (size_t j = 0; j < sizeof(back); j++)
		zero &= back[j] == 0;
	CHECK(zero);

	/* the end of the run: every process's */
	CHECK_EQ(mp_live_collect(a, ao, 1, &chunks), 0);
	CHECK_EQ(chunks, 5);
	const struct want w2[] = {
		w1[0], w1[1], w1[2], w1[3], { me, 99, 0, 0, 10, 78, 0x11 },
	};
	check_chunks(path, w2, 5);
	CHECK_EQ(g->region[1].owner, 0);
	/* nothing left: nothing more */
	CHECK_EQ(mp_live_collect(a, ao, 1, &chunks), 0);
	CHECK_EQ(chunks, 5);
	/* a header the program wrote over: the launcher keeps to its own
	 * geometry (no read past its mapping, the chunk where it was) */
	own(g, 3, MP_LIVE_OWNED, d, 83, 9);
	fill(g, fd, 3, 0, MP_LIVE_FILLING, 0, 12, 0x88, 0);
	g->nregions = UINT32_MAX;
	g->used = UINT32_MAX;
	g->region_bytes = 1;
	g->data_off = 0;
	CHECK_EQ(mp_live_collect(a, ao, 0, &chunks), 0);
	CHECK_EQ(chunks, 6);
	CHECK_EQ(g->region[3].owner, 0);
	g->nregions = MP_LIVE_REGIONS;
	g->used = 5;
	g->region_bytes = MP_LIVE_REGION_BYTES;
	g->data_off = MP_LIVE_DATA_OFF;
	const struct want w3[] = {
		w1[0], w1[1], w1[2], w1[3], { me, 99, 0, 0, 10, 78, 0x11 }, { d, 9, 0, 0, 12, 83, 0x88 },
	};
	check_chunks(path, w3, 6);
	/* no file (a write failed before): freed, nothing appended */
	own(g, 2, MP_LIVE_OWNED, d, 82, 8);
	fill(g, fd, 2, 0, MP_LIVE_FILLING, 4, 10, 0x77, 0);
	CHECK_EQ(mp_live_collect(a, -1, 0, &chunks), 0);
	CHECK_EQ(chunks, 6);
	CHECK_EQ(g->region[2].owner, 0);
	/* a failed write keeps the region */
	own(g, 0, MP_LIVE_OWNED, d, 77, 1234);
	fill(g, fd, 0, 0, MP_LIVE_FILLING, 1, 10, 0x66, 0);
	int ro = open(path, O_RDONLY);
	CHECK(mp_live_collect(a, ro, 0, &chunks) < 0);
	CHECK_EQ(g->region[0].owner, mp_live_owner(MP_LIVE_OWNED, d));
	close(ro);

	close(ao);
	close(out);
	unlink(path);
	munmap(g, sizeof(*g));
	close(fd);
	mp_live_close(a);
	mp_live_close(NULL);

	/* under a file size limit: the regions that fit, or none, and never
	 * SIGXFSZ (a child: the limit stays there) */
	pid_t c = fork();
	if (c == 0) {
		struct rlimit fl = { 100u << 20, 100u << 20 };
		if (setrlimit(RLIMIT_FSIZE, &fl) != 0)
			_exit(10);
		struct mp_live_arena *b;
		if (mp_live_open(&b) != 0)
			_exit(11);
		int bfd;
		struct mp_live *bg = map_by_path(b, &bfd);
		if (bg->nregions != ((100u << 20) - MP_LIVE_DATA_OFF) / MP_LIVE_REGION_BYTES)
			_exit(12);
		mp_live_close(b);
		fl.rlim_cur = 10u << 20;
		if (setrlimit(RLIMIT_FSIZE, &fl) != 0 || mp_live_open(&b) != -EFBIG)
			_exit(13);
		_exit(check_failures ? 14 : 0);
	}
	CHECK(c > 0 && waitpid(c, &st, 0) == c);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 0);
	return check_done("test_live");
}
