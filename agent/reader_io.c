/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reader_io.c - reading a whole virtual file (procfs, sysfs, cgroupfs, debugfs) into a caller's
 * buffer. Everything reclaimd reads from the kernel goes through pread_whole().
 */
#include <errno.h>
#include <fcntl.h>

#include "reclaimd/reader.h"

/*
 * Reads from offset 0 until EOF. One pread usually does it, but a seq_file that shows one record
 * per line (/proc/vmstat, /proc/swaps) hands out at most one page per read (fs/seq_file.c,
 * seq_read_iter), so the loop continues at the offset reached; single-record files (meminfo,
 * memory.stat, pressure) answer the follow-up read with 0 without regenerating anything.
 */
int pread_whole(int fd, char *buf, size_t size, size_t *ret_len)
{
	size_t n = 0;

	if (size < 2)
		return -EINVAL;

	for (;;) {
		ssize_t k = pread(fd, buf + n, size - 1 - n, (off_t)n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			break;
		n += (size_t)k;
		if (n == size - 1)
			return -EFBIG;
	}
	buf[n] = '\0';
	*ret_len = n;
	return 0;
}

int read_at(int dirfd, const char *name, char *buf, size_t size, size_t *ret_len)
{
	_cleanup_(closep) int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -errno;
	return pread_whole(fd, buf, size, ret_len);
}

int pread_single(int fd, char *buf, size_t size, size_t *ret_len)
{
	ssize_t k;

	if (size < 2)
		return -EINVAL;
	do
		k = pread(fd, buf, size - 1, 0);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return -errno;
	if ((size_t)k == size - 1)
		return -EFBIG;
	buf[k] = '\0';
	*ret_len = (size_t)k;
	return 0;
}

int read_single_at(int dirfd, const char *name, char *buf, size_t size, size_t *ret_len)
{
	_cleanup_(closep) int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -errno;
	return pread_single(fd, buf, size, ret_len);
}
