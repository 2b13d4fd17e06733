/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.c - the one clock reclaimd uses (CLOCK_MONOTONIC, microseconds), and a whole write. */
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "reclaimd/common.h"

usec_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (usec_t)ts.tv_sec * USEC_PER_SEC + (usec_t)ts.tv_nsec / 1000;
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
