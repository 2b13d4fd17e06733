/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zswap.c - the zswap controller's decisions (zswap.h): host counter deltas, LRU-inversion
 * events, the pool target, fair-share memory.zswap.max, pacing of the core policy and the
 * swap-out budget. Pure: no I/O, no clocks, no logging, no allocation. The agent feeds it two
 * consecutive host samples and the managed cgroups' rows, and writes the results through
 * zswap_ctl.h.
 */
#include <errno.h>
#include <math.h>

#include "reclaimd/zswap.h"

/* The kernel's vm.swappiness default, the base when no swappiness is configured. */
#define KERNEL_SWAPPINESS_DEFAULT 60

/* ---- deltas --------------------------------------------------------------------------------- */

void zswap_host_delta_compute(const struct host_sample *prev, const struct host_sample *cur,
			      usec_t elapsed_us, struct zswap_host_delta *ret)
{
	const struct zswap_stats *a = &prev->zswap, *b = &cur->zswap;
	const struct vmstat *va = &prev->vmstat, *vb = &cur->vmstat;
	struct zswap_host_delta d = { .elapsed_us = elapsed_us };
	unsigned pool_pct;

	if (a->available && b->available) {
		const uint64_t before[] = { a->pool_limit_hit, a->reject_reclaim_fail,
					    a->reject_alloc_fail, a->reject_kmemcache_fail,
					    a->reject_compress_fail, a->reject_compress_poor,
					    a->written_back_pages };
		const uint64_t after[] = { b->pool_limit_hit, b->reject_reclaim_fail,
					   b->reject_alloc_fail, b->reject_kmemcache_fail,
					   b->reject_compress_fail, b->reject_compress_poor,
					   b->written_back_pages };

		/* All counters are static variables of one module: one going backwards means all
		 * were reset together, and no delta of this tick means anything. */
		for (size_t i = 0; i < ARRAY_SIZE(before); i++)
			if (after[i] < before[i])
				d.zswap_reset = true;
		if (!d.zswap_reset) {
			d.zswap_valid = true;
			d.pool_limit_hit = after[0] - before[0];
			d.reject_reclaim_fail = after[1] - before[1];
			d.reject_alloc_fail = after[2] - before[2];
			d.reject_kmemcache_fail = after[3] - before[3];
			d.reject_compress_fail = after[4] - before[4];
			d.reject_compress_poor = after[5] - before[5];
			d.written_back_pages = after[6] - before[6];
			d.rejects = d.reject_reclaim_fail + d.reject_alloc_fail +
				    d.reject_kmemcache_fail + d.reject_compress_fail +
				    d.reject_compress_poor;
		}
	}

	/* vmstat counters never reset short of a reboot; sub_sat makes a backwards one "no delta". */
	d.pswpout = sub_sat(vb->pswpout, va->pswpout);
	d.pswpin = sub_sat(vb->pswpin, va->pswpin);
	d.zswpout = sub_sat(vb->zswpout, va->zswpout);
	d.direct_swapout_pages = sub_sat(d.pswpout, d.written_back_pages);

	d.pool_bytes = b->available ? b->pool_total_size_bytes : cur->meminfo.zswap;
	pool_pct = ZSWAP_MAX_POOL_PERCENT_DEFAULT;
	d.accept_threshold_percent = ZSWAP_ACCEPT_THRESHOLD_PERCENT_DEFAULT;
	if (cur->zswap_params.available) {
		d.zswap_enabled = cur->zswap_params.enabled;
		pool_pct = cur->zswap_params.max_pool_percent;
		if (cur->zswap_params.accept_threshold_percent > 0)
			d.accept_threshold_percent = MIN(cur->zswap_params.accept_threshold_percent, 100u);
	}
	d.pool_limit_bytes = cur->meminfo.mem_total / 100 * pool_pct +
			     cur->meminfo.mem_total % 100 * pool_pct / 100;
	d.pool_fill = d.pool_limit_bytes ? (double)d.pool_bytes / (double)d.pool_limit_bytes : 0.0;
	*ret = d;
}

/* ---- inversion ------------------------------------------------------------------------------ */

bool zswap_cgroup_at_limit(uint64_t zswap_current_bytes, uint64_t zswap_max_bytes)
{
	if (zswap_max_bytes == LIMIT_MAX || zswap_max_bytes == 0)
		return false;
	return zswap_current_bytes >= zswap_max_bytes - zswap_max_bytes / 64;
}

const char *zswap_inversion_reason_str(enum zswap_inversion_reason r)
{
	static const char *const names[_ZSWAP_INVERSION_MAX] = {
		[ZSWAP_INVERSION_NONE] = "none",
		[ZSWAP_INVERSION_POOL_LIMIT_HIT] = "pool-limit-hit",
		[ZSWAP_INVERSION_REJECTS_WITH_SWAPOUT] = "rejects-with-swapout",
		[ZSWAP_INVERSION_SILENT_REFUSAL] = "silent-refusal",
	};

	return (unsigned)r < _ZSWAP_INVERSION_MAX ? names[r] : "unknown";
}

