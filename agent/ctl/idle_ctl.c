/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * idle_ctl.c - idle cores per node from /proc/stat, and hotplug detection (idle_ctl.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/idle_ctl.h"
#include "reclaimd/cpustat.h"
#include "reclaimd/log.h"
#include "reclaimd/reader.h"

/* Idle cores per node are sampled this often (the adaptive worker count). */
#define IDLE_SAMPLE_US USEC_PER_SEC
/* Hotplug is rare: the topology is re-read every this many samples. */
#define TOPOLOGY_EVERY_SAMPLES 10

struct idle_ctl {
	struct ctl_env env;
	const struct numa_topology *topo;
	struct idle_hooks hooks;
	sd_event_source *source;
	int fd;                      /* /proc/stat */
	char *buf;
	size_t buf_size;
	struct cpu_times *prev, *cur;
	bool have_prev;
	unsigned samples_taken;
	struct idle_tracker idle;
	usec_t warning_us;
};

/* CPU or memory hotplug: re-read sysfs (topology_read_sysfs()) and hand a changed topology over. */
static void topology_refresh(struct idle_ctl *ic)
{
	_cleanup_(freep) struct numa_topology *t = malloc(sizeof(*t));

	if (!t || topology_read_sysfs(ic->env.sys_root, t) < 0 || topology_equal(ic->topo, t))
		return;
	log_event(LOG_NOTICE, MSGID_NODE_WORKERS, NULL,
		  "NUMA topology changed (CPU or memory hotplug): rebuilding the worker pools");
	if (ic->hooks.topology)
		ic->hooks.topology(ic->hooks.userdata, t);
	/* Idle averages were per the old CPU sets. */
	memset(&ic->idle, 0, sizeof(ic->idle));
}

static int on_sample(sd_event_source *s, uint64_t usec _unused_, void *userdata)
{
	struct idle_ctl *ic = userdata;
	size_t len;
	int r;

	r = pread_whole(ic->fd, ic->buf, ic->buf_size, &len);
	if (r == -EFBIG && ic->buf_size < (16u << 20)) {
		char *b = realloc(ic->buf, ic->buf_size * 2);

		if (b) {
			ic->buf = b;
			ic->buf_size *= 2;
		}
	}
	if (r == 0)
		r = cpu_times_parse(ic->buf, len, ic->cur);
	if (r < 0) {
		if (log_ratelimit(&ic->warning_us, now_us(), LOG_REPEAT_US))
			log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
				  "%s/stat: %s; idle sample skipped", ic->env.proc_root, strerror(-r));
	} else {
		struct cpu_times *t = ic->prev;

		if (ic->have_prev) {
			idle_tracker_add(&ic->idle, ic->topo, ic->prev, ic->cur);
			if (ic->hooks.idle)
				ic->hooks.idle(ic->hooks.userdata, &ic->idle);
		}
		if (++ic->samples_taken % TOPOLOGY_EVERY_SAMPLES == 0)
			topology_refresh(ic);
		/* This sample is the next one's base, also right after a topology change. */
		ic->prev = ic->cur;
		ic->cur = t;
		ic->have_prev = true;
	}
	sd_event_source_set_time_relative(s, IDLE_SAMPLE_US);
	sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	return 0;
}

int idle_ctl_new(const struct ctl_env *env, const struct numa_topology *topo,
		 const struct idle_hooks *hooks, struct idle_ctl **ret)
{
	struct idle_ctl *ic = calloc(1, sizeof(*ic));
	char path[PATH_MAX];
	int r;

	if (!ic)
		return -ENOMEM;
	ic->fd = -1;
	ic->env = *env;
	ic->topo = topo;
	ic->hooks = *hooks;
	ic->buf_size = 64 * 1024;
	ic->prev = malloc(sizeof(*ic->prev));
	ic->cur = malloc(sizeof(*ic->cur));
	ic->buf = malloc(ic->buf_size);
	if (!ic->prev || !ic->cur || !ic->buf) {
		idle_ctl_free(ic);
		return -ENOMEM;
	}
	snprintf(path, sizeof(path), "%s/stat", env->proc_root);
	ic->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ic->fd < 0) {
		/* Not fatal: every node keeps one worker. */
		log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
			  "cannot open %s: %s; one reclaim worker per node", path, strerror(errno));
		*ret = ic;
		return 0;
	}
	r = sd_event_add_time_relative(env->event, &ic->source, CLOCK_MONOTONIC, 0,
				       TICK_ACCURACY_US, on_sample, ic);
	if (r < 0) {
		idle_ctl_free(ic);
		return r;
	}
	*ret = ic;
	return 0;
}

void idle_ctl_free(struct idle_ctl *ic)
{
	if (!ic)
		return;
	sd_event_source_disable_unref(ic->source);
	if (ic->fd >= 0)
		close(ic->fd);
	free(ic->buf);
	free(ic->prev);
	free(ic->cur);
	free(ic);
}
