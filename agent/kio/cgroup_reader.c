/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgroup_reader.c - reads one managed cgroup's memory files into a struct cgroup_sample.
 *
 * What a tick costs is mostly these reads, so the reader does the least that keeps decisions
 * exact (bench/overhead measures it):
 *  - every tick, the files a decision uses: memory.current, memory.stat, memory.pressure and
 *    io.pressure keep their fds open and are re-read with one pread() at offset 0 (cgroup files
 *    are single-record seq_files, see pread_single()); io.stat (the pages-back signal,
 *    pages_back.h; absent without the io controller), memory.min, memory.low and memory.high
 *    are opened and read (the floor and the stand-back at memory.high, policy.h), and so are
 *    memory.min, memory.low and memory.high of each memory-enabled child (where one is set,
 *    its memory.current, and where min or low is, its memory.stat: what it protects bounds the
 *    floor of a pod reclaimed at the pod level, and a child at its memory.high makes the pod
 *    stand back), and memory.swap.max of the cgroup, each ancestor and each descendant with
 *    the memory controller, with memory.swap.current only where swap.max is a limit, and a
 *    descendant's memory.current where its room is not 0 (the swap room bounds what anon can
 *    be reclaimed; a descendant's is read once a tick, and not at all on a host without free
 *    swap);
 *  - every CGROUP_SLOW_FILES_TICKS ticks (spread over ticks by inode), the files that only
 *    inform reports and NUMA placement: memory.max, memory.swap.current,
 *    memory.zswap.current/max, memory.events and memory.numa_stat.
 * Only the four hot files stay open: each open kernfs file keeps a seq_file buffer in the kernel
 * (~17 KiB per cgroup measured for four), charged to reclaimd's own cgroup.
 * Formats: Documentation/admin-guide/cgroup-v2.rst.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "reclaimd/cgroup.h"
#include "reclaimd/reader.h"

/* memory.stat: ~60 lines of < 40 bytes on 6.12; 16 KiB leaves room for new fields. */
#define STAT_BUF 16384
/* memory.numa_stat: ~20 lines x (key + 64 nodes x ~24 bytes) worst case ~32 KiB. */
#define NUMA_STAT_BUF 32768
/* Single values, pressure (2 lines < 100 bytes), events (6 short lines). */
#define SMALL_BUF 512

/* The reader runs on the main thread only: one buffer for the large files, and one parsed
 * memory.numa_stat (1 KiB, for any node id the parser takes) from which each cgroup keeps only
 * the nodes its file lists (struct numa_usage). */
static char big_buf[NUMA_STAT_BUF];
static struct numa_stat numa_parsed;
/* memory.stat parsed whole; the sample keeps what decisions use (struct cgroup_memory_stat). */
static struct memory_stat stat_parsed;

/* Hot fds kept open now, and how many may be (set by the agent from its open files limit). */
static size_t hot_fds_open, hot_fds_budget = SIZE_MAX;

void cgroup_reader_set_hot_fd_budget(size_t budget)
{
	hot_fds_budget = budget;
}

void cgroup_close_files(struct cgroup_node *cg)
{
	int *fds[] = { &cg->files.fd_current, &cg->files.fd_stat, &cg->files.fd_pressure, &cg->files.fd_io_pressure };

	for (size_t i = 0; i < ARRAY_SIZE(fds); i++)
		if (*fds[i] >= 0) {
			close(*fds[i]);
			*fds[i] = -1;
			hot_fds_open--;
		}
	if (cg->files.slow)
		free(cg->files.slow->numa);
	free(cg->files.slow);
	cg->files.slow = NULL;
}

/* Opens a hot file once, then preads it. Past the fd budget it is opened, read and closed
 * each time instead (slower, but no cgroup goes unread for want of descriptors). A stale fd
 * (ENODEV after the memory controller was switched off and on again in the parent) is reopened
 * once. */
