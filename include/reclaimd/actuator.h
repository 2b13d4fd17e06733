/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * actuator.h - performing reclaim: jobs that write memory.reclaim in chunks, run by a pool of
 * worker threads (never by the main loop: one write can block for seconds).
 *
 * Kernel behaviour relied on (mm/memcontrol.c memory_reclaim(), Documentation/admin-guide/
 * cgroup-v2.rst "memory.reclaim"): a write of "<bytes> [swappiness=N]" returns the full count on
 * success and has no partial count; -EAGAIN when it gave up making progress (on 7.x also as soon as
 * the memcg is dying: reclaim_chunk.h); -EINTR when any
 * signal is pending between its internal batches (SA_RESTART does not restart it), which is how a
 * blocked write is interrupted; -EINVAL for an unknown key (swappiness= on older kernels).
 *
 * Threading: a job is owned by the submitter until worker_pool_submit(), by the pool until it
 * comes back from worker_pool_drain(). Only `cancel` may be touched in between (through
 * worker_pool_cancel()).
 */
#ifndef RECLAIMD_ACTUATOR_H
#define RECLAIMD_ACTUATOR_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "reclaimd/common.h"

enum job_outcome {
	JOB_DONE,             /* every chunk written */
	JOB_PARTIAL,          /* kernel answered EAGAIN (cgroup still there): reclaimed less than
			       * asked */
	JOB_STOPPED_PRESSURE, /* stall since the job started exceeded the target */
	JOB_CANCELLED,        /* cancelled (PSI trigger, cgroup gone, shutdown) */
	JOB_GONE,             /* ENOENT/ENODEV, or EAGAIN and then the cgroup was found removed
			       * (reclaim_chunk.h): the cgroup was removed */
	JOB_BUSY,             /* EBUSY */
	JOB_FAILED,           /* any other error, in `error` */
	_JOB_OUTCOME_MAX,
};

const char *job_outcome_str(enum job_outcome o);

struct reclaim_job {
	/* Input, set by the submitter. */
	uint64_t cgroup_inode;
	int cgroup_dirfd;            /* owned by the job (a dup), closed by reclaim_job_free() */
	char *cgroup_path;           /* for logs, owned */
	uint64_t request_bytes;
	uint64_t chunk_bytes;
	int swappiness;              /* SWAPPINESS_UNSET, 0..200, SWAPPINESS_MAX */
	double psi_some_target_pct;  /* stop when stall since start exceeds this, percent */
	uint64_t page_size;
	/* MGLRU aging done before the reclaim (see mglru.h): '\n'-terminated "+ id node seq"
	 * commands written to the file at lru_gen_path (sys_root/kernel/debug/lru_gen), opened for
	 * the aging and again for each eviction chunk and closed after it, so that a job never
	 * keeps debugfs busy longer than its writes take (an administrator's umount of
	 * /sys/kernel/debug fails with EBUSY only while a file on it is open). NULL: no aging. A
	 * job may only age (request_bytes 0). */
	char *lru_gen_cmds;          /* owned */
	char *lru_gen_path;          /* owned; NULL: no lru_gen */
	/* MGLRU eviction instead of memory.reclaim (mglru.h "Why evict through lru_gen"): the
	 * memcg's lruvecs with cold generations this tick (lru_gen_plan.h). Each chunk is split over
	 * them by their cold pages and written to lru_gen_path as "- id node evict_seq swappiness nr"
	 * (generations idle for the cgroup's cold age); when that cannot start (no lru_gen_path, the
	 * cgroup cannot be measured) the job fails, never falls back to memory.reclaim. NULL:
	 * memory.reclaim. */
	struct lru_gen_target *evict; /* owned */
	size_t n_evict;
	int evict_swappiness;        /* 0..200: vm.swappiness, or the job's swappiness when set */
	/* The kernel over-reclaims through memory.reclaim (reclaim_chunk.h): each write is at most
	 * RECLAIM_CHUNK_BOUNDED_PAGES pages, and what pgsteal shows taken counts towards the
	 * request. */
	bool bounded;
	/* memory.current, re-read after each write, is not reclaimed below this (bytes; 0: no check):
	 * the next write is at most what is above it, and the job stops within a page of it. */
	uint64_t floor_bytes;
	/* A node's job instead of a cgroup's (node_reclaim.h): >= 0, the NUMA node whose
	 * /sys/devices/system/node/node<N>/reclaim (node_reclaim_path, owned) takes request_bytes in
	 * one write. Such a job has no cgroup (cgroup_dirfd -1, inode 0, cgroup_path NULL), measures
	 * nothing (reclaimed_bytes stays 0: the kernel reclaims from every memcg on the node) and
	 * takes its bytes from the pool's rate limit like a chunk. -1: a cgroup's job. */
	int reclaim_node;
	char *node_reclaim_path;

