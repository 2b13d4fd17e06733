/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * features.c - the kernel feature table (features.h): what each feature is, the release that
 * added it, the kernel doc or source it relies on, and what reclaimd does without it; and the
 * pure decisions taken from the table. The probing is agent/kio/features_probe.c.
 */
#include <errno.h>
#include <string.h>

#include "reclaimd/config.h"
#include "reclaimd/features.h"

static const struct feature_info infos[_FEATURE_MAX] = {
	[FEATURE_RECLAIM_SWAPPINESS] = {
		"swappiness", "swappiness= in memory.reclaim", 6, 9,
		"Documentation/admin-guide/cgroup-v2.rst memory.reclaim; mm/memcontrol.c memory_reclaim()",
		"requests go without swappiness=: the kernel follows vm.swappiness; zswap's file-first "
		"pacing is off" },
	[FEATURE_RECLAIM_SWAPPINESS_MAX] = {
		"swappiness_max", "swappiness=max in memory.reclaim", 6, 16,
		"mm: add swappiness=max arg to memory.reclaim for only anon reclaim (SWAPPINESS_ANON_ONLY)",
		"a rule's swappiness \"max\" is written as swappiness=200 (anon first, not anon only)" },
	[FEATURE_LRU_GEN] = {
		"lru_gen", "/sys/kernel/mm/lru_gen/enabled", 6, 1,
		"Documentation/admin-guide/mm/multigen_lru.rst",
		"no MGLRU aging or eviction through lru_gen: reclaim through memory.reclaim only" },
	[FEATURE_LRU_GEN_DEBUGFS] = {
		"lru_gen_debugfs", "/sys/kernel/debug/lru_gen", 6, 1,
		"Documentation/admin-guide/mm/multigen_lru.rst (debugfs interface)",
		"no aging commands or per-generation histogram: reclaim through memory.reclaim only" },
	[FEATURE_ZSWAP_WRITEBACK] = {
		"zswap_writeback", "memory.zswap.writeback", 6, 8,
		"Documentation/admin-guide/cgroup-v2.rst memory.zswap.writeback",
		"rules' zswap_writeback is not written" },
	[FEATURE_ZSWAP_SHRINKER] = {
		"zswap_shrinker", "zswap parameter shrinker_enabled", 6, 8,
		"Documentation/admin-guide/mm/zswap.rst; mm/zswap.c zswap_shrinker_enabled",
		"zswap.shrinker_enabled is not applied (\"auto\" does nothing)" },
	[FEATURE_ZSWAP_ZPOOL] = {
		"zswap_zpool", "zswap parameter zpool", 0, 0,
		"mm/zswap.c (zpool removed when zsmalloc became zswap's only allocator)",
		"the pool allocator is not shown; nothing else depends on it" },
	[FEATURE_NODE_RECLAIM] = {
		"node_reclaim", "/sys/devices/system/node/nodeN/reclaim", 6, 17,
		"Documentation/ABI/stable/sysfs-devices-node (reclaim); mm/vmscan.c reclaim_store()",
		"headroom covers a node's deficit only through per-cgroup memory.reclaim" },
	[FEATURE_PROACTIVE_COUNTERS] = {
		"proactive_counters", "pgscan_proactive/pgsteal_proactive", 6, 15,
		"mm/vmscan.c reclaimer_offset(); include/linux/vm_event_item.h",
		"the direct-reclaim report cannot tell the agent's own reclaim from direct reclaim" },
	[FEATURE_NUMA_STAT] = {
		"numa_stat", "memory.numa_stat", 5, 8,
		"Documentation/admin-guide/cgroup-v2.rst memory.numa_stat",
		"jobs go to the pool of the cgroup's CPUs' node, not the node holding its memory" },
	[FEATURE_CGROUP_PRESSURE] = {
		"cgroup_pressure", "cgroup.pressure", 6, 1,
		"Documentation/admin-guide/cgroup-v2.rst cgroup.pressure; kernel/cgroup/cgroup.c",
		"PSI cannot be switched per cgroup; a cgroup without memory.pressure is skipped" },
};