static int read_hot(struct cgroup_node *cg, int *fd, const char *name, char *buf, size_t size,
		    size_t *ret_len)
{
	int r;

	for (int attempt = 0;; attempt++) {
		if (*fd < 0) {
			if (hot_fds_open >= hot_fds_budget)
				return read_single_at(cg->dirfd, name, buf, size, ret_len);
			*fd = openat(cg->dirfd, name, O_RDONLY | O_CLOEXEC);
			if (*fd < 0)
				return -errno;
			hot_fds_open++;
		}
		r = pread_single(*fd, buf, size, ret_len);
		if (r != -ENODEV || attempt > 0)
			return r;
		close(*fd);
		*fd = -1;
		hot_fds_open--;
	}
}

/* An optional file: absent once means absent for good on this cgroup (kernel feature). */
static int read_optional_u64(struct cgroup_node *cg, enum cgroup_optional_file which, const char *name,
			     uint64_t absent_value, uint64_t *ret)
{
	int r;

	if (cg->files.absent_mask & (1u << which)) {
		*ret = absent_value;
		return 0;
	}
	r = read_u64_or_max_at(cg->dirfd, name, ret);
	if (r == -ENOENT && faccessat(cg->dirfd, "memory.current", F_OK, 0) == 0) {
		cg->files.absent_mask |= 1u << which;
		*ret = absent_value;
		return 0;
	}
	return r;
}

/* swap.max - swap.current of this cgroup alone (swap_room_own), once per tick (siblings share
 * ancestors). */
static int swap_room_of(struct cgroup_node *cg, unsigned generation, uint64_t *ret)
{
	uint64_t current;
	int r;

	if (cg->files.swap_read_generation != generation) {
		cg->files.swap_read_generation = generation;
		cg->files.swap_read_ok = false;
		r = read_optional_u64(cg, OPT_SWAP_MAX, "memory.swap.max", LIMIT_MAX, &cg->files.swap_max_bytes);
		if (r < 0)
			return r;
		if (cg->files.swap_max_bytes == LIMIT_MAX || cg->files.swap_max_bytes == 0) {
			/* No limit, or no swap at all (NoSwap): no need for swap.current. */
			cg->files.swap_room_bytes = cg->files.swap_max_bytes;
		} else {
			r = read_optional_u64(cg, OPT_SWAP_CURRENT, "memory.swap.current", 0, &current);
			if (r < 0)
				return r;
			cg->files.swap_room_bytes = swap_room_own(cg->files.swap_max_bytes, current);
		}
		cg->files.swap_read_ok = true;
	}
	if (!cg->files.swap_read_ok)
		return -EIO;
	*ret = cg->files.swap_room_bytes;
	return 0;
}

/* room_down of this cgroup (policy.h swap_room_down): its own room, bounded by the sum of its
 * children's with the memory controller (known to discovery; managed or not), once per tick.
 * Each child adds at most its memory.current: its anon is all it can send to swap, so a small
 * child without a limit (containerd's pause beside NoSwap containers) does not open the whole
 * host's free swap to its siblings' anon. The sum stops as soon as it reaches the cgroup's own
 * room: more children cannot lower the result. Depth is bounded by discovery's walk. A child
 * that went away mid-read is left out (its pages go to this cgroup). */
static int swap_room_down_of(struct cgroup_node *cg, unsigned generation, uint64_t *ret)
{
	uint64_t own, sum = 0, child_room, current;
	bool has_children = false;
	int r;

	if (cg->files.swap_down_generation == generation) {
		if (!cg->files.swap_down_ok)
			return -EIO;
		*ret = cg->files.swap_down_bytes;
		return 0;
	}
	cg->files.swap_down_generation = generation;
	cg->files.swap_down_ok = false;
	r = swap_room_of(cg, generation, &own);
	if (r < 0)
		return r;
	for (struct cgroup_node *c = cg->first_child; c && sum < own; c = c->next_sibling) {
		if (!c->has_memory)
			continue;
		r = swap_room_down_of(c, generation, &child_room);
		if (r == 0 && child_room > 0 &&
		    (r = read_u64_or_max_at(c->dirfd, "memory.current", &current)) == 0)
			child_room = MIN(child_room, current);
		if (r == -ENOENT || r == -ENODEV)
			continue;
		if (r < 0)
			return r;
		has_children = true;
		sum = swap_room_sum(sum, child_room);
	}
	cg->files.swap_down_bytes = swap_room_down(own, has_children, sum);
	cg->files.swap_down_ok = true;
	*ret = cg->files.swap_down_bytes;
	return 0;
}

