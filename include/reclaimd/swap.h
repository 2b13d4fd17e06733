/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * swap.h - swap tiers: reclaimd arranges swap priorities so that cold memory lands in the right
 * tier (zram first, then SSD, then HDD or files, as the configuration says).
 *
 * Decision (policies/planners/swap_plan.c, pure, no I/O): swap_plan() compares the configured devices with
 * /proc/swaps and says, per configured device, what to do. Mechanism (agent/kio/swap_dev.c): checking
 * a device for a swap signature, swapon(2) with a priority, swapoff(2).
 *
 * The kernel cannot change the priority of an active device: the only way is swapoff (which faults
 * every page of the device back into memory) followed by swapon. Higher priorities are used first;
 * devices of equal priority are used round-robin (striped); that is why devices of one kind should
 * share one priority (swap_config_warnings()).
 *
 * Safety rule: nothing the agent does can make the host lose data. The planner never plans a
 * swapoff of a device whose used pages would not fit back into memory: it plans one only when the
 * device is empty (used_bytes == 0), or, in SWAP_REPRIO_WHEN_FITS mode, when the memory available
 * (MemAvailable, less what earlier swapoffs of the same plan will bring back) is more than
 * 1.5 times the device's used bytes. Devices that are active but not configured are reported and
 * never touched. The agent only executes plans; before planning it leaves out the entries whose
 * path does not resolve, that name an earlier entry's device, or that are not swap areas
 * (agent/ctl/swap_tiers_ctl.c).
 *
 * Paths: the planner compares strings, so both sides must be canonical. The caller realpath()s
 * every configured path before planning (a symlink such as /dev/disk/by-id/... or /dev/mapper/x
 * resolves to the /dev/dm-N or /dev/sdX node); /proc/swaps already shows the kernel's d_path of
 * the opened file, which for a device node or a file outside a chroot is its canonical path.
 */
#ifndef RECLAIMD_SWAP_H
#define RECLAIMD_SWAP_H

#include <limits.h>
#include <stdbool.h>

#include "reclaimd/parse.h"

/* Highest priority swapon(2) accepts with SWAP_FLAG_PREFER (SWAP_FLAG_PRIO_MASK, mm/swapfile.c). */
#define SWAP_PRIORITY_MAX 32767

enum swap_kind {
	SWAP_KIND_ZRAM,
	SWAP_KIND_SSD,
	SWAP_KIND_HDD,
	SWAP_KIND_FILE,
	_SWAP_KIND_MAX,
};

/* "zram", "ssd", "hdd", "file"; NULL for a value out of range. */
const char *swap_kind_to_string(enum swap_kind k);
/* The inverse; -EINVAL for an unknown name (*ret untouched). */
int swap_kind_from_string(const char *s, enum swap_kind *ret);

/* One configured swap device. `path` is canonical (realpath() by the caller, see above). */
struct swap_device_cfg {
	char *path;
	int priority; /* 0..SWAP_PRIORITY_MAX */
	enum swap_kind kind;
};

/* What may be done to an active device whose priority is wrong. */
enum swap_reprioritize {
	SWAP_REPRIO_EMPTY_ONLY = 0, /* default: only when nothing is swapped out to it */
	SWAP_REPRIO_WHEN_FITS,      /* also when MemAvailable > 1.5 x its used bytes */
	_SWAP_REPRIO_MAX,
};

/* "empty-only", "when-fits"; NULL / -EINVAL as for swap_kind. */
const char *swap_reprioritize_to_string(enum swap_reprioritize m);
int swap_reprioritize_from_string(const char *s, enum swap_reprioritize *ret);

enum swap_action_kind {
	SWAP_ACT_NONE,              /* active at the configured priority */
	SWAP_ACT_ACTIVATE,          /* not active: swapon with the configured priority */
	SWAP_ACT_REPRIORITIZE,      /* active at another priority, may move: swapoff, then swapon */
	SWAP_ACT_REPORT_MISMATCH,   /* active at another priority, may not move: log it only */
	SWAP_ACT_HOLD_KUBELET,      /* not active, and a kubelet runs here: no swapon, report it */
	_SWAP_ACT_MAX,
};

enum swap_mismatch_reason {
	SWAP_MISMATCH_NONE,           /* not a SWAP_ACT_REPORT_MISMATCH */
	SWAP_MISMATCH_NOT_EMPTY,      /* SWAP_REPRIO_EMPTY_ONLY and used_bytes > 0 */
	SWAP_MISMATCH_WOULD_NOT_FIT,  /* SWAP_REPRIO_WHEN_FITS and budget <= 1.5 x used_bytes */
	_SWAP_MISMATCH_MAX,
};

const char *swap_action_kind_to_string(enum swap_action_kind k);   /* "none", "activate", ... */
const char *swap_mismatch_reason_to_string(enum swap_mismatch_reason r); /* "not-empty", ... */

