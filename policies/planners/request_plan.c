/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * request_plan.c - a cgroup's decision to the dispatcher's request (request_plan.h). Pure.
 */
#include "reclaimd/request_plan.h"

bool request_wants_eviction(uint64_t request_bytes, unsigned flags)
{
	return request_bytes > 0 && !(flags & DISPATCH_HEADROOM);
}

/* Step 3: the cut of tiers_plan() on a host with demotion; headroom's requests (freeing a node,
 * which demotion does too) and empty ones are left as they are. */
static void shape_tiers(const struct request_inputs *in, struct dispatch_request *req,
			struct request_tier_outcome *tier)
{
	const struct request_tiers *t = &in->tiers;
	bool evict = req->mglru.evict != NULL;

	tier->asked_bytes = req->request_bytes;
	if (!t->roles || !t->roles->demotion || req->request_bytes == 0 ||
	    (req->flags & DISPATCH_HEADROOM) ||
	    !tiers_plan(t->roles, t->usage, t->backoff, t->room, req->request_bytes, in->page_size,
			&tier->plan))
		return;
	tier->shaped = true;
	if (evict)
		(void)tiers_shape_targets(&tier->plan, req->mglru.evict, &req->mglru.n_evict,
					  in->page_size);
	/* lru_gen or memory.reclaim alike, never more than the plan; an eviction left with no
	 * target asks nothing. */
	req->request_bytes = evict && req->mglru.n_evict == 0 ?
				     0 : tiers_cap_request(&tier->plan, req->request_bytes);
}

void request_plan(const struct request_inputs *in, struct dispatch_request *ret,
		  struct request_tier_outcome *tier)
{
	*ret = (struct dispatch_request){
		.request_bytes = in->request_bytes, .mem_node = in->mem_node, .flags = in->flags,
		.chunk_bytes = in->chunk_bytes, .psi_some_target_pct = in->psi_some_target_pct,
		.floor_bytes = in->floor_bytes, .mglru = in->mglru,
	};
	tier->shaped = false;
	tier->asked_bytes = 0;

	/* 1. With aging on, the psi policy's requests only evict cold generations: without targets
	 * (none cold, or no memory for them) the job only ages, never writes memory.reclaim.
	 * Headroom keeps a node out of direct reclaim and writes memory.reclaim as kswapd would. */
	if (in->aging_active && !(in->flags & DISPATCH_HEADROOM) && !ret->mglru.evict)
		ret->request_bytes = 0;
	/* 2. Swappiness; an eviction at swappiness 0 takes file pages only. */
	job_swappiness_decide(in->rule_swappiness, in->swappiness_cap, in->vm_swappiness,
			      in->swap_room_bytes, in->flags & DISPATCH_FILE_ONLY, &ret->swappiness);
	if (ret->swappiness.evict_swappiness == 0 && ret->mglru.evict)
		lru_gen_targets_file_only(ret->mglru.evict, ret->mglru.n_evict);
	/* 3. Demotion from the upper tiers, eviction from the lowest (tiers.h). */
	shape_tiers(in, ret, tier);
	/* 4. What this kernel takes: no swappiness= on 6.1, 200 for "max" before 6.16. */
	ret->swappiness.swappiness = features_request_swappiness(in->features,
								 ret->swappiness.swappiness);
}