/* Sum of cgroup_protected_evictable_bytes() over the memory-enabled children (policy.h), and
 * whether one of them is at its own memory.high (cgroup_at_high(), into *ret_at_high):
 * memory.min, memory.low and memory.high of each, its memory.current where one is set, and
 * where min or low is set, its memory.stat
 * and swap room (min of `room_above`, the bound of the target's ancestors and the host, the
 * target's own swap.max - swap.current, and the child's room_down). Only children: a grandchild is protected only within its
 * parent's effective protection (mm/memcontrol.c effective_protection()), which the child's
 * own values already bound. A child gone mid-read is left out. Each child's
 * files.protection_set says whether its min or low is set (true when they cannot be read),
 * files.protection_room_bytes how far its memory.current is above them, and files.no_swap_room
 * whether none of its pages can go to swap (true when the target's own swap_room is 0, or the
 * child's swap_room_down_of() is 0 or failed). */
static int children_protected_of(struct cgroup_node *cg, unsigned generation, uint64_t room_above,
				 uint64_t swap_room,
				 uint64_t *ret, bool *ret_at_high)
{
	struct memory_stat st;
	uint64_t sum = 0, room, p;
	bool at_high = false;
	size_t len;
	int r;

	for (struct cgroup_node *c = cg->first_child; c; c = c->next_sibling) {
		struct cgroup_sample cs = { 0 };

		c->files.protection_set = false;
		c->files.protection_room_bytes = 0;
		c->files.no_swap_room = true;
		if (!c->has_memory)
			continue;
		/* Only while the target itself has room (else its jobs take page cache only), and
		 * not again for a child whose room failed this tick: the target's own
		 * swap_room_down_of() returns every error but a child gone mid-read, so this one is
		 * gone, and its reads below fail too (child_failed). */
		if (swap_room > 0 && !(c->files.swap_down_generation == generation &&
				       !c->files.swap_down_ok)) {
			r = swap_room_down_of(c, generation, &room);
			if (r < 0 && r != -ENOENT && r != -ENODEV)
				return r;
			c->files.no_swap_room = r < 0 || room == 0;
		}
		if ((r = read_u64_or_max_at(c->dirfd, "memory.min", &cs.min_bytes)) < 0 ||
		    (r = read_u64_or_max_at(c->dirfd, "memory.low", &cs.low_bytes)) < 0 ||
		    (r = read_u64_or_max_at(c->dirfd, "memory.high", &cs.high_bytes)) < 0)
			goto child_failed;
		c->files.protection_set = MAX(cs.min_bytes, cs.low_bytes) > 0;
		if (MAX(cs.min_bytes, cs.low_bytes) == 0 && cs.high_bytes == LIMIT_MAX)
			continue;
		if ((r = read_u64_or_max_at(c->dirfd, "memory.current", &cs.current_bytes)) < 0)
			goto child_failed;
		if (cs.current_bytes > 0 && cgroup_at_high(&cs)) /* an empty child has nothing */
			at_high = true;
		c->files.protection_room_bytes = sub_sat(cs.current_bytes,
							 MAX(cs.min_bytes, cs.low_bytes));
		if (MAX(cs.min_bytes, cs.low_bytes) == 0)
			continue;
		if ((r = read_single_at(c->dirfd, "memory.stat", big_buf, STAT_BUF, &len)) < 0 ||
		    (r = memory_stat_parse(big_buf, len, &st)) < 0)
			goto child_failed;
		cs.stat.anon = st.anon;
		cs.stat.file = st.file;
		cs.swap_room_bytes = room_above;
		if (cs.swap_room_bytes > 0) {
			if ((r = swap_room_of(cg, generation, &room)) < 0)
				return r;
			cs.swap_room_bytes = MIN(cs.swap_room_bytes, room);
		}
		if (cs.swap_room_bytes > 0) {
			if ((r = swap_room_down_of(c, generation, &room)) < 0)
				goto child_failed;
			cs.swap_room_bytes = MIN(cs.swap_room_bytes, room);
		}
		p = cgroup_protected_evictable_bytes(&cs);
		sum = p > UINT64_MAX - sum ? UINT64_MAX : sum + p;
		continue;
child_failed:
		c->files.protection_set = true;
		c->files.protection_room_bytes = 0;
		if (r != -ENOENT && r != -ENODEV)
			return r;
	}
	*ret = sum;
	*ret_at_high = at_high;
	return 0;
}

