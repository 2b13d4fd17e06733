/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config.h - the JSON configuration (jansson): global settings, policy defaults, ordered rules.
 *
 * Loading is all-or-nothing: config_load_*() either returns a complete, validated struct config
 * or an error message naming the file, the line/column (for JSON syntax errors, from jansson) or
 * the JSON path of the offending key (for unknown keys, wrong types, out-of-range values).
 * Nothing here logs or touches cgroups. Every key is documented in docs/configuration.md, the
 * reference.
 */
#ifndef RECLAIMD_CONFIG_H
#define RECLAIMD_CONFIG_H

#include <limits.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "reclaimd/common.h"
#include "reclaimd/swap.h"
#include "reclaimd/workload.h"
#include "reclaimd/zswap_params.h"

/* swappiness values: -1 = not passed to memory.reclaim; 0..200; SWAPPINESS_MAX = "max" */
#define SWAPPINESS_UNSET (-1)
#define SWAPPINESS_MAX   201

/* Per-rule zswap_max: a size, or a percentage of the cgroup's memory.current. */
enum zswap_limit_kind {
	ZSWAP_LIMIT_UNSET,
	ZSWAP_LIMIT_BYTES,
	ZSWAP_LIMIT_PERCENT, /* percent of memory.current */
};

struct zswap_rule_limit {
	enum zswap_limit_kind kind;
	uint64_t bytes;
	double pct; /* 0..100 */
};

/* Tri-state booleans in rules: not set, false, true. */
#define TRISTATE_UNSET (-1)

struct policy_params {
	uint64_t min_bytes;            /* floor below which a cgroup is never reclaimed; 100 MiB */
	double psi_some_target_pct;    /* memory PSI some target per interval, percent; 0.1 */
	double io_psi_some_target_pct; /* io PSI some above which reclaim pauses, percent; 1.0 */
	double probe_min;              /* starting / fallback step (fraction of reclaimable); 0.01 */
	double probe_growth;           /* step multiplier after a calm interval; 2.0 */
	double probe_max;              /* step cap; 0.2 */
	uint64_t chunk_bytes;          /* largest single memory.reclaim write; 32 MiB */
	int swappiness;                /* SWAPPINESS_UNSET, 0..200 or SWAPPINESS_MAX */
	int reclaim_priority;          /* headroom policy: 0..100, higher reclaimed first; 50 */
	struct zswap_rule_limit zswap_max; /* written to memory.zswap.max; unset */
	int zswap_writeback;           /* memory.zswap.writeback: TRISTATE_UNSET, 0, 1 */
	usec_t trigger_stall_us;       /* PSI trigger "some <stall> <window>" that halts reclaim */
	usec_t trigger_window_us;      /*   defaults 50000 us in 1000000 us */
	uint64_t cold_age_s;           /* MGLRU: idle seconds before a page is cold, lowest; 60 */
	uint64_t max_cold_age_s;       /*   highest, after refaults; 1200 */
	double refault_target_pct;     /* refaults per minute, % of memory.current, above which the
					* cold age doubles; 0.1 */
};

/* A rule's "level": which cgroups its workload selectors pick (docs/kubernetes.md). RULE_LEVEL_ANY:
 * the rule has no selector and matches by its glob alone. */
enum rule_level {
	RULE_LEVEL_ANY = 0,
	RULE_LEVEL_POD,       /* pod cgroups; the default once "qos" is given */
	RULE_LEVEL_CONTAINER, /* container cgroups */
};

struct rule {
	char *match;                    /* glob on the cgroup path relative to the root */
	const struct policy_desc *policy; /* from the registry; never NULL after loading */
	/* Selectors on what the path is (workload.h); 0 / RULE_LEVEL_ANY when not given. */
	unsigned qos_mask;              /* "qos": 1 << enum workload_qos */
	unsigned runtime_mask;          /* "runtime": 1 << enum workload_runtime */
	enum rule_level level;          /* "level" as written; rule_level() is the one in force */
	/* "kubelet_managed_write": the rule's zswap_max, zswap_writeback and the fair-share
	 * memory.zswap.max lowering may be written on kubelet-managed cgroups
	 * (workload_kubelet_managed()); false */
	bool kubelet_managed_write;
	struct policy_params params;    /* defaults overlaid with the rule's own keys */
};

