/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reclaim_job.c - one reclaim request carried out against one cgroup: memory.reclaim written in
 * chunks of at most chunk_bytes, with the cgroup's memory PSI re-read between chunks, and the
 * effect measured from memory.stat (pgsteal, pgdemote_*) and memory.current, since the kernel
 * reports no partial count (mm/memcontrol.c memory_reclaim()). On a host with memory tiers the
 * kernel counts demoted pages in pgsteal; they are reported apart (demoted_bytes), not as
 * reclaimed (tiers.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "reclaimd/actuator.h"
#include "reclaimd/mglru.h"
#include "reclaimd/node_reclaim.h"
#include "reclaimd/config.h"
#include "reclaimd/parse.h"
#include "reclaimd/reader.h"
#include "reclaimd/reclaim_chunk.h"
#include "reclaimd/tiers.h"

atomic_bool reclaim_swappiness_supported = true;
int (*reclaim_open_by_handle)(int mount_fd, struct file_handle *handle, int flags) =
	open_by_handle_at;

/* memory.stat is ~60 lines of < 40 bytes on 6.12; 16 KiB leaves room for future fields. */
#define MEMORY_STAT_BUF 16384
/* memory.pressure is two lines of < 80 bytes. */
#define PRESSURE_BUF 256
/* Stall is judged over at least this window, so one short stall right after the first
 * chunk does not read as a huge percentage. */
#define STALL_MIN_WINDOW_US (1 * USEC_PER_SEC)
/* A signal that is not a cancel (none is expected) may interrupt a write; retry that often. */
#define MAX_FOREIGN_EINTR 3

/* The file handle type of a kernfs (cgroup2) node: include/linux/exportfs.h, kernel-internal. */
#define FILEID_KERNFS 0xfe
/* After EAGAIN, how long to look for the cgroup's removal, and how often (reclaim_chunk.h: on 7.x
 * the write of a dying memcg returns before rmdir has removed its files, which then takes
 * milliseconds). Spent only on EAGAIN, where the kernel found nothing more to reclaim anyway. */
#define GONE_PROBE_US (500 * USEC_PER_MSEC)
#define GONE_PROBE_STEP_US (10 * USEC_PER_MSEC)

static const char *const outcome_names[_JOB_OUTCOME_MAX] = {
	[JOB_DONE] = "done",
	[JOB_PARTIAL] = "partial",
	[JOB_STOPPED_PRESSURE] = "stopped-pressure",
	[JOB_CANCELLED] = "cancelled",
	[JOB_GONE] = "gone",
	[JOB_BUSY] = "busy",
	[JOB_FAILED] = "failed",
};

const char *job_outcome_str(enum job_outcome o)
{
	return o < _JOB_OUTCOME_MAX ? outcome_names[o] : "?";
}

int reclaim_job_new(int cgroup_dirfd, const char *path, uint64_t inode, struct reclaim_job **ret)
{
	struct reclaim_job *job = calloc(1, sizeof(*job));

	if (!job)
		return -ENOMEM;
	job->cgroup_dirfd = fcntl(cgroup_dirfd, F_DUPFD_CLOEXEC, 3);
	if (job->cgroup_dirfd < 0) {
		int r = -errno;
		free(job);
		return r;
	}
	job->cgroup_path = strdup(path);
	if (!job->cgroup_path) {
		close(job->cgroup_dirfd);
		free(job);
		return -ENOMEM;
	}
	job->cgroup_inode = inode;
	job->reclaim_node = -1;
	job->swappiness = SWAPPINESS_UNSET;
	job->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	atomic_init(&job->cancel, false);
	*ret = job;
	return 0;
}

void reclaim_job_free(struct reclaim_job *job)
{
	if (!job)
		return;
	if (job->cgroup_dirfd >= 0)
		close(job->cgroup_dirfd);
	free(job->cgroup_path);
	free(job->node_reclaim_path);
	free(job->lru_gen_cmds);
	free(job->evict);
	free(job->lru_gen_path);
	free(job);
}

/* Reads memory.current and memory.stat pgsteal and pgdemote_* (summed; may be NULL); returns 0 or
 * -errno. */
static int measure(int dirfd, uint64_t *ret_current, uint64_t *ret_pgsteal, uint64_t *ret_pgdemote)
{
	char buf[MEMORY_STAT_BUF];
	struct memory_stat st;
	uint64_t current;
	size_t len;
	int r;

	r = read_single_at(dirfd, "memory.current", buf, sizeof(buf), &len);
	if (r < 0)
		return r;
	r = u64_or_max_parse(buf, len, &current);
	if (r < 0)
		return r;
	r = read_single_at(dirfd, "memory.stat", buf, sizeof(buf), &len);
	if (r < 0)
		return r;
	r = memory_stat_parse(buf, len, &st);
	if (r < 0)
		return r;
	*ret_current = current;
	*ret_pgsteal = st.pgsteal;
	if (ret_pgdemote)
		*ret_pgdemote = memory_stat_pgdemote(&st);
	return 0;
}

/* After a write failed with EAGAIN: whether the cgroup is being removed. Reads memory.current
 * until it fails with -ENOENT/-ENODEV (returned) or GONE_PROBE_US passed or the job is cancelled
 * (then the last read's result, 0 when it was there). */
static int probe_removed(struct reclaim_job *job)
{
	usec_t deadline = now_us() + GONE_PROBE_US;
	char buf[32];
	size_t len;
	int r;

	for (;;) {
		r = read_single_at(job->cgroup_dirfd, "memory.current", buf, sizeof(buf), &len);
		if (reclaim_chunk_probe_gone(r) || atomic_load(&job->cancel) || now_us() >= deadline)
			return r;
		usleep(GONE_PROBE_STEP_US);
	}
}

static int read_some_total(int fd, usec_t *ret)
{
	char buf[PRESSURE_BUF];
	struct psi psi;
	size_t len;
	int r;

	r = pread_single(fd, buf, sizeof(buf), &len);
	if (r < 0)
		return r;
	r = psi_parse(buf, len, &psi);
	if (r < 0)
		return r;
	*ret = psi.some.total_us;
	return 0;
}

static int format_request(char *buf, size_t size, uint64_t bytes, int swappiness)
{
	if (swappiness == SWAPPINESS_UNSET || !atomic_load(&reclaim_swappiness_supported))
		return snprintf(buf, size, "%" PRIu64, bytes);
	if (swappiness == SWAPPINESS_MAX)
		return snprintf(buf, size, "%" PRIu64 " swappiness=max", bytes);
	return snprintf(buf, size, "%" PRIu64 " swappiness=%d", bytes, swappiness);
}

/* Writes one chunk. Returns 0, or -errno from write(2). */
static int write_chunk(struct reclaim_job *job, int fd, uint64_t bytes)
{
	char req[64];
	int len = format_request(req, sizeof(req), bytes, job->swappiness);
	ssize_t n;

	n = write(fd, req, (size_t)len);
	if (n < 0) {
		int r = -errno;
		/* EINVAL with a swappiness key: the kernel predates swappiness= (6.9, features.h), which
		 * the probe could not tell (a dry run, an unknown release).
		 * Drop the key for good and retry this chunk without it. */
		if (r == -EINVAL && job->swappiness != SWAPPINESS_UNSET &&
		    atomic_load(&reclaim_swappiness_supported)) {
			atomic_store(&reclaim_swappiness_supported, false);
			job->swappiness_rejected = true;
			return write_chunk(job, fd, bytes);
		}
		return r;
	}
	return 0;
}

/* Opens the cgroup with this id (its cgroup2 inode, the kernfs node id) through
 * open_by_handle_at(2) with a FILEID_KERNFS handle on the cgroup2 mount of mount_fd, as
 * systemd's cg_cgroupid_open() does. A removed cgroup's kernfs node is no longer active, and
 * fs/kernfs/mount.c kernfs_fh_to_dentry() answers ESTALE. Returns the directory fd, or -1: any
 * failure (no CAP_DAC_READ_SEARCH, a seccomp filter without the call, not a cgroup2 mount)
 * counts as gone, and *ret_error keeps the first -errno other than ESTALE. */
static int cgroup_id_open(int mount_fd, uint64_t id, int *ret_error)
{
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + sizeof(uint64_t)];
	} h;
	int fd;

	h.fh.handle_bytes = sizeof(uint64_t);
	h.fh.handle_type = FILEID_KERNFS;
	memcpy(h.fh.f_handle, &id, sizeof(id));
	fd = reclaim_open_by_handle(mount_fd, &h.fh, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno != ESTALE && *ret_error == 0)
		*ret_error = -errno;
	return fd < 0 ? -1 : fd;
}

