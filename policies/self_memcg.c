/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * self_memcg.c - is reclaimd's own memcg held at its memory.high (self_memcg.h). Pure.
 */
#include "reclaimd/self_memcg.h"

enum self_memcg_change self_memcg_observe(struct self_memcg_state *st,
					  const struct self_memcg_sample *s, uint64_t now_us)
{
	uint64_t rose;

	if (!st->have_prev || s->high_events < st->prev_high_events) {
		st->have_prev = true;
		st->prev_high_events = s->high_events;
		return SELF_MEMCG_SAME;
	}
	rose = s->high_events - st->prev_high_events;
	st->prev_high_events = s->high_events;
	st->events_total += rose;
	if (rose > 0) {
		st->last_event_us = now_us;
		if (!st->throttled) {
			st->throttled = true;
			st->episodes++;
			st->episode_events = rose;
			st->episode_peak_bytes = s->current_bytes;
			return SELF_MEMCG_THROTTLED;
		}
		st->episode_events += rose;
	}
	if (!st->throttled)
		return SELF_MEMCG_SAME;
	if (s->current_bytes > st->episode_peak_bytes)
		st->episode_peak_bytes = s->current_bytes;
	if (rose == 0 && now_us - st->last_event_us >= SELF_MEMCG_QUIET_US) {
		st->throttled = false;
		return SELF_MEMCG_RECOVERED;
	}
	return SELF_MEMCG_SAME;
}