enum log_level_cfg { CFG_LOG_ERR = 3, CFG_LOG_WARNING = 4, CFG_LOG_NOTICE = 5, CFG_LOG_INFO = 6, CFG_LOG_DEBUG = 7 };

/* "swap": the swap tiers reclaimd arranges (swap.h). */
struct swap_section {
	struct swap_device_cfg *devices;   /* paths as written; resolved with realpath() at use */
	size_t n_devices;
	enum swap_reprioritize reprioritize;  /* SWAP_REPRIO_EMPTY_ONLY */
	/* swapon on a host where a kubelet runs (a kubepods cgroup exists); false: devices that
	 * are off stay off there (swap_plan() hold_swapon) */
	bool allow_on_kubelet_node;
	double zram_writeback_at_pct;      /* 80 */
	uint64_t zram_idle_age_s;          /* 600 */
	uint64_t zram_writeback_limit_bytes; /* 0 = no budget set by reclaimd */
	/* Bytes per second of swap-out per device kind before anon reclaim is paced; 0 = none. */
	uint64_t swapout_budget[_SWAP_KIND_MAX];
	bool swapout_budget_set[_SWAP_KIND_MAX];
};

/* "zswap": global parameters applied at start, and the pool management (zswap.h). */
struct zswap_section {
	struct zswap_settings settings;    /* only what the file sets */
	bool restore_on_exit;              /* true */
	bool manage;                       /* fair-share zswap.max and pacing; true */
	double pool_target_pct;            /* 85 (percent of accept_threshold_percent) */
	bool shrinker_auto;                /* shrinker_enabled "auto": on while the pool is over its
					    * target (zswap_ctl.c); settings.shrinker_enabled unset */
};

/* "metrics": Prometheus exposition (agent/obs/metrics.h); all off by default. */
struct metrics_section {
	char *textfile;              /* absolute path ending in ".prom"; NULL: none */
	char *listen;                /* "ADDR:PORT" for HTTP /metrics; NULL: no server */
	bool per_cgroup;             /* series per cgroup besides those per rule; false */
	unsigned max_cgroup_series;  /* at most this many cgroups get their own; 100 */
	bool per_pod;                /* series per Kubernetes pod (pod_uid, qos); false */
	unsigned max_pod_series;     /* at most this many pods get their own; 100 */
};

/* "status": the status socket (agent/obs/status.c). */
struct status_section {
	char *socket;        /* AF_UNIX socket path; NULL: no status socket. Default
			      * /run/reclaimd/reclaimd.sock */
	char *read_group;    /* group whose members may call the read-only methods; NULL: root only */
	unsigned read_gid;   /* read_group's gid, looked up when the file was loaded */
};

struct config {
	char *path;          /* file it came from, or NULL for a string */
	/* Every file read, in the order merged: path, then the drop-ins (config_load_file()). */
	char **files;
	size_t n_files;
	usec_t interval_us;  /* tick interval; 6 s */
	int log_level;       /* syslog priority, LOG_ERR..LOG_DEBUG; LOG_INFO */
	char *cgroup_root;   /* NULL = find the cgroup-v2 mount through libcgroup */
	char *proc_root;     /* "/proc" */
	char *sys_root;      /* "/sys" */
	char *state_file;    /* what the agent changed and puts back at stop (state_file.h);
			      * "/run/reclaimd/state.json"; NULL: none */
	bool mglru_aging;    /* age managed memcgs' MGLRU once per tick (mglru.h); false */
	unsigned max_workers_per_node;     /* 0 = auto, min(4, node CPUs); checked against the
					    * topology by config_check_topology() */
	uint64_t max_reclaim_rate_per_node; /* bytes per second per node; 0 = unlimited */
	/* Policy headroom (headroom.h): keep each node's free memory above its high watermark
	 * plus headroom_bytes, or headroom_pct % of the node's memory when headroom_bytes is 0. */
	bool headroom_enabled;             /* true */
	uint64_t headroom_bytes;           /* 0 */
	double headroom_pct;               /* 2.0 */
	/* With vm.zone_reclaim_mode 0, other nodes' room covers a node's shortfall (headroom.h,
	 * fallback); false: every node keeps its own goal. true */
	bool headroom_fallback;
	struct swap_section swap;
	struct zswap_section zswap;
	struct metrics_section metrics;
	struct status_section status;
	struct policy_params defaults;
	struct rule *rules;
	size_t n_rules;
};

