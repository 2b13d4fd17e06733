/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * snapshot.c - one snapshot per tick (snapshot.h): the host files once, every managed cgroup's
 * files once (cgroup_reader.c), deltas against the cgroup's previous sample (its `hist` group),
 * and what its jobs reclaimed since then (dispatcher_take_results()). A cgroup that went away
 * mid-tick is left out quietly; the next discovery pass drops it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "loop/loop.h"
#include "reclaimd/log.h"

rlim_t loop_nofile_limit(void)
{
	struct rlimit rl;

	return getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 0;
}

static int snap_reserve(struct loop_snapshot *ls, size_t n)
{
	struct cgroup_sample *c;
	struct cgroup_node **nodes;

	if (n <= ls->capacity)
		return 0;
	n = MAX(n, ls->capacity * 2);
	c = realloc(ls->snap.cgroups, n * sizeof(*c));
	if (!c)
		return -ENOMEM;
	ls->snap.cgroups = c;
	nodes = realloc(ls->nodes, n * sizeof(*nodes));
	if (!nodes)
		return -ENOMEM;
	ls->nodes = nodes;
	ls->capacity = n;
	return 0;
}

void snapshot_free(struct loop_snapshot *ls)
{
	free(ls->snap.cgroups);
	free(ls->nodes);
	ls->snap.cgroups = NULL;
	ls->nodes = NULL;
	ls->capacity = ls->snap.n_cgroups = 0;
}

/* Deltas against the previous sample. A counter going backwards means the object was recreated:
 * start over. */
static void fold_history(struct cgroup_node *cg, usec_t now, uint64_t page_size,
			 const struct host_sample *host, bool host_ok, struct cgroup_sample *s)
{
	uint64_t refaults = s->stat.workingset_refault_anon + s->stat.workingset_refault_file;
	unsigned features = (s->has_io_stat ? PAGES_BACK_HAS_IO_STAT : 0) |
			    (s->stat.has_zswpin ? PAGES_BACK_HAS_ZSWPIN : 0) |
			    (host_ok ? PAGES_BACK_HAS_HOST_PSWPIN : 0);

	if (cg->hist.has_prev && s->mem_some_total_us >= cg->hist.mem_some_us &&
	    s->io_some_total_us >= cg->hist.io_some_us && now > cg->hist.timestamp_us) {
		s->has_prev = true;
		s->elapsed_us = now - cg->hist.timestamp_us;
		s->mem_some_delta_us = s->mem_some_total_us - cg->hist.mem_some_us;
		s->io_some_delta_us = s->io_some_total_us - cg->hist.io_some_us;
		s->refault_delta_pages = sub_sat(refaults, cg->hist.refault_pages);
		/* The pages-back signal, once per tick for every consumer: a term is used only
		 * when both samples had it (io.stat comes and goes with the io controller). */
		s->back_features = features & cg->hist.back_features;
		s->back_deltas = (struct pages_back_deltas){
			.refault_anon = sub_sat(s->stat.workingset_refault_anon, cg->hist.refault_anon),
			.refault_file = sub_sat(s->stat.workingset_refault_file, cg->hist.refault_file),
			.pgmajfault = sub_sat(s->stat.pgmajfault, cg->hist.pgmajfault),
			.zswpin = sub_sat(s->stat.zswpin, cg->hist.zswpin),
			.io_read_bytes = sub_sat(s->io_read_bytes, cg->hist.io_read_bytes),
			.host_pswpin = sub_sat(host->vmstat.pswpin, cg->hist.host_pswpin),
		};
		s->back = pages_back_count(&s->back_deltas, s->back_features, page_size);
		s->back_pages_per_s = pages_back_rate(s->back.pages, s->elapsed_us);
		cg->hist.back_total.pages += s->back.pages;
		cg->hist.back_total.refault_anon += s->back_deltas.refault_anon;
		cg->hist.back_total.refault_file += s->back_deltas.refault_file;
		cg->hist.back_total.pgmajfault += s->back_deltas.pgmajfault;
		cg->hist.back_total.zswpin += s->back_deltas.zswpin;
		cg->hist.back_total.io_pages += s->back.io_pages;
	}
	cg->hist.has_prev = true;
	cg->hist.timestamp_us = now;
	cg->hist.mem_some_us = s->mem_some_total_us;
	cg->hist.io_some_us = s->io_some_total_us;
	cg->hist.refault_pages = refaults;
	cg->hist.refault_anon = s->stat.workingset_refault_anon;
	cg->hist.refault_file = s->stat.workingset_refault_file;
	cg->hist.pgmajfault = s->stat.pgmajfault;
	cg->hist.zswpin = s->stat.zswpin;
	cg->hist.io_read_bytes = s->io_read_bytes;
	cg->hist.host_pswpin = host->vmstat.pswpin;
	cg->hist.back_features = features;
}