const struct feature_info *feature_info(enum feature_id id)
{
	return (unsigned)id < _FEATURE_MAX ? &infos[id] : NULL;
}

const char *feature_state_str(enum feature_state s)
{
	return s == FEATURE_PRESENT ? "present" : s == FEATURE_ABSENT ? "absent" : "unknown";
}

const char *feature_how_str(enum feature_how h)
{
	switch (h) {
	case FEATURE_HOW_PROBED:  return "probed";
	case FEATURE_HOW_VERSION: return "kernel version";
	case FEATURE_HOW_LEARNED: return "refused at run time";
	default:                  return "not probed";
	}
}

int feature_by_name(const char *name, enum feature_id *ret)
{
	for (unsigned i = 0; i < _FEATURE_MAX; i++)
		if (strcmp(infos[i].name, name) == 0) {
			*ret = (enum feature_id)i;
			return 0;
		}
	return -ENOENT;
}

void features_init(struct feature_table *t)
{
	memset(t, 0, sizeof(*t));
}

void features_set(struct feature_table *t, enum feature_id id, enum feature_state s,
		  enum feature_how how)
{
	if ((unsigned)id >= _FEATURE_MAX)
		return;
	t->state[id] = (uint8_t)s;
	t->how[id] = (uint8_t)how;
}

enum feature_state features_state(const struct feature_table *t, enum feature_id id)
{
	return t && (unsigned)id < _FEATURE_MAX ? (enum feature_state)t->state[id] : FEATURE_UNKNOWN;
}

bool features_absent(const struct feature_table *t, enum feature_id id)
{
	return features_state(t, id) == FEATURE_ABSENT;
}

static int parse_uint(const char **p, unsigned *ret)
{
	unsigned v = 0;
	const char *s = *p;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	while (*s >= '0' && *s <= '9') {
		if (v > 100000)
			return -EINVAL;
		v = v * 10 + (unsigned)(*s - '0');
		s++;
	}
	*p = s;
	*ret = v;
	return 0;
}

int kernel_release_parse(const char *release, unsigned *ret_major, unsigned *ret_minor)
{
	unsigned major, minor;
	const char *p = release;

	if (!p || parse_uint(&p, &major) < 0 || *p++ != '.' || parse_uint(&p, &minor) < 0)
		return -EINVAL;
	*ret_major = major;
	*ret_minor = minor;
	return 0;
}

enum feature_state feature_by_version(enum feature_id id, unsigned major, unsigned minor)
{
	const struct feature_info *f = feature_info(id);

	if (!f || (f->since_major == 0 && f->since_minor == 0) || (major == 0 && minor == 0))
		return FEATURE_UNKNOWN;
	if (major != f->since_major)
		return major > f->since_major ? FEATURE_PRESENT : FEATURE_ABSENT;
	return minor >= f->since_minor ? FEATURE_PRESENT : FEATURE_ABSENT;
}

int features_request_swappiness(const struct feature_table *t, int swappiness)
{
	if (swappiness == SWAPPINESS_UNSET || features_absent(t, FEATURE_RECLAIM_SWAPPINESS))
		return SWAPPINESS_UNSET;
	/* "max" only where the kernel is known to take it: an unknown kernel gets 200, which
	 * every kernel with swappiness= accepts. */
	if (swappiness == SWAPPINESS_MAX &&
	    features_state(t, FEATURE_RECLAIM_SWAPPINESS_MAX) != FEATURE_PRESENT)
		return 200;
	return swappiness;
}

unsigned features_diff(const struct feature_table *old, const struct feature_table *now)
{
	unsigned n = 0;

	for (unsigned i = 0; i < _FEATURE_MAX; i++)
		n += old->state[i] != now->state[i];
	return n;
}