/* Error detail for a failed load. `text` is one line, e.g.
 *   "/etc/reclaimd/reclaimd.json:12:5: '}' expected"                      (syntax, from jansson)
 *   "/etc/reclaimd/reclaimd.json:14:7: rules[1].probe_max: 0.9 is out of range (0 < x <= 1)" */
/* Most errors one load collects (of one file: a load stops after the first file with errors). */
#define CONFIG_ERRORS_MAX 20

/* `text` is the first error; when the file had more, it ends in " (and N more: reclaimd
 * --check-config lists them)" and all[0..n_errors) holds each, the first included, up to
 * CONFIG_ERRORS_MAX (n_errors stops there too). */
struct config_error {
	char text[512];
	/* The file the first error is in (the main file or a drop-in), "" when no one file holds
	 * it (a string, the merge of the drop-ins); line and column are in that file, 1-based
	 * (the column in characters), 0 when not known. */
	char file[PATH_MAX];
	int line, column;
	unsigned n_errors; /* 0 or 1: text alone says it */
	char all[CONFIG_ERRORS_MAX][512];
};

/* Largest max_workers_per_node the loader accepts. */
#define CONFIG_MAX_WORKERS_PER_NODE 64

/* Built-in defaults for every key (what an empty "{}" file gives). */
void policy_params_default(struct policy_params *ret);

/* config_load_file()'s flags. */
enum {
	/* Read the file without asking whether only root can change it (trust.h): for fixture
	 * files in tests (--allow-unsafe-paths), never for a service. */
	CONFIG_LOAD_UNSAFE_PATH = 1 << 0,
	/* A directory on a read-only mount may be writable by others (TRUST_READ_ONLY_MOUNTS,
	 * --trust-read-only-mounts: a Kubernetes ConfigMap volume). */
	CONFIG_LOAD_TRUST_RO_MOUNTS = 1 << 1,
};

/* The drop-in directory of the configuration at `path`: "<dir of path>/reclaimd.d". */
#define CONFIG_DROPIN_DIR "reclaimd.d"
/* Most drop-in files read from it; more is an error (a runaway config management). */
#define CONFIG_DROPINS_MAX 256

/* Loads `path`, then every "*.json" in <dir of path>/reclaimd.d/ (absent: none) in strcmp(3)
 * order, each through the same trust check as `path`, each decoded and validated on its own,
 * then merged into one document (docs/configuration.md "Drop-ins"): a top-level key given again
 * replaces the earlier value, except "defaults", "swap", "zswap", "metrics" and "status", which
 * merge key by key, and "rules", which go before the earlier files' rules (the drop-ins' rules,
 * in file order, then the main file's). The merged document is loaded as one file; c->files lists
 * what was read. A bad drop-in fails the whole load.
 * Returns 0, -ENOENT/-EACCES/... for an unreadable file, -EPERM for a file (or a directory
 * above it, or a symlink on the way) that someone other than root could change (trusted_open(),
 * trust.h; unless CONFIG_LOAD_UNSAFE_PATH), -EINVAL for any content error. On failure *ret is
 * untouched and `err` says what and where: for -EPERM the component, its owner and its mode. */
int config_load_file(const char *path, unsigned flags, struct config **ret,
		     struct config_error *err);
int config_load_string(const char *json, struct config **ret, struct config_error *err);
/* The same from buf[0..len) (not NUL-terminated; a NUL byte in it is a syntax error), named
 * "<string>" in errors: what config_load_file() does once it has read the file, and the fuzz
 * target's entry point (tests/fuzz/fuzz_config.c). */
int config_load_buffer(const char *buf, size_t len, struct config **ret, struct config_error *err);
void config_free(struct config *c);
static inline void config_freep(struct config **c) { config_free(*c); }

/* The level a rule's selectors work at: "level" when given, else pod when "qos" is given,
 * else RULE_LEVEL_ANY (no selector). */
enum rule_level rule_level(const struct rule *r);

/* The first rule that matches `relpath` ("" for the root cgroup), or NULL. A rule matches when
 * its glob matches and, when it has selectors, the workload is a pod (level pod) or a container
 * (level container) of a selected QoS class and runtime. Never-targets (conmon, CRI-O's sandbox
 * placeholder) match no rule. A cgroup inside a pod (a container, crun's inner cgroup, anything
 * else there) whose pod is taken by a pod-level rule before any rule matches the cgroup itself
 * matches nothing: the pod is reclaimed as a whole. config_match() recognises the path itself;
 * config_match_workload() takes what workload_recognise() made of it (discovery keeps that). */
