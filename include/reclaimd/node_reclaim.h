/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * node_reclaim.h - one writer of /sys/devices/system/node/nodeN/reclaim per node (6.17+:
 * Documentation/ABI/stable/sysfs-devices-node, mm/vmscan.c reclaim_store()), each write on a
 * thread of its own, since a write blocks until the kernel reclaimed the amount or gave up.
 *
 * The kernel takes "<bytes> [swappiness=N]" as memory.reclaim does and returns the full count,
 * -EAGAIN when it reclaimed less, -EBUSY when another writer is reclaiming on that node (one
 * per node: it holds the node's reclaim lock), -EINTR on a pending signal. Before a fix in 2026
 * reclaim_store() returned -EAGAIN for every error, so EAGAIN there may also mean busy.
 *
 * Threading: node_reclaim_start() and node_reclaim_poll() are called by one thread (the main
 * loop); the writer thread touches only its slot's result fields, published through `done`.
 */
#ifndef RECLAIMD_NODE_RECLAIM_H
#define RECLAIMD_NODE_RECLAIM_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct node_reclaimer {
	char path[256];          /* <sys_root>/devices/system/node/node<N>/reclaim */
	uint64_t bytes;          /* the write in flight */
	pthread_t thread;
	bool running;            /* a thread was started and not joined yet */
	atomic_bool done;        /* set by the thread when its write returned */
	int error;               /* the write's result: 0 or -errno (valid once done) */
};

/* Starts writing `bytes` (decimal, no suffix) to node `node`'s reclaim file on a new thread.
 * Returns 0, -EALREADY when this slot's previous write has not returned yet (one writer per
 * node), or -errno from pthread_create. */
int node_reclaim_start(struct node_reclaimer *nr, const char *sys_root, unsigned node,
		       uint64_t bytes);
/* When the write started last returned: joins its thread, sets *ret_error (0 or -errno) and
 * *ret_bytes (what was asked) and returns true; false while it runs or when none was started. */
bool node_reclaim_poll(struct node_reclaimer *nr, int *ret_error, uint64_t *ret_bytes);
/* Waits for a running write (at exit). */
void node_reclaim_wait(struct node_reclaimer *nr);

/* An error of a nodeN/reclaim write that will not go away by retrying: the file cannot be
 * opened for writing here (-EROFS: a container's read-only /sys; -EACCES, -EPERM; -ENOENT: the
 * node or the file is gone). EBUSY/EAGAIN and reclaim failures are not refusals. */
static inline bool node_reclaim_refused(int err)
{
	return err == -EROFS || err == -EACCES || err == -EPERM || err == -ENOENT;
}

#endif