	/* Control. */
	atomic_bool cancel;

	/* Output, valid after the job came back from worker_pool_drain(). */
	enum job_outcome outcome;
	int error;                   /* -errno of the write that ended the job (JOB_FAILED, and
				      * -EAGAIN for a JOB_PARTIAL the kernel cut short); 0 */
	uint64_t written_bytes;      /* sum of chunks the kernel accepted */
	uint64_t reclaimed_bytes;    /* freed: memory.stat (pgsteal - pgdemote_*) delta * page
				      * size; demoted pages stay charged to the cgroup (tiers.h) */
	uint64_t demoted_bytes;      /* memory.stat pgdemote_* delta * page size: moved to a lower
				      * memory tier, still in memory; 0 without tiers */
	uint64_t current_drop_bytes; /* memory.current before - after, 0 if it grew */
	unsigned chunks;
	bool swappiness_rejected;    /* kernel answered EINVAL to swappiness=; retried without */
	unsigned lruvecs_aged;       /* aging commands the kernel accepted */
	bool at_floor;               /* stopped because memory.current reached floor_bytes */
	bool idle_exhausted;         /* eviction stopped: a chunk found less than half its size in
				      * generations idle for two intervals (outcome JOB_PARTIAL) */
	int aging_error;             /* first unexpected -errno of an aging write, or 0 */
	int evict_check_error;       /* -errno of open_by_handle_at(2) when a descendant's target
				      * could not be checked (not ESTALE: a removed cgroup), or 0 */
	usec_t aging_us;             /* time spent aging (page table walks), microseconds */
	usec_t queued_us, started_us, finished_us;

	/* Pool bookkeeping. */
	/* Called by reclaim_job_run() before each chunk with its size in bytes; returns false when
	 * the job was cancelled while waiting (the job then ends JOB_CANCELLED). Set by the pool to
	 * its rate limit; NULL (a job run outside a pool): no limit. */
	bool (*throttle)(struct reclaim_job *job, uint64_t chunk_bytes);
	void *throttle_userdata;
	struct reclaim_job *next;
	pthread_t worker;
	bool running;                /* under the pool mutex */
};

/* Allocates a job for the cgroup at dirfd (dup'ed). Returns 0 or -errno. */
int reclaim_job_new(int cgroup_dirfd, const char *path, uint64_t inode, struct reclaim_job **ret);
void reclaim_job_free(struct reclaim_job *job);

/* Runs a job in the calling thread (what a worker does): the aging commands first, then the
 * memory.reclaim chunks; a node's job (reclaim_node >= 0) is node_reclaim_run(). Exposed for
 * tests. */
void reclaim_job_run(struct reclaim_job *job);

/* Whether jobs may write swappiness=: set by the loop from the feature table (features.h) at each
 * probe; cleared by a job whose kernel rejected the key with EINVAL (it then retries without),
 * which the loop folds into the table as learned. */
extern atomic_bool reclaim_swappiness_supported;

struct file_handle;
/* open_by_handle_at(2), through which a job opens a descendant cgroup by id before evicting from
 * it (reclaim_job.c); unit tests point it at fixture directories. */
extern int (*reclaim_open_by_handle)(int mount_fd, struct file_handle *handle, int flags);

struct worker_pool;

/* Starts n_workers threads with a FIFO of at most queue_len jobs. `node` is only for logs (-1:
 * none). `cpus` (copied), when not NULL, is the only set of CPUs the workers may run on (one pool
 * per NUMA node: the node's CPUs); NULL: no pinning. Only one worker runs jobs at first: see
 * worker_pool_set_allowed(). Returns 0 or -errno (-EINVAL for an empty set, pthread_create's
 * error, e.g. -EINVAL for a set with no online CPU, -ENOMEM). */
