/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * status.h - the status socket of the agent (agent/obs/status.c): the io.reclaimd varlink
 * interface (Status, Cgroups, Explain, Reload) served on status.socket from the main loop.
 * It only observes: Status, Cgroups and Explain read the loop's tick report (loop/tick_report.h)
 * and the loop's own groups of struct cgroup_node; Reload calls the reload hook the loop
 * registered (the same reload as SIGHUP). Nothing here calls the loop.
 */
#ifndef RECLAIMD_OBS_STATUS_H
#define RECLAIMD_OBS_STATUS_H

#include <jansson.h>

#include <systemd/sd-event.h>

#include "reclaimd/config.h"
#include "reclaimd/policy.h"

struct status_server;
struct tick_report;

/* The varlink IDL of io.reclaimd (GetInterfaceDescription). */
extern const char status_interface_idl[];

/* How the Reload method reaches the loop. reload() re-reads the configuration file and returns
 * a mask of LOOP_RELOAD_* bits (loop/tick_report.h, >= 0), or -errno with `err` saying why; by
 * its return the loop has filled the report again. */
struct status_hooks {
	int (*reload)(void *userdata, struct config_error *err);
	void *userdata;
};

/* Starts the server on c->status.socket, on `event`, and logs the outcome; *ret is NULL when
 * c->status.socket is null or the socket cannot be made (logged as an error: the agent runs
 * without it). The methods read `rep` (the loop's, which outlives the server) and call `hooks`
 * (copied). dry_run only words the log line of a socket another process serves. Returns 0 or
 * -errno: -EADDRINUSE when another process answers on the socket (another reclaimd: the caller
 * stops unless it is a dry run), -EPERM when its directory is refused (safe_dir_open()). */
int status_server_start(sd_event *event, const struct config *c, const struct tick_report *rep,
			const struct status_hooks *hooks, bool dry_run, struct status_server **ret);
/* After a reload: c's read group (the socket's path changes only at restart). NULL: nothing. */
void status_server_reload(struct status_server *st, const struct config *c);
/* Disconnects every client, removes the socket file and frees st; accepts NULL. */
void status_server_stop(struct status_server *st);

/*
 * The terms of a floor (policy.h cgroup_floor_bytes(), from the sample's current, min, low,
 * children_protected, anon, file and swap room): which of min_bytes, memory.min, memory.low and
 * the memory the agent may not take (unreclaimable: memory.current - (file + min(anon, swap
 * room) - children_protected)) is the largest. Bytes. Pure.
 */
struct floor_terms {
	uint64_t min_bytes, memory_min_bytes, memory_low_bytes, children_protected_bytes;
	uint64_t unreclaimable_bytes, floor_bytes;
	const char *applied;  /* "min_bytes", "memory.min", "memory.low" or "unreclaimable" (the
			       * first largest) */
};
void floor_terms_compute(uint64_t min_bytes, const struct cgroup_sample *s, struct floor_terms *ret);

#endif