/* Keeps the nodes of numa_parsed in sf->numa, resized when the file lists another node count
 * (memory hotplug). Returns 0 or -ENOMEM (sf->numa then untouched). */
static int numa_usage_store(struct cgroup_slow_files *sf, const struct numa_stat *ns)
{
	unsigned n = MIN(ns->n_nodes, (unsigned)RECLAIMD_MAX_NODES);
	struct numa_usage *u = sf->numa;

	if (!u || u->n_nodes != n) {
		u = realloc(u, sizeof(*u) + n * sizeof(u->node[0]));
		if (!u)
			return -ENOMEM;
		sf->numa = u;
	}
	u->n_nodes = n;
	for (unsigned i = 0; i < n; i++)
		u->node[i] = (struct numa_node_usage){ .anon_bytes = ns->anon[i], .file_bytes = ns->file[i] };
	return 0;
}

/* The slow files. memory.events and numa_stat only inform reports and placement: a malformed
 * one leaves zeros (numa: NULL), it never keeps a cgroup from being sampled. */
static int read_slow_files(struct cgroup_node *cg, struct cgroup_slow_files *sf)
{
	struct memory_events events;
	char small[SMALL_BUF];
	size_t len;
	int r;

	if ((r = read_u64_or_max_at(cg->dirfd, "memory.max", &sf->max_bytes)) < 0 ||
	    (r = read_optional_u64(cg, OPT_SWAP_CURRENT, "memory.swap.current", 0,
				   &sf->swap_current_bytes)) < 0 ||
	    (r = read_optional_u64(cg, OPT_ZSWAP_CURRENT, "memory.zswap.current", 0,
				   &sf->zswap_current_bytes)) < 0 ||
	    (r = read_optional_u64(cg, OPT_ZSWAP_MAX, "memory.zswap.max", LIMIT_MAX,
				   &sf->zswap_max_bytes)) < 0)
		return r;

	r = read_single_at(cg->dirfd, "memory.events", small, sizeof(small), &len);
	if (r == -ENOENT || r == -ENODEV)
		return r;
	if (r < 0 || memory_events_parse(small, len, &events) < 0)
		memset(&events, 0, sizeof(events));
	sf->events_high = events.high;
	sf->events_max = events.max;

	if (!(cg->files.absent_mask & (1u << OPT_NUMA_STAT))) {
		r = read_single_at(cg->dirfd, "memory.numa_stat", big_buf, sizeof(big_buf), &len);
		if (r == -ENOENT && faccessat(cg->dirfd, "memory.current", F_OK, 0) == 0)
			cg->files.absent_mask |= 1u << OPT_NUMA_STAT;
		else if (r == -ENOENT || r == -ENODEV)
			return r;
		else if (r < 0 || numa_stat_parse(big_buf, len, &numa_parsed) < 0 ||
			 numa_usage_store(sf, &numa_parsed) < 0) {
			free(sf->numa);
			sf->numa = NULL;
		}
	}
	return 0;
}

