/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * node_reclaim.c - one writer of nodeN/reclaim per node (node_reclaim.h): the write runs on a
 * thread of its own so the main loop never blocks on the kernel's reclaim.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "reclaimd/node_reclaim.h"

static void *writer(void *arg)
{
	struct node_reclaimer *nr = arg;
	char req[32];
	int fd, len, r = 0;

	len = snprintf(req, sizeof(req), "%" PRIu64, nr->bytes);
	fd = open(nr->path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		r = -errno;
	else {
		if (write(fd, req, (size_t)len) < 0)
			r = -errno;
		close(fd);
	}
	nr->error = r;
	atomic_store(&nr->done, true);
	return NULL;
}

int node_reclaim_start(struct node_reclaimer *nr, const char *sys_root, unsigned node,
		       uint64_t bytes)
{
	int r;

	if (nr->running)
		return -EALREADY;
	snprintf(nr->path, sizeof(nr->path), "%s/devices/system/node/node%u/reclaim", sys_root, node);
	nr->bytes = bytes;
	nr->error = 0;
	atomic_store(&nr->done, false);
	r = pthread_create(&nr->thread, NULL, writer, nr);
	if (r)
		return -r;
	nr->running = true;
	return 0;
}

bool node_reclaim_poll(struct node_reclaimer *nr, int *ret_error, uint64_t *ret_bytes)
{
	if (!nr->running || !atomic_load(&nr->done))
		return false;
	pthread_join(nr->thread, NULL);
	nr->running = false;
	*ret_error = nr->error;
	*ret_bytes = nr->bytes;
	return true;
}

void node_reclaim_wait(struct node_reclaimer *nr)
{
	if (!nr->running)
		return;
	pthread_join(nr->thread, NULL);
	nr->running = false;
}
