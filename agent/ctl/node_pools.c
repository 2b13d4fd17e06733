/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * node_pools.c - reclaim workers per NUMA node: one pool per node with CPUs, pinned to them;
 * how many may run adapts to the node's idle cores (sampled from /proc/stat once a second,
 * averaged over 10 samples); nodes without CPUs are served by the nearest node; CPU and memory
 * hotplug rebuild the pools (topology re-read from sysfs every 10 s, as libnuma caches it).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>

#include "loop/loop.h"
#include "reclaimd/log.h"

unsigned jobs_pending(struct daemon *d)
{
	unsigned n = 0;

	FOREACH_POOL(d, np)
		n += worker_pool_pending(np->pool);
	return n;
}

/* The pool that serves memory on mem_node (-1: unknown): that node's, or the nearest node with
 * CPUs (topology_cpu_node()), or the default node. */
struct node_pool *pool_for_node(struct daemon *d, int mem_node)
{
	int n = mem_node >= 0 ? topology_cpu_node(d->topo, mem_node) : -1;

	if (n < 0 || n >= RECLAIMD_MAX_NODES || !d->nodes[n].pool)
		n = d->default_node;
	return &d->nodes[n];
}

static void format_cpulist(const cpu_set_t *set, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t c = 0; c < CPU_SETSIZE; c++) {
		size_t e = c;
		int n;

		if (!CPU_ISSET(c, set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		n = e > c ? snprintf(buf + off, size - off, "%s%zu-%zu", off ? "," : "", c, e)
			  : snprintf(buf + off, size - off, "%s%zu", off ? "," : "", c);
		if (n < 0 || (size_t)n >= size - off)
			return;
		off += (size_t)n;
		c = e;
	}
}

unsigned pools_count(struct daemon *d)
{
	unsigned n = 0;

	FOREACH_POOL(d, np)
		n++;
	return n;
}

/* Starts node i's pool: max_workers threads pinned to its CPUs, one allowed until the idle
 * samples say more are affordable. */
static int pool_create(struct daemon *d, unsigned i)
{
	unsigned cap = d->opts->workers ? d->opts->workers : d->config->max_workers_per_node;
	const struct numa_node_info *n = &d->topo->node[i];
	struct node_pool *np = &d->nodes[i];
	char cpus[256];
	int r;

	np->max_workers = cap ? MIN(cap, n->n_cpus) : default_max_workers(n->n_cpus);
	r = worker_pool_new(np->max_workers, POOL_QUEUE_LEN, (int)i, &n->cpus, &np->pool);
	if (r < 0)
		return r;
	np->allowed = 1;
	worker_pool_set_allowed(np->pool, 1);
	worker_pool_set_rate_limit(np->pool, d->config->max_reclaim_rate_per_node);
	r = sd_event_add_io(d->event, &np->event_source, worker_pool_event_fd(np->pool), EPOLLIN,
			    daemon_on_pool_event, np);
	if (r < 0)
		return r;
	format_cpulist(&n->cpus, cpus, sizeof(cpus));
	log_event(LOG_INFO, MSGID_NODE_WORKERS, &(struct log_fields){ .has_node = true, .node = (int)i },
		  "node %u: %u reclaim workers pinned to CPUs %s", i, np->max_workers, cpus);
	return 0;
}

/* Stops node np's pool: in-flight writes are interrupted and reported, queued jobs dropped (their
 * cgroups ask again at their next interval). */
static void pool_dissolve(struct daemon *d, struct node_pool *np)
{
	worker_pool_stop(np->pool);
	daemon_drain_jobs(d, np);
	CGROUP_SET_FOREACH(&d->cgroups, cg)
		if (cg->job && cg->job_pool == np->pool)
			cg->job = NULL; /* queued, never run: freed with the pool */
	worker_pool_free(np->pool);
	np->pool = NULL;
	np->event_source = sd_event_source_disable_unref(np->event_source);
}

static void pools_log_cpuless(struct daemon *d)
{
	d->default_node = -1;
	for (unsigned i = 0; i < d->topo->n_nodes && i < RECLAIMD_MAX_NODES; i++) {
		if (d->nodes[i].pool && d->default_node < 0)
			d->default_node = (int)i;
		if (d->topo->node[i].present && d->topo->node[i].n_cpus == 0)
			log_event(LOG_INFO, MSGID_NODE_WORKERS,
				  &(struct log_fields){ .has_node = true, .node = (int)i },
				  "node %u has no CPUs: its memory is reclaimed by node %d's workers", i,
				  topology_cpu_node(d->topo, (int)i));
	}
}

/* One pool per node with CPUs. */
int pools_start(struct daemon *d)
{
	for (unsigned i = 0; i < RECLAIMD_MAX_NODES; i++) {
		d->nodes[i].d = d;
		d->nodes[i].node = (int)i;
	}
	for (unsigned i = 0; i < d->topo->n_nodes && i < RECLAIMD_MAX_NODES; i++) {
		int r;

		if (!d->topo->node[i].present || d->topo->node[i].n_cpus == 0)
			continue;
		r = pool_create(d, i);
		if (r < 0)
			return r;
	}
	pools_log_cpuless(d);
	return d->default_node >= 0 ? 0 : -ENOENT;
}

/* CPU or memory hotplug: libnuma caches what it read at start, so the agent re-reads sysfs
 * (topology_read_sysfs()) and, when it differs, re-pins pools to their node's remaining CPUs,
 * dissolves the pools of nodes left without CPUs and starts pools for nodes that gained some. */
static void topology_refresh(struct daemon *d)
{
	_cleanup_(freep) struct numa_topology *t = malloc(sizeof(*t));
	int r;

	if (!t || topology_read_sysfs(d->sys_root, t) < 0 || topology_equal(d->topo, t))
		return;
	log_event(LOG_NOTICE, MSGID_NODE_WORKERS, NULL,
		  "NUMA topology changed (CPU or memory hotplug): rebuilding the worker pools");
	for (unsigned i = 0; i < RECLAIMD_MAX_NODES; i++) {
		struct node_pool *np = &d->nodes[i];
		bool has_cpus = i < t->n_nodes && t->node[i].present && t->node[i].n_cpus > 0;

		if (np->pool && has_cpus && !CPU_EQUAL(&d->topo->node[i].cpus, &t->node[i].cpus)) {
			r = worker_pool_set_cpus(np->pool, &t->node[i].cpus);
			if (r == 0) {
				char cpus[256];

				format_cpulist(&t->node[i].cpus, cpus, sizeof(cpus));
				log_event(LOG_INFO, MSGID_NODE_WORKERS,
					  &(struct log_fields){ .has_node = true, .node = (int)i },
					  "node %u: workers re-pinned to CPUs %s", i, cpus);
				continue;
			}
			has_cpus = false; /* could not re-pin: dissolve, then start afresh below */
		}
		if (np->pool && !has_cpus) {
			pool_dissolve(d, np);
			log_event(LOG_NOTICE, MSGID_NODE_WORKERS,
				  &(struct log_fields){ .has_node = true, .node = (int)i },
				  "node %u: no usable CPUs left, its worker pool is dissolved", i);
		}
	}
	*d->topo = *t;
	for (unsigned i = 0; i < t->n_nodes && i < RECLAIMD_MAX_NODES; i++)
		if (!d->nodes[i].pool && t->node[i].present && t->node[i].n_cpus > 0 &&
		    (r = pool_create(d, i)) < 0)
			log_event(LOG_ERR, MSGID_NODE_WORKERS,
				  &(struct log_fields){ .has_node = true, .node = (int)i },
				  "node %u: cannot start its worker pool: %s", i, strerror(-r));
	pools_log_cpuless(d);
	/* Idle averages were per the old CPU sets. */
	memset(&d->idle, 0, sizeof(d->idle));
	d->have_cpu_prev = false;
}

/* Once a minute, one line per node: what its pool is doing. */
void log_node_stats(struct daemon *d)
{
	usec_t now = now_us();

	if (!log_ratelimit(&d->node_stats_log_us, now, LOG_REPEAT_US))
		return;
	FOREACH_POOL(d, np) {
		struct worker_pool_stats st;

		worker_pool_get_stats(np->pool, &st);
		log_event(LOG_INFO, MSGID_NODE_WORKERS,
			  &(struct log_fields){ .has_node = true, .node = np->node,
						.has_allowed_workers = true, .allowed_workers = st.allowed,
						.has_reclaimed = true, .reclaimed_bytes = np->bytes_reclaimed },
			  "node %d: %u of %u workers allowed, %u busy, %.2f idle cores on average, %u "
			  "jobs queued, %" PRIu64 " MiB reclaimed, %" PRIu64 " requests dropped (queue full)",
			  np->node, st.allowed, st.n_workers, st.busy, idle_tracker_avg(&d->idle, np->node),
			  st.queued, np->bytes_reclaimed >> 20, st.jobs_dropped);
	}
}

static void update_allowed_workers(struct daemon *d)
{
	FOREACH_POOL(d, np) {
		double avg = idle_tracker_avg(&d->idle, np->node);
		unsigned a = node_allowed_workers(avg, d->topo->node[np->node].n_cpus, np->max_workers);

		if (a == np->allowed)
			continue;
		np->allowed = a;
		worker_pool_set_allowed(np->pool, a);
		log_event(LOG_INFO, MSGID_NODE_WORKERS,
			  &(struct log_fields){ .has_node = true, .node = np->node,
						.has_allowed_workers = true, .allowed_workers = a },
			  "node %d: %u of %u workers allowed (%.2f idle cores, average of the last %u s)",
			  np->node, a, np->max_workers, avg, d->idle.n_samples);
	}
}

/* Once a second: per-CPU idle time from /proc/stat into the idle-core average per node. */
static int on_idle_sample(sd_event_source *s, uint64_t usec _unused_, void *userdata)
{
	struct daemon *d = userdata;
	size_t len;
	int r;

	r = pread_whole(d->proc_stat_fd, d->stat_buf, d->stat_buf_size, &len);
	if (r == -EFBIG && d->stat_buf_size < (16u << 20)) {
		char *b = realloc(d->stat_buf, d->stat_buf_size * 2);

		if (b) {
			d->stat_buf = b;
			d->stat_buf_size *= 2;
		}
	}
	if (r == 0)
		r = cpu_times_parse(d->stat_buf, len, d->cpu_cur);
	if (r < 0) {
		if (log_ratelimit(&d->stat_warning_us, now_us(), LOG_REPEAT_US))
			log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
				  "%s/stat: %s; idle sample skipped", d->proc_root, strerror(-r));
	} else {
		struct cpu_times *t = d->cpu_prev;

		if (d->have_cpu_prev) {
			idle_tracker_add(&d->idle, d->topo, d->cpu_prev, d->cpu_cur);
			update_allowed_workers(d);
		}
		/* Hotplug is rare: look every 10 samples. */
		if (++d->idle_samples_taken % 10 == 0)
			topology_refresh(d);
		d->cpu_prev = d->cpu_cur;
		d->cpu_cur = t;
		d->have_cpu_prev = true;
	}
	sd_event_source_set_time_relative(s, IDLE_SAMPLE_US);
	sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	return 0;
}

