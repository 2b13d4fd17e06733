/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * headroom.h - the "headroom" policy: keep free memory on every NUMA node a little above the
 * kernel's high watermark, so allocations neither wake kswapd nor stall in direct reclaim, by
 * reclaiming from the coldest, most expendable managed cgroups first.
 *
 * Unlike the per-cgroup policies of policy.h it decides for the whole host at once: nodes in,
 * a list of (cgroup, node, bytes) reclaim requests out. It is pure: no I/O, no clocks, no
 * logging, no allocation. Inputs are /proc/zoneinfo summed per node (zoneinfo.h) and one
 * candidate per managed cgroup, built with headroom_candidate_from_sample().
 *
 * Per node n with managed memory (sizes in bytes; the zoneinfo counts are pages * page_size):
 *   goal      = params.goal_bytes, or params.goal_pct % of the node's managed memory
 *   target    = high + goal            high: sum of the zones' high watermarks (zoneinfo.h;
 *                                      mm/page_alloc.c __setup_per_zone_wmarks; by default
 *                                      about 0.1 % of memory above min, see watermark_scale_factor
 *                                      in Documentation/admin-guide/sysctl/vm.rst)
 *   deficit   = target - free, rounded up to whole pages, when free < target; else 0
 * refill (params.refill_nodes, the caller's hysteresis once a node fell below its goal): there
 * the cold candidates cover the deficit to high + 2 * goal instead.
 * Candidates are taken in two passes, each in order: reclaim_priority descending, then memory PSI
 * some ascending (colder first), then inactive share descending, then cgroup_index ascending
 * (deterministic). Pass 1 takes the cold candidates. Pass 2, the last resort, takes the stalling
 * ones (candidate.stalling: using what they have) that are not at their own memory.high or
 * memory.max (candidate.at_own_limit: their stall is their own limit's reclaim, so what is taken
 * comes back at once and frees nothing for long), and only for what is left of the deficit to
 * high + goal, never for the refill, and after what the jobs of cold candidates in flight may
 * still free on that node (in_flight_bytes: they may be covering it right now; the next call sees
 * what they freed). Without the headroom the next burst of allocations takes free memory to the
 * low and min watermarks, where the kernel reclaims from every cgroup (kswapd, then direct
 * reclaim in the allocating task: mm/vmscan.c, mm/page_alloc.c), stalling them all; the agent
 * takes the same memory from the most expendable stalling cgroup first.
 * Skipped: a cgroup with a job in flight, one with less than a page above its floor. Each
 * candidate gets at most one request per call (one job in flight per cgroup), on one node:
 *   request   = min(bytes on that node, memory.current - floor, max_bytes when set, remaining
 *               deficit of the node), rounded down to pages; nothing when that is 0
 * Node choice for a cgroup with memory on several deficit nodes: the node where its request does
 * the most toward the node's goal (not its refill, so a cold cgroup is not spent refilling one
 * node while a stalling one pays for another's goal), then where the request is largest (ties:
 * larger remaining deficit, then lower node id). This maximises what one job per cgroup covers;
 * a node no candidate can serve keeps its deficit as "uncovered", for the kernel's per-node
 * reclaim (6.17+) or for the next call.
 *
 * Fallback (params.fallback, the agent's setting when vm.zone_reclaim_mode is 0, the default): the
 * page allocator serves an allocation from the next node of its zonelist when the local node is
 * under its low watermark, without reclaim in the allocating task (mm/page_alloc.c
 * get_page_from_freelist(): a zone failing its watermark is skipped unless node_reclaim_mode is
 * set; only when every zone fails does the slow path wake every kswapd, and only when every zone
 * is under min after that does the task reclaim directly). The local kswapd may still wake for a
 * boosted watermark (boost_watermark() after a fragmenting fallback, which the allocator tries on
 * the local node before going remote): background reclaim, no stall. A node's shortfall is then no stall while
 * another node has room, and reclaiming for it would take memory the kernel does not need. So the
 * spare of every node (free above its own target, the refill included) is pooled and covers the
 * nodes' deficits in node id order (fallback_bytes); what is left is the deficit planned below.
 * Allocations bound to one node (cpuset.mems, MPOL_BIND, __GFP_THISNODE) do not fall back; the
 * pooled view does not see them. With zone_reclaim_mode set the kernel reclaims on the local node
 * before falling back (Documentation/admin-guide/sysctl/vm.rst, zone_reclaim_mode), and every
 * node keeps its own goal (fallback false).
 *
 * memory.reclaim is not node-targeted (kernel-interfaces.md): the kernel walks the zonelist from
 * the writing CPU's node, so the agent should write each request from a thread running on a CPU
 * of request.node. The agent sets max_bytes to one chunk and plans again when a request ends
 * (headroom_ctl.c), so each chunk sees what the last one freed, and a last-resort request stays
 * short; the cgroup's PSI trigger cancels it like any other.
 */
#ifndef RECLAIMD_HEADROOM_H
#define RECLAIMD_HEADROOM_H

#include "reclaimd/policy.h"
#include "reclaimd/zoneinfo.h"

#define HEADROOM_GOAL_PCT_DEFAULT 2.0
#define HEADROOM_PRIORITY_MIN     0
#define HEADROOM_PRIORITY_DEFAULT 50
#define HEADROOM_PRIORITY_MAX     100

struct headroom_params {
	uint64_t goal_bytes; /* headroom above the high watermark on every node; 0 = use goal_pct */
	double goal_pct;     /* percent of the node's managed memory, 0 < x <= 100; 2.0 */
	uint64_t refill_nodes; /* bit n: on node n the cold candidates cover the deficit to
				* high + 2 * goal (RECLAIMD_MAX_NODES is 64); 0 */
	bool fallback;         /* nodes' spare covers other nodes' deficits (above); false */
};

/* goal_bytes 0, goal_pct 2.0, refill_nodes 0, fallback false. */
void headroom_params_default(struct headroom_params *ret);
/* 0, or -EINVAL when goal_bytes is 0 and goal_pct is not in (0, 100]. */
int headroom_params_check(const struct headroom_params *params);

/* One managed cgroup as the policy sees it. */
struct headroom_candidate {
	size_t cgroup_index;   /* the caller's handle (e.g. index into snapshot.cgroups), echoed back */
	int priority;          /* reclaim_priority, 0..100 (clamped), higher reclaimed first; 50 */
	double psi_some_pct;   /* recent memory PSI some, percent; lower = colder = reclaimed first */
	double inactive_share; /* (inactive_anon + inactive_file) / (anon + file), 0..1 */
	bool in_flight;        /* a reclaim job already runs for this cgroup: skipped */
	uint64_t in_flight_bytes; /* what that job asked for, bytes (0: aging only): a cold one's is
				   * held back from stalling candidates on its nodes */
	bool stalling;         /* using what it has (PSI at or above its target, or its trigger
				* fired): taken only in the last-resort pass; set by the caller */
	bool at_own_limit;     /* memory.current within 1/32 of min(memory.high, memory.max): a
				* stalling one is not even the last resort (its stall is its own
				* limit's reclaim, and what is taken is refaulted at once) */
	uint64_t max_bytes;    /* largest request for it, bytes (the agent: one chunk); 0 = none */
	uint64_t current_bytes; /* memory.current */
	uint64_t floor_bytes;   /* cgroup_floor_bytes(): never reclaimed below */
	/* Reclaimable memory on node i < n_nodes, bytes: headroom_candidate_node_bytes(), from the
	 * sample's memory.numa_stat table (not a copy: a candidate is about 100 bytes, not 600
	 * with a 64-node array, and the agent builds one per managed cgroup). */
	unsigned n_nodes;       /* at most numa->n_nodes; 0 when numa is NULL */
	const struct numa_usage *numa;
	uint64_t anon_room_bytes; /* anon above this cannot be reclaimed (the swap room) */
};

/* file + min(anon, anon_room_bytes) on node i (< c->n_nodes), saturating. */
static inline uint64_t headroom_candidate_node_bytes(const struct headroom_candidate *c, unsigned i)
{
	const struct numa_node_usage *u = &c->numa->node[i];
	uint64_t anon = u->anon_bytes < c->anon_room_bytes ? u->anon_bytes : c->anon_room_bytes;

	return u->file_bytes > UINT64_MAX - anon ? UINT64_MAX : u->file_bytes + anon;
}

/* Fills a candidate from this tick's sample:
 *   floor_bytes    = cgroup_floor_bytes(params, cg)
 *   node bytes     = numa file[i] + min(numa anon[i], swap room)   (anon without swap room to go
 *                    to cannot be reclaimed, the same rule as the floor): numa is the sample's
 *                    table, anon_room_bytes its swap room; n_nodes 0 without a table
 *   psi_some_pct   = memory PSI some delta / elapsed, percent; 100 without history (first
 *                    sample: unknown is taken as hot, reclaimed last within its priority)
 *   at_own_limit   = min(memory.high, memory.max) is set (not 0, not "max") and
 *                    memory.current >= that - that / 32
 *   inactive_share = from memory.stat; 0 when anon + file is 0
 * priority is clamped into 0..100. Never fails. */
void headroom_candidate_from_sample(const struct policy_params *params,
				    const struct cgroup_sample *cg, size_t cgroup_index,
				    int priority, bool in_flight, struct headroom_candidate *ret);

/* What the loop knows of a managed cgroup beyond its sample, for headroom_candidate_build(). */
struct headroom_cgroup_state {
	bool excluded;                  /* policy "none": never a candidate */
	bool in_flight;                 /* a reclaim job runs for it */
	uint64_t in_flight_bytes;       /* what that job asked for, bytes (0: aging only) */
	uint64_t reclaimed_since_bytes; /* what its jobs reclaimed since the sample was taken */
	usec_t trigger_fired_us;        /* its PSI trigger's last firing, monotonic µs; 0: never */
	usec_t sample_us;               /* when the sample was taken, monotonic µs */
};

/*
 * The candidate for one managed cgroup as the agent plans headroom, or false when it is none:
 * excluded, no PSI history yet (not known to be cold or hot: left alone for its first tick), or
 * at its memory.high (policy.h cgroup_at_high(): the kernel reclaims it already).
 * On top of headroom_candidate_from_sample():
 *   stalling        = psi_some_pct >= params->psi_some_target_pct, or its PSI trigger fired
 *                     within the sample's interval or since (sample_us - elapsed_us onward)
 *   in_flight_bytes = st->in_flight_bytes while in flight, else 0
 *   max_bytes       = max(params->chunk_bytes, page_size): one chunk per request, the next
 *                     planned when it ends, so each sees what the last one freed
 *   current_bytes  -= reclaimed_since_bytes (saturating): the sample is up to a tick old, and
 *                     asking for the stale amount could cross the floor
 * Pure; *ret is written only when it returns true.
 */
bool headroom_candidate_build(const struct policy_params *params, const struct cgroup_sample *s,
			      size_t cgroup_index, const struct headroom_cgroup_state *st,
			      uint64_t page_size, struct headroom_candidate *ret);

struct headroom_request {
	size_t cgroup_index; /* from the candidate */
	unsigned node;       /* the node whose deficit this covers */
	uint64_t bytes;      /* > 0, a multiple of page_size */
	bool last_resort;    /* from a stalling candidate (pass 2) */
};

struct headroom_node_plan {
	bool considered;          /* present in zoneinfo with managed memory; else all 0 */
	uint64_t free_bytes, high_bytes, managed_bytes; /* from zoneinfo, bytes */
	uint64_t goal_bytes;      /* headroom wanted above high (not doubled by refill) */
	uint64_t target_bytes;    /* high + goal (2 * goal with refill): free wanted */
	uint64_t fallback_bytes;  /* with params.fallback: the part of the deficit below that
				   * other nodes' spare covers (not in deficit_bytes); else 0 */
	uint64_t deficit_bytes;   /* high + goal (2 * goal with refill) - free - fallback_bytes,
				   * page-rounded up; 0 = at or above it */
	uint64_t goal_deficit_bytes; /* high + goal - free - fallback_bytes, page-rounded up: what
				      * stalling candidates may cover (<= deficit_bytes) */
	uint64_t requested_bytes; /* sum of this call's requests for the node (<= deficit) */
	uint64_t last_resort_bytes; /* the part of requested_bytes asked of stalling candidates */
	uint64_t busy_bytes;      /* what the jobs of cold candidates in flight may still free here
				   * (their in_flight_bytes, at most their memory here): not asked
				   * of stalling ones */
	unsigned busy_cgroups;    /* candidates in flight reclaiming (in_flight_bytes > 0) with at
				   * least a page here */
	uint64_t uncovered_bytes; /* deficit - requested: what no managed cgroup gave in this call
				   * (includes the refill part stalling ones may not give) */
};

struct headroom_nodes {
	unsigned n_nodes; /* = zi->n_nodes */
	struct headroom_node_plan node[RECLAIMD_MAX_NODES];
};

/* The goal of one node, bytes: params->goal_bytes, or goal_pct % of managed_bytes. */
uint64_t headroom_goal_bytes(const struct headroom_params *params, uint64_t managed_bytes);

/* Plans this call's requests. `cands` is reordered in place (sorted as above). At most one request
 * per candidate is written to ret_requests, which must have room for n_cands; *ret_nodes gets the
 * per-node arithmetic. Returns the number of requests (0 when every node is at or above its goal),
 * or -EINVAL for invalid params, a page_size that is not a power of two, or n_cands > INT_MAX
 * (then nothing is written and cands is not reordered). */
int headroom_plan(const struct headroom_params *params, const struct zoneinfo *zi,
		  uint64_t page_size, struct headroom_candidate *cands, size_t n_cands,
		  struct headroom_request *ret_requests, struct headroom_nodes *ret_nodes);

/*
 * What the kernel's per-node reclaim (/sys/devices/system/node/nodeN/reclaim, 6.17+:
 * Documentation/ABI/stable/sysfs-devices-node, mm/vmscan.c reclaim_store()) should take on one
 * node after this call's requests: the part of the node's goal deficit (high + goal - free; not
 * the refill) that neither this call's requests (requested_bytes) nor the jobs in flight there
 * (busy_bytes) may cover, at most max_bytes (0: no cap), rounded down to whole pages. Bytes; 0
 * when nothing is left, the node was not considered, or page_size is 0. Per-node reclaim takes
 * from every memcg on the node, managed or not (it respects memory.min and memory.low), so the
 * agent asks it only for what its own cgroups could not give, and for the goal alone. Pure.
 */
uint64_t headroom_node_reclaim_bytes(const struct headroom_node_plan *p, uint64_t page_size,
				     uint64_t max_bytes);

/* ---- nodeN/reclaim writes: when the next may go, what each result does -------------------- */

/* After EBUSY (another writer reclaims on the node) or EAGAIN (the kernel gave up; also what
 * kernels before a 2026 fix return for EBUSY), or an error retrying may mend: the node's next
 * write waits this long. */
#define HEADROOM_NODE_RECLAIM_BACKOFF_US (2 * USEC_PER_SEC)

/* Counters since start of the nodeN/reclaim writes. */
struct headroom_node_reclaim_counts {
	uint64_t requests, requested_bytes;  /* writes queued, bytes they asked */
	uint64_t done, reclaimed_bytes;      /* writes the kernel took in full, their bytes */
	uint64_t partial;                    /* EAGAIN: the kernel reclaimed less */
	uint64_t busy;                       /* EBUSY: another writer on the node; backed off */
	uint64_t cancelled;                  /* interrupted or dropped by a stop or CPU hotplug */
	uint64_t failed;                     /* any other error */
	/* The first -errno that made the agent stop writing nodeN/reclaim for good (EROFS, EACCES,
	 * EPERM, ENOENT: a read-only /sys in a container, a missing file); 0 while it may write. */
	int refused;
};

/* The writes' state: counters, and per node when the next write may go. Zeroed: none yet. */
struct headroom_node_reclaim {
	struct headroom_node_reclaim_counts n;
	usec_t retry_us[RECLAIMD_MAX_NODES];
};

/* What one result means for the caller. */
enum headroom_node_reclaim_verdict {
	HEADROOM_NR_TAKEN,     /* the kernel took it all */
	HEADROOM_NR_BACKOFF,   /* EBUSY or EAGAIN: counted, not logged; the node waits */
	HEADROOM_NR_CANCELLED, /* the agent's own stop or hotplug: counted, no back-off */
	HEADROOM_NR_REFUSED,   /* for good (node_reclaim_refused()): no write to any node again */
	HEADROOM_NR_FAILED,    /* another error: counted, the node waits; worth a line */
};

/* Whether node may be written at `now` (µs, monotonic): not refused, and past its back-off. The
 * one-writer-per-node rule is the dispatcher's (a write in flight is not asked for twice). */
bool headroom_node_reclaim_may_write(const struct headroom_node_reclaim *s, unsigned node,
				     usec_t now);
/* A write of `bytes` to node was queued. */
void headroom_node_reclaim_asked(struct headroom_node_reclaim *s, uint64_t bytes);
/* Folds the result of a write of `bytes` to node into *s at `now`: err is 0 (taken in full),
 * -ECANCELED (cancelled by the agent), or the write's -errno. Returns what it means. */
enum headroom_node_reclaim_verdict headroom_node_reclaim_result(struct headroom_node_reclaim *s,
								unsigned node, uint64_t bytes,
								int err, usec_t now);

/* A node's refill hysteresis, as kswapd reclaims up to the high watermark once woken at low: a
 * node whose plan has a goal deficit (below_goal) starts refilling; a refilling node goes on
 * until it is no longer near its goal (near_goal: its bit of headroom_near_goal_nodes()), i.e.
 * until its free memory is back above high + 2 * goal. Returns whether the node refills this tick; sets
 * *started when it starts now (not refilling before). Never fails. */
bool headroom_refill_next(bool refilling, bool below_goal, bool near_goal, bool *started);
/* The nodes of zi within twice their headroom, bit n for node n: free < high + 2 * goal (a node
 * absent or without managed memory never is); with params->fallback only those whose shortfall
 * to that the other nodes' spare above their own high + 2 * goal does not cover (pooled as in
 * headroom_plan(), whole pages, node id order). The agent checks /proc/zoneinfo every 250 ms while
 * any bit is set. params must pass headroom_params_check(); 0 for a page_size that is not a
 * power of two. */
uint64_t headroom_near_goal_nodes(const struct headroom_params *params, const struct zoneinfo *zi,
				  uint64_t page_size);
/* headroom_near_goal_nodes() != 0. */
bool headroom_any_node_near_goal(const struct headroom_params *params, const struct zoneinfo *zi,
				 uint64_t page_size);

#endif
