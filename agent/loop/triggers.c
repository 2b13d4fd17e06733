/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * triggers.c - one PSI trigger per managed cgroup (POLLPRI on its memory.pressure, with the
 * rule's trigger_stall_us over trigger_window_us: Documentation/accounting/psi.rst). A firing
 * trigger cancels the cgroup's in-flight reclaim and makes the psi policy start over from its
 * smallest step. Owns the cgroup's `trigger` group.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "loop/loop.h"
#include "reclaimd/log.h"

struct trigger_ctx {
	struct daemon *d;
	struct cgroup_node *cg;
};

void trigger_remove(struct cgroup_node *cg)
{
	cg->trigger.source = sd_event_source_disable_unref(cg->trigger.source);
	if (cg->trigger.fd >= 0) {
		close(cg->trigger.fd);
		cg->trigger.fd = -1;
	}
}

static int on_trigger_event(sd_event_source *s _unused_, int fd _unused_, uint32_t revents,
			    void *userdata)
{
	struct trigger_ctx *t = userdata;
	struct cgroup_node *cg = t->cg;
	struct log_fields f = { .cgroup = cg->path, .policy = cg->rule ? cg->rule->policy->name : NULL,
				.workload = &cg->workload };

	if (revents & (EPOLLERR | EPOLLHUP)) {
		/* The cgroup was removed; discovery drops it at the next tick. */
		trigger_remove(cg);
		return 0;
	}
	cg->trigger.fired_us = now_us();
	/* The next interval starts over from the smallest step. */
	cg->policy.state.initialised = false;
	if (dispatcher_busy(cg)) {
		dispatcher_cancel_for_pressure(t->d->dispatcher, cg);
		log_event(LOG_NOTICE, MSGID_RECLAIM_CANCELLED, &f,
			  "%s: memory pressure spike (PSI trigger), cancelling in-flight reclaim",
			  cg->path);
	} else if (log_ratelimit(&cg->trigger.last_log_us, cg->trigger.fired_us, LOG_REPEAT_US)) {
		log_event(LOG_INFO, MSGID_PSI_TRIGGER, &f,
			  "%s: memory pressure spike (PSI trigger), no reclaim in flight", cg->path);
	}
	return 0;
}

static void trigger_ctx_free(void *p) { free(p); }

void trigger_install(struct daemon *d, struct cgroup_node *cg)
{
	const struct policy_params *pp = &cg->rule->params;
	char spec[64];
	struct trigger_ctx *t;
	int len, r;

	if (cg->trigger.fd >= 0 || d->opts->dry_run || d->triggers_unavailable)
		return;
	cg->trigger.fd = openat(cg->dirfd, "memory.pressure", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (cg->trigger.fd < 0)
		goto fail;
	/* The kernel wants the terminating NUL: kernel/sched/psi.c psi_write() replaces the last
	 * byte written with one (Documentation/accounting/psi.rst). */
	len = snprintf(spec, sizeof(spec), "some %" PRIu64 " %" PRIu64, pp->trigger_stall_us,
		       pp->trigger_window_us);
	if (write(cg->trigger.fd, spec, (size_t)len + 1) < 0)
		goto fail;
	t = malloc(sizeof(*t));
	if (!t) {
		errno = ENOMEM;
		goto fail;
	}
	t->d = d;
	t->cg = cg;
	r = sd_event_add_io(d->env.event, &cg->trigger.source, cg->trigger.fd, EPOLLPRI, on_trigger_event, t);
	if (r < 0) {
		free(t);
		errno = -r;
		goto fail;
	}
	sd_event_source_set_destroy_callback(cg->trigger.source, trigger_ctx_free);
	return;
fail:
	if (errno == EINVAL || errno == EPERM || errno == EACCES) {
		/* Not this cgroup's fault: the kernel refuses our triggers (unprivileged triggers
		 * need a window that is a multiple of 2 s, Linux 6.5+ kernel/sched/psi.c). Stop
		 * trying; reclaim still stops between chunks on pressure. */
		int e = errno;

		trigger_remove(cg);
		d->triggers_unavailable = true;
		log_event(LOG_WARNING, MSGID_KERNEL_FEATURE, NULL,
			  "PSI triggers unavailable (%s on %s/memory.pressure): run as root, or set "
			  "trigger_window_us to a multiple of 2000000 for an unprivileged agent; "
			  "in-flight reclaim still stops between chunks on pressure",
			  strerror(e), cg->path);
		return;
	}
	if (errno != ENOENT && errno != ENODEV &&
	    log_ratelimit(&cg->hist.read_warning_us, now_us(), LOG_REPEAT_US))
		log_event(LOG_WARNING, MSGID_READ_FAILED, &(struct log_fields){ .cgroup = cg->path, .workload = &cg->workload },
			  "%s: cannot install PSI trigger on memory.pressure: %s; reclaim still "
			  "stops between chunks on pressure", cg->path, strerror(errno));
	trigger_remove(cg);
}