int zswap_detect_inversion(const struct zswap_host_delta *d, struct zswap_inversion *ret)
{
	struct zswap_inversion e = {
		.reason = ZSWAP_INVERSION_NONE,
		.pool_limit_hit = d->pool_limit_hit,
		.rejects = d->rejects,
		.rejects_capacity = d->reject_reclaim_fail + d->reject_alloc_fail +
				    d->reject_kmemcache_fail,
		.rejects_compress = d->reject_compress_fail + d->reject_compress_poor,
		.pswpout = d->pswpout,
		.direct_swapout_pages = d->direct_swapout_pages,
		.pool_fill = d->pool_fill,
	};

	if (d->zswap_valid) {
		if (d->pool_limit_hit > 0)
			e.reason = ZSWAP_INVERSION_POOL_LIMIT_HIT;
		else if (d->rejects > 0 && d->direct_swapout_pages > 0)
			e.reason = ZSWAP_INVERSION_REJECTS_WITH_SWAPOUT;
		else if (d->rejects == 0 && d->direct_swapout_pages > 0 && d->zswap_enabled &&
			 (d->pool_fill >= (double)d->accept_threshold_percent / 100.0 ||
			  d->cgroup_at_zswap_max))
			e.reason = ZSWAP_INVERSION_SILENT_REFUSAL;
	}
	*ret = e;
	return e.reason != ZSWAP_INVERSION_NONE;
}

/* ---- parameters ----------------------------------------------------------------------------- */

void zswap_policy_params_default(struct zswap_policy_params *ret)
{
	*ret = (struct zswap_policy_params){
		.pool_target_pct = 85.0,
		.calm_pct = 70.0,
		.restore_share_pct = 50.0,
		.min_zswap_max_bytes = UINT64_C(1) << 20,
		.near_target_pct = 90.0,
		.near_step_factor = 0.5,
		.over_step_factor = 0.25,
		.over_swappiness = 30,
		.swapout_budget_bytes_per_s = {
			[SWAP_KIND_HDD] = UINT64_C(16) << 20,
			[SWAP_KIND_SSD] = UINT64_C(128) << 20,
			[SWAP_KIND_ZRAM] = 0,
		},
		.swapout_min_swappiness = 10,
	};
}

static bool pct_ok(double v)
{
	return v > 0.0 && v <= 100.0; /* false for NaN */
}

static bool factor_ok(double v)
{
	return v > 0.0 && v <= 1.0;
}

int zswap_policy_params_check(const struct zswap_policy_params *p)
{
	if (!pct_ok(p->pool_target_pct) || !pct_ok(p->calm_pct) || !pct_ok(p->restore_share_pct) ||
	    !pct_ok(p->near_target_pct))
		return -EINVAL;
	if (!factor_ok(p->near_step_factor) || !factor_ok(p->over_step_factor))
		return -EINVAL;
	if (p->over_swappiness < 0 || p->over_swappiness > 200 ||
	    p->swapout_min_swappiness < 0 || p->swapout_min_swappiness > 200)
		return -EINVAL;
	if (p->min_zswap_max_bytes == 0)
		return -EINVAL;
	return 0;
}

/* ---- pool target ---------------------------------------------------------------------------- */

double zswap_pool_target_fraction(const struct zswap_policy_params *p,
				  unsigned accept_threshold_percent)
{
	unsigned acc = accept_threshold_percent ? MIN(accept_threshold_percent, 100u)
						: ZSWAP_ACCEPT_THRESHOLD_PERCENT_DEFAULT;

	return p->pool_target_pct / 100.0 * (double)acc / 100.0;
}

uint64_t zswap_pool_target_bytes(const struct zswap_policy_params *p,
				 const struct zswap_host_delta *d)
{
	double t = zswap_pool_target_fraction(p, d->accept_threshold_percent) *
		   (double)d->pool_limit_bytes;

	if (!(t > 0.0))
		return 0;
	return t >= (double)d->pool_limit_bytes ? d->pool_limit_bytes : (uint64_t)t;
}

/* ---- fair share ----------------------------------------------------------------------------- */

void zswap_cgroup_from_sample(const struct cgroup_sample *cg, uint64_t cap_bytes, bool lowered,
			      struct zswap_cgroup *ret)
{
	*ret = (struct zswap_cgroup){
		.current_bytes = cg->current_bytes,
		.zswap_current_bytes = cg->zswap_current_bytes,
		.zswap_max_bytes = cg->zswap_max_bytes,
		.cap_bytes = cap_bytes,
		.lowered = lowered,
	};
}

