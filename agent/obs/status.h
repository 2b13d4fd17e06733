/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * status.h - the status socket of the agent (agent/obs/status.c): the io.reclaimd varlink
 * interface (Status, Cgroups, Explain, Reload) served on status.socket from the main loop.
 * It only observes: Status, Cgroups and Explain read the controllers' reports and the loop's own
 * groups of struct cgroup_node; Reload runs the same reload as SIGHUP (loop_reload()).
 */
#ifndef RECLAIMD_OBS_STATUS_H
#define RECLAIMD_OBS_STATUS_H

#include <jansson.h>

#include "reclaimd/policy.h"

struct daemon;

/* The varlink IDL of io.reclaimd (GetInterfaceDescription). */
extern const char status_interface_idl[];

/* Starts the server on d->config->status.socket (nothing when it is null) and logs the outcome:
 * a socket that cannot be made is logged as an error and the agent runs without it. Returns 0
 * or -errno. */
int status_server_start(struct daemon *d);
/* After a reload: the new read group (the socket's path changes only at restart). */
void status_server_reload(struct daemon *d);
/* Disconnects every client and removes the socket file. */
void status_server_stop(struct daemon *d);

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