/* What one lru_gen eviction command may take beyond the pages it asks for, in pages of
 * page_size bytes: run_eviction() checks nr_to_reclaim only between evict_folios() calls, and
 * scan_folios() isolates at least MIN_LRU_BATCH (64) pages, counting a large folio whole, up to
 * a PMD's worth (HPAGE_PMD_NR: one page table's entries, page_size / 8 on 64-bit; 512 pages of
 * 4 KiB on x86-64, 8,192 of 64 KiB on arm64). mm/vmscan.c, 6.1 to 7.3. */
static uint64_t evict_overshoot_pages(uint64_t page_size)
{
	return 64 + page_size / 8;
}

/* Pages of a descendant cgroup (dirfd) above its own memory.min and memory.low now:
 * UINT64_MAX when neither is set, 0 when they cannot be read. An lru_gen eviction applies
 * neither (mm/vmscan.c run_eviction() never calls mem_cgroup_calculate_protection()). */
static uint64_t unprotected_pages(int dirfd, uint64_t page_size)
{
	uint64_t min, low, current;

	if (read_u64_or_max_at(dirfd, "memory.min", &min) < 0 ||
	    read_u64_or_max_at(dirfd, "memory.low", &low) < 0)
		return 0;
	if (MAX(min, low) == 0)
		return UINT64_MAX;
	if (read_u64_or_max_at(dirfd, "memory.current", &current) < 0)
		return 0;
	return sub_sat(current, MAX(min, low)) / page_size;
}

