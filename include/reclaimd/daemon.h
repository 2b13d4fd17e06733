/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * daemon.h - the long-running agent: sd-event loop, ticks, PSI triggers, signals, sd_notify.
 */
#ifndef RECLAIMD_DAEMON_H
#define RECLAIMD_DAEMON_H

#include "reclaimd/config.h"

struct daemon_options {
	const char *config_path;  /* re-read on SIGHUP */
	bool dry_run;             /* decide and log, never write memory.reclaim */
	bool once;                /* one tick, wait for its jobs, exit */
	const char *cgroup_root;  /* overrides the config and libcgroup */
	const char *proc_root;    /* overrides the config */
	const char *sys_root;     /* overrides the config */
	unsigned workers;         /* reclaim worker threads; 0 = default */
};

/* Runs until SIGTERM/SIGINT (or after one tick with `once`). Takes ownership of `config`.
 * Returns a process exit status: 0, or 1 when the agent could not start. */
int daemon_run(const struct daemon_options *o, struct config *config);

#endif