int zswap_fair_share(const struct zswap_policy_params *p, const struct zswap_cgroup *cgroups,
		     size_t n, uint64_t target_bytes, uint64_t pool_bytes, bool inversion,
		     uint64_t page_size, struct zswap_max_change *ret, size_t ret_size)
{
	unsigned __int128 sum_current = 0, sum_usage = 0;
	uint64_t charged_target = target_bytes;
	size_t k = 0, users = 0;
	bool over, calm;

	if (ret_size < n || page_size == 0)
		return -EINVAL;

	for (size_t i = 0; i < n; i++)
		if (cgroups[i].zswap_current_bytes > 0) {
			sum_current += cgroups[i].current_bytes;
			sum_usage += cgroups[i].zswap_current_bytes;
			users++;
		}
	/* The target is in pool bytes (pool_total_size: the allocator's pages), the usages in
	 * charged bytes (the compressed objects): scale the target by the part of the pool these
	 * cgroups' charges are, so a pool over its target only because of allocator overhead or
	 * unmanaged cgroups still lowers the limits. Without this a single cgroup's limit converged
	 * on its own usage while the pool stayed 4-7 % over the target (test-zswap). */
	if (pool_bytes > 0 && sum_usage > 0 && sum_usage < pool_bytes)
		charged_target = (uint64_t)((unsigned __int128)target_bytes * sum_usage / pool_bytes);

	/* A limit below usage costs refused stores (see zswap.h): worth it only to keep one cgroup
	 * from taking the pool from others. A lone user has nobody to be fair to. */
	over = users >= 2 && (inversion || pool_bytes > target_bytes);
	calm = !inversion && (double)pool_bytes < (double)target_bytes * p->calm_pct / 100.0;

	for (size_t i = 0; i < n; i++) {
		const struct zswap_cgroup *c = &cgroups[i];
		uint64_t usage = c->zswap_current_bytes, share, want = c->zswap_max_bytes;
		bool restore = false;

		if (c->read_only)
			continue;

		/* A cgroup not using zswap has no share; the whole target would be its share. */
		if (usage > 0 && sum_current > 0)
			share = (uint64_t)((unsigned __int128)charged_target * c->current_bytes /
					   sum_current);
		else
			share = charged_target;

		/* From the lower of usage and the limit in force: usage lags a lowered limit until
		 * the cgroup's next stores write back, and the limit must keep converging. */
		if (over && MIN(usage, c->zswap_max_bytes) > share) {
			uint64_t base = MIN(usage, c->zswap_max_bytes);
			uint64_t v = base - (base - share) / 2;

			v = v / page_size * page_size;
			v = MAX(v, p->min_zswap_max_bytes);
			v = MIN(v, c->cap_bytes);
			if (v < c->zswap_max_bytes)
				want = v;
		} else if (calm && c->lowered &&
			   (double)usage < (double)share * p->restore_share_pct / 100.0) {
			if (c->zswap_max_bytes != c->cap_bytes) {
				want = c->cap_bytes;
				restore = true;
			}
		}
		/* The rule's cap holds whatever else happened. */
		if (want > c->cap_bytes) {
			want = c->cap_bytes;
			restore = false;
		}
		if (want != c->zswap_max_bytes)
			ret[k++] = (struct zswap_max_change){
				.cgroup_index = i, .zswap_max_bytes = want, .restore = restore };
	}
	return (int)MIN(k, (size_t)INT32_MAX);
}

/* ---- pacing --------------------------------------------------------------------------------- */

void zswap_pacing_compute(const struct zswap_policy_params *p, double pool_fill,
			  double target_fraction, bool inversion, struct zswap_pacing *ret)
{
	double ratio = target_fraction > 0.0 ? pool_fill / target_fraction : 0.0;

	if (inversion || ratio >= 1.0)
		*ret = (struct zswap_pacing){ p->over_step_factor, p->over_swappiness };
	else if (ratio >= p->near_target_pct / 100.0)
		*ret = (struct zswap_pacing){ p->near_step_factor, SWAPPINESS_UNSET };
	else
		*ret = (struct zswap_pacing){ 1.0, SWAPPINESS_UNSET };
}

uint64_t zswap_reclaim_room_bytes(uint64_t pool_bytes, uint64_t target_bytes,
				  uint64_t accept_bytes, uint64_t stored_pages,
				  uint64_t written_back_pages, uint64_t page_size)
{
	double ratio = 1.0, room = 0.0;

	if (target_bytes == 0 || page_size == 0)
		return LIMIT_MAX;
	if (accept_bytes > 0 && pool_bytes >= accept_bytes)
		return 0; /* maybe in the refusal window: whatever writeback drained, stores go to disk */
	if (pool_bytes > 0 && stored_pages > 0)
		ratio = MAX(1.0, (double)stored_pages * (double)page_size / (double)pool_bytes);
	if (target_bytes > pool_bytes)
		room = (double)(target_bytes - pool_bytes) * ratio;
	room += (double)written_back_pages * (double)page_size;
	if (!(room < 0x1p62))
		return UINT64_C(1) << 62;
	return (uint64_t)room / page_size * page_size;
}

