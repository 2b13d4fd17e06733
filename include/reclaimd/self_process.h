/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * self_process.h - the agent's own process accounting, as the Prometheus client libraries export
 * it (process_cpu_seconds_total, process_start_time_seconds, process_resident_memory_bytes,
 * process_virtual_memory_bytes, process_open_fds, process_max_fds), read by the metrics
 * collector (agent/obs/metrics_collect.c) once per tick.
 *
 * Sources: proc(5) /proc/<pid>/stat (fs/proc/array.c do_task_stat()), /proc/stat btime
 * (fs/proc/stat.c), /proc/<pid>/fd, getrlimit(RLIMIT_NOFILE).
 */
#ifndef RECLAIMD_SELF_PROCESS_H
#define RECLAIMD_SELF_PROCESS_H

#include <stdint.h>

struct self_process {
	double cpu_seconds;         /* user + system CPU time since start, seconds */
	double start_time_seconds;  /* start, seconds since the epoch */
	uint64_t resident_bytes;    /* resident set, bytes */
	uint64_t virtual_bytes;     /* virtual memory, bytes */
	uint64_t open_fds;          /* open descriptors (0 when /proc/self/fd cannot be read) */
	uint64_t max_fds;           /* the soft RLIMIT_NOFILE; UINT64_MAX when unlimited */
};

/* Reads the calling process's accounting under proc_root ("/proc"). <proc_root>/stat's btime
 * is read once, by the first call that succeeds in reading it, and kept for later calls with the
 * same proc_root (a call with another proc_root reads its own each time); main thread only.
 * Returns 0; -errno of /proc/self/stat or /proc/stat (unreadable), -EBADMSG (malformed),
 * -ENOMEM. *ret is written only on success. */
int self_process_read(const char *proc_root, struct self_process *ret);

#endif
