/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * status.c - the io.reclaimd varlink interface on the status socket (status.h): the documents
 * reclaimctl shows, built with jansson from what the agent already keeps.
 *
 *   Status    the loop's tick report (loop/tick_report.h): the controllers' reports, this
 *             tick's host sample, the loop's tick timing and configuration times; and the
 *             socket's own counters
 *   Cgroups   one row per managed cgroup of this tick's snapshot: its sample, and the last
 *             decision the loop kept in its `policy` group of struct cgroup_node
 *   Explain   one cgroup's last decision, term by term: the rule and why it matched, the floor
 *             and which of its terms applied, the law's terms, what the tick's limits did
 *   Reload    the reload hook the loop registered (the path SIGHUP takes; root only)
 *
 * Every handler runs on the main thread between ticks and only reads the report, but Reload,
 * which goes through the hook; the loop fills the report again before the hook returns. Sizes are
 * bytes, times seconds (float) or microseconds (`_us`), percentages `_pct`.
 */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "loop/tick_report.h"
#include "obs/status.h"
#include "obs/varlink.h"
#include "reclaimd/features.h"
#include "reclaimd/log.h"
#include "reclaimd/reclaim_chunk.h"
#include "reclaimd/tiers.h"
#include "reclaimd/version.h"

struct status_server {
	struct varlink_server *server;
	const struct tick_report *rep;  /* the loop's; read only */
	struct status_hooks hooks;
};

const char status_interface_idl[] =
	"# reclaimd's status socket: what the agent is doing, and why.\n"
	"# Sizes are bytes, times seconds unless a name ends in _us (microseconds).\n"
	"interface io.reclaimd\n\n"
	"# The agent: host, NUMA nodes and their worker pools and headroom, swap tiers, zswap,\n"
	"# zram, memory tiers, MGLRU aging, totals, tick timing, configuration, this socket, kernel\n"
	"# features, memory.reclaim writes bounded on an over-reclaiming kernel, the agent's own\n"
	"# cgroup (self: null when it is not watched), and held_back: per controller (zswap, zram,\n"
	"# swap), changes not made because their state-file record failed (changes since start,\n"
	"# failing: the last record tried failed, last_error: its reason or null).\n"
	"method Status() -> (\n"
	"  version: string,\n  protocol: int,\n  host: object,\n  uptime_s: float,\n"
	"  config: object,\n  tick: object,\n  nodes: []object,\n  swap: object,\n"
	"  zswap: object,\n  zram: object,\n  tiers: object,\n  mglru: object,\n"
	"  totals: object,\n  socket: object,\n  features: object,\n  memory_reclaim: object,\n"
	"  self: ?object,\n  held_back: object\n)\n\n"
	"# One row per managed cgroup: rule, policy, memory.current, floor, last decision, ...; kind,\n"
	"# qos, pod_uid, container_id and runtime: what its path says it is (null: not known).\n"
	"method Cgroups() -> (version: string, protocol: int, interval_s: float, cgroups: []object)\n\n"
	"# The last decision on one managed cgroup, term by term. cgroup: a path relative to the cgroup\n"
	"# root, an absolute path below it, a pod UID or a container id (or the start of one, 8 or\n"
	"# more characters); matched_by says which it was (path, cgroupfs_path, pod_uid,\n"
	"# container_id); kind, qos, pod_uid, container_id and runtime what the path says it is.\n"
	"method Explain(cgroup: string) -> (\n"
	"  version: string,\n  protocol: int,\n  cgroup: string,\n  matched_by: string,\n"
	"  kind: ?string,\n  qos: ?string,\n  pod_uid: ?string,\n  container_id: ?string,\n"
	"  runtime: ?string,\n  rule: object,\n"
	"  decision: ?object,\n  inputs: ?object,\n  floor: ?object,\n  law: ?object,\n"
	"  limits: ?object,\n  cold_age: ?object,\n  job: ?object,\n  tiers: ?object\n)\n\n"
	"# Re-reads the configuration file, as SIGHUP does. Root only.\n"
	"method Reload() -> (version: string, protocol: int, config: string, rules: int,\n"
	"  restart_only: []string)\n\n"
	"error NoSuchCgroup (cgroup: string, reason: string)\n\n"
	"error CgroupNotManaged (cgroup: string, reason: string, matched_by: string)\n\n"
	"error ConfigRejected (message: string, file: string, line: int, column: int)\n\n"
	"error PermissionDenied (method: string, needs: string)\n\n"
	"error InvalidRequest (reason: string)\n\n"
	"error RequestTooLarge (max_bytes: int)\n\n"
	"# Too many replies not yet read, or requests sent ahead; the connection is closed.\n"
	"error Busy (reason: string, limit: int)\n";

static const struct varlink_service service = {
	.vendor = "reclaimd",
	.product = "reclaimd",
	.version = RECLAIMD_VERSION,
	.url = "https://github.com/reclaimd/reclaimd",
	.interface = "io.reclaimd",
	.description = status_interface_idl,
};

/* ---- pure helpers ------------------------------------------------------------------------ */

void floor_terms_compute(uint64_t min_bytes, const struct cgroup_sample *s, struct floor_terms *ret)
{
	struct floor_terms t = { .min_bytes = min_bytes, .memory_min_bytes = s->min_bytes,
				 .memory_low_bytes = s->low_bytes,
				 .children_protected_bytes = s->children_protected_bytes };

	t.unreclaimable_bytes = cgroup_unreclaimable_bytes(s);
	t.floor_bytes = MAX(MAX(min_bytes, MAX(t.memory_min_bytes, t.memory_low_bytes)),
			    t.unreclaimable_bytes);
	t.applied = t.floor_bytes == min_bytes ? "min_bytes" :
		    t.floor_bytes == t.memory_min_bytes ? "memory.min" :
		    t.floor_bytes == t.memory_low_bytes ? "memory.low" : "unreclaimable";
	*ret = t;
}

/* JSON for a byte count: an integer, null for "max" (LIMIT_MAX). */
static json_t *jbytes(uint64_t v)
{
	if (v == LIMIT_MAX)
		return json_null();
	return json_integer((json_int_t)MIN(v, (uint64_t)INT64_MAX));
}

static json_t *ju64(uint64_t v)
{
	return json_integer((json_int_t)MIN(v, (uint64_t)INT64_MAX));
}

/* A JSON string of bytes from outside (cgroup and file names, a reason that snprintf() may have
 * cut in the middle of a character): as is when it is UTF-8, else each byte that is not as
 * U+FFFD, since jansson takes UTF-8 only. NULL when out of memory. */
static json_t *jstr(const char *s)
{
	json_t *j = json_string(s);
	char *clean, *p;

	if (j || !s || !(clean = malloc(strlen(s) * 3 + 1)))
		return j;
	for (p = clean; *s;) {
		size_t n = utf8_seq_len(s);

		memcpy(p, n ? s : "\xef\xbf\xbd", n ? n : 3);
		p += n ? n : 3;
		s += n ? n : 1;
	}
	*p = '\0';
	j = json_string(clean);
	free(clean);
	return j;
}

static double seconds(usec_t us)
{
	return (double)us / (double)USEC_PER_SEC;
}

static json_t *head(void)
{
	return json_pack("{s:s,s:i}", "version", RECLAIMD_VERSION, "protocol",
			 RECLAIMD_STATUS_PROTOCOL);
}