uint64_t zswap_room_take(uint64_t *room_bytes, uint64_t request_bytes, uint64_t file_bytes,
			 bool swappiness_supported, uint64_t page_size, bool *file_only)
{
	uint64_t room, file;

	*file_only = false;
	if (*room_bytes == LIMIT_MAX || request_bytes == 0 || page_size == 0)
		return request_bytes;
	room = *room_bytes / page_size * page_size;
	if (request_bytes <= room) {
		*room_bytes -= request_bytes;
		return request_bytes;
	}
	/* More is asked than the pool can take. Page cache costs the pool nothing: when the room
	 * meets less than a quarter of the request and page cache alone gives more, ask for page
	 * cache and leave the room to the next cgroup. */
	file = swappiness_supported ? MIN(request_bytes, file_bytes / page_size * page_size) : 0;
	if (room < request_bytes / ZSWAP_ROOM_FILE_ONLY_DIV && file > room) {
		*file_only = true;
		return file;
	}
	*room_bytes -= room;
	return room;
}

int zswap_swappiness_combine(int configured, int cap)
{
	if (cap == SWAPPINESS_UNSET)
		return configured;
	if (configured == SWAPPINESS_UNSET)
		return cap;
	return MIN(configured, cap); /* SWAPPINESS_MAX (201) is above every 0..200 */
}

/* ---- swap-out budget ------------------------------------------------------------------------ */

int zswap_swapout_swappiness_cap(const struct zswap_policy_params *p, enum swap_kind kind,
				 uint64_t pswpout_pages, uint64_t page_size, usec_t elapsed_us,
				 int base_swappiness)
{
	uint64_t budget;
	double rate, cap;
	int base, lo;

	if ((unsigned)kind >= _SWAP_KIND_MAX || elapsed_us == 0)
		return SWAPPINESS_UNSET;
	budget = p->swapout_budget_bytes_per_s[kind];
	if (budget == 0)
		return SWAPPINESS_UNSET;

	rate = (double)pswpout_pages * (double)page_size * (double)USEC_PER_SEC / (double)elapsed_us;
	if (rate <= (double)budget)
		return SWAPPINESS_UNSET;

	if (base_swappiness == SWAPPINESS_UNSET)
		base = KERNEL_SWAPPINESS_DEFAULT;
	else if (base_swappiness >= SWAPPINESS_MAX)
		base = 200;
	else
		base = MAX(base_swappiness, 0);
	lo = MIN(p->swapout_min_swappiness, base);

	cap = (double)base - (double)(base - lo) * (rate - (double)budget) / (double)budget;
	if (!(cap > (double)lo))
		return lo;
	return MIN((int)cap, base);
}

/* ---- per-rule limit ------------------------------------------------------------------------- */

uint64_t zswap_rule_limit_bytes(const struct zswap_rule_limit *l, uint64_t current_bytes,
				uint64_t page_size)
{
	uint64_t bytes;
	double pct, v;

	switch (l->kind) {
	case ZSWAP_LIMIT_BYTES:
		return l->bytes;
	case ZSWAP_LIMIT_PERCENT:
		pct = l->pct > 100.0 ? 100.0 : l->pct;
		if (!(pct > 0.0))
			return 0;
		v = (double)current_bytes * pct / 100.0;
		/* Compared in double, so 100 % of a size near 2^64 never converts out of range. */
		bytes = v >= (double)current_bytes ? current_bytes : (uint64_t)v;
		return page_size ? bytes / page_size * page_size : bytes;
	case ZSWAP_LIMIT_UNSET:
	default:
		return LIMIT_MAX;
	}
}

bool zswap_shrinker_wanted(const struct zswap_policy_params *p, bool on_now, uint64_t pool_bytes,
			   uint64_t target_bytes, bool inversion)
{
	if (target_bytes == 0)
		return on_now;
	if (!on_now)
		return inversion ||
		       (double)pool_bytes >= (double)target_bytes * p->near_target_pct / 100.0;
	return inversion || (double)pool_bytes >= (double)target_bytes * p->calm_pct / 100.0;
}

void zswap_policy_params_from_config(const struct config *c, struct zswap_policy_params *p)
{
	zswap_policy_params_default(p);
	p->pool_target_pct = c->zswap.pool_target_pct;
	for (int k = 0; k < _SWAP_KIND_MAX; k++)
		if (c->swap.swapout_budget_set[k])
			p->swapout_budget_bytes_per_s[k] = c->swap.swapout_budget[k];
}
