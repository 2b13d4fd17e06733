/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * node_reclaim.h - a write to /sys/devices/system/node/nodeN/reclaim (6.17+:
 * Documentation/ABI/stable/sysfs-devices-node, mm/vmscan.c reclaim_store()) as a job of the
 * worker pools (actuator.h): the dispatcher runs it on the pinned pool of that node, or, for a
 * node without CPUs, of the nearest node with CPUs (topology_cpu_node()), as it does for a
 * cgroup's memory on that node, and keeps one in flight per node (dispatcher.h). A write blocks
 * until the kernel reclaimed the amount or gave up, so it never runs on the main loop; as a
 * pool's job it is interrupted by the pool's cancel signal (EINTR) on stop or hotplug, and takes
 * its bytes from the pool's rate limit.
 *
 * The kernel takes "<bytes> [swappiness=N]" as memory.reclaim does and returns the full count,
 * -EAGAIN when it reclaimed less, -EBUSY when another writer is reclaiming on that node (one
 * per node: it holds the node's reclaim lock), -EINTR on a pending signal. Before a fix in 2026
 * reclaim_store() returned -EAGAIN for every error, so EAGAIN there may also mean busy.
 */
#ifndef RECLAIMD_NODE_RECLAIM_H
#define RECLAIMD_NODE_RECLAIM_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "reclaimd/actuator.h"

/* A job that writes `bytes` (decimal, no suffix) to sys_root/devices/system/node/node<node>/
 * reclaim in one write (reclaim_node = node). Returns 0, -EINVAL for a node id at or above
 * RECLAIMD_MAX_NODES or 0 bytes, -ENAMETOOLONG, or -ENOMEM. */
int node_reclaim_job_new(const char *sys_root, unsigned node, uint64_t bytes,
			 struct reclaim_job **ret);

/* What a worker does with a node's job (reclaim_job_run() calls it): takes the bytes from the
 * pool's rate limit, opens and writes the file, retries a write interrupted by a signal that is
 * not a cancel (at most 3 times), and sets outcome (node_reclaim_outcome()), error and, when the
 * kernel took it all, written_bytes and chunks = 1. */
void node_reclaim_run(struct reclaim_job *job);

/* How a node's job ends after its open or write returned err (0 or -errno), `cancelled` when
 * the job's cancel flag was set: 0 JOB_DONE; -EAGAIN JOB_PARTIAL (the kernel reclaimed less);
 * -EBUSY JOB_BUSY (another writer on the node); -EINTR after a cancel JOB_CANCELLED; anything
 * else JOB_FAILED (including -ENOENT: the node is not a cgroup that can be "gone"; whether
 * retrying can help is node_reclaim_refused()'s to say). */
static inline enum job_outcome node_reclaim_outcome(int err, bool cancelled)
{
	if (err == 0)
		return JOB_DONE;
	if (err == -EINTR && cancelled)
		return JOB_CANCELLED;
	return err == -EAGAIN ? JOB_PARTIAL : err == -EBUSY ? JOB_BUSY : JOB_FAILED;
}

/* An error of a nodeN/reclaim write that will not go away by retrying: the file cannot be
 * opened for writing here (-EROFS: a container's read-only /sys; -EACCES, -EPERM; -ENOENT: the
 * node or the file is gone). EBUSY/EAGAIN and reclaim failures are not refusals. */
static inline bool node_reclaim_refused(int err)
{
	return err == -EROFS || err == -EACCES || err == -EPERM || err == -ENOENT;
}

#endif