/* head() with the members of `o` after it (o is released). NULL when out of memory. */
static json_t *with_head(json_t *o)
{
	json_t *h = head();

	if (!h || !o || json_object_update(h, o) < 0) {
		json_decref(h);
		json_decref(o);
		return NULL;
	}
	json_decref(o);
	return h;
}

static void reply_oom(struct varlink_reply *ret)
{
	ret->error = "io.reclaimd.OutOfMemory";
	ret->parameters = NULL;
}

/* ---- Status ------------------------------------------------------------------------------ */

static json_t *status_nodes(const struct dispatcher_report *dr, const struct headroom_report *hr)
{
	json_t *nodes = json_array();

	for (unsigned i = 0; nodes && i < dr->n_pools; i++) {
		const struct dispatcher_node_report *n = &dr->node[i];
		const struct headroom_node_report *h =
			hr->enabled && (unsigned)n->node < hr->n_nodes && hr->node[n->node].considered ?
			&hr->node[n->node] : NULL;
		json_t *hj = h ? json_pack("{s:o,s:o,s:o,s:o,s:o,s:b}",
					   "free_bytes", ju64(h->free_bytes),
					   "high_watermark_bytes", ju64(h->high_bytes),
					   "goal_bytes", ju64(h->high_bytes + h->goal_bytes),
					   "deficit_bytes", ju64(h->deficit_bytes),
					   "covered_by_other_nodes_bytes", ju64(h->fallback_bytes),
					   "refilling", h->refilling) : json_null();

		json_array_append_new(nodes, json_pack("{s:i,s:I,s:I,s:I,s:I,s:f,s:o,s:o,s:o}",
			"node", n->node, "workers", (json_int_t)n->n_workers,
			"allowed_workers", (json_int_t)n->allowed, "busy_workers", (json_int_t)n->busy,
			"queued_jobs", (json_int_t)n->queued, "idle_cores", n->idle_cores,
			"reclaimed_bytes", ju64(n->reclaimed_bytes),
			"jobs_dropped", ju64(n->jobs_dropped), "headroom", hj));
	}
	return nodes;
}

static bool is_zram(const char *path)
{
	return strncmp(path, "/dev/zram", 9) == 0;
}

/* kubelet_node: what makes this a kubelet node (a kubepods cgroup, or KUBELET_STATE_DIR), or
 * null; swapon_held: the configured devices the last arrangement left off because of it. */
static json_t *status_swap(const struct host_sample *h, const struct swap_tiers_report *sr,
			   bool allow_on_kubelet_node)
{
	json_t *devs = json_array();

	for (size_t i = 0; devs && i < h->swaps.n; i++) {
		const struct swap_device *s = &h->swaps.dev[i];

		json_array_append_new(devs, json_pack("{s:o,s:s,s:i,s:o,s:o}", "path", jstr(s->path),
			"type", is_zram(s->path) ? "zram" : s->is_partition ? "partition" : "file",
			"priority", s->priority, "size_bytes", ju64(s->size_bytes),
			"used_bytes", ju64(s->used_bytes)));
	}
	return json_pack("{s:o,s:o,s:o,s:o,s:o,s:i,s:b}", "devices", devs,
			 "total_bytes", ju64(h->meminfo.swap_total),
			 "free_bytes", ju64(h->meminfo.swap_free),
			 "swapout_swappiness_cap", sr->swapout_cap == SWAPPINESS_UNSET ? json_null() :
			 json_integer(sr->swapout_cap),
			 "kubelet_node", sr->kubepods_path ? jstr(sr->kubepods_path) : json_null(),
			 "swapon_held", (int)sr->held, "allow_on_kubelet_node", allow_on_kubelet_node);
}

static json_t *status_zswap(const struct host_sample *h, const struct zswap_report *zr)
{
	const struct zswap_params *p = &h->zswap_params;

	return json_pack("{s:b,s:b,s:s?,s:I,s:I,s:b,s:o,s:o,s:f,s:o,s:o,s:o,s:f,s:o}",
		"available", p->available, "enabled", p->enabled,
		"compressor", p->available ? p->compressor : NULL,
		"max_pool_percent", (json_int_t)p->max_pool_percent,
		"accept_threshold_percent", (json_int_t)p->accept_threshold_percent,
		"stats_available", h->zswap.available,
		"pool_bytes", ju64(h->zswap.pool_total_size_bytes),
		"stored_pages", ju64(h->zswap.stored_pages),
		"pool_fill_pct", zr->pool_fill * 100.0,
		"inversions", ju64(zr->inversions),
		"shrinker_switches", ju64(zr->shrinker_switches),
		"zswap_max_writes", ju64(zr->zswap_max_writes),
		"pacing_step_factor", zr->limits.step_factor,
		"room_bytes", jbytes(zr->limits.zswap_room_bytes));
}

static json_t *status_zram(const struct host_sample *h, const struct zram_report *zm)
{
	json_t *devs = json_array();

	for (size_t i = 0; devs && i < h->swaps.n; i++)
		if (is_zram(h->swaps.dev[i].path))
			json_array_append_new(devs, jstr(h->swaps.dev[i].path + 5));
	return json_pack("{s:o,s:o,s:o,s:b}", "swap_devices", devs,
			 "written_back_bytes", ju64(zm->written_bytes),
			 "day_written_back_bytes", ju64(zm->day_written_bytes),
			 "round_running", zm->running);
}

/* One controller's changes held back for want of a state-file record (ctl/record_first.h). */
static json_t *status_held_back_one(const struct held_back *hb)
{
	return json_pack("{s:o,s:b,s:o}", "changes", ju64(hb->count), "failing", hb->failing,
			 "last_error", hb->last_error ? jstr(strerror(-hb->last_error)) : json_null());
}

static json_t *status_held_back(const struct tick_report *r)
{
	return json_pack("{s:o,s:o,s:o}", "zswap", status_held_back_one(&r->zswap.held_back),
			 "zram", status_held_back_one(&r->zram.held_back),
			 "swap", status_held_back_one(&r->swap_tiers.held_back));
}

/* Memory tiers (tiers_ctl.h): one entry per tiered node, fastest tier first; the kernel's
 * counters since boot (all reclaimers), and what reclaimd's own jobs demoted and freed. */
static json_t *status_tiers(const struct tiers_report *tr, const struct dispatcher_report *dr,
			    uint64_t page_size)
{
	json_t *nodes = json_array();

	for (unsigned i = 0; nodes && i < tr->n_nodes; i++) {
		const struct tiers_node_report *n = &tr->node[i];

		json_array_append_new(nodes, json_pack("{s:i,s:I,s:s,s:o?,s:o?,s:o?,s:o?,s:o?,s:o?}",
			"node", n->node, "tier", (json_int_t)n->tier_id, "role", tier_role_str(n->role),
			"mem_total_bytes", n->sampled ? ju64(n->mem_total_bytes) : NULL,
			"mem_used_bytes", n->sampled ? ju64(n->mem_used_bytes) : NULL,
			"demoted_bytes", n->sampled ? ju64(n->demoted_pages * page_size) : NULL,
			"promoted_bytes", n->sampled ? ju64(n->promoted_pages * page_size) : NULL,
			"high_watermark_bytes", n->room_known ? ju64(n->high_bytes) : NULL,
			"room_bytes", n->room_known ? ju64(n->room_bytes) : NULL));
	}
	return json_pack("{s:i,s:b,s:o,s:o,s:o,s:o,s:o,s:o,s:i,s:b,s:s?,s:o,s:o}",
			 "tiers", (int)tr->n_tiers, "demotion", tr->demotion, "nodes", nodes,
			 "reclaimd_demoted_bytes", ju64(dr->total_demoted_bytes),
			 "reclaimd_freed_bytes", ju64(dr->total_reclaimed_bytes),
			 "role_changes", ju64(tr->changes),
			 "shaped_requests", ju64(tr->shaped_requests),
			 "held_back_bytes", ju64(tr->held_back_bytes),
			 "cgroups_backing_off", (int)tr->cgroups_backing_off,
			 "lower_full", tr->lower_full,
			 "reason", tr->lower_full ? "lower tier full" : NULL,
			 "room_held_bytes", ju64(tr->room_held_bytes),
			 "lower_full_requests", ju64(tr->lower_full_requests));
}

