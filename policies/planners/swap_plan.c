/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * swap_plan.c - the swap-tier planner (swap.h): from the configured devices and /proc/swaps to
 * one action per device, plus the configuration warnings and the list of unconfigured active
 * devices. Pure: no I/O, no logging, no clocks; tests build both sides in memory.
 *
 * The safety rule lives in one place, swap_swapoff_fits(): a swapoff is planned only for an empty
 * device, or in WHEN_FITS mode when the memory left for it is more than 1.5 times what it holds.
 * On a kubelet node (hold_swapon) no device that is off is planned for swapon.
 */
#include <errno.h>
#include <string.h>

#include "reclaimd/swap.h"

static const char *const kind_names[_SWAP_KIND_MAX] = {
	[SWAP_KIND_ZRAM] = "zram",
	[SWAP_KIND_SSD] = "ssd",
	[SWAP_KIND_HDD] = "hdd",
	[SWAP_KIND_FILE] = "file",
};

static const char *const reprio_names[_SWAP_REPRIO_MAX] = {
	[SWAP_REPRIO_EMPTY_ONLY] = "empty-only",
	[SWAP_REPRIO_WHEN_FITS] = "when-fits",
};

static const char *const action_names[_SWAP_ACT_MAX] = {
	[SWAP_ACT_NONE] = "none",
	[SWAP_ACT_ACTIVATE] = "activate",
	[SWAP_ACT_REPRIORITIZE] = "reprioritize",
	[SWAP_ACT_REPORT_MISMATCH] = "report-mismatch",
	[SWAP_ACT_HOLD_KUBELET] = "hold-kubelet",
};

static const char *const mismatch_names[_SWAP_MISMATCH_MAX] = {
	[SWAP_MISMATCH_NONE] = "none",
	[SWAP_MISMATCH_NOT_EMPTY] = "not-empty",
	[SWAP_MISMATCH_WOULD_NOT_FIT] = "would-not-fit",
};

static int name_lookup(const char *const *names, size_t n, const char *s)
{
	if (!s)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return (int)i;
	return -EINVAL;
}

const char *swap_kind_to_string(enum swap_kind k)
{
	return (unsigned)k < ARRAY_SIZE(kind_names) ? kind_names[k] : NULL;
}

int swap_kind_from_string(const char *s, enum swap_kind *ret)
{
	int i = name_lookup(kind_names, ARRAY_SIZE(kind_names), s);

	if (i < 0)
		return i;
	*ret = (enum swap_kind)i;
	return 0;
}

const char *swap_reprioritize_to_string(enum swap_reprioritize m)
{
	return (unsigned)m < ARRAY_SIZE(reprio_names) ? reprio_names[m] : NULL;
}

int swap_reprioritize_from_string(const char *s, enum swap_reprioritize *ret)
{
	int i = name_lookup(reprio_names, ARRAY_SIZE(reprio_names), s);

	if (i < 0)
		return i;
	*ret = (enum swap_reprioritize)i;
	return 0;
}

const char *swap_action_kind_to_string(enum swap_action_kind k)
{
	return (unsigned)k < ARRAY_SIZE(action_names) ? action_names[k] : NULL;
}

const char *swap_mismatch_reason_to_string(enum swap_mismatch_reason r)
{
	return (unsigned)r < ARRAY_SIZE(mismatch_names) ? mismatch_names[r] : NULL;
}

/* budget > 1.5 * used, in integers: for an integer budget, budget > used + used/2 (rounded down)
 * is the same test whether used is even or odd. When used + used/2 overflows, nothing fits. */
bool swap_swapoff_fits(enum swap_reprioritize mode, uint64_t used_bytes, uint64_t budget_bytes)
{
	uint64_t need;

	if (used_bytes == 0)
		return true;
	if (mode != SWAP_REPRIO_WHEN_FITS)
		return false;
	need = used_bytes + used_bytes / 2;
	if (need < used_bytes)
		return false;
	return budget_bytes > need;
}

int swap_config_validate(const struct swap_device_cfg *cfg, size_t n_cfg, size_t *ret_bad_index)
{
	for (size_t i = 0; i < n_cfg; i++) {
		bool bad = !cfg[i].path || cfg[i].path[0] != '/' || cfg[i].priority < 0 ||
			   cfg[i].priority > SWAP_PRIORITY_MAX ||
			   (unsigned)cfg[i].kind >= _SWAP_KIND_MAX;

		for (size_t j = 0; !bad && j < i; j++)
			bad = strcmp(cfg[i].path, cfg[j].path) == 0;
		if (bad) {
			if (ret_bad_index)
				*ret_bad_index = i;
			return -EINVAL;
		}
	}
	return 0;
}

