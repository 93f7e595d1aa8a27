// SPDX-License-Identifier: MIT
/* The launcher's copy of a data file with its raw stream chunks
 * compressed (see compact.h). */
#include "record/compact.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "trace/trace_format.h"
#include "trace/trace_writer.h"

struct mp_compact {
	int in, out;
	char *path, *tmp;
	uint64_t off; /* the next chunk's, in both files */
	uint64_t out_off;
	int stuck; /* a chunk that does not check: the rest goes as it is */
	int level;
	ZSTD_CCtx *cctx;
	uint8_t *buf, *obuf;
	size_t cap, ocap;
	/* chunks put from memory (mp_compact_put): their bytes in, and where
	 * their copies lie in the copy (for mp_compact_abort_into) */
	uint64_t put_bytes;
	struct put_extent {
		uint64_t off, len;
	} *puts;
	size_t nputs, cputs;
};

static int read_at(int fd, void *p, size_t n, uint64_t off, size_t *got)
{
	*got = 0;
	while (*got < n) {
		ssize_t r = pread(fd, (char *)p + *got, n - *got, (off_t)(off + *got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		*got += (size_t)r;
	}
	return 0;
}

static int write_at(int fd, const void *p, size_t n, uint64_t off)
{
	size_t done = 0;
	while (done < n) {
		ssize_t r = pwrite(fd, (const char *)p + done, n - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		done += (size_t)r;
	}
	return 0;
}

static int grow(uint8_t **p, size_t *cap, size_t n)
{
	if (*cap >= n)
		return 0;
	uint8_t *q = realloc(*p, n);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

void mp_compact_abort(struct mp_compact *c)
{
	if (!c)
		return;
	if (c->out >= 0) {
		close(c->out);
		unlink(c->tmp);
	}
	if (c->in >= 0)
		close(c->in);
	ZSTD_freeCCtx(c->cctx);
	free(c->puts);
	free(c->buf);
	free(c->obuf);
	free(c->path);
	free(c->tmp);
	free(c);
}

int mp_compact_open(const char *path, int level, struct mp_compact **out)
{
	struct mp_compact *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->in = c->out = -1;
	c->level = level;
	size_t pl = strlen(path);
	c->path = strdup(path);
	c->tmp = malloc(pl + 8);
	c->cctx = ZSTD_createCCtx();
	int err = c->path && c->tmp && c->cctx ? 0 : -ENOMEM;
	struct stat st;
	if (!err && ((c->in = open(path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(c->in, &st) != 0))
		err = -errno;
	if (!err && !S_ISREG(st.st_mode))
		err = -EINVAL; /* (a pipe or a device: nothing to put in its place) */
	struct mp_file_header h;
	size_t got = 0;
	if (!err)
		err = read_at(c->in, &h, sizeof(h), 0, &got);
	if (!err && (got < sizeof(h) || memcmp(h.magic, MP_FILE_MAGIC, 8) != 0 || h.header_len < sizeof(h)))
		err = -EINVAL;
	if (!err) {
		/* beside the file, so that the rename puts it in its place */
		memcpy(c->tmp, path, pl);
		memcpy(c->tmp + pl, ".XXXXXX", 8);
		c->out = mkostemp(c->tmp, O_CLOEXEC);
		if (c->out < 0)
			err = -errno;
		else if (fchmod(c->out, st.st_mode & 07777) != 0)
			err = -errno;
	}
	/* the header and its metadata, as they are: the header again at
	 * the finish */
	c->off = c->out_off = (uint64_t)h.header_len + h.meta_len;
	if (!err)
		err = grow(&c->buf, &c->cap, (size_t)c->off);
	if (!err)
		err = read_at(c->in, c->buf, (size_t)c->off, 0, &got);
	if (!err && got < c->off)
		err = -EINVAL;
	if (!err)
		err = write_at(c->out, c->buf, (size_t)c->off, 0);
	if (err) {
		mp_compact_abort(c);
		return err;
	}
	*out = c;
	return 0;
}

/* The whole chunk [p, p + n) (its header checked) into the copy at
 * c->out_off: compressed if it is a raw stream whose payload checks, else
 * as it is. 0 or -errno. */
static int emit(struct mp_compact *c, const uint8_t *p, size_t n)
{
	struct mp_chunk_header h;
	memcpy(&h, p, sizeof(h));
	const uint8_t *payload = p + sizeof(h);
	const uint8_t *w = p;
	size_t wn = n;
	int err;
	if (h.type == MP_CHUNK_STREAM && h.codec == MP_CODEC_RAW && h.raw_len == h.stored_len &&
	    h.payload_crc == trace_crc32(payload, h.stored_len)) {
		if ((err = grow(&c->obuf, &c->ocap, trace_chunk_bound(h.raw_len))) != 0)
			return err;
		wn = trace_chunk_build(&h, payload, h.raw_len, c->obuf, c->cctx, c->level);
		w = c->obuf;
	}
	if ((err = write_at(c->out, w, wn, c->out_off)) != 0)
		return err;
	c->out_off += wn;
	return 0;
}

static int header_checks(const struct mp_chunk_header *h)
{
	return h->magic == MP_CHUNK_MAGIC && h->header_crc == trace_crc32(h, offsetof(struct mp_chunk_header, header_crc)) &&
	       h->raw_len <= MP_CHUNK_MAX_RAW && h->stored_len <= MP_CHUNK_MAX_RAW;
}

/* The chunk at c->off: 1 copied (compressed if it is a raw stream), 0 not
 * whole yet or not one that checks (then c->stuck), or -errno. */
static int copy_chunk(struct mp_compact *c, uint64_t *read)
{
	struct mp_chunk_header h;
	size_t got;
	int err = read_at(c->in, &h, sizeof(h), c->off, &got);
	if (err || got < sizeof(h))
		return err;
	if (!header_checks(&h)) {
		c->stuck = 1;
		return 0;
	}
	size_t n = sizeof(h) + h.stored_len;
	if ((err = grow(&c->buf, &c->cap, n)) != 0)
		return err;
	if ((err = read_at(c->in, c->buf, n, c->off, &got)) != 0 || got < n)
		return err; /* (its writer is still at it) */
	if ((err = emit(c, c->buf, n)) != 0)
		return err;
	c->off += n;
	*read += n;
	return 1;
}

int mp_compact_put(struct mp_compact *c, const uint8_t *chunk, size_t len)
{
	struct mp_chunk_header h;
	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, chunk, sizeof(h));
	if (!header_checks(&h) || sizeof(h) + h.stored_len != len)
		return -EINVAL;
	if (c->nputs == c->cputs) {
		size_t nc = c->cputs ? 2 * c->cputs : 256;
		struct put_extent *q = realloc(c->puts, nc * sizeof(*q));
		if (!q)
			return -ENOMEM;
		c->puts = q;
		c->cputs = nc;
	}
	uint64_t at = c->out_off;
	int err = emit(c, chunk, len);
	if (err)
		return err;
	c->puts[c->nputs++] = (struct put_extent){ at, c->out_off - at };
	c->put_bytes += len;
	return 0;
}

int mp_compact_abort_into(struct mp_compact *c, int fd)
{
	int err = 0;
	for (size_t i = 0; i < c->nputs && !err; i++) {
		size_t got;
		if ((err = grow(&c->buf, &c->cap, (size_t)c->puts[i].len)) != 0 ||
		    (err = read_at(c->out, c->buf, (size_t)c->puts[i].len, c->puts[i].off, &got)) != 0)
			break;
		if (got < c->puts[i].len) {
			err = -EIO;
			break;
		}
		for (size_t done = 0; done < got && !err;) {
			ssize_t r = write(fd, c->buf + done, got - done);
			if (r < 0 && errno != EINTR)
				err = -errno;
			done += r > 0 ? (size_t)r : 0;
		}
	}
	mp_compact_abort(c);
	return err;
}

int mp_compact_step(struct mp_compact *c, uint64_t max_bytes)
{
	uint64_t read = 0;
	while (!c->stuck) {
		if (max_bytes && read >= max_bytes)
			return 1;
		int r = copy_chunk(c, &read);
		if (r <= 0)
			return r;
	}
	return 0;
}

int mp_compact_finish(struct mp_compact *c, uint64_t *raw, uint64_t *stored)
{
	int err = mp_compact_step(c, 0);
	/* the rest, as it is: a chunk cut short by a killed writer, or one
	 * that does not check */
	for (size_t got = 1; !err && got;) {
		if ((err = grow(&c->buf, &c->cap, 1u << 20)) != 0)
			break;
		if ((err = read_at(c->in, c->buf, 1u << 20, c->off, &got)) != 0 || !got)
			break;
		err = write_at(c->out, c->buf, got, c->out_off);
		c->off += got;
		c->out_off += got;
	}
	struct mp_file_header h;
	size_t got = 0;
	if (!err)
		err = read_at(c->in, &h, sizeof(h), 0, &got);
	if (!err && got < sizeof(h))
		err = -EIO;
	if (!err)
		err = write_at(c->out, &h, sizeof(h), 0);
	if (!err && rename(c->tmp, c->path) != 0)
		err = -errno;
	if (err) {
		mp_compact_abort(c);
		return err;
	}
	*raw = c->off + c->put_bytes;
	*stored = c->out_off;
	close(c->out);
	c->out = -1; /* (renamed: nothing to unlink) */
	mp_compact_abort(c);
	return 0;
}