/* The index of the first target before i of target i's cgroup whose fd in cfd is open (>= 0);
 * i itself when there is none. */
static size_t first_of_cgroup(const struct reclaim_job *job, const int *cfd, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (job->evict[j].cgroup_id == job->evict[i].cgroup_id && cfd[j] >= 0)
			return j;
	return i;
}

/* Whether the cgroup with this id has memory.min or memory.low set now (true when it cannot be
 * opened or read: it or its pages are gone, or it cannot be checked). */
static bool cgroup_id_protected(int mount_fd, uint64_t id, int *ret_error)
{
	_cleanup_(closep) int fd = cgroup_id_open(mount_fd, id, ret_error);

	return fd < 0 || unprotected_pages(fd, 1) != UINT64_MAX;
}

/*
 * Before a chunk, the targets in a descendant cgroup of the job's (a pod's container, whose memcg
 * id names another memcg once it is removed): each one's cgroup is opened by id into cfd[i] (a
 * target whose cgroup is gone or cannot be checked is skipped), and its idle_pages is cut to
 * what its cgroup holds above its own memory.min and memory.low now, less what a command may
 * take beyond what it asks for (evict_overshoot_pages() per target), shared among the cgroup's
 * targets (nodes) in order. A target nested below the job's cgroup's child is skipped once that
 * child has memory.min or memory.low set. The plan bounded all this when it was made
 * (aging_ctl.c); this holds it for the whole job, whatever happened since.
 */
