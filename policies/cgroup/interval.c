/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * interval.c - carries the deltas of ticks on which a cgroup's policy did not decide into the
 * next one (interval.h). Pure: no I/O, no clocks, no logging.
 */
#include "reclaimd/interval.h"

static void deltas_add(struct pages_back_deltas *to, const struct pages_back_deltas *d)
{
	to->refault_anon = add_sat(to->refault_anon, d->refault_anon);
	to->refault_file = add_sat(to->refault_file, d->refault_file);
	to->pgmajfault = add_sat(to->pgmajfault, d->pgmajfault);
	to->zswpin = add_sat(to->zswpin, d->zswpin);
	to->io_read_bytes = add_sat(to->io_read_bytes, d->io_read_bytes);
	to->host_pswpin = add_sat(to->host_pswpin, d->host_pswpin);
}

static void back_add(struct pages_back *to, const struct pages_back *b)
{
	to->pages = add_sat(to->pages, b->pages);
	to->io_pages = add_sat(to->io_pages, b->io_pages);
	to->refaults = add_sat(to->refaults, b->refaults);
	to->from_io = to->from_io && b->from_io;
}

static void results_add(struct interval_carry *c, const struct cgroup_sample *s)
{
	c->reclaimed_bytes = add_sat(c->reclaimed_bytes, s->reclaimed_bytes);
	c->reclaim_requested_bytes = add_sat(c->reclaim_requested_bytes, s->reclaim_requested_bytes);
	c->reclaim_partial |= s->reclaim_partial;
	c->reclaim_short |= s->reclaim_short;
}

void interval_carry_add(struct interval_carry *c, const struct cgroup_sample *s)
{
	if (!s->has_prev) {
		/* The deltas restart; what a job did is still the policy's feedback. */
		struct interval_carry r = {
			.reclaimed_bytes = c->reclaimed_bytes,
			.reclaim_requested_bytes = c->reclaim_requested_bytes,
			.reclaim_partial = c->reclaim_partial,
			.reclaim_short = c->reclaim_short,
		};

		results_add(&r, s);
		*c = r;
		return;
	}
	if (!c->valid) {
		*c = (struct interval_carry){ .valid = true, .back = { .from_io = true },
					      .back_features = s->back_features };
	}
	c->elapsed_us = add_sat(c->elapsed_us, s->elapsed_us);
	c->mem_some_delta_us = add_sat(c->mem_some_delta_us, s->mem_some_delta_us);
	c->io_some_delta_us = add_sat(c->io_some_delta_us, s->io_some_delta_us);
	c->refault_delta_pages = add_sat(c->refault_delta_pages, s->refault_delta_pages);
	back_add(&c->back, &s->back);
	deltas_add(&c->back_deltas, &s->back_deltas);
	c->back_features &= s->back_features;
	results_add(c, s);
}

void interval_carry_apply(struct interval_carry *c, struct cgroup_sample *s)
{
	s->reclaimed_bytes = add_sat(s->reclaimed_bytes, c->reclaimed_bytes);
	s->reclaim_requested_bytes = add_sat(s->reclaim_requested_bytes, c->reclaim_requested_bytes);
	s->reclaim_partial |= c->reclaim_partial;
	s->reclaim_short |= c->reclaim_short;
	if (c->valid && s->has_prev) {
		s->elapsed_us = add_sat(s->elapsed_us, c->elapsed_us);
		s->mem_some_delta_us = add_sat(s->mem_some_delta_us, c->mem_some_delta_us);
		s->io_some_delta_us = add_sat(s->io_some_delta_us, c->io_some_delta_us);
		s->refault_delta_pages = add_sat(s->refault_delta_pages, c->refault_delta_pages);
		back_add(&s->back, &c->back);
		deltas_add(&s->back_deltas, &c->back_deltas);
		s->back_features &= c->back_features;
		s->back_pages_per_s = pages_back_rate(s->back.pages, s->elapsed_us);
	}
	*c = (struct interval_carry){ 0 };
}