/* cgroup_read_sample(), with *file the cgroup's own file being read when it fails (NULL: another
 * cgroup's, or none). */
static int read_sample(struct cgroup_node *cg, unsigned generation, uint64_t host_swap_free_bytes,
		       struct cgroup_sample *ret, const char **file)
{
	char small[SMALL_BUF];
	struct cgroup_sample s = { .inode = cg->inode, .path = cg->path };
	struct psi psi;
	uint64_t room, room_above;
	size_t len;
	int r;

	*file = "memory.current";
	r = read_hot(cg, &cg->files.fd_current, "memory.current", small, sizeof(small), &len);
	if (r < 0)
		return r;
	r = u64_or_max_parse(small, len, &s.current_bytes);
	if (r < 0)
		return r;

	*file = "memory.stat";
	r = read_hot(cg, &cg->files.fd_stat, "memory.stat", big_buf, STAT_BUF, &len);
	if (r < 0)
		return r;
	r = memory_stat_parse(big_buf, len, &stat_parsed);
	if (r < 0)
		return r;
	s.stat = (struct cgroup_memory_stat){
		.anon = stat_parsed.anon, .file = stat_parsed.file,
		.inactive_anon = stat_parsed.inactive_anon, .inactive_file = stat_parsed.inactive_file,
		.workingset_refault_anon = stat_parsed.workingset_refault_anon,
		.workingset_refault_file = stat_parsed.workingset_refault_file,
		.pgdemote = memory_stat_pgdemote(&stat_parsed),
		.pgpromote_success = stat_parsed.pgpromote_success,
		.has_tier_counters = stat_parsed.has_tier_counters,
		.pgmajfault = stat_parsed.pgmajfault,
		.zswpin = stat_parsed.zswpin,
		.has_zswpin = stat_parsed.has_zswpin,
	};

	*file = "memory.pressure";
	r = read_hot(cg, &cg->files.fd_pressure, "memory.pressure", small, sizeof(small), &len);
	if (r < 0)
		return r;
	r = psi_parse(small, len, &psi);
	if (r < 0)
		return r;
	s.mem_some_total_us = psi.some.total_us;

	if (!(cg->files.absent_mask & (1u << OPT_IO_PRESSURE))) {
		*file = "io.pressure";
		r = read_hot(cg, &cg->files.fd_io_pressure, "io.pressure", small, sizeof(small), &len);
		if (r == -ENOENT)
			cg->files.absent_mask |= 1u << OPT_IO_PRESSURE;
		else if (r < 0)
			return r;
		else if ((r = psi_parse(small, len, &psi)) < 0)
			return r;
		else
			s.io_some_total_us = psi.some.total_us;
	}

	/* io.stat exists while the io controller is enabled for the cgroup, which can change at
	 * any time: tried every tick. Unreadable or malformed, the pages-back signal falls back
	 * to the memory counters (pages_back.h). */
	*file = "io.stat";
	r = read_single_at(cg->dirfd, "io.stat", big_buf, sizeof(big_buf), &len);
	if (r == 0) {
		struct io_stat io;

		if (io_stat_parse(big_buf, len, &io) == 0) {
			s.io_read_bytes = io.rbytes;
			s.has_io_stat = true;
		}
	} else if (r == -ENODEV) {
		return r;
	}

	if ((r = read_u64_or_max_at(cg->dirfd, *file = "memory.min", &s.min_bytes)) < 0 ||
	    (r = read_u64_or_max_at(cg->dirfd, *file = "memory.low", &s.low_bytes)) < 0 ||
	    (r = read_u64_or_max_at(cg->dirfd, *file = "memory.high", &s.high_bytes)) < 0)
		return r;
	/* The rest reads other cgroups' files too, and the slow files: not named. */
	*file = NULL;