/* The absolute path of the cgroup root the agent walks, as the kernel names the directory it
 * opened (/proc/self/fd/N, proc_pid_readlink(); symbolic links resolved): true and the path in
 * buf, false when it cannot be read or does not fit. */
static bool cgroup_root_path(const struct tick_report *r, char *buf, size_t size)
{
	char link[64];
	ssize_t n;

	if (!r->cgroups || !r->cgroups->root || r->cgroups->root->dirfd < 0 || size < 2)
		return false;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", r->cgroups->root->dirfd);
	n = readlink(link, buf, size - 1);
	if (n <= 0 || (size_t)n >= size - 1 || buf[0] != '/')
		return false;
	buf[n] = '\0';
	return true;
}

static json_t *status_config(const struct tick_report *r, usec_t now_real)
{
	char when[64] = "", root[PATH_MAX];
	time_t t = (time_t)(r->timing.config_loaded_realtime_us / USEC_PER_SEC);
	struct tm tm;

	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_t *o = json_pack("{s:o?,s:s,s:f,s:I,s:f,s:b,s:o,s:o,s:s?,s:s?}",
		"file", jstr(r->opts->config_path), "loaded_at", when,
		"loaded_ago_s", seconds(sub_sat(now_real, r->timing.config_loaded_realtime_us)),
		"rules", (json_int_t)r->ctx.config->n_rules,
		"interval_s", seconds(r->ctx.config->interval_us), "dry_run", r->opts->dry_run,
		"reloads", ju64(r->timing.reloads), "reloads_rejected", ju64(r->timing.reloads_rejected),
		"status_socket", r->ctx.config->status.socket,
		"status_read_group", r->ctx.config->status.read_group);

	if (o && cgroup_root_path(r, root, sizeof(root)))
		json_object_set_new(o, "cgroup_root", jstr(root));
	return o;
}

static json_t *status_tick(const struct tick_report *r)
{
	const struct tick_timing *o = &r->timing;
	usec_t recent = 0;

	for (unsigned i = 0; i < LOOP_RECENT_TICKS; i++)
		recent = MAX(recent, o->late_recent_us[i]);
	return json_pack("{s:I,s:f,s:o,s:o,s:o,s:o,s:o}", "count", (json_int_t)r->ctx.tick,
		"interval_s", seconds(r->ctx.config->interval_us),
		"late_last_us", ju64(o->late_last_us), "late_max_us", ju64(o->late_max_us),
		"late_recent_max_us", ju64(recent),
		"run_last_us", ju64(o->run_last_us), "run_max_us", ju64(o->run_max_us));
}

/* reclaimd's own memcg (self_watch.h), or null when it is not watched. */
static json_t *status_self(const struct self_watch_report *r)
{
	if (!r->watched)
		return json_null();
	return json_pack("{s:o,s:o,s:o,s:o,s:b,s:o}", "cgroup", jstr(r->path),
		"memory_current_bytes", ju64(r->current_bytes),
		"memory_high_bytes", r->high_bytes == LIMIT_MAX ? json_null() : ju64(r->high_bytes),
		"high_events", ju64(r->high_events), "throttled", r->throttled,
		"episodes", ju64(r->episodes));
}

/* The kernel feature table (features.h): one member per feature, by name. */
static json_t *status_features(const struct feature_table *t)
{
	json_t *o = json_object();

	for (unsigned i = 0; o && i < _FEATURE_MAX; i++) {
		const struct feature_info *f = feature_info((enum feature_id)i);
		char since[32] = "";

		if (f->since_major)
			snprintf(since, sizeof(since), "%u.%u", f->since_major, f->since_minor);
		json_object_set_new(o, f->name, json_pack("{s:s,s:s,s:s,s:s?,s:s,s:s?}",
			"state", feature_state_str((enum feature_state)t->state[i]),
			"how", feature_how_str((enum feature_how)t->how[i]), "what", f->what,
			"since", since[0] ? since : NULL, "source", f->source,
			"fallback", t->state[i] == FEATURE_ABSENT ? f->fallback : NULL));
	}
	return o;
}

/* memory.reclaim writes bounded on an over-reclaiming kernel (reclaim_chunk.h): whether, why,
 * and how many. */
static json_t *status_memory_reclaim(const struct dispatcher_report *dr, uint64_t page_size)
{
	bool bounded = dr->bounded != RECLAIM_UNBOUNDED;
	bool measured = dr->bounded == RECLAIM_BOUNDED_MEASURED;

	return json_pack("{s:b,s:s?,s:o?,s:o?,s:o,s:o,s:o?,s:o?}", "bounded", bounded,
		"reason", bounded ? reclaim_bound_str(dr->bounded) : NULL,
		"max_pages_per_write", bounded ? json_integer(RECLAIM_CHUNK_BOUNDED_PAGES) : NULL,
		"max_bytes_per_write", bounded && page_size ?
			ju64((uint64_t)RECLAIM_CHUNK_BOUNDED_PAGES * page_size) : NULL,
		"bounded_jobs", ju64(dr->bounded_jobs), "bounded_writes", ju64(dr->bounded_writes),
		"overshoot_written_bytes", measured ? ju64(dr->overshoot_written_bytes) : NULL,
		"overshoot_reclaimed_bytes", measured ? ju64(dr->overshoot_reclaimed_bytes) : NULL);
}

static usec_t realtime_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (usec_t)ts.tv_sec * USEC_PER_SEC + (usec_t)ts.tv_nsec / 1000;
}

static void m_status(void *userdata, const struct varlink_call *call _unused_,
		     struct varlink_reply *ret)
{
	struct status_server *st = userdata;
	const struct tick_report *r = st->rep;
	const struct host_sample *h = &r->ctx.snap->host;
	const struct dispatcher_report *dr = &r->dispatcher;
	const struct headroom_report *hr = &r->headroom;
	const struct aging_report *ar = &r->aging;
	struct varlink_server_stats vs;
	struct utsname u;
	char hostname[256] = "";
	json_t *o;

	varlink_server_stats(st->server, &vs);
	if (uname(&u) < 0)
		u.release[0] = '\0';
	gethostname(hostname, sizeof(hostname) - 1);

