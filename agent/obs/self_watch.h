/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * self_watch.h - watches reclaimd's own memcg for being held at its memory.high
 * (self_memcg.h): reads its memory.events, memory.current and memory.high once per tick, logs
 * once when an episode begins (WARNING, MESSAGE_ID ...a17: current, memory.high, the cgroups
 * the agent knows) and once when it ends (NOTICE), and reports the figures for status and
 * metrics. It only observes: no decision of the agent changes while it is throttled.
 *
 * Its memcg is the one /proc/self/cgroup names ("0::<path>"), below the cgroup-v2 mount
 * libcgroup finds (cgroup_root_find()), whatever --cgroup-root says: the agent may manage a
 * subtree while it runs elsewhere. In a private cgroup namespace (the DaemonSet's container)
 * the path is "/", the container's own cgroup. Where the memcg has no memory.high (the root
 * cgroup, or a tree without the memory controller) nothing is watched, said once at INFO.
 */
#ifndef RECLAIMD_OBS_SELF_WATCH_H
#define RECLAIMD_OBS_SELF_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct self_watch_report {
	bool watched;                   /* the agent's memcg was found and read */
	const char *path;               /* its path from /proc/self/cgroup; valid while the watch is */
	uint64_t current_bytes;         /* memory.current at the last read */
	uint64_t high_bytes;            /* memory.high at the last read; UINT64_MAX: "max" */
	uint64_t high_events;           /* memory.events "high" rises seen since start */
	bool throttled;                 /* in an episode now (self_memcg.h) */
	uint64_t episodes;              /* episodes since start */
};

struct self_watch;

/* proc_root: where /proc is (the agent's own, <proc_root>/self/cgroup). Finds and opens the
 * memcg; never fails for want of one (then nothing is watched). Returns 0 or -ENOMEM. */
int self_watch_new(const char *proc_root, struct self_watch **ret);
/* One read at now_us (µs, monotonic); known_cgroups and managed_cgroups go into the episode's
 * line. A read that fails with ENOENT/ENODEV (the memcg is gone) ends the watch with one line;
 * others are skipped, rate-limited. */
void self_watch_tick(struct self_watch *sw, uint64_t now_us, size_t known_cgroups,
		     size_t managed_cgroups);
void self_watch_report(const struct self_watch *sw, struct self_watch_report *ret);
void self_watch_free(struct self_watch *sw);

#endif
