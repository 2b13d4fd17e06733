/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tick_report.c - the one place the loop asks every controller for its report and hands the
 * observers what they show (tick_report.h). A new controller's numbers reach the status socket,
 * the metrics, sd_notify and the stop summary through a field of struct tick_report filled here.
 */
#include <string.h>

#include "loop/loop.h"

void tick_report_fill(struct daemon *d)
{
	struct tick_report *r = &d->report;
	const struct config *c = d->config;

	r->ctx = loop_tick_ctx(d);
	r->cgroups = &d->cgroups;
	r->opts = d->opts;
	r->n_managed = d->snap.n_managed;
	r->complete = d->dispatcher && d->headroom && d->aging && d->zswap && d->swap_tiers &&
		      d->zram && d->tiers;
	memset(&r->dispatcher, 0, sizeof(r->dispatcher));
	memset(&r->headroom, 0, sizeof(r->headroom));
	memset(&r->aging, 0, sizeof(r->aging));
	memset(&r->zswap, 0, sizeof(r->zswap));
	memset(&r->swap_tiers, 0, sizeof(r->swap_tiers));
	memset(&r->zram, 0, sizeof(r->zram));
	memset(&r->tiers, 0, sizeof(r->tiers));
	if (d->dispatcher)
		dispatcher_report(d->dispatcher, &r->dispatcher);
	if (d->headroom)
		headroom_ctl_report(d->headroom, &r->headroom);
	if (d->aging)
		aging_ctl_report(d->aging, &r->aging);
	if (d->zswap)
		zswap_ctl_report(d->zswap, &r->zswap);
	if (d->swap_tiers)
		swap_tiers_ctl_report(d->swap_tiers, &r->swap_tiers);
	if (d->zram)
		zram_ctl_report(d->zram, &r->zram);
	if (d->tiers)
		tiers_ctl_report(d->tiers, &r->tiers);
	self_watch_report(d->self_watch, &r->self);
	/* The metrics read the totals of every rule: sized now for the configuration in use. */
	if (c && c->n_rules)
		(void)report_rule_totals(&d->totals, c, &c->rules[0]);
	r->totals = &d->totals;
	r->timing = d->timing;
}