	o = json_pack("{s:{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:I,s:I},s:f,s:o,s:o,s:o,s:o,s:o,s:o,s:o,"
		      "s:{s:b,s:o,s:o},s:{s:I,s:I,s:o,s:o,s:o,s:I,s:o,s:o,s:o,s:o,s:o},"
		      "s:{s:o?,s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}}",
		"host", "hostname", jstr(hostname), "kernel", jstr(u.release),
		"mem_total_bytes", ju64(h->meminfo.mem_total),
		"mem_free_bytes", ju64(h->meminfo.mem_free),
		"mem_available_bytes", ju64(h->meminfo.mem_available),
		"swap_total_bytes", ju64(h->meminfo.swap_total),
		"swap_free_bytes", ju64(h->meminfo.swap_free),
		"page_size", (json_int_t)r->ctx.snap->page_size,
		"vm_swappiness", (json_int_t)h->vm_swappiness,
		"uptime_s", seconds(sub_sat(now_us(), r->timing.started_us)),
		"config", status_config(r, realtime_now_us()),
		"tick", status_tick(r),
		"nodes", status_nodes(dr, hr),
		"swap", status_swap(h, &r->swap_tiers, r->ctx.config->swap.allow_on_kubelet_node),
		"zswap", status_zswap(h, &r->zswap),
		"zram", status_zram(h, &r->zram),
		"tiers", status_tiers(&r->tiers, dr, r->ctx.snap->page_size),
		"mglru", "active", ar->active, "lruvecs_aged", ju64(ar->lruvecs_aged),
		"aging_jobs", ju64(ar->aging_jobs),
		"totals", "managed_cgroups", (json_int_t)r->n_managed,
		"known_cgroups", (json_int_t)r->cgroups->n,
		"reclaimed_bytes", ju64(dr->total_reclaimed_bytes),
		"jobs_submitted", ju64(dr->jobs_submitted), "jobs_dropped", ju64(dr->jobs_dropped),
		"jobs_in_flight", (json_int_t)dr->pending,
		"lru_gen_evict_jobs", ju64(dr->lru_gen_evict_jobs),
		"headroom_checks", ju64(hr->checks),
		"headroom_requested_bytes", ju64(hr->requested_bytes),
		"headroom_requests", ju64(hr->requests),
		"headroom_last_resort_requests", ju64(hr->last_resort_requests),
		"socket", "path", jstr(varlink_server_path(st->server)),
		"clients", (json_int_t)vs.clients, "accepted", ju64(vs.accepted),
		"refused_busy", ju64(vs.refused_busy), "evicted_idle", ju64(vs.evicted_idle),
		"evicted_pending", ju64(vs.evicted_pending),
		"refused_output", ju64(vs.refused_output),
		"refused_pipelined", ju64(vs.refused_pipelined),
		"calls", ju64(vs.calls),
		"bad_requests", ju64(vs.bad_requests), "denied", ju64(vs.denied),
		"timeouts", ju64(vs.timeouts));
	if (o) {
		json_object_set_new(json_object_get(o, "host"), "vm_zone_reclaim_mode",
				    json_integer(h->vm_zone_reclaim_mode));
		json_object_set_new(json_object_get(o, "totals"), "headroom_fallback",
				    json_boolean(hr->fallback));
		json_object_set_new(o, "features", status_features(r->ctx.features));
		json_object_set_new(o, "self", status_self(&r->self));
		json_object_set_new(o, "held_back", status_held_back(r));
		json_object_set_new(o, "memory_reclaim", status_memory_reclaim(dr, r->ctx.snap->page_size));
		json_object_set_new(json_object_get(o, "totals"), "headroom_node_reclaim",
			json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
				  "requests", ju64(hr->node_reclaim.requests),
				  "requested_bytes", ju64(hr->node_reclaim.requested_bytes),
				  "done", ju64(hr->node_reclaim.done),
				  "reclaimed_bytes", ju64(hr->node_reclaim.reclaimed_bytes),
				  "partial", ju64(hr->node_reclaim.partial),
				  "busy", ju64(hr->node_reclaim.busy),
				  "cancelled", ju64(hr->node_reclaim.cancelled),
				  "failed", ju64(hr->node_reclaim.failed)));
	}
	ret->parameters = with_head(o);
	if (!ret->parameters)
		reply_oom(ret);
}

/* ---- Cgroups ----------------------------------------------------------------------------- */

static long rule_index(const struct tick_report *r, const struct cgroup_node *cg)
{
	return cg->rule ? (long)(cg->rule - r->ctx.config->rules) : -1;
}

static json_t *job_json(const struct cgroup_node *cg)
{
	if (!dispatcher_busy(cg))
		return json_null();
	return json_pack("{s:o,s:b}", "request_bytes", ju64(dispatcher_job_request_bytes(cg)),
			 "headroom", (cg->job.flags & DISPATCH_HEADROOM) != 0);
}

/* What the cgroup's path says it is (reclaimd/workload.h), set on o: "kind" ("pod",
 * "container", ...; null when not recognised), "qos" (a pod's class, in a pod; else null),
 * "pod_uid" (with '-', as the Kubernetes API shows it; null outside a pod), "container_id" (64 hex
 * digits; null when not a container) and "runtime" (null when not a container). */
static void workload_fields(json_t *o, const struct workload *w)
{
	const char *kind = w->kind != WORKLOAD_OTHER ? workload_kind_name(w->kind) : NULL;
	const char *qos = w->qos != WORKLOAD_QOS_NONE ? workload_qos_name(w->qos) : NULL;
	const char *rt = w->runtime != WORKLOAD_RUNTIME_NONE ? workload_runtime_name(w->runtime) : NULL;

	json_object_set_new(o, "kind", kind ? json_string(kind) : json_null());
	json_object_set_new(o, "qos", qos ? json_string(qos) : json_null());
	json_object_set_new(o, "pod_uid", w->pod_uid[0] ? json_string(w->pod_uid) : json_null());
	json_object_set_new(o, "container_id",
			    w->container_id[0] ? json_string(w->container_id) : json_null());
	json_object_set_new(o, "runtime", rt ? json_string(rt) : json_null());
}

/* The interval's pages back (pages_back.h) with the raw counter deltas it was made from, so an
 * operator sees where the pages came from; null before a cgroup has two samples. */
static json_t *pages_back_json(bool has_prev, const struct pages_back *b,
			       const struct pages_back_deltas *dl, unsigned features, double per_s,
			       usec_t elapsed_us)
{
	if (!has_prev)
		return json_null();
	return json_pack("{s:f,s:o,s:f,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:b,s:b}",
		"pages_per_s", per_s, "pages", ju64(b->pages), "interval_s", seconds(elapsed_us),
		"from", b->from_io ? "io.stat reads + zswpin (at least the refaults and the swap-in major faults)" :
			"refault_file + max(refault_anon, pgmajfault, zswpin): no io.stat",
		"refault_anon_pages", ju64(dl->refault_anon),
		"refault_file_pages", ju64(dl->refault_file),
		"pgmajfault", ju64(dl->pgmajfault), "zswpin_pages", ju64(dl->zswpin),
		"io_read_bytes", ju64(dl->io_read_bytes), "io_read_pages", ju64(b->io_pages),
		"refault_pages", ju64(b->refaults),
		"has_io_stat", (features & PAGES_BACK_HAS_IO_STAT) != 0,
		"has_zswpin", (features & PAGES_BACK_HAS_ZSWPIN) != 0);
}

/* The cold-memory report's idle bytes by age: {"60": bytes, "120": .., "300": .., "600": ..},
 * each a lower bound, null where the age is beyond the horizon or nothing was read this tick
 * (h NULL): not known, never a false 0. */
static json_t *idle_bytes_json(const struct cold_hist_cgroup *h, uint64_t page)
{
	json_t *o = json_object();

	for (unsigned i = 0; o && i < COLD_HIST_N_AGES; i++) {
		char key[16];

		snprintf(key, sizeof(key), "%u", cold_hist_age_s[i]);
		json_object_set_new(o, key, h && cold_hist_known(&h->report, i) ?
					    ju64(h->report.idle_pages[i] * page) : json_null());
	}
	return o;
}