/* One action per configured device, with the numbers its log line needs. */
struct swap_action {
	enum swap_action_kind kind;
	enum swap_mismatch_reason reason;
	size_t cfg_index;         /* into the cfg array given to swap_plan() */
	const char *path;         /* cfg[cfg_index].path, borrowed */
	enum swap_kind swap_kind;
	int want_priority;        /* configured */
	bool active;              /* listed in /proc/swaps */
	int have_priority;        /* from /proc/swaps when active, else 0 */
	uint64_t size_bytes;      /* from /proc/swaps when active, else 0 */
	uint64_t used_bytes;      /* from /proc/swaps when active, else 0 */
	/* Memory the WHEN_FITS check compared with 1.5 x used_bytes: MemAvailable less the used
	 * bytes of the REPRIORITIZE actions planned before this one. Equal to MemAvailable for
	 * actions other than REPRIORITIZE / WOULD_NOT_FIT. */
	uint64_t budget_bytes;
};

/* Whether a swapoff of a device with used_bytes in use may be planned with budget_bytes of memory
 * available under `mode` (the safety rule above): used_bytes == 0, or WHEN_FITS and
 * budget_bytes > 1.5 * used_bytes (exact in integers; never true when 1.5 * used overflows). */
bool swap_swapoff_fits(enum swap_reprioritize mode, uint64_t used_bytes, uint64_t budget_bytes);

/* What becomes of one configured swap entry before any plan (swap_entries_verdict()). */
enum swap_entry_verdict {
	SWAP_ENTRY_KEEP = 0,
	SWAP_ENTRY_UNRESOLVED, /* its path does not resolve (realpath(3) failed) */
	SWAP_ENTRY_DUPLICATE,  /* the same device as an earlier kept entry */
	SWAP_ENTRY_NOT_SWAP,   /* inactive and not a swap device (swap_check_device()) */
};

struct swap_entry {
	/* In: what the mechanism found (swap_entries_resolve()). */
	const char *real;  /* canonical path, NULL when it did not resolve */
	bool active;       /* real is in /proc/swaps: the kernel took it already */
	bool is_swap;      /* swap_check_device() passed; read only for an inactive entry */
	/* Out. */
	enum swap_entry_verdict verdict;
	size_t same_as;    /* SWAP_ENTRY_DUPLICATE: the earlier entry's index */
};

/*
 * The rule for the configured swap entries, shared by the agent (skipped with a warning) and by
 * `reclaimd --check-config` (an error): in configuration order, an entry whose path does not
 * resolve is UNRESOLVED; one whose canonical path equals that of an earlier KEEP entry (two
 * spellings of one device: symlinks, "." and "..") is a DUPLICATE of it; an inactive one that is
 * not a swap device is NOT_SWAP (an active one is the kernel's already); the rest are KEPT.
 * Sets verdict and same_as of each of the n entries. Never fails.
 */
void swap_entries_verdict(struct swap_entry *e, size_t n);

/* Checks a configuration: every path non-NULL and absolute, priorities within
 * 0..SWAP_PRIORITY_MAX, kinds valid, no path twice. Returns 0, or -EINVAL with *ret_bad_index
 * (when non-NULL) set to the first offending entry. */
int swap_config_validate(const struct swap_device_cfg *cfg, size_t n_cfg, size_t *ret_bad_index);

/*
 * Plans one action per configured device, in configuration order (ret[i] is for cfg[i]).
 * `active` is /proc/swaps as swaps_parse() returns it; mem_available_bytes is MemAvailable.
 * *n_ret is the capacity of ret on entry and the number of actions on return (n_cfg).
 *
 * Several REPRIORITIZE actions of one plan share one budget: each one's used_bytes is taken off
 * MemAvailable before the next device is checked, so carrying out the whole plan in order never
 * needs more memory than the rule allows. The agent should still execute the plan in order and
 * re-plan from fresh /proc/swaps and /proc/meminfo after each swapoff.
 *
 * hold_swapon: a kubelet runs on this host (a kubepods cgroup exists) and the "swap" section
 * does not set allow_on_kubelet_node. kubelet's failSwapOn (default true) refuses to start on a
 * host with swap on, so a device that is not active is not swapped on: SWAP_ACT_HOLD_KUBELET
 * instead of SWAP_ACT_ACTIVATE, for the agent to report. Devices already active are planned as
 * without it: whether swap is on does not change when an active device is re-prioritised
 * (swapoff then swapon of the same device, under the same safety rule), so the kubelet sees the
 * host as it was.
 *
 * Returns 0; -EINVAL for a configuration swap_config_validate() rejects; -ENOBUFS when *n_ret
 * < n_cfg (ret and *n_ret untouched on failure).
 */
int swap_plan(const struct swap_device_cfg *cfg, size_t n_cfg, enum swap_reprioritize mode,
	      const struct swaps *active, uint64_t mem_available_bytes, bool hold_swapon,
	      struct swap_action *ret, size_t *n_ret);

/* Two configured devices of one kind with different priorities: the kernel stripes only equal
 * priorities, so the one with the lower priority is used only once the other is full. */
