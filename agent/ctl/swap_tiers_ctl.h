/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * swap_tiers_ctl.h - the swap tiers controller: the "swap" section's devices activated at their
 * priority, re-prioritised only when that cannot lose data (empty, or "when-fits" and
 * MemAvailable > 1.5x its used size), otherwise reported (plan: swap.h); devices added or removed
 * reported every tick; and the swap-out budget of the slowest configured tier turned into this
 * tick's swappiness cap (zswap_swapout_swappiness_cap(), zswap.h).
 */
#ifndef RECLAIMD_SWAP_TIERS_CTL_H
#define RECLAIMD_SWAP_TIERS_CTL_H

#include "ctl/ctl.h"
#include "ctl/record_first.h"

struct swap_tiers_report {
	size_t n_devices;   /* active swap devices at the last tick */
	int swapout_cap;    /* the last tick's cap: SWAPPINESS_UNSET or 0..200 */
	const char *kubepods_path; /* what made this a kubelet node at the last tick: a kubepods
				    * cgroup, or KUBELET_STATE_DIR (swap_kubelet_evidence()); NULL
				    * on other hosts; valid until the next tick */
	unsigned held;      /* configured devices the last arrangement left off (kubelet node) */
	/* Re-prioritisations (swapoff, swapon at the new priority) not made because the state
	 * file could not record the device's priority first (record_first.h): count since start,
	 * the last -errno, whether the last record tried failed. Tried again at the next tick. */
	struct held_back held_back;
};

struct swap_tiers_ctl;

/* The kubelet's state directory (its --root-dir default), kept across reboots: on a node where
 * a kubelet is set up it exists before the kubelet creates the kubepods cgroup at boot. */
#define KUBELET_STATE_DIR "/var/lib/kubelet"

/* What says a kubelet runs on this host, for the swap section's hold: `kubepods_path` (the
 * kubepods cgroup, tick_ctx.kubepods_path) when not NULL; else `state_dir` when it exists
 * (stat(2); KUBELET_STATE_DIR in the agent), so a swapon at boot before the kubelet starts does
 * not make its failSwapOn refuse to start; else NULL. */
const char *swap_kubelet_evidence(const char *kubepods_path, const char *state_dir);

/* The devices of c are arranged at the first tick (not in a dry run), when discovery has said
 * whether a kubelet runs here (swap_kubelet_evidence(): then devices that are off stay off
 * unless swap.allow_on_kubelet_node). Returns 0 or -ENOMEM; a device that cannot be arranged is
 * logged, not an error. */
int swap_tiers_ctl_new(const struct ctl_env *env, const struct config *c,
		       struct swap_tiers_ctl **ret);
/* Frees; swap devices are left as they are (swapoff at exit could not be undone safely). */
void swap_tiers_ctl_free(struct swap_tiers_ctl *st);
/* Reports device changes; returns this tick's swappiness cap (SWAPPINESS_UNSET: none). */
int swap_tiers_ctl_tick(struct swap_tiers_ctl *st, const struct tick_ctx *ctx);
/* Arranges the devices of the new configuration. */
void swap_tiers_ctl_reload(struct swap_tiers_ctl *st, const struct config *c);
void swap_tiers_ctl_report(const struct swap_tiers_ctl *st, struct swap_tiers_report *ret);

#endif