	/* Swap room: every ancestor's swap.max - swap.current, the host's free swap, and what the
	 * cgroup and its descendants allow (swap_room_down_of). The root cgroup has no
	 * memory.swap.* files and no limit. */
	s.swap_room_bytes = host_swap_free_bytes;
	for (struct cgroup_node *a = cg->parent; a && a->parent; a = a->parent) {
		r = swap_room_of(a, generation, &room);
		if (r < 0)
			return r;
		s.swap_room_bytes = MIN(s.swap_room_bytes, room);
	}
	room_above = s.swap_room_bytes;
	if (s.swap_room_bytes > 0) {
		r = swap_room_down_of(cg, generation, &room);
		if (r < 0)
			return r;
		s.swap_room_bytes = MIN(s.swap_room_bytes, room);
	}
	r = children_protected_of(cg, generation, room_above, s.swap_room_bytes,
				  &s.children_protected_bytes,
				  &s.child_at_high);
	if (r < 0)
		return r;

	if (!cg->files.slow) {
		cg->files.slow = calloc(1, sizeof(*cg->files.slow));
		if (!cg->files.slow)
			return -ENOMEM;
	}
	/* Spread the slow reads of many cgroups over the ticks; read them at once when
	 * memory.current moved by more than an eighth since (where a job is placed follows). */
	if (cg->files.slow->read_generation == 0 ||
	    (generation + cg->inode) % CGROUP_SLOW_FILES_TICKS == 0 ||
	    (s.current_bytes > cg->files.slow->current_at_read
		     ? s.current_bytes - cg->files.slow->current_at_read
		     : cg->files.slow->current_at_read - s.current_bytes) >
		    cg->files.slow->current_at_read / CGROUP_SLOW_FILES_MOVED) {
		r = read_slow_files(cg, cg->files.slow);
		if (r < 0)
			return r;
		cg->files.slow->read_generation = generation;
		cg->files.slow->current_at_read = s.current_bytes;
	}
	s.max_bytes = cg->files.slow->max_bytes;
	/* memory.stat "zswap" (read every tick) is the same obj_cgroup count as memory.zswap.current
	 * (mm/memcontrol.c): zswap decisions see this tick's value, not the slow file's. */
	s.zswap_current_bytes = stat_parsed.zswap ? stat_parsed.zswap
						  : cg->files.slow->zswap_current_bytes;
	s.zswap_max_bytes = cg->files.slow->zswap_max_bytes;
	s.events_high = cg->files.slow->events_high;
	s.events_max = cg->files.slow->events_max;
	s.numa = cg->files.slow->numa; /* not copied: the cache lives as long as the snapshot */

	*ret = s;
	return 0;
}

int cgroup_read_sample(struct cgroup_node *cg, unsigned generation, uint64_t host_swap_free_bytes,
		       struct cgroup_sample *ret)
{
	const char *file = NULL;
	int r = read_sample(cg, generation, host_swap_free_bytes, ret, &file);

	cg->files.read_failed = r < 0 ? file : NULL;
	return r;
}

void cgroup_read_error_text(const struct cgroup_node *cg, int r, char *buf, size_t size)
{
	const char *file = cg->files.read_failed, *sep = cg->path[0] ? "/" : "";

	if (!file && r == -ENOENT)
		snprintf(buf, size, "%s: a memory file it needs is missing", cg->path);
	else if (!file)
		snprintf(buf, size, "%s: cannot read its memory files (%s)", cg->path, strerror(-r));
	else if (r == -ENOENT && strcmp(file, "memory.pressure") == 0)
		snprintf(buf, size, "%s%s%s is missing (memory.pressure is hidden when "
			 "cgroup.pressure is 0)", cg->path, sep, file);
	else if (r == -ENOENT)
		snprintf(buf, size, "%s%s%s is missing", cg->path, sep, file);
	else
		snprintf(buf, size, "cannot read %s%s%s: %s", cg->path, sep, file,
			 r == -EBADMSG ? "not in the kernel's format" : strerror(-r));
}