static json_t *horizon_json(const struct cold_hist_cgroup *h)
{
	return h ? json_real((double)h->report.horizon_ms / 1000.0) : json_null();
}

/* Policy observe: the cold bytes at its cold age above its floor, what a psi rule with the same
 * parameters could take now (limits.h caps a request at them); null for other policies or
 * before a decision. */
static json_t *would_reclaim_json(const struct cgroup_node *cg)
{
	const typeof(cg->policy.last) *l = &cg->policy.last;

	if (!cg->rule || !cg->rule->policy->never_reclaims || !l->at_us || !l->mglru)
		return json_null();
	return ju64(MIN(l->cold_bytes, l->dec.reclaimable_bytes));
}

static json_t *cgroup_row(const struct tick_report *r, const struct cgroup_node *cg,
			  const struct cgroup_sample *s, usec_t now)
{
	const typeof(cg->policy.last) *l = &cg->policy.last;
	bool decided = l->at_us != 0;

	json_t *o = json_pack("{s:o,s:s?,s:I,s:s?,s:o,s:o,s:o,s:o,s:o,s:s?,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
		"cgroup", jstr(cg->path), "rule", cg->rule ? cg->rule->match : NULL,
		"rule_index", (json_int_t)rule_index(r, cg),
		"policy", cg->rule ? cg->rule->policy->name : NULL,
		"current_bytes", ju64(s->current_bytes),
		"floor_bytes", decided ? ju64(l->dec.floor_bytes) : json_null(),
		"reclaimable_bytes", decided ? ju64(l->dec.reclaimable_bytes) : json_null(),
		"step", decided ? json_real(l->dec.step) : json_null(),
		"request_bytes", decided ? ju64(l->dec.request_bytes) : json_null(),
		"decision", decided ? decision_reason_str(l->dec.reason) : NULL,
		"decided_ago_s", decided ? json_real(seconds(sub_sat(now, l->at_us))) : json_null(),
		"psi_some_pct", decided ? json_real(l->dec.psi_some_pct) : json_null(),
		"io_some_pct", decided ? json_real(l->dec.io_some_pct) : json_null(),
		"reclaimed_total_bytes", ju64(cg->job.total_reclaimed_bytes),
		"zswap_bytes", ju64(s->zswap_current_bytes),
		"memory_high_bytes", jbytes(s->high_bytes),
		"memory_max_bytes", jbytes(s->max_bytes),
		"pages_back", pages_back_json(s->has_prev, &s->back, &s->back_deltas,
					      s->back_features, s->back_pages_per_s, s->elapsed_us),
		"job", job_json(cg));

	if (o) {
		const struct cold_hist_cgroup *h = tick_report_cold_hist(r, cg);
		uint64_t page = r->ctx.snap->page_size ? r->ctx.snap->page_size : 4096;

		workload_fields(o, &cg->workload);
		json_object_set_new(o, "idle_bytes", idle_bytes_json(h, page));
		json_object_set_new(o, "idle_horizon_s", horizon_json(h));
		json_object_set_new(o, "would_reclaim_bytes", would_reclaim_json(cg));
	}
	return o;
}

static int cmp_row(const void *a, const void *b)
{
	const struct cgroup_sample *x = *(const struct cgroup_sample *const *)a;
	const struct cgroup_sample *y = *(const struct cgroup_sample *const *)b;

	return strcmp(x->path, y->path);
}

static void m_cgroups(void *userdata, const struct varlink_call *call _unused_,
		      struct varlink_reply *ret)
{
	struct status_server *st = userdata;
	const struct tick_report *r = st->rep;
	const struct snapshot *snap = r->ctx.snap;
	size_t n = snap->n_cgroups;
	const struct cgroup_sample **order = calloc(n ? n : 1, sizeof(*order));
	json_t *rows = json_array();
	usec_t now = now_us();

	if (!order || !rows) {
		free(order);
		json_decref(rows);
		reply_oom(ret);
		return;
	}
	/* By path, with each sample's node found through its index in the snapshot. */
	for (size_t i = 0; i < n; i++)
		order[i] = &snap->cgroups[i];
	qsort(order, n, sizeof(*order), cmp_row);
	for (size_t k = 0; k < n; k++) {
		size_t i = (size_t)(order[k] - snap->cgroups);

		json_array_append_new(rows, cgroup_row(r, r->ctx.cgroups[i], order[k], now));
	}
	free(order);
	ret->parameters = with_head(json_pack("{s:f,s:o}", "interval_s",
					      seconds(r->ctx.config->interval_us), "cgroups", rows));
	if (!ret->parameters)
		reply_oom(ret);
}

/* ---- Explain ----------------------------------------------------------------------------- */

/* "a/b" from "/a/b/", "a/b", "a//b" stays as it is (no such cgroup). malloc'ed (a cgroup's
 * path has no length limit), NULL when out of memory. */
static char *normalize_path(const char *in)
{
	char *out;
	size_t len;

	while (*in == '/')
		in++;
	if (!(out = strdup(in)))
		return NULL;
	len = strlen(out);
	while (len > 0 && out[len - 1] == '/')
		out[--len] = '\0';
	return out;
}

static const char *not_managed_reason(const struct tick_report *r, const struct cgroup_node *cg,
				      char *buf, size_t size)
{
	if (!cg->parent)
		return "it is the root cgroup, which is never managed";
	if (!cg->has_memory)
		return "its parent does not enable the memory controller for it (no memory.current)";
	if (!cg->rule && workload_never_target(&cg->workload)) {
		snprintf(buf, size, "it is never a target (%s): no rule can match it",
			 workload_kind_name(cg->workload.kind));
		return buf;
	}
	/* Inside a pod that a pod-level rule takes as a whole (config_match_workload()). */
	if (!cg->rule && cg->workload.kind != WORKLOAD_POD && cg->workload.pod_path_len) {
		const struct cgroup_node *pod = cg->parent;

		while (pod && strlen(pod->path) > cg->workload.pod_path_len)
			pod = pod->parent;
		if (pod && pod->rule && strlen(pod->path) == cg->workload.pod_path_len &&
		    rule_level(pod->rule) == RULE_LEVEL_POD) {
			snprintf(buf, size, "rules[%ld] \"%s\" takes its pod %s at the pod level: "
				 "nothing inside the pod matches a rule", rule_index(r, pod),
				 pod->rule->match, pod->path);
			return buf;
		}
	}
	if (!cg->rule)
		return "no rule matches it";
	if (!cg->rule_manages) {
		snprintf(buf, size, "rules[%ld] \"%s\", the first rule that matches it, gives it "
			 "policy none: excluded", rule_index(r, cg), cg->rule->match);
		return buf;
	}
	if (cg->walk_truncated)
		return "it sits at the cgroup walk's depth limit: its descendants are not known";
	if (cg->has_matching_descendant) {
		snprintf(buf, size, "rules[%ld] \"%s\" matches it, but so do cgroups below it: only "
			 "the deepest matching cgroups are managed", rule_index(r, cg), cg->rule->match);
		return buf;
	}
	return "not managed yet (it is picked up at the next tick)";
}