static const struct swap_device *active_find(const struct swaps *active, const char *path)
{
	for (size_t i = 0; active && i < active->n && i < RECLAIMD_MAX_SWAPS; i++)
		if (strcmp(active->dev[i].path, path) == 0)
			return &active->dev[i];
	return NULL;
}

int swap_plan(const struct swap_device_cfg *cfg, size_t n_cfg, enum swap_reprioritize mode,
	      const struct swaps *active, uint64_t mem_available_bytes, bool hold_swapon,
	      struct swap_action *ret, size_t *n_ret)
{
	uint64_t budget = mem_available_bytes;

	if ((unsigned)mode >= _SWAP_REPRIO_MAX || swap_config_validate(cfg, n_cfg, NULL) < 0)
		return -EINVAL;
	if (*n_ret < n_cfg)
		return -ENOBUFS;

	for (size_t i = 0; i < n_cfg; i++) {
		const struct swap_device *dev = active_find(active, cfg[i].path);
		struct swap_action *a = &ret[i];

		*a = (struct swap_action){
			.kind = SWAP_ACT_NONE,
			.reason = SWAP_MISMATCH_NONE,
			.cfg_index = i,
			.path = cfg[i].path,
			.swap_kind = cfg[i].kind,
			.want_priority = cfg[i].priority,
			.budget_bytes = mem_available_bytes,
		};
		if (!dev) {
			a->kind = hold_swapon ? SWAP_ACT_HOLD_KUBELET : SWAP_ACT_ACTIVATE;
			continue;
		}
		a->active = true;
		a->have_priority = dev->priority;
		a->size_bytes = dev->size_bytes;
		a->used_bytes = dev->used_bytes;
		if (dev->priority == cfg[i].priority)
			continue;

		a->budget_bytes = budget;
		if (swap_swapoff_fits(mode, dev->used_bytes, budget)) {
			a->kind = SWAP_ACT_REPRIORITIZE;
			budget -= dev->used_bytes; /* fits: budget > 1.5 x used >= used */
		} else {
			a->kind = SWAP_ACT_REPORT_MISMATCH;
			a->reason = mode == SWAP_REPRIO_WHEN_FITS ? SWAP_MISMATCH_WOULD_NOT_FIT
								   : SWAP_MISMATCH_NOT_EMPTY;
		}
	}
	*n_ret = n_cfg;
	return 0;
}

int swap_config_warnings(const struct swap_device_cfg *cfg, size_t n_cfg,
			 struct swap_config_warning *ret, size_t *n_ret)
{
	const struct swap_device_cfg *first[_SWAP_KIND_MAX] = { NULL };
	size_t n = 0;

	/* Count first, so that nothing is written when the capacity is too small. */
	for (int pass = 0; pass < 2; pass++) {
		memset(first, 0, sizeof(first));
		n = 0;
		for (size_t i = 0; i < n_cfg; i++) {
			const struct swap_device_cfg *c = &cfg[i];

			if ((unsigned)c->kind >= _SWAP_KIND_MAX)
				continue;
			if (!first[c->kind]) {
				first[c->kind] = c;
				continue;
			}
			if (c->priority == first[c->kind]->priority)
				continue;
			if (pass == 1)
				ret[n] = (struct swap_config_warning){
					.kind = c->kind,
					.path_a = first[c->kind]->path,
					.priority_a = first[c->kind]->priority,
					.path_b = c->path,
					.priority_b = c->priority,
				};
			n++;
		}
		if (pass == 0 && n > *n_ret)
			return -ENOBUFS;
	}
	*n_ret = n;
	return 0;
}

size_t swap_unconfigured(const struct swap_device_cfg *cfg, size_t n_cfg,
			 const struct swaps *active, size_t ret_index[RECLAIMD_MAX_SWAPS])
{
	size_t n = 0;

	for (size_t i = 0; active && i < active->n && i < RECLAIMD_MAX_SWAPS; i++) {
		bool configured = false;

		for (size_t j = 0; !configured && j < n_cfg; j++)
			configured = cfg[j].path && strcmp(cfg[j].path, active->dev[i].path) == 0;
		if (!configured)
			ret_index[n++] = i;
	}
	return n;
}

void swap_entries_verdict(struct swap_entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		e[i].verdict = SWAP_ENTRY_KEEP;
		e[i].same_as = 0;
		if (!e[i].real) {
			e[i].verdict = SWAP_ENTRY_UNRESOLVED;
			continue;
		}
		for (size_t j = 0; j < i; j++)
			if (e[j].verdict == SWAP_ENTRY_KEEP && strcmp(e[j].real, e[i].real) == 0) {
				e[i].verdict = SWAP_ENTRY_DUPLICATE;
				e[i].same_as = j;
				break;
			}
		if (e[i].verdict == SWAP_ENTRY_KEEP && !e[i].active && !e[i].is_swap)
			e[i].verdict = SWAP_ENTRY_NOT_SWAP;
	}
}