struct swap_config_warning {
	enum swap_kind kind;
	const char *path_a; /* the first configured device of this kind */
	int priority_a;
	const char *path_b; /* a later device of this kind with another priority */
	int priority_b;
};

/*
 * One warning per configured device whose priority differs from that of the first configured
 * device of its kind (so at most n_cfg - 1 warnings; pairs are not repeated). *n_ret is the
 * capacity on entry and the count on return. Returns 0, or -ENOBUFS when the capacity is too
 * small (ret and *n_ret untouched).
 */
int swap_config_warnings(const struct swap_device_cfg *cfg, size_t n_cfg,
			 struct swap_config_warning *ret, size_t *n_ret);

/*
 * Active devices that are not in the configuration: reclaimd reports them and never touches
 * them. Writes indexes into active->dev to ret_index (room for RECLAIMD_MAX_SWAPS) and returns
 * their count. Never fails.
 */
size_t swap_unconfigured(const struct swap_device_cfg *cfg, size_t n_cfg,
			 const struct swaps *active, size_t ret_index[RECLAIMD_MAX_SWAPS]);

/* ---- mechanism: agent/kio/swap_dev.c ------------------------------------------------------- */

/*
 * Whether `path` can be given to swapon: it exists, is a block device or a regular file, and
 * holds the "SWAPSPACE2" signature at offset page_size - 10 (union swap_header in
 * include/linux/swap.h; mkswap writes it, the kernel checks it in read_swap_header()).
 * Returns 0; -ENOENT (missing); -ENOTBLK (neither a block device nor a regular file);
 * -EMEDIUMTYPE (no signature, including a file shorter than a page); another -errno (EACCES...).
 * `why` (why_len bytes, may be NULL/0) receives a one-line human reason on failure, "" on success.
 * Never follows into a FIFO (opened O_NONBLOCK, checked with fstat before reading).
 */
int swap_check_device(const char *path, char *why, size_t why_len);

/* What swap_entries_resolve() found for one entry: its canonical path and, when it failed, why. */
struct swap_entry_io {
	char real[PATH_MAX];
	int resolve_errno;   /* realpath(3)'s errno when it did not resolve, else 0 */
	char why[256];       /* swap_check_device()'s reason when it failed, else "" */
};

/* For each of the n configured devices: resolves its path (realpath(3)), looks the result up in
 * `active` (/proc/swaps as swaps_parse() gives it; NULL: none active), checks an inactive one
 * with swap_check_device(), and decides with swap_entries_verdict(). e[i] (whose real points into
 * io[i]) and io[i] are filled. Never fails. */
void swap_entries_resolve(const struct swap_device_cfg *cfg, size_t n, const struct swaps *active,
			  struct swap_entry *e, struct swap_entry_io *io);

/* The reason entry i was not kept, one line into buf (size bytes, NUL-terminated): "<path> does
 * not exist", "cannot resolve <path>: <error>", "the same device as swap.devices[<j>] (<real>)",
 * or swap_check_device()'s reason. "" for a kept entry. */
void swap_entry_reason(const struct swap_device_cfg *cfg, const struct swap_entry *e,
		       const struct swap_entry_io *io, size_t i, char *buf, size_t size);

/* swapon(path, SWAP_FLAG_PREFER | priority). Needs CAP_SYS_ADMIN. Returns 0; -EINVAL for a
 * priority outside 0..SWAP_PRIORITY_MAX; -errno from swapon (EBUSY: already active, possibly under
 * another name; EINVAL: no valid swap header). */
int swap_activate(const char *path, int priority);

/* Swap areas swapped on inside a mount namespace that is gone (a sandboxed service such as the
 * hardened reclaimd.service, restarted) are shown in /proc/swaps relative to the detached mount
 * they were opened through: /dev/zram0 as "/zram0". For each partition entry whose path does not
 * exist, whose last component is a block device sysfs knows (<sys_dirfd>/class/block/NAME) and
 * exists as <dev_root>/NAME, the path becomes <dev_root>/NAME (devtmpfs names a device node
 * after the kernel's name). Files cannot be told apart this way and are left as they are.
 * Returns how many paths were changed. */
int swaps_fix_detached(struct swaps *sw, int sys_dirfd, const char *dev_root);

/* The same for swap files, which have no kernel name: a file entry whose path does not exist gets
 * the one path of `paths` (n of them, canonical) that ends with it and exists. The shown path is
 * relative to the detached mount the file was opened through: with ReadWritePaths=/data that
 * is "/swapfile" for /data/swapfile; a bind mount of the file itself shows "/", which names
 * nothing and is left alone, as is an entry two paths end with. Returns how many were changed. */
int swaps_fix_detached_files(struct swaps *sw, char *const *paths, size_t n);

/* swapoff(path). Blocks until every page of the device is back in memory. Returns 0 / -errno
 * (ENOMEM: the pages did not fit, the device stays active and nothing is lost). */
int swap_deactivate(const char *path);

#endif