static json_t *explain_rule(const struct tick_report *r, const struct cgroup_node *cg)
{
	char why[512];
	long idx = rule_index(r, cg);

	snprintf(why, sizeof(why), "rules[%ld] \"%s\" is the first rule (of %zu) whose match "
		 "matches \"%s\"%s; no cgroup below it matches a rule, so it is managed (only the "
		 "deepest matching cgroups are)", idx, cg->rule->match, r->ctx.config->n_rules, cg->path,
		 idx > 0 ? " (the rules before it do not)" : "");
	return json_pack("{s:I,s:s,s:s,s:o}", "index", (json_int_t)idx, "match", cg->rule->match,
			 "policy", cg->rule->policy->name, "why", jstr(why));
}

static json_t *explain_decision(const struct tick_report *r, const struct cgroup_node *cg, usec_t now,
				json_t **ret_inputs, json_t **ret_floor, json_t **ret_law,
				json_t **ret_limits, json_t **ret_cold)
{
	const typeof(cg->policy.last) *l = &cg->policy.last;
	const struct policy_params *pp = &cg->rule->params;
	uint64_t page = r->ctx.snap->page_size ? r->ctx.snap->page_size : 4096;
	struct floor_terms ft;
	double factor, refault_factor, computed;
	struct cgroup_sample in = {
		.current_bytes = l->current_bytes, .min_bytes = l->memory_min_bytes,
		.low_bytes = l->memory_low_bytes, .high_bytes = l->memory_high_bytes,
		.children_protected_bytes = l->children_protected_bytes,
		.child_at_high = l->child_at_high,
		.swap_room_bytes = l->swap_room_bytes,
		.stat = { .anon = l->anon_bytes, .file = l->file_bytes },
	};

	floor_terms_compute(pp->min_bytes, &in, &ft);
	factor = l->dec.psi_some_pct >= pp->psi_some_target_pct ? 0.0 :
		 1.0 - l->dec.psi_some_pct / pp->psi_some_target_pct;
	/* As the psi policy applied it (0 without MGLRU aging, and for other policies). */
	refault_factor = l->dec.refault_ratio >= 1.0 ? 0.0 : 1.0 - l->dec.refault_ratio;
	computed = (double)l->dec.reclaimable_bytes * l->dec.step * factor * refault_factor;
	*ret_inputs = json_pack("{s:o,s:o,s:o,s:o,s:o,s:b,s:o,s:o,s:o,s:o,s:b,s:b,s:o}",
		"current_bytes", ju64(l->current_bytes),
		"memory_min_bytes", ju64(l->memory_min_bytes),
		"memory_low_bytes", ju64(l->memory_low_bytes),
		"memory_high_bytes", jbytes(l->memory_high_bytes),
		"children_protected_bytes", ju64(l->children_protected_bytes),
		"at_high", cgroup_at_high(&in),
		"anon_bytes", ju64(l->anon_bytes), "file_bytes", ju64(l->file_bytes),
		"swap_room_bytes", ju64(l->swap_room_bytes), "cold_bytes", ju64(l->cold_bytes),
		"mglru", l->mglru, "reaches_zswap", l->reaches_zswap,
		"pages_back", pages_back_json(l->elapsed_us != 0, &l->back, &l->back_deltas,
					      l->back_features, l->back_pages_per_s, l->elapsed_us));
	*ret_floor = json_pack("{s:o,s:s,s:o,s:o,s:o,s:o,s:o,s:o}",
		"floor_bytes", ju64(l->dec.floor_bytes), "applied", ft.applied,
		"min_bytes", ju64(ft.min_bytes), "memory_min_bytes", ju64(ft.memory_min_bytes),
		"memory_low_bytes", ju64(ft.memory_low_bytes),
		"children_protected_bytes", ju64(ft.children_protected_bytes),
		"unreclaimable_bytes", ju64(ft.unreclaimable_bytes),
		"evictable_bytes", ju64(sub_sat(l->current_bytes, ft.unreclaimable_bytes)));
	*ret_law = json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:o,s:f,s:o,s:s,"
			     "s:I}",
		"psi_some_pct", l->dec.psi_some_pct, "psi_some_target_pct", pp->psi_some_target_pct,
		"io_some_pct", l->dec.io_some_pct, "io_psi_some_target_pct", pp->io_psi_some_target_pct,
		"step", l->dec.step, "probe_min", pp->probe_min, "probe_growth", pp->probe_growth,
		"probe_max", pp->probe_max, "next_step", cg->policy.state.step,
		"pressure_factor", factor, "refaults_per_min", l->dec.refaults_per_min,
		"refault_limit_per_min", l->dec.back_limit_per_min,
		"refault_factor", refault_factor, "reclaimable_bytes", ju64(l->dec.reclaimable_bytes),
		"computed_bytes", computed, "request_bytes", ju64(l->policy_request_bytes),
		"reason", decision_reason_str(l->policy_reason), "page_size", (json_int_t)page);
	*ret_limits = json_pack("{s:f,s:o,s:b,s:b,s:o,s:s}",
		"pacing_step_factor", l->pacing,
		"cold_cap_bytes", l->mglru ? ju64(l->cold_bytes) : json_null(),
		"reaches_zswap", l->reaches_zswap, "file_only", l->file_only,
		"request_bytes", ju64(l->dec.request_bytes),
		"reason", decision_reason_str(l->dec.reason));
	*ret_cold = l->mglru ? json_pack("{s:f,s:f,s:o,s:b,s:f,s:f,s:f}",
		"cold_age_s", (double)l->dec.cold_age_ms / 1000.0,
		"previous_cold_age_s", (double)l->dec.prev_cold_age_ms / 1000.0,
		"histogram_floor_s", l->dec.hist_cold_age_ms ?
			json_real((double)l->dec.hist_cold_age_ms / 1000.0) : json_null(),
		"raised_by_histogram", l->dec.cold_age_from_hist,
		"pages_back_per_min", l->dec.back_per_min,
		"refault_target_pct", pp->refault_target_pct,
		"max_cold_age_s", (double)pp->max_cold_age_s) : json_null();
	return json_pack("{s:I,s:f,s:s,s:o,s:b}", "tick", (json_int_t)l->tick,
			 "ago_s", seconds(sub_sat(now, l->at_us)),
			 "reason", decision_reason_str(l->dec.reason),
			 "request_bytes", ju64(l->dec.request_bytes), "dry_run", r->opts->dry_run);
}

/* The cold-memory report of Explain: the idle bytes by age, the generation points it was made
 * from, the promotion rates by idle age and the cold age they suggest, with why (cold_hist.h).
 * NULL when the cgroup's lruvecs were not read this tick (no MGLRU aging, a dry run). */
