/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ctl.h - what every loop controller (agent/ctl/) is given by the loop (agent/loop/).
 *
 * A controller owns its state behind an opaque handle whose struct lives in its own .c file. The
 * loop drives it through the same small interface:
 *   xxx_new(env, ..., &ret)   0 or -errno; a missing optional kernel file is not an error
 *   xxx_free(h)               restores what it changed (and drops its state-file records),
 *                             releases everything; accepts NULL
 *   xxx_tick(h, ctx)          once per tick, on the tick's read-only context below
 *   xxx_reload(h, config)     the new configuration, after it was validated as a whole
 *   xxx_report(h, &ret)       a plain struct for sd_notify, the logs, the status socket
 *                             (obs/status.c) and the metrics (obs/metrics_collect.c)
 * Controllers never read or write another controller's fields: what one needs from another
 * comes through a return value or a callback the loop wires. In struct cgroup_node each writes
 * only its own group (cgroup.h).
 */
#ifndef RECLAIMD_CTL_H
#define RECLAIMD_CTL_H

#include <systemd/sd-event.h>

#include "reclaimd/cgroup.h"
#include "reclaimd/config.h"
#include "reclaimd/snapshot.h"
#include "reclaimd/state_file.h"
#include "reclaimd/topology.h"

/* Same condition logged again for the same cgroup at most this often. */
#define LOG_REPEAT_US (60 * USEC_PER_SEC)
/* Accuracy asked of sd-event for periodic timers. */
#define TICK_ACCURACY_US (10 * USEC_PER_MSEC)

/* What a controller is created with; all pointers outlive the controller. */
struct ctl_env {
	sd_event *event;
	const char *proc_root, *sys_root;  /* as in use (command line over config) */
	bool dry_run;                      /* decide and log, never write */
	/* The state file's ledger (state_file.h), or NULL (dry run, "state_file": null): a
	 * controller that changes a value outside the cgroups it manages records it here, under
	 * its own section, before writing, and drops it once the value is put back; at start it
	 * takes its section's records a crashed run left and decides them (state_merge.h). */
	struct state_ledger *state;
};

/* One tick, read-only for controllers: this tick's snapshot, the node each sample belongs to,
 * and the configuration. Valid until the next tick or a reload (the loop then empties it). */
struct feature_table;

struct tick_ctx {
	const struct snapshot *snap;
	struct cgroup_node *const *cgroups; /* snap->cgroups[i] is cgroups[i]'s sample */
	const struct config *config;
	unsigned tick;                      /* tick number, from 1 */
	/* A kubepods cgroup's path relative to the root (discovery: cgroup_set.kubepods), or NULL:
	 * a kubelet runs on this host when set. */
	const char *kubepods_path;
	/* The kernel features probed at start or the last reload (features.h): what is known to be
	 * absent is not tried. */
	const struct feature_table *features;
};

#endif
