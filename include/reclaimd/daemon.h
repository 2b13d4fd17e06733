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
	/* Tests only: the configuration file is read whoever can change it, and the cgroup root
	 * may be any directory (a fixture tree), not only a cgroup2 mount. */
	bool allow_unsafe_paths;
	/* A directory on a read-only mount counts as unwritable (trust.h): containers. */
	bool trust_read_only_mounts;
};

/* config_load_file()'s flags for these options. */
static inline unsigned daemon_config_flags(const struct daemon_options *o)
{
	return (o->allow_unsafe_paths ? CONFIG_LOAD_UNSAFE_PATH : 0) |
	       (o->trust_read_only_mounts ? CONFIG_LOAD_TRUST_RO_MOUNTS : 0);
}

/* The exit status when <proc>/pressure/memory does not exist: the kernel has no PSI (booted
 * with psi=0, or built without CONFIG_PSI, or with CONFIG_PSI_DEFAULT_DISABLED and no psi=1;
 * kernel/sched/psi.c makes /proc/pressure only when PSI is on). Every decision is taken from
 * memory pressure, so the agent does not run blind; a restart cannot help either, and the unit
 * lists it in RestartPreventExitStatus=. */
#define DAEMON_EXIT_NO_PSI 3

/* The exit status when another process runs on the same state file (it holds "<state>.lock",
 * safe_lock()) or serves the status socket: the second instance stops before reading or
 * changing anything, naming the first's pid. */
#define DAEMON_EXIT_RUNNING 4

/* Runs until SIGTERM/SIGINT (or after one tick with `once`). Takes ownership of `config`.
 * Returns a process exit status: 0; 1 when the agent could not start; 2 when the cgroup root is
 * not a cgroup2 mount (without allow_unsafe_paths) or the configuration does not fit this host;
 * DAEMON_EXIT_NO_PSI; DAEMON_EXIT_RUNNING. */
int daemon_run(const struct daemon_options *o, struct config *config);

#endif