const struct rule *config_match(const struct config *c, const char *relpath);
const struct rule *config_match_workload(const struct config *c, const char *relpath,
					 const struct workload *w);

/*
 * Whether the agent may write a cgroup file other than memory.reclaim (and lru_gen commands) on
 * a cgroup that rule `r` matched, whose path is recognised as `w`: memory.zswap.max (the rule's
 * zswap_max, the fair-share lowering) and memory.zswap.writeback. True unless the cgroup is
 * kubelet-managed (workload_kubelet_managed(): the kubelet and the runtime own its control files)
 * and the rule lacks "kubelet_managed_write": true. PSI triggers on memory.pressure are not
 * writes in this sense (a per-open-file trigger, no state others see). Pure.
 */
bool rule_cgroup_write_allowed(const struct rule *r, const struct workload *w);

/* The rule's keys that write a cgroup file (zswap_max, zswap_writeback): true when either is set
 * (after "defaults"). Pure. */
bool rule_writes_cgroup_files(const struct rule *r);

/* The earlier rule that takes every cgroup rule i could match (first match wins, so rule i never
 * applies), or -1. Detected, by the globs' text and the selectors: an earlier "**", the same
 * glob, or P followed by the component "**" before "P" or "P/..."; and the earlier rule has no selectors ("qos",
 * "runtime", "level") or the same ones. Other overlaps (globs that cover by their wildcards,
 * pod-level rules that take a pod's insides) are not detected. Pure. */
ssize_t config_rule_shadowed_by(const struct config *c, size_t i);
/* The warning for rule i when config_rule_shadowed_by() finds one, as the daemon logs it at
 * start and at each reload and --check-config prints it: "<file>[ with its drop-ins]: rules[i]
 * "<glob>" never applies: rules[j] "<glob>" comes first and takes every cgroup it could match".
 * Returns 1 and *ret (malloc'ed), 0 and *ret NULL when rule i applies, or -ENOMEM. Does not log
 * (agent/config/dropins.c). */
int config_shadow_warning(const struct config *c, size_t i, char **ret);

/* For --check-config --explain-path: what `relpath` is and how each rule decides on it. */
void config_explain(const struct config *c, const char *relpath, FILE *out);

/* Glob on slash-separated paths: '*' and '?' stay inside one component, '**' as a whole
 * component spans zero or more components, '[...]' classes as in fnmatch(3). */
bool glob_match(const char *pattern, const char *path);

/* What a rule's "match" may not be: discovery spells a cgroup path relative to the root, with no
 * leading '/', no empty component and no "." or ".." (a directory walk never returns those), so
 * such a pattern could only be a mistake, or an attempt to name something outside the tree. */
enum glob_pattern_error {
	GLOB_PATTERN_OK,
	GLOB_PATTERN_ABSOLUTE,         /* a leading '/' */
	GLOB_PATTERN_EMPTY_COMPONENT,  /* "a//b", "a/" */
	GLOB_PATTERN_DOT_COMPONENT,    /* "." or "..", also spelt with '\' escapes */
};

/* Checks `pattern` ("" is the root: fine). On an error, the offending component is
 * pattern[*ret_start .. *ret_start + *ret_len) (length 0 for an empty one or a leading '/'). */
enum glob_pattern_error glob_pattern_check(const char *pattern, size_t *ret_start, size_t *ret_len);

struct numa_topology;
/* Checks what depends on the host: max_workers_per_node must not exceed the CPU count of any
 * node that has CPUs. Returns 0, or -EINVAL with `err` naming the key and the node. */
int config_check_topology(const struct config *c, const struct numa_topology *t,
			  struct config_error *err);

/* Human-readable effective configuration (every rule with every parameter), for --check-config. */
void config_print(const struct config *c, FILE *out);

/* metrics.listen: "ADDR:PORT" with a numeric IPv4 address, or "[ADDR]:PORT" with an IPv6 one;
 * port 1..65535. No host names (no resolver at start). Returns 0 and the address (*ret_addr,
 * its length in *ret_len), or -EINVAL with both untouched. The loader checks the key with it,
 * and the HTTP server (agent/obs/metrics_io.c) binds what it gives. */
int metrics_parse_listen(const char *s, struct sockaddr_storage *ret_addr, socklen_t *ret_len);

#endif