static json_t *explain_cold_memory(const struct tick_report *r, const struct cgroup_node *cg)
{
	const struct cold_hist_cgroup *h = tick_report_cold_hist(r, cg);
	uint64_t page = r->ctx.snap->page_size ? r->ctx.snap->page_size : 4096;
	const struct policy_params *pp = &cg->rule->params;
	const struct cold_hist_choice *c;
	uint64_t floor_ms;
	json_t *gens, *rates;

	if (!h)
		return NULL;
	c = &h->choice;
	gens = json_array();
	rates = json_array();
	for (unsigned i = 0; gens && i < h->report.n_points; i++)
		json_array_append_new(gens, json_pack("{s:f,s:o}",
			"idle_s", (double)h->report.points[i].idle_ms / 1000.0,
			"bytes", ju64(h->report.points[i].pages * page)));
	for (unsigned b = 0; rates && b < COLD_HIST_N_RATES; b++)
		json_array_append_new(rates, json_pack("{s:I,s:f,s:f,s:f,s:b}",
			"idle_s", (json_int_t)cold_hist_rate_age_s(b),
			"pages_per_min", h->rates.per_min[b],
			"pct_per_min", h->report.total_pages ?
				100.0 * h->rates.per_min[b] / (double)h->report.total_pages : 0.0,
			"watched_s", seconds(h->rates.watched_us[b]),
			"known", h->rates.watched_us[b] >= COLD_HIST_MIN_EVIDENCE_US &&
				 h->report.horizon_ms >= cold_hist_rate_age_s(b) * 1000));
	floor_ms = cold_hist_choice_floor_ms(c);
	return json_pack("{s:o,s:f,s:o,s:I,s:o,s:b,s:o,s:{s:o,s:s,s:I,s:f,s:f,s:I,s:f,s:I,s:o,s:b,s:o}}",
		"idle_bytes", idle_bytes_json(h, page),
		"idle_horizon_s", (double)h->report.horizon_ms / 1000.0,
		"total_bytes", ju64(h->report.total_pages * page),
		"lruvecs", (json_int_t)h->report.n_lruvecs,
		"generations", gens ? gens : json_null(),
		"generations_merged", h->report.points_merged,
		"promotions", rates ? rates : json_null(),
		"suggestion",
		"cold_age_s", c->age_s ? ju64(c->age_s) : json_null(),
		"reason", cold_choice_reason_str(c->reason),
		"bucket_s", (json_int_t)c->bucket_s,
		"rate_pages_per_min", c->rate_pages_per_min,
		"rate_pct_per_min", c->rate_pct,
		"candidates_over", (json_int_t)c->candidates_over,
		"refault_target_pct", pp->refault_target_pct,
		"max_cold_age_s", (json_int_t)pp->max_cold_age_s,
		"would_reclaim_bytes", would_reclaim_json(cg),
		"used", floor_ms > 0,
		"floor_s", floor_ms ? json_real((double)floor_ms / 1000.0) : json_null());
}

/* The memory tier plan of the cgroup's last eviction (tiers_ctl_shape()), or NULL when none was
 * made (one tier, demotion off, memory.reclaim, a dry run). */
static json_t *explain_tiers(const struct tick_report *r, const struct cgroup_node *cg)
{
	const struct tiers_cgroup *st = cg->tiers.state;
	const struct tiers_last_plan *l = st ? &st->last : NULL;
	struct tier_plan p;

	if (!l || !l->tick)
		return NULL;
	p = (struct tier_plan){ .held_back_bytes = l->held_back_bytes,
				.room_held_bytes = l->room_held_bytes, .lower_full = l->lower_full };
	return json_pack("{s:I,s:f,s:o,s:o,s:o,s:o,s:o,s:b,s:s?}", "tick", (json_int_t)l->tick,
			 "ago_s", seconds((usec_t)(r->ctx.tick - l->tick) * r->ctx.config->interval_us),
			 "request_bytes", ju64(l->request_bytes), "demote_bytes", ju64(l->demote_bytes),
			 "evict_bytes", ju64(l->evict_bytes),
			 "backoff_held_bytes", ju64(l->held_back_bytes),
			 "room_held_bytes", ju64(l->room_held_bytes), "lower_full", l->lower_full,
			 "reason", tier_plan_reason(&p));
}

/* Hex digits, '-' and '_' only, at least ID_PREFIX_MIN of them: what may name a pod by its UID
 * or a container by its id (a prefix of either). */
#define ID_PREFIX_MIN 8

static bool looks_like_id(const char *s)
{
	size_t n = strspn(s, "0123456789abcdefABCDEF-_");

	return n >= ID_PREFIX_MIN && s[n] == '\0';
}

/* Whether id begins with the prefix `want` (lowercase hex and '-' as the API shows a UID; a '_'
 * of `want`, as systemd's slice names escape a UID's '-', matches a '-'). */
static bool id_has_prefix(const char *id, const char *want)
{
	for (; *want; want++, id++) {
		char c = *want == '_' ? '-' : (*want >= 'A' && *want <= 'F') ? (char)(*want - 'A' + 'a') :
			 *want;

		if (*id != c)
			return false;
	}
	return true;
}

struct resolved {
	const struct cgroup_node *cg;
	const char *matched_by;   /* "path", "cgroupfs_path", "pod_uid", "container_id" */
	const char *reason;       /* why nothing was found, NULL when cg is set */
	char buf[256];
};

/*
 * The cgroup an Explain argument names (docs/operating.md "Status socket and reclaimctl"), tried
 * in this order: a path relative to the cgroup root ("/a/b/" as "a/b"); an absolute path under the
 * cgroup root (cgroup_root_path(), e.g. /sys/fs/cgroup/system.slice/x.service); a pod's UID, or
 * the start of one (at least ID_PREFIX_MIN characters; '_' for '-' as in slice names); a
 * container's id, or the start of one. A prefix that names more than one pod or container names
 * none. For a container id, the container's cgroup, or crun's inner "container" child when that
 * is the one managed. `path` is normalize_path()'s. Fills *ret; false when out of memory.
 */
static bool resolve_cgroup(const struct tick_report *r, const char *arg, const char *path,
			   struct resolved *ret)
{
	const struct cgroup_node *pod = NULL, *ctr = NULL;
	size_t pods = 0, ctrs = 0;
	char root[PATH_MAX];

	ret->cg = NULL;
	ret->reason = NULL;
	CGROUP_SET_FOREACH(r->cgroups, cg)
		if (strcmp(cg->path, path) == 0) {
			ret->cg = cg;
			ret->matched_by = "path";
			return true;
		}
	if (arg[0] == '/' && cgroup_root_path(r, root, sizeof(root))) {
		size_t len = strlen(root);
		const char *rest;
		_cleanup_(freep) char *rel = NULL;

		while (len > 1 && root[len - 1] == '/')
			root[--len] = '\0';
		rest = arg + len;
		if (strncmp(arg, root, len) == 0 && (*rest == '/' || *rest == '\0' || len == 1)) {
			if (!(rel = normalize_path(rest)))
				return false;
			CGROUP_SET_FOREACH(r->cgroups, cg)
				if (strcmp(cg->path, rel) == 0) {
					ret->cg = cg;
					ret->matched_by = "cgroupfs_path";
					return true;
				}
		}
	}
	if (!looks_like_id(arg)) {
		if (arg[0] == '/' && cgroup_root_path(r, root, sizeof(root))) {
			snprintf(ret->buf, sizeof(ret->buf), "not a cgroup below the cgroup root "
				 "%.200s the agent walks", root);
			ret->reason = ret->buf;
		} else {
			ret->reason = "no such path below the cgroup root";
		}
		return true;
	}
	CGROUP_SET_FOREACH(r->cgroups, cg) {
		const struct workload *w = &cg->workload;

		if (w->kind == WORKLOAD_POD && id_has_prefix(w->pod_uid, arg)) {
			pods++;
			pod = cg;
		}
		if ((w->kind == WORKLOAD_CONTAINER || w->kind == WORKLOAD_CONTAINER_INNER) &&
		    id_has_prefix(w->container_id, arg)) {
			/* One container, two cgroups (crun's inner child): count the container once,
			 * and keep the managed one of the two, else the container's own. */
			if (!ctr || strcmp(ctr->workload.container_id, w->container_id) != 0)
				ctrs++;
			if (!ctr || strcmp(ctr->workload.container_id, w->container_id) != 0 ||
			    (cg->managed && !ctr->managed) ||
			    (cg->managed == ctr->managed && w->kind == WORKLOAD_CONTAINER))
				ctr = cg;
		}
	}
	if (pods + ctrs > 1) {
		snprintf(ret->buf, sizeof(ret->buf), "%zu pod UIDs and %zu container ids begin with "
			 "it: give more of it", pods, ctrs);
		ret->reason = ret->buf;
	} else if (pods == 1) {
		ret->cg = pod;
		ret->matched_by = "pod_uid";
	} else if (ctrs == 1) {
		ret->cg = ctr;
		ret->matched_by = "container_id";
	} else {
		ret->reason = "no such path below the cgroup root, and no pod UID or container id "
			      "begins so";
	}
	return true;
}