int idle_sampler_start(struct daemon *d)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/stat", d->proc_root);
	d->cpu_prev = malloc(sizeof(*d->cpu_prev));
	d->cpu_cur = malloc(sizeof(*d->cpu_cur));
	d->stat_buf_size = 64 * 1024;
	d->stat_buf = malloc(d->stat_buf_size);
	if (!d->cpu_prev || !d->cpu_cur || !d->stat_buf)
		return -ENOMEM;
	d->proc_stat_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (d->proc_stat_fd < 0) {
		/* Not fatal: every node keeps one worker. */
		log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
			  "cannot open %s: %s; one reclaim worker per node", path, strerror(errno));
		return 0;
	}
	return sd_event_add_time_relative(d->event, &d->idle_source, CLOCK_MONOTONIC, 0,
					  TICK_ACCURACY_US, on_idle_sample, d);
}

void idle_sampler_stop(struct daemon *d)
{
	d->idle_source = sd_event_source_disable_unref(d->idle_source);
	if (d->proc_stat_fd >= 0)
		close(d->proc_stat_fd);
	d->proc_stat_fd = -1;
	free(d->stat_buf);
	free(d->cpu_prev);
	free(d->cpu_cur);
	d->stat_buf = NULL;
	d->cpu_prev = d->cpu_cur = NULL;
}

void pools_stop(struct daemon *d)
{
	/* Cancel and interrupt in-flight writes, join the workers, and say what each of those
	 * writes had done. */
	FOREACH_POOL(d, np) {
		worker_pool_stop(np->pool);
		daemon_drain_jobs(d, np);
		worker_pool_free(np->pool);
		np->pool = NULL;
		np->event_source = sd_event_source_disable_unref(np->event_source);
	}
}
