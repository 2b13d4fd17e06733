/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * self_watch.c - reclaimd's own memcg at its memory.high (self_watch.h; the decision is
 * policies/self_memcg.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "obs/self_watch.h"
#include "reclaimd/cgroup.h"
#include "reclaimd/common.h"
#include "reclaimd/log.h"
#include "reclaimd/parse.h"
#include "reclaimd/reader.h"
#include "reclaimd/self_memcg.h"

struct self_watch {
	int dirfd;                      /* the memcg's directory (O_PATH), -1: not watched */
	char path[PATH_MAX];            /* from /proc/self/cgroup */
	struct self_memcg_sample last;
	struct self_memcg_state st;
	usec_t warning_us;
};

/* The memcg's directory below the cgroup-v2 mount, or -errno; *why says what was missing. */
static int open_own_memcg(const char *proc_root, char *path, size_t size, const char **why)
{
	char file[PATH_MAX], buf[4096], *mount = NULL;
	size_t len;
	int fd, r;

	snprintf(file, sizeof(file), "%s/self/cgroup", proc_root);
	r = read_at(AT_FDCWD, file, buf, sizeof(buf), &len);
	if (r < 0) {
		*why = "/proc/self/cgroup could not be read";
		return r;
	}
	r = proc_cgroup_v2_path_parse(buf, len, path, size);
	if (r < 0) {
		*why = "/proc/self/cgroup has no cgroup-v2 path";
		return r;
	}
	r = cgroup_root_find(&mount);
	if (r < 0) {
		*why = "no cgroup-v2 mount with the memory controller";
		return r;
	}
	snprintf(file, sizeof(file), "%s%s", mount, path);
	free(mount);
	fd = open(file, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		*why = "its directory could not be opened";
		return -errno;
	}
	if (faccessat(fd, "memory.high", F_OK, 0) < 0) {
		r = -errno;
		close(fd);
		*why = "it has no memory.high (the root cgroup, or no memory controller there)";
		return r;
	}
	return fd;
}

int self_watch_new(const char *proc_root, struct self_watch **ret)
{
	struct self_watch *sw = calloc(1, sizeof(*sw));
	const char *why = NULL;

	if (!sw)
		return -ENOMEM;
	sw->dirfd = open_own_memcg(proc_root, sw->path, sizeof(sw->path), &why);
	if (sw->dirfd < 0) {
		log_event(LOG_INFO, MSGID_SELF_MEMORY, NULL,
			  "reclaimd's own memory use is not watched: %s (%s)", why,
			  strerror(-sw->dirfd));
		sw->dirfd = -1;
	}
	*ret = sw;
	return 0;
}

static int read_sample(int dirfd, struct self_memcg_sample *ret)
{
	struct memory_events ev;
	char buf[512];
	size_t len;
	int r;

	if ((r = read_single_at(dirfd, "memory.events", buf, sizeof(buf), &len)) < 0 ||
	    (r = memory_events_parse(buf, len, &ev)) < 0 ||
	    (r = read_u64_or_max_at(dirfd, "memory.current", &ret->current_bytes)) < 0 ||
	    (r = read_u64_or_max_at(dirfd, "memory.high", &ret->high_bytes)) < 0)
		return r;
	ret->high_events = ev.high;
	return 0;
}

static void kib_or_max(uint64_t bytes, char *buf, size_t size)
{
	if (bytes == LIMIT_MAX)
		snprintf(buf, size, "max");
	else
		snprintf(buf, size, "%" PRIu64 " KiB", bytes >> 10);
}

void self_watch_tick(struct self_watch *sw, uint64_t now_us, size_t known_cgroups,
		     size_t managed_cgroups)
{
	struct self_memcg_sample s;
	char high[32];
	int r;

	if (!sw || sw->dirfd < 0)
		return;
	r = read_sample(sw->dirfd, &s);
	if (r == -ENOENT || r == -ENODEV) {
		log_event(LOG_NOTICE, MSGID_SELF_MEMORY, NULL,
			  "reclaimd's own cgroup %s is gone (%s): its memory use is no longer watched",
			  sw->path, strerror(-r));
		close(sw->dirfd);
		sw->dirfd = -1;
		sw->st.throttled = false;
		return;
	}
	if (r < 0) {
		if (log_ratelimit(&sw->warning_us, now_us, 60 * USEC_PER_SEC))
			log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
				  "reclaimd's own cgroup %s: memory.events/current/high: %s",
				  sw->path, strerror(-r));
		return;
	}
	sw->last = s;
	kib_or_max(s.high_bytes, high, sizeof(high));
	switch (self_memcg_observe(&sw->st, &s, now_us)) {
	case SELF_MEMCG_THROTTLED:
		log_event(LOG_WARNING, MSGID_SELF_MEMORY, &(struct log_fields){ .reason = "at-high" },
			  "reclaimd's own cgroup %s was held at its memory.high: %" PRIu64 " high events "
			  "since the last tick; memory.current %" PRIu64 " KiB, memory.high %s as read "
			  "now. The kernel throttles the agent (its ticks run late, new cgroups wait to "
			  "be managed, the status socket answers late). Its memory grows with the "
			  "cgroups it manages (%zu known, %zu managed; 18-26 KiB per managed one): raise "
			  "MemoryHigh= (docs/operating.md, \"Running it\")", sw->path, sw->st.episode_events,
			  s.current_bytes >> 10, high, known_cgroups, managed_cgroups);
		break;
	case SELF_MEMCG_RECOVERED:
		log_event(LOG_NOTICE, MSGID_SELF_MEMORY, &(struct log_fields){ .reason = "below-high" },
			  "reclaimd's own cgroup %s: no memory.high event for %" PRIu64 " s, no "
			  "longer throttled (%" PRIu64 " events in the episode, memory.current peaked "
			  "at %" PRIu64 " KiB; now %" PRIu64 " KiB, memory.high %s)", sw->path,
			  (uint64_t)(SELF_MEMCG_QUIET_US / USEC_PER_SEC), sw->st.episode_events,
			  sw->st.episode_peak_bytes >> 10, s.current_bytes >> 10, high);
		break;
	case SELF_MEMCG_SAME:
		break;
	}
}

void self_watch_report(const struct self_watch *sw, struct self_watch_report *ret)
{
	*ret = (struct self_watch_report){ 0 };
	if (!sw || !sw->st.have_prev)
		return;
	*ret = (struct self_watch_report){
		.watched = sw->dirfd >= 0, .path = sw->path,
		.current_bytes = sw->last.current_bytes, .high_bytes = sw->last.high_bytes,
		.high_events = sw->st.events_total, .throttled = sw->st.throttled,
		.episodes = sw->st.episodes,
	};
}

void self_watch_free(struct self_watch *sw)
{
	if (!sw)
		return;
	if (sw->dirfd >= 0)
		close(sw->dirfd);
	free(sw);
}