static void m_explain(void *userdata, const struct varlink_call *call, struct varlink_reply *ret)
{
	struct status_server *st = userdata;
	const struct tick_report *r = st->rep;
	const char *arg = json_string_value(json_object_get(call->parameters, "cgroup"));
	const struct cgroup_node *found;
	_cleanup_(freep) char *path = NULL;
	struct resolved res;
	char buf[512];
	json_t *inputs = NULL, *floor = NULL, *law = NULL, *limits = NULL, *cold = NULL, *dec, *o;

	if (!arg) {
		ret->error = VARLINK_ERROR_INVALID_PARAMETER;
		ret->parameters = json_pack("{s:s}", "parameter", "cgroup");
		return;
	}
	if (!(path = normalize_path(arg)) || !resolve_cgroup(r, arg, path, &res)) {
		reply_oom(ret);
		return;
	}
	found = res.cg;
	if (!found) {
		ret->error = "io.reclaimd.NoSuchCgroup";
		ret->parameters = json_pack("{s:o,s:s}", "cgroup", jstr(arg), "reason", res.reason);
		return;
	}
	if (!found->managed || !found->rule) {
		ret->error = "io.reclaimd.CgroupNotManaged";
		ret->parameters = json_pack("{s:o,s:o,s:s}", "cgroup", jstr(found->path), "reason",
					    jstr(not_managed_reason(r, found, buf, sizeof(buf))),
					    "matched_by", res.matched_by);
		return;
	}
	if (found->policy.last.at_us)
		dec = explain_decision(r, found, now_us(), &inputs, &floor, &law, &limits, &cold);
	else
		dec = json_null();
	o = json_pack("{s:o,s:s,s:o,s:o,s:o*,s:o*,s:o*,s:o*,s:o*,s:o,s:o*,s:o*}",
		"cgroup", jstr(found->path), "matched_by", res.matched_by,
		"rule", explain_rule(r, found), "decision", dec,
		"inputs", inputs, "floor", floor, "law", law, "limits", limits, "cold_age", cold,
		"job", job_json(found), "tiers", explain_tiers(r, found),
		"cold_memory", explain_cold_memory(r, found));
	if (o)
		workload_fields(o, &found->workload);
	ret->parameters = with_head(o);
	if (!ret->parameters)
		reply_oom(ret);
}

/* ---- Reload ------------------------------------------------------------------------------ */

static void m_reload(void *userdata, const struct varlink_call *call _unused_,
		     struct varlink_reply *ret)
{
	struct status_server *st = userdata;
	const struct tick_report *r = st->rep;
	struct config_error err = { 0 };
	int res = st->hooks.reload(st->hooks.userdata, &err);
	json_t *kept;

	if (res < 0) {
		ret->error = "io.reclaimd.ConfigRejected";
		ret->parameters = json_pack("{s:s,s:s,s:i,s:i}", "message", err.text,
					    "file", err.file[0] ? err.file : r->opts->config_path,
					    "line", err.line,
					    "column", err.column);
		return;
	}
	kept = json_array();
	if (kept && (res & LOOP_RELOAD_KEPT_WORKERS))
		json_array_append_new(kept, json_string("max_workers_per_node"));
	if (kept && (res & LOOP_RELOAD_KEPT_ROOTS))
		json_array_append_new(kept, json_string("cgroup_root, proc_root, sys_root"));
	if (kept && (res & LOOP_RELOAD_KEPT_SOCKET))
		json_array_append_new(kept, json_string("status.socket"));
	if (kept && (res & LOOP_RELOAD_KEPT_STATE))
		json_array_append_new(kept, json_string("state_file"));
	ret->parameters = with_head(json_pack("{s:s,s:I,s:o}", "config", r->opts->config_path,
					      "rules", (json_int_t)r->ctx.config->n_rules,
					      "restart_only", kept));
	if (!ret->parameters)
		reply_oom(ret);
}

/* ---- the server -------------------------------------------------------------------------- */

static const struct varlink_method methods[] = {
	{ "io.reclaimd.Status", m_status, false },
	{ "io.reclaimd.Cgroups", m_cgroups, false },
	{ "io.reclaimd.Explain", m_explain, false },
	{ "io.reclaimd.Reload", m_reload, true },
};

static gid_t read_gid(const struct config *c)
{
	return c->status.read_group ? (gid_t)c->status.read_gid : (gid_t)-1;
}

int status_server_start(sd_event *event, const struct config *c, const struct tick_report *rep,
			const struct status_hooks *hooks, bool dry_run, struct status_server **ret)
{
	const char *path = c->status.socket;
	struct status_server *st;
	char why[PATH_MAX + 128];
	int r;

	*ret = NULL;
	if (!path)
		return 0;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->rep = rep;
	st->hooks = *hooks;
	r = varlink_server_new(event, path, read_gid(c), methods,
			       ARRAY_SIZE(methods), &service, st, &st->server, why, sizeof(why));
	if (r == -EADDRINUSE)
		log_event(LOG_ERR, MSGID_STARTED, NULL,
			  "status socket %s: another process serves it (%s): another reclaimd runs "
			  "here; %s", path, why,
			  dry_run ? "this dry run goes on without the socket" :
			  "this one stops without taking it over");
	else if (r == -EPERM)
		log_event(LOG_ERR, MSGID_KERNEL_FEATURE, NULL,
			  "status socket %s: refused: %s; its directory and those above it must be "
			  "writable by root alone; running without it", path,
			  why);
	else if (r < 0)
		log_event(LOG_ERR, MSGID_KERNEL_FEATURE, NULL,
			  "status socket %s: %s; running without it", path,
			  r == -EEXIST ? "a file that is not a socket is in the way" : strerror(-r));
	if (r < 0) {
		free(st);
		return r;
	}
	*ret = st;
	log_event(LOG_INFO, MSGID_STARTED, NULL, "status socket at %s (%s)", path,
		  c->status.read_group ? "root, and group status.read_group may read" :
		  "root only");
	return 0;
}

void status_server_reload(struct status_server *st, const struct config *c)
{
	int r;

	if (!st)
		return;
	r = varlink_server_set_read_gid(st->server, read_gid(c));
	if (r == -ESTALE)
		log_event(LOG_WARNING, MSGID_CONFIG_LOADED, NULL,
			  "status socket %s: the name no longer leads to the socket this agent bound "
			  "(replaced or removed): its mode and group are left alone",
			  varlink_server_path(st->server));
	else if (r < 0)
		log_event(LOG_WARNING, MSGID_CONFIG_LOADED, NULL,
			  "status socket: cannot give it to status.read_group: %s", strerror(-r));
}

void status_server_stop(struct status_server *st)
{
	if (!st)
		return;
	varlink_server_free(st->server);
	free(st);
}
