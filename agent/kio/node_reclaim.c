/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * node_reclaim.c - a nodeN/reclaim write as a worker pool's job (node_reclaim.h): made here,
 * run by a worker of the pool the dispatcher chose, its result read back on the main thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reclaimd/config.h"
#include "reclaimd/node_reclaim.h"

/* A signal that is not a cancel (none is expected) may interrupt the write; retry that often. */
#define MAX_FOREIGN_EINTR 3

int node_reclaim_job_new(const char *sys_root, unsigned node, uint64_t bytes,
			 struct reclaim_job **ret)
{
	struct reclaim_job *job;
	char *path;
	int n;

	if (node >= RECLAIMD_MAX_NODES || bytes == 0)
		return -EINVAL;
	n = asprintf(&path, "%s/devices/system/node/node%u/reclaim", sys_root, node);
	if (n < 0)
		return -ENOMEM;
	if (n >= PATH_MAX) {
		free(path);
		return -ENAMETOOLONG;
	}
	job = calloc(1, sizeof(*job));
	if (!job) {
		free(path);
		return -ENOMEM;
	}
	job->cgroup_dirfd = -1;
	job->swappiness = SWAPPINESS_UNSET;
	job->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	job->request_bytes = bytes;
	job->chunk_bytes = bytes;
	job->reclaim_node = (int)node;
	job->node_reclaim_path = path;
	atomic_init(&job->cancel, false);
	*ret = job;
	return 0;
}

void node_reclaim_run(struct reclaim_job *job)
{
	char req[32];
	unsigned foreign_eintr = 0;
	int fd = -1, len, r = 0;

	job->started_us = now_us();
	len = snprintf(req, sizeof(req), "%" PRIu64, job->request_bytes);
	/* The pool's rate limit; may wait, and says false when cancelled meanwhile. */
	if (atomic_load(&job->cancel) || (job->throttle && !job->throttle(job, job->request_bytes))) {
		job->outcome = JOB_CANCELLED;
		goto out;
	}
	fd = open(job->node_reclaim_path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		r = -errno;
	while (fd >= 0) {
		r = write(fd, req, (size_t)len) < 0 ? -errno : 0;
		if (r != -EINTR || atomic_load(&job->cancel) || ++foreign_eintr > MAX_FOREIGN_EINTR)
			break;
	}
	job->error = r;
	job->outcome = node_reclaim_outcome(r, atomic_load(&job->cancel));
	if (r == 0) {
		job->written_bytes = job->request_bytes;
		job->chunks = 1;
	}
out:
	if (fd >= 0)
		close(fd);
	job->finished_us = now_us();
}
