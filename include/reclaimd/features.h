/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * features.h - the kernel features reclaimd uses, probed once at start (and again on reload) by
 * agent/kio/features_probe.c, and what the agent does on a kernel that lacks one. The table and the
 * decisions taken from it are pure (policies/features.c): no I/O, no clocks, no logging.
 *
 * A feature known to be absent is never tried again: its users consult the table instead of
 * finding out from an error at run time.
 */
#ifndef RECLAIMD_FEATURES_H
#define RECLAIMD_FEATURES_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

enum feature_id {
	FEATURE_RECLAIM_SWAPPINESS,     /* "swappiness=N" in memory.reclaim */
	FEATURE_RECLAIM_SWAPPINESS_MAX, /* "swappiness=max" in memory.reclaim (anon only) */
	FEATURE_LRU_GEN,                /* MGLRU on: /sys/kernel/mm/lru_gen/enabled != 0 */
	FEATURE_LRU_GEN_DEBUGFS,        /* /sys/kernel/debug/lru_gen (aging, eviction) */
	FEATURE_ZSWAP_WRITEBACK,        /* memory.zswap.writeback */
	FEATURE_ZSWAP_SHRINKER,         /* /sys/module/zswap/parameters/shrinker_enabled */
	FEATURE_ZSWAP_ZPOOL,            /* /sys/module/zswap/parameters/zpool (gone on new kernels) */
	FEATURE_NODE_RECLAIM,           /* /sys/devices/system/node/nodeN/reclaim */
	FEATURE_PROACTIVE_COUNTERS,     /* pgscan_proactive/pgsteal_proactive in /proc/vmstat */
	FEATURE_NUMA_STAT,              /* memory.numa_stat */
	FEATURE_CGROUP_PRESSURE,        /* cgroup.pressure (per-cgroup PSI on/off) */
	_FEATURE_MAX,
};

enum feature_state {
	FEATURE_UNKNOWN = 0,  /* not probed, or the probe could not tell: users try it */
	FEATURE_ABSENT,       /* never tried again until the next probe */
	FEATURE_PRESENT,
};

/* How a state was found. */
enum feature_how {
	FEATURE_HOW_NONE = 0,  /* not probed */
	FEATURE_HOW_PROBED,    /* the file exists or not, or the kernel took or refused a request */
	FEATURE_HOW_VERSION,   /* from the kernel release (no safe way to probe here) */
	FEATURE_HOW_LEARNED,   /* the kernel refused it at run time */
};

/* What one feature is: static text. */
struct feature_info {
	const char *name;      /* short key, as in status ("swappiness", "node_reclaim", ...) */
	const char *what;      /* the file or argument */
	unsigned since_major, since_minor;  /* the mainline release that added it; 0.0: not by
					     * version (a setting, or removed later) */
	const char *source;    /* the kernel doc or source it relies on */
	const char *fallback;  /* what reclaimd does without it: one line */
};

struct feature_table {
	uint8_t state[_FEATURE_MAX];  /* enum feature_state */
	uint8_t how[_FEATURE_MAX];    /* enum feature_how */
	unsigned kernel_major, kernel_minor;  /* from the release string; 0.0 when unreadable */
};

/* The static description of `id`; NULL for an id out of range. */
const struct feature_info *feature_info(enum feature_id id);
const char *feature_state_str(enum feature_state s);  /* "present", "absent", "unknown" */
const char *feature_how_str(enum feature_how h);      /* "probed", "kernel version", ... */

/* Looks a feature up by its name ("swappiness"); -ENOENT when none has it. */
int feature_by_name(const char *name, enum feature_id *ret);

/* The table with every feature unknown. */
void features_init(struct feature_table *t);
void features_set(struct feature_table *t, enum feature_id id, enum feature_state s,
		  enum feature_how how);
/* FEATURE_UNKNOWN for a NULL table (nothing probed). */
enum feature_state features_state(const struct feature_table *t, enum feature_id id);
/* True only when the feature is known to be absent: unknown features are tried. */
bool features_absent(const struct feature_table *t, enum feature_id id);

/* "6.12.48+deb13-amd64" -> 6, 12. Returns 0, or -EINVAL when it does not start "N.N". */
int kernel_release_parse(const char *release, unsigned *ret_major, unsigned *ret_minor);
/* By version alone: PRESENT when major.minor >= the feature's since, ABSENT below it, UNKNOWN
 * for a feature that has no version (since 0.0) or an unknown kernel (0.0). */
enum feature_state feature_by_version(enum feature_id id, unsigned major, unsigned minor);

/*
 * The swappiness argument a memory.reclaim request carries on this kernel, for a rule's or
 * policy's `swappiness` (SWAPPINESS_UNSET, 0..200 or SWAPPINESS_MAX, config.h):
 * SWAPPINESS_UNSET when the kernel has no swappiness= (the request goes without it, the kernel
 * then follows memory.swappiness / vm.swappiness); 200 for SWAPPINESS_MAX when the kernel has
 * swappiness= but not "max" (anon first rather than anon only); the value itself otherwise.
 */
int features_request_swappiness(const struct feature_table *t, int swappiness);

/* How many features changed state from `old` to `now` (for the reload's log). */
unsigned features_diff(const struct feature_table *old, const struct feature_table *now);


/* ---- probing (agent/kio/features_probe.c) --------------------------------------------------- */

struct features_probe_roots {
	const char *proc_root, *sys_root;  /* "/proc", "/sys", or fixture trees */
	int cgroup_root_fd;                /* the cgroup-v2 root in use; -1: none */
	bool may_write;                    /* false (dry run, --check-config): no request is
					    * written; what needs one is taken from the release */
};

/* Probes every feature once: files that exist or not under the roots, the kernel release
 * (<proc_root>/sys/kernel/osrelease), and, when may_write, two empty memory.reclaim requests on
 * the cgroup root (see the comment in features_probe.c for why they reclaim nothing). Fills
 * `ret` (features that cannot be told are left unknown). Returns 0; never fails. */
int features_probe(const struct features_probe_roots *roots, struct feature_table *ret);

/* One line per feature that is absent in `t` (and was not absent in `old`, when given): what
 * reclaimd does without it (log_event, MSGID_KERNEL_FEATURE, NOTICE). */
void features_log(const struct feature_table *t, const struct feature_table *old);
/* The table for --check-config: one line per feature, the fallback under an absent one. */
void features_print(const struct feature_table *t, FILE *f);

#endif
