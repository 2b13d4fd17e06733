/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zram_ctl.h - the zram writeback controller: idle writeback rounds for the zram devices of the
 * "swap" section, on a thread of its own (design: the top of zram_ctl.c).
 */
#ifndef RECLAIMD_ZRAM_CTL_H
#define RECLAIMD_ZRAM_CTL_H

#include "ctl/ctl.h"
#include "ctl/record_first.h"

struct zram_report {
	bool running;               /* a round is writing back now */
	uint64_t written_bytes;     /* written back since start */
	uint64_t day_written_bytes; /* in the current 24 h budget window */
	/* Writeback chunks not started because their state-file record (writeback_limit or
	 * writeback_limit_enable) could not be saved (record_first.h): count since start, the
	 * last -errno, whether the last round's record failed. Tried again at the next tick. */
	struct held_back held_back;
};

struct zram_ctl;

/* c is the configuration in force (replaced by zram_ctl_reload()). Returns 0 or -errno. */
int zram_ctl_new(const struct ctl_env *env, const struct config *c, struct zram_ctl **ret);
/* Cancels a running round between chunks (waits for at most one 1 MiB chunk), joins, frees. */
void zram_ctl_free(struct zram_ctl *z);
/* Starts a writeback round on a configured zram past zram_writeback_at_pct (one at a time). */
void zram_ctl_tick(struct zram_ctl *z, const struct tick_ctx *ctx);
void zram_ctl_reload(struct zram_ctl *z, const struct config *c);
void zram_ctl_report(const struct zram_ctl *z, struct zram_report *ret);

#endif