/* Reads one managed cgroup into s. Returns 0 when s is this tick's sample, 1 when the cgroup is
 * skipped (logged here, rate-limited), -EMFILE when out of descriptors (the caller logs once). */
static int sample_one(struct daemon *d, struct cgroup_node *cg, usec_t now, struct cgroup_sample *s)
{
	int r = cgroup_read_sample(cg, d->tick, d->snap.snap.host.meminfo.swap_free, s);

	if ((r == -ENOENT || r == -ENODEV) && faccessat(cg->dirfd, "memory.current", F_OK, 0) < 0) {
		/* Went away mid-tick (the next discovery pass drops it), or its parent turned the
		 * memory controller off: discovery checks again until it is back. */
		cg->has_memory = false;
		return 1;
	}
	if (r == -EMFILE || r == -ENFILE)
		return -EMFILE;
	if (r < 0) {
		/* Still there, but a file is missing (cgroup.pressure=0 hides memory.pressure), or
		 * unreadable: cgroup_read_error_text() names it. */
		if (log_ratelimit(&cg->hist.read_warning_us, now, LOG_REPEAT_US)) {
			char why[PATH_MAX + 128];

			cgroup_read_error_text(cg, r, why, sizeof(why));
			log_event(LOG_WARNING, MSGID_READ_FAILED, &(struct log_fields){ .cgroup = cg->path, .workload = &cg->workload },
				  "%s; skipped%s", why, r == -ENOENT ? "" : " this tick");
		}
		return 1;
	}
	return 0;
}

void snapshot_build(struct daemon *d)
{
	struct snapshot *snap = &d->snap.snap;
	usec_t now = now_us();
	unsigned n_emfile = 0;
	bool host_ok;
	int r;

	snap->timestamp_us = now;
	snap->n_cgroups = 0;
	r = host_reader_read(d->host, &snap->host);
	host_ok = r >= 0;
	if (r < 0) {
		/* Without host data there is no known free swap: anon counts as unreclaimable. */
		memset(&snap->host, 0, sizeof(snap->host));
		if (log_ratelimit(&d->host_warning_us, now, LOG_REPEAT_US))
			log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
				  "cannot read host memory files under %s or %s: %s", d->roots.proc,
				  d->roots.sys, strerror(-r));
	}
	if (snap_reserve(&d->snap, d->cgroups.n) < 0)
		return;
	d->snap.n_managed = 0;
	CGROUP_SET_FOREACH(&d->cgroups, cg) {
		struct cgroup_sample *s = &snap->cgroups[snap->n_cgroups];

		if (!cg->managed) {
			if (cg->trigger.fd >= 0)
				trigger_remove(cg);
			dispatcher_cancel(d->dispatcher, cg);
			cg->policy.carry = (struct interval_carry){ 0 };
			continue;
		}
		d->snap.n_managed++;
		r = sample_one(d, cg, now, s);
		if (r == -EMFILE)
			n_emfile++; /* one line for all of them, below */
		if (r != 0)
			continue;
		if (cg->trigger.fd < 0 && !cg->hist.has_prev)
			log_event(LOG_INFO, MSGID_CGROUP_MANAGED,
				  &(struct log_fields){ .cgroup = cg->path, .policy = cg->rule->policy->name,
							.workload = &cg->workload },
				  "%s: managed by rule \"%s\" (rules[%ld], policy %s)", cg->path,
				  cg->rule->match, (long)(cg->rule - d->config->rules),
				  cg->rule->policy->name);
		trigger_install(d, cg);
		s->dry_run = d->opts->dry_run;
		fold_history(cg, now, snap->page_size, &snap->host, host_ok, s);
		dispatcher_take_results(cg, s);
		d->snap.nodes[snap->n_cgroups++] = cg;
	}
	if (n_emfile && log_ratelimit(&d->emfile_warning_us, now, LOG_REPEAT_US))
		log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
			  "%u managed cgroups skipped this tick: out of file descriptors (open files "
			  "limit %llu for %zu known cgroups; reclaimd keeps a directory fd per cgroup and "
			  "5 more per managed one): raise LimitNOFILE=", n_emfile,
			  (unsigned long long)loop_nofile_limit(), d->cgroups.n);
}