static void check_descendants(struct reclaim_job *job, bool *skip, int *cfd, uint64_t *left)
{
	for (size_t i = 0; i < job->n_evict; i++) {
		struct lru_gen_target *t = &job->evict[i];
		size_t j;

		if (skip[i] || !t->cgroup_id)
			continue;
		if (t->child_cgroup_id &&
		    cgroup_id_protected(job->cgroup_dirfd, t->child_cgroup_id, &job->evict_check_error)) {
			skip[i] = true;
			continue;
		}
		/* An earlier target of the same cgroup holds its fd and the room it left. */
		j = first_of_cgroup(job, cfd, i);
		if (j == i) {
			uint64_t n_same = 0;

			cfd[i] = cgroup_id_open(job->cgroup_dirfd, t->cgroup_id,
						&job->evict_check_error);
			if (cfd[i] < 0) {
				skip[i] = true;
				continue;
			}
			left[i] = unprotected_pages(cfd[i], job->page_size);
			if (left[i] != UINT64_MAX) {
				for (size_t k = i; k < job->n_evict; k++)
					n_same += job->evict[k].cgroup_id == t->cgroup_id;
				left[i] = sub_sat(left[i],
						  n_same * evict_overshoot_pages(job->page_size));
			}
		}
		t->idle_pages = MIN(t->idle_pages, left[j]);
		t->idle_file_pages = MIN(t->idle_file_pages, t->idle_pages);
		left[j] -= t->idle_pages;
	}
}

/* The fd check_descendants() opened for target i's cgroup (that of its first target), or -1. */
static int descendant_fd(const struct reclaim_job *job, const int *cfd, size_t i)
{
	return job->evict[i].cgroup_id ? cfd[first_of_cgroup(job, cfd, i)] : -1;
}

/* Evicts one chunk from the generations idle for the cold age, split over the memcg's
 * lruvecs (nodes), and over its descendants' (check_descendants()), by their idle pages; what
 * each command asked for is taken off its target's idle_pages, so the job as a whole never asks
 * a lruvec for more than the plan found cold. skip[i] is set for a lruvec the kernel refuses
 * (removed, or too few generations) and for a descendant's that is gone. lru_gen is open for
 * this chunk only. Returns 0; -EINTR when a signal interrupted an eviction; -ENOENT when no
 * lruvec took a command; -ENXIO when lru_gen is gone (debugfs unmounted); -ENOMEM; -errno of
 * the open or a write otherwise. */
static int evict_chunk(struct reclaim_job *job, uint64_t chunk_bytes, bool *skip, uint64_t *nr)
{
	_cleanup_(closep) int fd = -1;
	_cleanup_(freep) int *cfd = malloc(job->n_evict * sizeof(*cfd));
	_cleanup_(freep) uint64_t *left = malloc(job->n_evict * sizeof(*left));
	char cmd[128];
	bool any = false;
	int r = 0;

	if (!cfd || !left)
		return -ENOMEM;
	for (size_t i = 0; i < job->n_evict; i++)
		cfd[i] = -1;
	check_descendants(job, skip, cfd, left);
	lru_gen_split(job->evict, job->n_evict, skip, chunk_bytes / job->page_size, nr);
	for (size_t i = 0; i < job->n_evict; i++) {
		struct lru_gen_target *t = &job->evict[i];
		int dfd = descendant_fd(job, cfd, i), len;

		if (nr[i] == 0)
			continue;
		/* Right before the command: a descendant removed since the check above. A removed
		 * cgroup's directory holds no files (kernfs), so its lookups fail. */
		if (t->cgroup_id && (dfd < 0 || faccessat(dfd, "memory.current", F_OK, 0) < 0)) {
			skip[i] = true;
			continue;
		}
		/* Up to the last cold generation (lru_gen_plan.h). EINVAL: the memcg or node went
		 * away, or this job's aging did not add the generation the plan counted on. */
		len = lru_gen_format_evict(cmd, sizeof(cmd), t->memcg_id, t->node, t->evict_seq,
					   t->file_only ? 0 : job->evict_swappiness, nr[i]);
		if (len < 0) {
			r = len;
			break;
		}
		if (fd < 0 && (fd = lru_gen_open(job->lru_gen_path)) < 0) {
			r = fd == -ENOENT ? -ENXIO : fd;
			break;
		}
		r = lru_gen_write(fd, cmd, (size_t)len);
		if (r == -EINVAL) {
			skip[i] = true;
			r = 0;
			continue;
		}
		if (r == -EINTR) /* it may have evicted part: counted as if all */
			t->idle_pages = sub_sat(t->idle_pages, nr[i]);
		if (r < 0)
			break;
		t->idle_pages = sub_sat(t->idle_pages, nr[i]);
		t->idle_file_pages = MIN(t->idle_file_pages, t->idle_pages);
		any = true;
	}
	for (size_t i = 0; i < job->n_evict; i++)
		if (cfd[i] >= 0)
			close(cfd[i]);
	if (r < 0)
		return r;
	return any ? 0 : -ENOENT;
}