int worker_pool_new(unsigned n_workers, unsigned queue_len, int node, const cpu_set_t *cpus,
		    struct worker_pool **ret);

/* Re-pins every worker to `cpus` (CPU hotplug: the node's remaining CPUs), running jobs
 * included. Returns 0, -EINVAL for an empty set (the caller dissolves the pool instead),
 * -ESHUTDOWN once the pool is stopping, or pthread_setaffinity_np's error; on an error the
 * workers may be left partly re-pinned. */
int worker_pool_set_cpus(struct worker_pool *p, const cpu_set_t *cpus);

/* How many workers may run jobs at once, clamped to [1, n_workers]; the others wait without
 * taking a job. Lowering it never interrupts a running job: it takes effect as jobs finish.
 * A new pool starts at 1. */
void worker_pool_set_allowed(struct worker_pool *p, unsigned allowed);

/* Limits the bytes per second that all of the pool's jobs together ask memory.reclaim for
 * (0: unlimited, the default). A token bucket holding at most one second's worth, or one chunk
 * when a chunk is larger; a job takes a chunk's worth before writing it and waits for it when the
 * bucket is short. A waiting job stays cancellable: worker_pool_cancel() and worker_pool_stop()
 * wake it at once. Changing the rate wakes waiting jobs to re-evaluate. */
void worker_pool_set_rate_limit(struct worker_pool *p, uint64_t bytes_per_sec);

struct worker_pool_stats {
	int node;
	unsigned n_workers, allowed;
	unsigned busy;                   /* jobs being run (including those waiting for tokens) */
	unsigned queued;                 /* jobs waiting for a worker */
	unsigned throttled;              /* running jobs waiting for tokens now */
	uint64_t jobs_done;              /* jobs finished, any outcome (cancelled ones included) */
	uint64_t bytes_reclaimed;        /* sum of reclaimed_bytes of finished jobs */
	uint64_t jobs_dropped;           /* submits refused with -EAGAIN (queue full) */
	uint64_t rate_limit_bytes_per_sec; /* 0: unlimited */
	uint64_t throttle_waits;         /* chunks that had to wait for tokens */
	uint64_t tokens_taken_bytes;     /* bytes granted by the bucket while a limit was set */
};

/* A consistent copy of the pool's counters, taken under its mutex. */
void worker_pool_get_stats(struct worker_pool *p, struct worker_pool_stats *ret);

/* For tests only; call before submitting. `run` replaces reclaim_job_run() as what a worker does
 * with a job (NULL restores it); `clock` replaces now_us() as the token bucket's clock (NULL
 * restores it; waits are still bounded by real time, and a change of rate re-evaluates them). */
void worker_pool_set_test_hooks(struct worker_pool *p, void (*run)(struct reclaim_job *job),
				usec_t (*clock)(void));

/* Queues a job. -EAGAIN when the queue is full (the job stays the caller's), -ESHUTDOWN while
 * the pool is stopping. Never blocks on a running write. */
int worker_pool_submit(struct worker_pool *p, struct reclaim_job *job);

/* Asks a queued or running job to stop; a running memory.reclaim write is interrupted with
 * SIGUSR1 (EINTR). Safe to call repeatedly: worker_pool_kick() re-signals cancelled jobs still
 * running, closing the window where the signal arrived just before the write began. */
void worker_pool_cancel(struct worker_pool *p, struct reclaim_job *job);
/* Returns how many cancelled jobs are still running (after re-signalling them). */
unsigned worker_pool_kick(struct worker_pool *p);

/* An eventfd that becomes readable when jobs have finished; worker_pool_drain() clears it. */
int worker_pool_event_fd(const struct worker_pool *p);

/* Hands back the finished jobs as a list linked by ->next (oldest first), or NULL. */
struct reclaim_job *worker_pool_drain(struct worker_pool *p);

/* Queued + running jobs. */
unsigned worker_pool_pending(struct worker_pool *p);

/* Cancels everything and joins the threads; jobs that were running are left on the finished
 * list for worker_pool_drain(), queued ones are not run. Idempotent. */
void worker_pool_stop(struct worker_pool *p);

/* worker_pool_stop(), then frees every job still held (queued or finished). NULL is fine. */
void worker_pool_free(struct worker_pool *p);

#endif
