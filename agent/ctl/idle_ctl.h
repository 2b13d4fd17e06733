/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * idle_ctl.h - the idle-core sampler: per-CPU idle time from /proc/stat once a second into the
 * idle-core average per node (topology.h idle_tracker, the last IDLE_SAMPLES samples), handed to
 * the `idle` hook after every sample; and every 10 samples the NUMA topology re-read from sysfs
 * (libnuma caches what it read at start), handed to the `topology` hook when CPU or memory
 * hotplug changed it. It runs on its own sd-event timer, not on the tick; what it measured is
 * reported by the dispatcher, which it feeds (dispatcher_report()).
 */
#ifndef RECLAIMD_IDLE_CTL_H
#define RECLAIMD_IDLE_CTL_H

#include "ctl/ctl.h"

struct idle_hooks {
	void (*idle)(void *userdata, const struct idle_tracker *idle);
	/* The topology changed: the loop adopts t (valid during the call only). */
	void (*topology)(void *userdata, const struct numa_topology *t);
	void *userdata;
};

struct idle_ctl;

/* topo is the loop's and outlives the sampler. An unreadable /proc/stat is not fatal (logged;
 * every node keeps one worker). Returns 0 or -errno (-ENOMEM, sd-event errors). */
int idle_ctl_new(const struct ctl_env *env, const struct numa_topology *topo,
		 const struct idle_hooks *hooks, struct idle_ctl **ret);
void idle_ctl_free(struct idle_ctl *ic);

#endif