void reclaim_job_run(struct reclaim_job *job)
{
	_cleanup_(closep) int reclaim_fd = -1;
	_cleanup_(closep) int pressure_fd = -1;
	_cleanup_(freep) bool *evict_skip = NULL;
	_cleanup_(freep) uint64_t *evict_nr = NULL;
	uint64_t current_before = 0, pgsteal_before = 0, current_after, pgsteal_after, pgsteal_prev;
	uint64_t current_now, done = 0;
	uint64_t pgdemote_before = 0, pgdemote_after;
	usec_t stall_start_us = 0, stall_now_us;
	unsigned foreign_eintr = 0;
	bool measured;
	int r;

	if (job->reclaim_node >= 0) {
		node_reclaim_run(job);
		return;
	}
	job->started_us = now_us();
	job->outcome = JOB_DONE;

	if (job->lru_gen_cmds && job->lru_gen_path) {
		int fd = lru_gen_open(job->lru_gen_path);

		if (fd >= 0) {
			job->lruvecs_aged = lru_gen_run(fd, job->lru_gen_cmds, &job->aging_error);
			close(fd);
		} else {
			job->aging_error = fd;
		}
		job->aging_us = now_us() - job->started_us;
	}
	if (job->request_bytes == 0)
		goto out;

	reclaim_fd = openat(job->cgroup_dirfd, "memory.reclaim", O_WRONLY | O_CLOEXEC);
	if (reclaim_fd < 0) {
		r = -errno;
		job->outcome = (r == -ENOENT || r == -ENODEV) ? JOB_GONE :
			       (r == -EINTR && atomic_load(&job->cancel)) ? JOB_CANCELLED : JOB_FAILED;
		job->error = r;
		goto out;
	}
	pressure_fd = openat(job->cgroup_dirfd, "memory.pressure", O_RDONLY | O_CLOEXEC);
	if (pressure_fd >= 0 && read_some_total(pressure_fd, &stall_start_us) < 0) {
		close(pressure_fd);
		pressure_fd = -1;
	}
	r = measure(job->cgroup_dirfd, &current_before, &pgsteal_before, &pgdemote_before);
	measured = r == 0;
	if (job->evict && (!measured || !job->lru_gen_path ||
			   !(evict_skip = calloc(job->n_evict, sizeof(*evict_skip))) ||
			   !(evict_nr = calloc(job->n_evict, sizeof(*evict_nr))))) {
		/* Without a measurement the eviction cannot tell when the idle generations run out,
		 * and memory.reclaim in its place would take pages that are not cold (mglru.h):
		 * this request reclaims nothing. */
		job->error = !measured ? r : !job->lru_gen_path ? -EBADF : -ENOMEM;
		job->outcome = (job->error == -ENOENT || job->error == -ENODEV) ? JOB_GONE :
			       JOB_FAILED;
		goto out;
	}
	pgsteal_prev = pgsteal_before;
	current_now = measured ? current_before : UINT64_MAX;

	while (done < job->request_bytes) {
		/* Bounded (an over-reclaiming kernel) and capped at what is above the floor. */
		uint64_t chunk = reclaim_chunk_next(&(struct reclaim_chunk_state){
			.request_bytes = job->request_bytes, .done_bytes = done,
			.chunk_bytes = job->chunk_bytes, .page_size = job->page_size,
			.bounded = reclaim_chunk_bounded_job(job->bounded, job->evict != NULL),
			.floor_bytes = job->floor_bytes,
			.current_bytes = current_now });

		if (atomic_load(&job->cancel)) {
			job->outcome = JOB_CANCELLED;
			break;
		}
		if (chunk == 0) {
			job->at_floor = job->floor_bytes && current_now != UINT64_MAX &&
					sub_sat(current_now, job->floor_bytes) < job->page_size;
			break;
		}
		/* The pool's rate limit; may wait, and says false when cancelled meanwhile. */
		if (job->throttle && !job->throttle(job, chunk)) {
			job->outcome = JOB_CANCELLED;
			break;
		}

		if (job->evict) {
			r = evict_chunk(job, chunk, evict_skip, evict_nr);
			if (r == -ENOENT) {
				job->idle_exhausted = true;
				job->outcome = JOB_PARTIAL;
				break;
			}
		} else {
			r = write_chunk(job, reclaim_fd, chunk);
		}
		if (r == -EINTR) {
			if (atomic_load(&job->cancel)) {
				job->outcome = JOB_CANCELLED;
				break;
			}
			if (++foreign_eintr <= MAX_FOREIGN_EINTR)
				continue;
		}
		if (r < 0) {
			/* EAGAIN: a dying memcg's (7.x) or a cgroup with too little left to reclaim;
			 * the probe tells them apart. */
			job->error = r;
			job->outcome = reclaim_chunk_outcome(r, r == -EAGAIN ? probe_removed(job) : 0);
			break;
		}
		job->written_bytes += chunk;
		job->chunks++;
		done = job->written_bytes;

		if (job->evict || job->bounded || job->floor_bytes) {
			uint64_t pgsteal_now;

			/* The kernel reports no count: measure. A cgroup that cannot be measured went
			 * away, and its memcg id may already name a new cgroup the next command would
			 * evict from. */
			r = measure(job->cgroup_dirfd, &current_now, &pgsteal_now, NULL);
			if (r < 0) {
				job->error = job->evict || reclaim_chunk_probe_gone(r) ? 0 : r;
				job->outcome = job->error ? JOB_FAILED : JOB_GONE;
				break;
			}
			/* Less than half a chunk evicted: the idle generations are used up (the rest
			 * is younger than two intervals). */
			if (job->evict && sub_sat(pgsteal_now, pgsteal_prev) * job->page_size < chunk / 2) {
				job->idle_exhausted = true;
				job->outcome = JOB_PARTIAL;
				break;
			}
			pgsteal_prev = pgsteal_now;
			/* An over-reclaiming kernel took at least what was written, maybe far more:
			 * count what pgsteal shows. */
			if (job->bounded && !job->evict && measured)
				done = MAX(done, sub_sat(pgsteal_now, pgsteal_before) * job->page_size);
		}

		/* Between chunks: has the workload started to stall since we began? */
		if (pressure_fd >= 0 && done < job->request_bytes &&
		    read_some_total(pressure_fd, &stall_now_us) == 0) {
			usec_t window = MAX(now_us() - job->started_us, STALL_MIN_WINDOW_US);
			double pct = 100.0 * (double)sub_sat(stall_now_us, stall_start_us) / (double)window;

			if (pct > job->psi_some_target_pct) {
				job->outcome = JOB_STOPPED_PRESSURE;
				break;
			}
		}
	}

	if (measured && job->outcome != JOB_GONE &&
	    measure(job->cgroup_dirfd, &current_after, &pgsteal_after, &pgdemote_after) == 0) {
		uint64_t stolen = sub_sat(pgsteal_after, pgsteal_before);
		uint64_t demoted = MIN(sub_sat(pgdemote_after, pgdemote_before), stolen);

		job->reclaimed_bytes = tiers_freed_pages(stolen, demoted) * job->page_size;
		job->demoted_bytes = demoted * job->page_size;
		job->current_drop_bytes = sub_sat(current_before, current_after);
	}
out:
	job->finished_us = now_us();
}
