/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reader_io.c - reading a whole virtual file (procfs, sysfs, cgroupfs, debugfs) into a caller's
 * buffer. Everything reclaimd reads from the kernel goes through pread_file().
 */
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>

#include "reclaimd/parse.h"
#include "reclaimd/reader.h"
#include "reclaimd/zoneinfo.h"

/*
 * Reads from offset 0 until EOF, or once when `single`. One pread usually does it, but a seq_file
 * that shows one record per line (/proc/vmstat, /proc/swaps) hands out at most one page per read
 * (fs/seq_file.c, seq_read_iter), so the loop continues at the offset reached; single-record
 * files (every cgroup file, see pread_single() in reader.h) are whole after one read, and the
 * read that would only confirm EOF is skipped.
 */
static int pread_file(int fd, char *buf, size_t size, size_t *ret_len, bool single, bool sequential)
{
	size_t n = 0;

	if (size < 2)
		return -EINVAL;

	for (;;) {
		ssize_t k = pread(fd, buf + n, size - 1 - n, (off_t)n);

		/* Non-seekable files (debugfs attributes: simple_attr_open() uses
		 * nonseekable_open(), fs/libfs.c) refuse pread with ESPIPE; read() works, and a
		 * file opened for this read is at offset 0. Only read_file_at() asks for that. */
		if (k < 0 && errno == ESPIPE && sequential)
			k = read(fd, buf + n, size - 1 - n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		n += (size_t)k;
		if (n == size - 1)
			return -EFBIG;
		if (k == 0 || single)
			break;
	}
	buf[n] = '\0';
	*ret_len = n;
	return 0;
}

static int read_file_at(int dirfd, const char *name, char *buf, size_t size, size_t *ret_len,
			bool single)
{
	/* O_NONBLOCK: a FIFO planted under a --proc-root/--sys-root must not hang the agent
	 * (kernel files ignore the flag). */
	_cleanup_(closep) int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	return pread_file(fd, buf, size, ret_len, single, true);
}

int pread_whole(int fd, char *buf, size_t size, size_t *ret_len)
{
	return pread_file(fd, buf, size, ret_len, false, false);
}

int pread_single(int fd, char *buf, size_t size, size_t *ret_len)
{
	return pread_file(fd, buf, size, ret_len, true, false);
}

int read_at(int dirfd, const char *name, char *buf, size_t size, size_t *ret_len)
{
	return read_file_at(dirfd, name, buf, size, ret_len, false);
}

int read_single_at(int dirfd, const char *name, char *buf, size_t size, size_t *ret_len)
{
	return read_file_at(dirfd, name, buf, size, ret_len, true);
}

int read_u64_or_max_at(int dirfd, const char *name, uint64_t *ret)
{
	char buf[64];
	size_t len;
	int r;

	r = read_single_at(dirfd, name, buf, sizeof(buf), &len);
	if (r < 0)
		return r;
	return u64_or_max_parse(buf, len, ret);
}

int zoneinfo_read(int fd, char **buf, size_t *buf_size, struct zoneinfo *ret)
{
	size_t len;
	int r;

	for (;;) {
		char *b;

		r = pread_whole(fd, *buf, *buf_size, &len);
		if (r != -EFBIG || *buf_size >= (64u << 20))
			break;
		b = realloc(*buf, *buf_size * 2);
		if (!b)
			return -ENOMEM;
		*buf = b;
		*buf_size *= 2;
	}
	return r == 0 ? zoneinfo_parse(*buf, len, ret) : r;
}
