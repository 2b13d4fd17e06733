/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_worker_pool.c - the worker pool's mechanics with real threads and a real blocking
 * syscall: the bounded queue, draining, and cancellation of a job blocked in the kernel. The
 * "cgroup" is a directory whose memory.reclaim is a FIFO. With no reader, opening it blocks; held
 * open and full by the test, a write to it blocks, and the test sees the worker inside that
 * write (/proc/self/task/<tid>/syscall) before cancelling it: the cancel signal interrupts it
 * (EINTR), the way a long memory.reclaim write is interrupted on a real kernel (that case is
 * tested in the VM: tests/vm/scenarios).
 *
 * Pinning and adaptive concurrency use a fake job function (worker_pool_set_test_hooks()) that
 * records its worker's CPU set and how many jobs run at once, then blocks until released. The
 * rate limit runs real jobs against a directory whose memory.reclaim is a regular file, with the
 * bucket on an injected clock, so its accounting is asserted exactly and nothing waits on time.
 *
 * nodeN/reclaim writes (node_reclaim.h) run as jobs of the same pools: on a pinned pool, under
 * its rate limit, and through the dispatcher (dispatcher.h) on a fake sys root with a real
 * sd-event loop: routed to the node's own pool, or for a CPU-less node to the nearest node with
 * CPUs by distance (not the default node), one per node in flight, results through the
 * callback, and writes cancelled by a stop or by hotplug dissolving their pool reported too. A
 * node whose reclaim file is a FIFO blocks the write in open(2), as a long reclaim blocks in
 * write(2).
 * Every wait here is a liveness bound (seconds for what takes milliseconds), never a threshold.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-event.h>

#include "ctl/dispatcher.h"
#include "reclaimd/actuator.h"
#include "reclaimd/config.h"
#include "reclaimd/node_reclaim.h"
#include "test.h"

static char dir[256];
static int dirfd_;

static struct reclaim_job *new_job(uint64_t inode)
{
	struct reclaim_job *job = NULL;

	if (reclaim_job_new(dirfd_, "blocked", inode, &job) < 0)
		return NULL;
	job->request_bytes = 1 << 20;
	job->chunk_bytes = 1 << 20;
	job->psi_some_target_pct = 0.1;
	return job;
}

/* Drains until `want` jobs came back or `timeout_us` passed; returns how many. */
static unsigned drain_wait(struct worker_pool *p, struct reclaim_job **got, unsigned want,
			   usec_t timeout_us)
{
	usec_t end = now_us() + timeout_us;
	unsigned n = 0;

	while (n < want && now_us() < end) {
		struct reclaim_job *j = worker_pool_drain(p);

		for (; j; j = j->next)
			got[n++] = j;
		usleep(5000);
	}
	return n;
}

/* Opens the FIFO for reading and writing (which never blocks) and fills it: a worker's open of
 * memory.reclaim then succeeds at once and its write blocks, writing nothing (a request is
 * shorter than PIPE_BUF, so it goes in whole or not at all), the way a long memory.reclaim write
 * blocks in the kernel. Returns the fd, -1 on failure; *ret_filled is the bytes queued. */
static int fifo_open_full(int *ret_filled)
{
	char buf[4096];
	int fd, queued = 0;
	ssize_t n;

	fd = openat(dirfd_, "memory.reclaim", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	memset(buf, 'x', sizeof(buf));
	/* Page-sized writes fill the ring's slots; single bytes then top up any partial one. */
	while ((n = write(fd, buf, sizeof(buf))) > 0)
		queued += (int)n;
	while ((n = write(fd, buf, 1)) > 0)
		queued += (int)n;
	if (errno != EAGAIN || ioctl(fd, FIONREAD, ret_filled) < 0 || *ret_filled != queued) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Is thread `tid` of this process blocked in write(2) on the file whose inode is `ino`? From
 * /proc/self/task/<tid>/syscall: "<nr> <arg0> ..." while the thread is in a syscall ("running"
 * or "-1 ..." otherwise). -errno when that file cannot be read. */
static int thread_in_write(const char *tid, ino_t ino)
{
	char path[320], buf[256];
	struct stat st;
	long nr;
	unsigned long fd;
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/proc/self/task/%s/syscall", tid);
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -errno;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (sscanf(buf, "%ld 0x%lx", &nr, &fd) != 2 || nr != SYS_write)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%lu", fd);
	return stat(path, &st) == 0 && st.st_ino == ino && S_ISFIFO(st.st_mode);
}

/* Waits (at most 5 s, polling every millisecond) until a thread other than this one is blocked
 * in write(2) on the FIFO with inode `ino`. 1 when it is, 0 on timeout, -errno when the kernel
 * does not show threads' syscalls (no /proc/<pid>/task/<tid>/syscall). */
static int wait_in_write(ino_t ino)
{
	usec_t end = now_us() + 5 * USEC_PER_SEC;
	char self[32];

	snprintf(self, sizeof(self), "%ld", (long)syscall(SYS_gettid));
	do {
		DIR *d = opendir("/proc/self/task");
		struct dirent *de;
		int r = 0;

		if (!d)
			return -errno;
		while (r == 0 && (de = readdir(d)))
			if (de->d_name[0] != '.' && strcmp(de->d_name, self) != 0)
				r = thread_in_write(de->d_name, ino);
		closedir(d);
		if (r != 0)
			return r;
		usleep(1000);
	} while (now_us() < end);
	return 0;
}

/* A job blocked inside its memory.reclaim write is interrupted by the cancel signal. The test
 * waits until the worker is seen in write(2) on the FIFO, so the cancel cannot arrive before
 * the write (which the loop's own cancel check would catch instead). */
static void test_cancel_blocked_job(void)
{
	struct worker_pool *p = NULL;
	struct reclaim_job *a, *got[4];
	struct stat st;
	int fifo, filled = 0, left = -1, r;
	usec_t t0;
	unsigned n;

	CHECK_EQ_INT(fstatat(dirfd_, "memory.reclaim", &st, 0), 0);
	fifo = fifo_open_full(&filled);
	CHECK(fifo >= 0);
	CHECK_EQ_INT(worker_pool_new(1, 2, -1, NULL, &p), 0);
	if (!p || fifo < 0)
		goto out;
	a = new_job(1);
	CHECK_EQ_INT(worker_pool_submit(p, a), 0);
	r = wait_in_write(st.st_ino);
	if (r < 0) {
		SKIP("cannot see where the worker blocks (/proc/self/task/*/syscall: %s)",
		     strerror(-r));
		goto out; /* worker_pool_free() interrupts the write and frees the job */
	}
	CHECK_EQ_INT(r, 1);
	CHECK_EQ_U64(worker_pool_pending(p), 1);
	CHECK_EQ_U64(worker_pool_drain(p) == NULL, 1);

	t0 = now_us();
	worker_pool_cancel(p, a);
	n = drain_wait(p, got, 1, 2 * USEC_PER_SEC);
	CHECK_EQ_U64(n, 1);
	if (n == 1) {
		CHECK(got[0] == a);
		CHECK_EQ_INT(a->outcome, JOB_CANCELLED);
		CHECK_EQ_U64(a->written_bytes, 0);
		CHECK(now_us() - t0 < USEC_PER_SEC / 2);
		reclaim_job_free(a);
	}
	/* The interrupted write put nothing into the FIFO. */
	CHECK_EQ_INT(ioctl(fifo, FIONREAD, &left), 0);
	CHECK_EQ_INT(left, filled);
	CHECK_EQ_U64(worker_pool_pending(p), 0);
out:
	worker_pool_free(p);
	if (fifo >= 0)
		close(fifo); /* the last open end: the FIFO is empty again, an open blocks again */
}

/* Waits (at most 5 s) until `busy` jobs are running and none is queued. */
static bool wait_taken(struct worker_pool *p, unsigned busy)
{
	usec_t end = now_us() + 5 * USEC_PER_SEC;
	struct worker_pool_stats st;

	do {
		worker_pool_get_stats(p, &st);
		if (st.busy == busy && st.queued == 0)
			return true;
		usleep(1000);
	} while (now_us() < end);
	return false;
}

static void test_bounded_queue_and_shutdown(void)
{
	struct worker_pool *p = NULL;
	struct reclaim_job *running, *queued, *extra;
	usec_t t0;

	CHECK_EQ_INT(worker_pool_new(1, 1, -1, NULL, &p), 0);
	if (!p)
		return;
	running = new_job(1);
	queued = new_job(2);
	extra = new_job(3);
	CHECK_EQ_INT(worker_pool_submit(p, running), 0);
	CHECK(wait_taken(p, 1)); /* out of the queue, so that it has room for one more */
	CHECK_EQ_INT(worker_pool_submit(p, queued), 0);
	/* The queue holds one job: a third is refused at once, never waited for. */
	t0 = now_us();
	CHECK_EQ_INT(worker_pool_submit(p, extra), -EAGAIN);
	CHECK(now_us() - t0 < 10000);
	CHECK_EQ_U64(worker_pool_pending(p), 2);
	{
		struct worker_pool_stats st;

		worker_pool_get_stats(p, &st);
		CHECK_EQ_U64(st.jobs_dropped, 1);
		CHECK_EQ_U64(st.busy, 1);
		CHECK_EQ_U64(st.queued, 1);
		CHECK_EQ_U64(st.jobs_done, 0);
	}

	/* Stopping interrupts the blocked job and joins; the running job comes back, the queued
	 * one never runs. */
	t0 = now_us();
	worker_pool_stop(p);
	CHECK(now_us() - t0 < USEC_PER_SEC);
	{
		struct reclaim_job *j = worker_pool_drain(p);

		CHECK(j == running);
		if (j) {
			CHECK(j->next == NULL);
			CHECK_EQ_INT(j->outcome, JOB_CANCELLED);
			reclaim_job_free(j);
		}
	}
	CHECK_EQ_INT(worker_pool_submit(p, extra), -ESHUTDOWN);
	{
		struct worker_pool_stats st;

		/* -ESHUTDOWN is not a drop; the interrupted job counts as finished. */
		worker_pool_get_stats(p, &st);
		CHECK_EQ_U64(st.jobs_dropped, 1);
		CHECK_EQ_U64(st.jobs_done, 1);
		CHECK_EQ_U64(st.busy, 0);
	}
	reclaim_job_free(extra);
	worker_pool_free(p); /* frees `queued` */
}

static void test_missing_file_is_gone(void)
{
	struct worker_pool *p = NULL;
	struct reclaim_job *j = NULL, *got[1];
	int empty_fd;
	char empty[300];

	snprintf(empty, sizeof(empty), "%s/empty", dir);
	mkdir(empty, 0755);
	empty_fd = open(empty, O_RDONLY | O_DIRECTORY);
	CHECK_EQ_INT(worker_pool_new(2, 4, -1, NULL, &p), 0);
	CHECK_EQ_INT(reclaim_job_new(empty_fd, "empty", 9, &j), 0);
	if (!p || !j)
		return;
	j->request_bytes = j->chunk_bytes = 1 << 20;
	CHECK_EQ_INT(worker_pool_submit(p, j), 0);
	CHECK_EQ_U64(drain_wait(p, got, 1, 2 * USEC_PER_SEC), 1);
	CHECK_EQ_INT(j->outcome, JOB_GONE);
	CHECK_EQ_INT(j->error, -ENOENT);
	reclaim_job_free(j);
	worker_pool_free(p);
	close(empty_fd);
	rmdir(empty);
}

/* The fake job: indexed by cgroup_inode (< FAKE_MAX_JOBS), all state under fake_lock. */
#define FAKE_MAX_JOBS 16
static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fake_cond = PTHREAD_COND_INITIALIZER;
static unsigned fake_started, fake_finished, fake_running, fake_max_running, fake_releases;
static uint64_t fake_order[FAKE_MAX_JOBS]; /* inodes in the order the jobs started */
static cpu_set_t fake_cpus[FAKE_MAX_JOBS];
static int fake_cpus_r[FAKE_MAX_JOBS];
static pthread_t fake_thread[FAKE_MAX_JOBS];

static void fake_reset(void)
{
	pthread_mutex_lock(&fake_lock);
	fake_started = fake_finished = fake_running = fake_max_running = fake_releases = 0;
	memset(fake_order, 0, sizeof(fake_order));
	memset(fake_cpus_r, 0, sizeof(fake_cpus_r));
	pthread_mutex_unlock(&fake_lock);
}

static void fake_run(struct reclaim_job *job)
{
	uint64_t i = job->cgroup_inode % FAKE_MAX_JOBS;
	cpu_set_t set;
	int r;

	CPU_ZERO(&set);
	r = pthread_getaffinity_np(pthread_self(), sizeof(set), &set);
	pthread_mutex_lock(&fake_lock);
	fake_cpus[i] = set;
	fake_cpus_r[i] = r;
	fake_thread[i] = pthread_self();
	if (fake_started < FAKE_MAX_JOBS)
		fake_order[fake_started] = job->cgroup_inode;
	fake_started++;
	fake_running++;
	fake_max_running = MAX(fake_max_running, fake_running);
	pthread_cond_broadcast(&fake_cond);
	while (fake_releases == 0)
		pthread_cond_wait(&fake_cond, &fake_lock);
	fake_releases--;
	fake_running--;
	fake_finished++;
	pthread_mutex_unlock(&fake_lock);
	job->outcome = JOB_DONE;
	job->reclaimed_bytes = job->cgroup_inode << 12;
}

static void fake_release(unsigned n)
{
	pthread_mutex_lock(&fake_lock);
	fake_releases += n;
	pthread_cond_broadcast(&fake_cond);
	pthread_mutex_unlock(&fake_lock);
}

static unsigned fake_get(const unsigned *counter)
{
	unsigned v;

	pthread_mutex_lock(&fake_lock);
	v = *counter;
	pthread_mutex_unlock(&fake_lock);
	return v;
}

/* Waits (at most 5 s) until *counter reaches want; returns its value. */
static unsigned fake_wait(const unsigned *counter, unsigned want)
{
	usec_t end = now_us() + 5 * USEC_PER_SEC;
	unsigned v;

	while ((v = fake_get(counter)) < want && now_us() < end)
		usleep(1000);
	return v;
}

/* Drains `n` jobs and frees them; returns how many came back. */
static unsigned drain_free(struct worker_pool *p, unsigned n)
{
	struct reclaim_job *got[FAKE_MAX_JOBS];
	unsigned k = drain_wait(p, got, n, 5 * USEC_PER_SEC);

	for (unsigned i = 0; i < k; i++)
		reclaim_job_free(got[i]);
	return k;
}

static void test_pinning(void)
{
	cpu_set_t mine, cpu0, cpu1, empty, now;
	struct worker_pool *p = NULL;
	struct worker_pool_stats st;
	pthread_t t1, t2;

	CPU_ZERO(&mine);
	if (sched_getaffinity(0, sizeof(mine), &mine) < 0 || !CPU_ISSET(0, &mine) ||
	    !CPU_ISSET(1, &mine)) {
		SKIP("CPUs 0 and 1 are not both available");
		return;
	}
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	CPU_ZERO(&cpu1);
	CPU_SET(1, &cpu1);
	CPU_ZERO(&empty);

	CHECK_EQ_INT(worker_pool_new(2, 4, 0, &empty, &p), -EINVAL);
	CHECK(p == NULL);
	CHECK_EQ_INT(worker_pool_new(2, 4, 0, &cpu0, &p), 0);
	if (!p)
		return;
	worker_pool_get_stats(p, &st);
	CHECK_EQ_INT(st.node, 0);
	worker_pool_set_test_hooks(p, fake_run, NULL);
	worker_pool_set_allowed(p, 2);

	/* Two blocking jobs at once: one on each worker, each sees its own thread's CPU set. */
	fake_reset();
	CHECK_EQ_INT(worker_pool_submit(p, new_job(1)), 0);
	CHECK_EQ_INT(worker_pool_submit(p, new_job(2)), 0);
	CHECK_EQ_U64(fake_wait(&fake_started, 2), 2);
	pthread_mutex_lock(&fake_lock);
	CHECK_EQ_INT(fake_cpus_r[1], 0);
	CHECK_EQ_INT(fake_cpus_r[2], 0);
	CHECK(CPU_EQUAL(&fake_cpus[1], &cpu0));
	CHECK(CPU_EQUAL(&fake_cpus[2], &cpu0));
	t1 = fake_thread[1];
	t2 = fake_thread[2];
	pthread_mutex_unlock(&fake_lock);
	CHECK(!pthread_equal(t1, t2));

	/* Hotplug: re-pin to CPU 1; the busy workers move too (read from outside while blocked). */
	CHECK_EQ_INT(worker_pool_set_cpus(p, &cpu1), 0);
	CHECK_EQ_INT(pthread_getaffinity_np(t1, sizeof(now), &now), 0);
	CHECK(CPU_EQUAL(&now, &cpu1));
	CHECK_EQ_INT(pthread_getaffinity_np(t2, sizeof(now), &now), 0);
	CHECK(CPU_EQUAL(&now, &cpu1));
	fake_release(2);
	CHECK_EQ_U64(drain_free(p, 2), 2);

	/* And the next jobs, seen from inside, run on CPU 1 only. */
	fake_reset();
	CHECK_EQ_INT(worker_pool_submit(p, new_job(3)), 0);
	CHECK_EQ_INT(worker_pool_submit(p, new_job(4)), 0);
	CHECK_EQ_U64(fake_wait(&fake_started, 2), 2);
	pthread_mutex_lock(&fake_lock);
	CHECK(CPU_EQUAL(&fake_cpus[3], &cpu1));
	CHECK(CPU_EQUAL(&fake_cpus[4], &cpu1));
	pthread_mutex_unlock(&fake_lock);

	/* No CPU left: refused, the caller dissolves the pool; the pinning is unchanged. */
	CHECK_EQ_INT(worker_pool_set_cpus(p, &empty), -EINVAL);
	CHECK_EQ_INT(worker_pool_set_cpus(p, NULL), -EINVAL);
	CHECK_EQ_INT(pthread_getaffinity_np(t1, sizeof(now), &now), 0);
	CHECK(CPU_EQUAL(&now, &cpu1));
	fake_release(2);
	CHECK_EQ_U64(drain_free(p, 2), 2);
	worker_pool_stop(p);
	CHECK_EQ_INT(worker_pool_set_cpus(p, &cpu0), -ESHUTDOWN);
	worker_pool_free(p);

	/* NULL: no pinning, the workers keep the process's CPUs. */
	p = NULL;
	CHECK_EQ_INT(worker_pool_new(1, 1, -1, NULL, &p), 0);
	if (!p)
		return;
	worker_pool_set_test_hooks(p, fake_run, NULL);
	fake_reset();
	CHECK_EQ_INT(worker_pool_submit(p, new_job(5)), 0);
	CHECK_EQ_U64(fake_wait(&fake_started, 1), 1);
	pthread_mutex_lock(&fake_lock);
	CHECK(CPU_EQUAL(&fake_cpus[5], &mine));
	pthread_mutex_unlock(&fake_lock);
	fake_release(1);
	CHECK_EQ_U64(drain_free(p, 1), 1);
	worker_pool_free(p);
}

static void test_allowed(void)
{
	struct worker_pool *p = NULL;
	struct worker_pool_stats st;

	CHECK_EQ_INT(worker_pool_new(2, 8, -1, NULL, &p), 0);
	if (!p)
		return;
	worker_pool_set_test_hooks(p, fake_run, NULL);
	worker_pool_get_stats(p, &st);
	CHECK_EQ_U64(st.n_workers, 2);
	CHECK_EQ_U64(st.allowed, 1); /* until the agent has seen the node idle */

	/* allowed = 1 with two workers: three jobs run one at a time, in FIFO order. */
	fake_reset();
	for (uint64_t i = 1; i <= 3; i++)
		CHECK_EQ_INT(worker_pool_submit(p, new_job(i)), 0);
	CHECK_EQ_U64(fake_wait(&fake_started, 1), 1);
	usleep(50000); /* room for a wrongly woken second worker to start one */
	CHECK_EQ_U64(fake_get(&fake_started), 1);
	worker_pool_get_stats(p, &st);
	CHECK_EQ_U64(st.busy, 1);
	CHECK_EQ_U64(st.queued, 2);
	CHECK_EQ_U64(worker_pool_pending(p), 3);
	for (unsigned k = 1; k <= 3; k++) {
		fake_release(1);
		CHECK_EQ_U64(fake_wait(&fake_finished, k), k);
		if (k < 3)
			CHECK_EQ_U64(fake_wait(&fake_started, k + 1), k + 1);
	}
	CHECK_EQ_U64(drain_free(p, 3), 3);
	pthread_mutex_lock(&fake_lock);
	CHECK_EQ_U64(fake_max_running, 1);
	CHECK_EQ_U64(fake_order[0], 1);
	CHECK_EQ_U64(fake_order[1], 2);
	CHECK_EQ_U64(fake_order[2], 3);
	pthread_mutex_unlock(&fake_lock);
	worker_pool_get_stats(p, &st);
	CHECK_EQ_U64(st.jobs_done, 3);
	CHECK_EQ_U64(st.bytes_reclaimed, (1 + 2 + 3) << 12);
	CHECK_EQ_U64(st.busy, 0);
	CHECK_EQ_U64(st.queued, 0);

	/* Raising it lets a queued job start beside one that is still blocked. */
	fake_reset();
	CHECK_EQ_INT(worker_pool_submit(p, new_job(4)), 0);
	CHECK_EQ_INT(worker_pool_submit(p, new_job(5)), 0);
	CHECK_EQ_U64(fake_wait(&fake_started, 1), 1);
	worker_pool_set_allowed(p, 2);
	CHECK_EQ_U64(fake_wait(&fake_started, 2), 2);
	CHECK_EQ_U64(fake_get(&fake_running), 2);
	CHECK_EQ_U64(fake_get(&fake_finished), 0);
	worker_pool_get_stats(p, &st);
	CHECK_EQ_U64(st.allowed, 2);
	CHECK_EQ_U64(st.busy, 2);

	/* Lowering it interrupts neither; a new job starts only once both have finished. */
	worker_pool_set_allowed(p, 1);
	CHECK_EQ_INT(worker_pool_submit(p, new_job(6)), 0);
	usleep(50000);
	CHECK_EQ_U64(fake_get(&fake_running), 2);
	CHECK_EQ_U64(fake_get(&fake_started), 2);
	fake_release(1);
	CHECK_EQ_U64(fake_wait(&fake_finished, 1), 1);
	usleep(50000);
	CHECK_EQ_U64(fake_get(&fake_started), 2);
	fake_release(1);
	CHECK_EQ_U64(fake_wait(&fake_started, 3), 3);
	fake_release(1);
	CHECK_EQ_U64(drain_free(p, 3), 3);
	pthread_mutex_lock(&fake_lock);
	CHECK_EQ_U64(fake_max_running, 2);
	CHECK_EQ_U64(fake_order[2], 6);
	pthread_mutex_unlock(&fake_lock);

	/* Clamped to [1, n_workers]. */
	worker_pool_set_allowed(p, 0);
	worker_pool_get_stats(p, &st);
	CHECK_EQ_U64(st.allowed, 1);
	worker_pool_set_allowed(p, 99);
	worker_pool_get_stats(p, &st);
	CHECK_EQ_U64(st.allowed, 2);
	CHECK_EQ_U64(st.jobs_done, 6);
	CHECK_EQ_U64(st.bytes_reclaimed, (1 + 2 + 3 + 4 + 5 + 6) << 12);
	CHECK_EQ_U64(st.jobs_dropped, 0);
	worker_pool_free(p);
}

/* The token bucket's clock, moved by the test only. */
static _Atomic usec_t fake_now_us = 1000 * USEC_PER_SEC;

static usec_t fake_clock(void)
{
	return atomic_load(&fake_now_us);
}

static char plain_dir[256];
static int plain_dirfd = -1;

/* A job against plain_dir, whose memory.reclaim is a regular file: every write succeeds. */
static struct reclaim_job *new_plain_job(uint64_t inode, uint64_t request, uint64_t chunk)
{
	struct reclaim_job *job = NULL;

	if (reclaim_job_new(plain_dirfd, "plain", inode, &job) < 0)
		return NULL;
	job->request_bytes = request;
	job->chunk_bytes = chunk;
	job->psi_some_target_pct = 100;
	return job;
}

/* Waits (at most 5 s) until `throttle_waits` reaches want and a job is waiting for tokens. */
static void wait_throttled(struct worker_pool *p, uint64_t want, struct worker_pool_stats *ret)
{
	usec_t end = now_us() + 5 * USEC_PER_SEC;

	do {
		worker_pool_get_stats(p, ret);
		if (ret->throttle_waits >= want && ret->throttled == 1)
			return;
		usleep(1000);
	} while (now_us() < end);
}

static void test_rate_limit(void)
{
	const uint64_t MiB = 1 << 20;
	struct worker_pool *p = NULL;
	struct worker_pool_stats st;
	struct reclaim_job *job, *got[1];
	struct stat sb;

	CHECK_EQ_INT(worker_pool_new(1, 4, -1, NULL, &p), 0);
	if (!p)
		return;
	worker_pool_set_test_hooks(p, NULL, fake_clock);
	worker_pool_set_rate_limit(p, MiB);
	worker_pool_get_stats(p, &st);
	CHECK_EQ_U64(st.rate_limit_bytes_per_sec, MiB);

	/* 1 MiB/s, 4 chunks of 1 MiB: the full bucket pays for the first, each later one waits for
	 * a second of (injected) time, and half a second is not enough. */
	job = new_plain_job(1, 4 * MiB, MiB);
	CHECK_EQ_INT(worker_pool_submit(p, job), 0);
	for (uint64_t k = 1; k <= 3; k++) {
		wait_throttled(p, k, &st);
		CHECK_EQ_U64(st.throttle_waits, k);
		CHECK_EQ_U64(st.throttled, 1);
		CHECK_EQ_U64(st.tokens_taken_bytes, k * MiB);

		atomic_fetch_add(&fake_now_us, USEC_PER_SEC / 2);
		worker_pool_set_rate_limit(p, MiB); /* same rate: waiting jobs re-evaluate */
		usleep(20000);
		worker_pool_get_stats(p, &st);
		CHECK_EQ_U64(st.throttle_waits, k);
		CHECK_EQ_U64(st.tokens_taken_bytes, k * MiB);

		atomic_fetch_add(&fake_now_us, USEC_PER_SEC / 2);
		worker_pool_set_rate_limit(p, MiB);
	}
	CHECK_EQ_U64(drain_wait(p, got, 1, 5 * USEC_PER_SEC), 1);
	CHECK(got[0] == job);
	CHECK_EQ_INT(job->outcome, JOB_DONE);
	CHECK_EQ_U64(job->written_bytes, 4 * MiB);
	CHECK_EQ_U64(job->chunks, 4);
	worker_pool_get_stats(p, &st);
	CHECK_EQ_U64(st.throttle_waits, 3);
	CHECK_EQ_U64(st.throttled, 0);
	CHECK_EQ_U64(st.tokens_taken_bytes, 4 * MiB);
	CHECK_EQ_U64(st.jobs_done, 1);
	/* Four writes of "1048576" reached the file. */
	CHECK_EQ_INT(fstatat(plain_dirfd, "memory.reclaim", &sb, 0), 0);
	CHECK_EQ_U64(sb.st_size, 4 * strlen("1048576"));
	reclaim_job_free(job);

	/* Lifting the limit releases a waiting job; unlimited jobs take no tokens. */
	job = new_plain_job(2, 2 * MiB, MiB);
	CHECK_EQ_INT(worker_pool_submit(p, job), 0);
	wait_throttled(p, 4, &st);
	CHECK_EQ_U64(st.throttled, 1);
	worker_pool_set_rate_limit(p, 0);
	CHECK_EQ_U64(drain_wait(p, got, 1, 5 * USEC_PER_SEC), 1);
	CHECK_EQ_INT(job->outcome, JOB_DONE);
	CHECK_EQ_U64(job->written_bytes, 2 * MiB);
	worker_pool_get_stats(p, &st);
	CHECK_EQ_U64(st.throttle_waits, 4);
	CHECK_EQ_U64(st.tokens_taken_bytes, 4 * MiB);
	CHECK_EQ_U64(st.rate_limit_bytes_per_sec, 0);
	reclaim_job_free(job);
	worker_pool_free(p);
}

static void test_cancel_waiting_for_tokens(void)
{
	const uint64_t MiB = 1 << 20;
	struct worker_pool *p = NULL;
	struct worker_pool_stats st;
	struct reclaim_job *a, *b, *got[1];

	CHECK_EQ_INT(worker_pool_new(1, 4, -1, NULL, &p), 0);
	if (!p)
		return;
	/* The injected clock never moves: only a cancel can end the wait. At 64 KiB/s a 1 MiB
	 * chunk would also wait about 15 s of real time before even re-checking. */
	worker_pool_set_test_hooks(p, NULL, fake_clock);
	worker_pool_set_rate_limit(p, 64 << 10);
	a = new_plain_job(1, 2 * MiB, MiB);
	CHECK_EQ_INT(worker_pool_submit(p, a), 0);
	wait_throttled(p, 1, &st);
	CHECK_EQ_U64(st.throttled, 1);
	worker_pool_cancel(p, a);
	CHECK_EQ_U64(drain_wait(p, got, 1, 5 * USEC_PER_SEC), 1);
	CHECK(got[0] == a);
	CHECK_EQ_INT(a->outcome, JOB_CANCELLED);
	CHECK_EQ_U64(a->written_bytes, 0);
	CHECK_EQ_U64(a->chunks, 0);
	worker_pool_get_stats(p, &st);
	CHECK_EQ_U64(st.throttled, 0);
	CHECK_EQ_U64(st.throttle_waits, 1);
	CHECK_EQ_U64(st.tokens_taken_bytes, 0);
	reclaim_job_free(a);

	/* Stopping the pool wakes a waiting job too. */
	b = new_plain_job(2, 2 * MiB, MiB);
	CHECK_EQ_INT(worker_pool_submit(p, b), 0);
	wait_throttled(p, 2, &st);
	CHECK_EQ_U64(st.throttled, 1);
	worker_pool_stop(p);
	b = worker_pool_drain(p);
	CHECK(b != NULL);
	if (b)
		CHECK_EQ_INT(b->outcome, JOB_CANCELLED);
	reclaim_job_free(b);
	worker_pool_free(p);
}

/* ---- nodeN/reclaim writes on the pools ------------------------------------------------- */

static char sys_dir[256]; /* a fake sys root: devices/system/node/node<N>/reclaim */

static void sys_path(char *buf, size_t size, unsigned node)
{
	snprintf(buf, size, "%s/devices/system/node/node%u/reclaim", sys_dir, node);
}

/* node<N>/reclaim as an empty regular file (every write succeeds) or a FIFO (open blocks). */
static int make_node_file(unsigned node, bool fifo)
{
	char path[400];
	int fd;

	snprintf(path, sizeof(path), "%s/devices", sys_dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/devices/system", sys_dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/devices/system/node", sys_dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/devices/system/node/node%u", sys_dir, node);
	mkdir(path, 0755);
	sys_path(path, sizeof(path), node);
	unlink(path);
	if (fifo)
		return mkfifo(path, 0600);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static void read_node_file(unsigned node, char *buf, size_t size)
{
	char path[400];
	int fd;
	ssize_t n;

	buf[0] = '\0';
	sys_path(path, sizeof(path), node);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
}

/* A worker's run that records the worker's CPU set, then does the real job. */
static cpu_set_t ran_cpus;
static int ran_cpus_r = -1;

static void run_recording_cpus(struct reclaim_job *job)
{
	ran_cpus_r = pthread_getaffinity_np(pthread_self(), sizeof(ran_cpus), &ran_cpus);
	reclaim_job_run(job);
}

/* A node's write on a pool pinned to one CPU runs there, writes the bytes once and measures
 * nothing; the pool counts it as a finished job that reclaimed nothing (the node's write is
 * not a cgroup's). */
static void test_node_job_on_pinned_pool(void)
{
	cpu_set_t mine, one;
	struct worker_pool *p = NULL;
	struct worker_pool_stats st;
	struct reclaim_job *job = NULL, *got[1];
	char buf[64];
	int cpu = -1;

	CPU_ZERO(&mine);
	if (sched_getaffinity(0, sizeof(mine), &mine) < 0) {
		SKIP("sched_getaffinity: %s", strerror(errno));
		return;
	}
	for (size_t c = 0; c < CPU_SETSIZE && cpu < 0; c++)
		if (CPU_ISSET(c, &mine))
			cpu = (int)c;
	CPU_ZERO(&one);
	CPU_SET((size_t)cpu, &one);
	CHECK_EQ_INT(make_node_file(3, false), 0);
	CHECK_EQ_INT(worker_pool_new(1, 4, 3, &one, &p), 0);
	CHECK_EQ_INT(node_reclaim_job_new(sys_dir, 3, 12345 * 4096ULL, &job), 0);
	if (!p || !job) {
		reclaim_job_free(job);
		worker_pool_free(p);
		return;
	}
	worker_pool_set_test_hooks(p, run_recording_cpus, NULL);
	CHECK_EQ_INT(worker_pool_submit(p, job), 0);
	CHECK_EQ_U64(drain_wait(p, got, 1, 5 * USEC_PER_SEC), 1);
	CHECK(got[0] == job);
	CHECK_EQ_INT(ran_cpus_r, 0);
	CHECK(CPU_EQUAL(&ran_cpus, &one));
	CHECK_EQ_INT(job->outcome, JOB_DONE);
	CHECK_EQ_U64(job->written_bytes, 12345 * 4096ULL);
	CHECK_EQ_U64(job->reclaimed_bytes, 0);
	read_node_file(3, buf, sizeof(buf));
	CHECK_STREQ(buf, "50565120");
	worker_pool_get_stats(p, &st);
	CHECK_EQ_U64(st.jobs_done, 1);
	CHECK_EQ_U64(st.bytes_reclaimed, 0);
	reclaim_job_free(job);
	worker_pool_free(p);
}

/* A node's write takes its bytes from the pool's rate limit, as a chunk does, and a cancel
 * ends its wait for tokens (nothing is written). */
static void test_node_job_rate_limited(void)
{
	const uint64_t MiB = 1 << 20;
	struct worker_pool *p = NULL;
	struct worker_pool_stats st;
	struct reclaim_job *a = NULL, *b = NULL, *got[1];
	char buf[64];

	CHECK_EQ_INT(make_node_file(4, false), 0);
	CHECK_EQ_INT(worker_pool_new(1, 4, -1, NULL, &p), 0);
	if (!p)
		return;
	worker_pool_set_test_hooks(p, NULL, fake_clock);
	worker_pool_set_rate_limit(p, MiB);
	/* The full bucket pays for the first MiB. */
	CHECK_EQ_INT(node_reclaim_job_new(sys_dir, 4, MiB, &a), 0);
	CHECK_EQ_INT(node_reclaim_job_new(sys_dir, 4, MiB, &b), 0);
	if (!a || !b)
		goto out;
	CHECK_EQ_INT(worker_pool_submit(p, a), 0);
	CHECK_EQ_U64(drain_wait(p, got, 1, 5 * USEC_PER_SEC), 1);
	CHECK_EQ_INT(a->outcome, JOB_DONE);
	read_node_file(4, buf, sizeof(buf));
	CHECK_STREQ(buf, "1048576");
	CHECK_EQ_INT(make_node_file(4, false), 0); /* empty again */
	/* The next MiB waits for a second of (injected) time; half of one is not enough. */
	CHECK_EQ_INT(worker_pool_submit(p, b), 0);
	wait_throttled(p, 1, &st);
	CHECK_EQ_U64(st.throttled, 1);
	CHECK_EQ_U64(st.tokens_taken_bytes, MiB);
	atomic_fetch_add(&fake_now_us, USEC_PER_SEC / 2);
	worker_pool_set_rate_limit(p, MiB); /* same rate: waiting jobs re-evaluate */
	usleep(20000);
	worker_pool_get_stats(p, &st);
	CHECK_EQ_U64(st.throttled, 1);
	CHECK_EQ_U64(st.tokens_taken_bytes, MiB);
	read_node_file(4, buf, sizeof(buf));
	CHECK_STREQ(buf, "");
	atomic_fetch_add(&fake_now_us, USEC_PER_SEC / 2);
	worker_pool_set_rate_limit(p, MiB);
	if (drain_wait(p, got, 1, 5 * USEC_PER_SEC) != 1) {
		CHECK(false);
		b = NULL; /* still the pool's: freed with it */
		goto out;
	}
	CHECK_EQ_INT(b->outcome, JOB_DONE);
	worker_pool_get_stats(p, &st);
	CHECK_EQ_U64(st.tokens_taken_bytes, 2 * MiB);
	read_node_file(4, buf, sizeof(buf));
	CHECK_STREQ(buf, "1048576");
	CHECK_EQ_INT(make_node_file(4, false), 0);
	reclaim_job_free(a);
	reclaim_job_free(b);
	a = b = NULL;
	/* Waiting for tokens (the clock no longer moves), a cancel ends it: nothing written. */
	CHECK_EQ_INT(node_reclaim_job_new(sys_dir, 4, 4 * MiB, &a), 0);
	if (!a)
		goto out;
	CHECK_EQ_INT(worker_pool_submit(p, a), 0);
	wait_throttled(p, 2, &st);
	CHECK_EQ_U64(st.throttled, 1);
	worker_pool_cancel(p, a);
	if (drain_wait(p, got, 1, 5 * USEC_PER_SEC) != 1) {
		CHECK(false);
		a = NULL; /* still the pool's: freed with it */
		goto out;
	}
	CHECK_EQ_INT(a->outcome, JOB_CANCELLED);
	CHECK_EQ_U64(a->written_bytes, 0);
	read_node_file(4, buf, sizeof(buf));
	CHECK_STREQ(buf, "");
out:
	reclaim_job_free(a);
	reclaim_job_free(b);
	worker_pool_free(p);
}

#define NR_MAX 8
static struct node_reclaim_result nr_got[NR_MAX];
static unsigned nr_n;

static void on_nr_done(void *userdata _unused_, const struct node_reclaim_result *r)
{
	if (nr_n < NR_MAX)
		nr_got[nr_n] = *r;
	nr_n++;
}

/* Runs the event loop until `want` results came back (at most 5 s); returns how many did. */
static unsigned nr_wait(sd_event *e, unsigned want)
{
	usec_t end = now_us() + 5 * USEC_PER_SEC;

	while (nr_n < want && now_us() < end)
		sd_event_run(e, 50 * USEC_PER_MSEC);
	return nr_n;
}

/* The result for `node` among those received (NULL: none). */
static const struct node_reclaim_result *nr_find(unsigned node)
{
	for (unsigned i = 0; i < MIN(nr_n, (unsigned)NR_MAX); i++)
		if (nr_got[i].node == node)
			return &nr_got[i];
	return NULL;
}

static void topo_node(struct numa_topology *t, unsigned i, int cpu, unsigned d0, unsigned d1,
		      unsigned d2)
{
	struct numa_node_info *n = &t->node[i];

	n->id = (int)i;
	n->present = true;
	CPU_ZERO(&n->cpus);
	if (cpu >= 0)
		CPU_SET((size_t)cpu, &n->cpus);
	n->n_cpus = (unsigned)CPU_COUNT(&n->cpus);
	n->mem_total_bytes = 1ULL << 30;
	n->distance[0] = d0;
	n->distance[1] = d1;
	n->distance[2] = d2;
}

/* Through the dispatcher: node 0 and node 2 have CPUs (and pools), node 1 has none and is
 * nearer node 2 (17) than node 0 (30). Node 0's write runs on node 0's pool; node 1's on node
 * 2's pool, not on the default (lowest) node 0; one write per node in flight (a second gets
 * -EBUSY) while two nodes may share a pool; a stop or hotplug reports what it cancelled. */
static void test_dispatcher_node_reclaim_routing(void)
{
	static struct numa_topology topo, t2;
	static struct config c;
	static struct cgroup_set cgs;
	const struct node_reclaim_result *r;
	struct dispatcher_report rep;
	struct dispatcher *ds = NULL;
	sd_event *e = NULL;
	cpu_set_t mine;
	char buf[64];
	int cpu = -1;

	CPU_ZERO(&mine);
	if (sched_getaffinity(0, sizeof(mine), &mine) < 0) {
		SKIP("sched_getaffinity: %s", strerror(errno));
		return;
	}
	for (size_t k = 0; k < CPU_SETSIZE && cpu < 0; k++)
		if (CPU_ISSET(k, &mine))
			cpu = (int)k;
	memset(&topo, 0, sizeof(topo));
	topo.n_nodes = 3;
	topo_node(&topo, 0, cpu, 10, 30, 20);
	topo_node(&topo, 1, -1, 30, 10, 17);
	topo_node(&topo, 2, cpu, 20, 17, 10);
	CHECK_EQ_INT(make_node_file(0, false), 0);
	CHECK_EQ_INT(make_node_file(1, true), 0);
	CHECK_EQ_INT(make_node_file(2, false), 0);
	CHECK_EQ_INT(sd_event_new(&e), 0);
	if (!e)
		return;
	nr_n = 0;
	CHECK_EQ_INT(dispatcher_new(&(struct ctl_env){ .event = e, .proc_root = "/proc",
						       .sys_root = sys_dir },
				    &c, 1, &topo, &cgs,
				    &(struct dispatcher_hooks){ .node_reclaim_done = on_nr_done },
				    &ds), 0);
	if (!ds)
		goto out;

	/* Bad arguments. */
	CHECK_EQ_INT(dispatcher_submit_node_reclaim(ds, RECLAIMD_MAX_NODES, 4096), -EINVAL);
	CHECK_EQ_INT(dispatcher_submit_node_reclaim(ds, 0, 0), -EINVAL);

	/* CPU-less node 1: the nearest node with CPUs by distance, node 2. Its open blocks. */
	CHECK_EQ_INT(dispatcher_submit_node_reclaim(ds, 1, 4096), 2);
	CHECK(dispatcher_node_reclaim_busy(ds, 1));
	CHECK_EQ_INT(dispatcher_submit_node_reclaim(ds, 1, 4096), -EBUSY);
	/* Node 0: its own pool; the kernel takes it, the result comes through the callback. */
	CHECK_EQ_INT(dispatcher_submit_node_reclaim(ds, 0, 8192), 0);
	CHECK_EQ_U64(nr_wait(e, 1), 1);
	r = nr_find(0);
	CHECK(r != NULL);
	if (r) {
		CHECK_EQ_INT(r->pool_node, 0);
		CHECK_EQ_U64(r->bytes, 8192);
		CHECK_EQ_INT(r->outcome, JOB_DONE);
		CHECK_EQ_INT(r->error, 0);
	}
	read_node_file(0, buf, sizeof(buf));
	CHECK_STREQ(buf, "8192");
	CHECK(!dispatcher_node_reclaim_busy(ds, 0));
	CHECK(dispatcher_node_reclaim_busy(ds, 1));
	/* Node 2 has its own write: one per node, not per pool. It queues behind node 1's. */
	CHECK_EQ_INT(dispatcher_submit_node_reclaim(ds, 2, 4096), 2);
	/* Not a cgroup's job: not in the jobs' totals. */
	dispatcher_report(ds, &rep);
	CHECK_EQ_U64(rep.jobs_submitted, 0);
	CHECK_EQ_U64(rep.requested_bytes, 0);
	CHECK_EQ_U64(rep.total_reclaimed_bytes, 0);
	CHECK_EQ_U64(rep.requests_by_outcome[JOB_DONE], 0);
	CHECK_EQ_U64(rep.pending, 2);

	/* Hotplug: node 2 loses its CPUs. Its pool is dissolved: node 1's write is interrupted,
	 * node 2's never ran; both come back cancelled. */
	t2 = topo;
	CPU_ZERO(&t2.node[2].cpus);
	t2.node[2].n_cpus = 0;
	dispatcher_topology_changed(ds, &t2);
	topo = t2;
	CHECK_EQ_U64(nr_n, 3);
	r = nr_find(1);
	CHECK(r != NULL);
	if (r) {
		CHECK_EQ_INT(r->pool_node, 2);
		CHECK_EQ_INT(r->outcome, JOB_CANCELLED);
	}
	r = nr_find(2);
	CHECK(r != NULL);
	if (r) {
		CHECK_EQ_INT(r->outcome, JOB_CANCELLED);
		CHECK_EQ_INT(r->error, 0);
	}
	read_node_file(2, buf, sizeof(buf));
	CHECK_STREQ(buf, "");
	CHECK(!dispatcher_node_reclaim_busy(ds, 1));
	CHECK(!dispatcher_node_reclaim_busy(ds, 2));

	/* Now node 0 is the nearest with CPUs for both. Node 1's open blocks again; the stop
	 * interrupts it and reports it. */
	CHECK_EQ_INT(dispatcher_submit_node_reclaim(ds, 1, 4096), 0);
	CHECK_EQ_INT(dispatcher_submit_node_reclaim(ds, 2, 4096), 0);
	nr_n = 0;
	memset(nr_got, 0, sizeof(nr_got));
	dispatcher_stop(ds);
	CHECK_EQ_U64(nr_n, 2);
	r = nr_find(1);
	CHECK(r && r->outcome == JOB_CANCELLED && r->pool_node == 0);
	r = nr_find(2);
	CHECK(r && r->outcome == JOB_CANCELLED && r->pool_node == 0);
	CHECK_EQ_INT(dispatcher_submit_node_reclaim(ds, 0, 4096), -ENODEV);
out:
	dispatcher_free(ds);
	sd_event_unref(e);
}

int main(void)
{
	char fifo[300];

	snprintf(dir, sizeof(dir), "/tmp/reclaimd-test-pool.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(fifo, sizeof(fifo), "%s/memory.reclaim", dir);
	if (mkfifo(fifo, 0600) < 0) {
		perror("mkfifo");
		return 1;
	}
	dirfd_ = open(dir, O_RDONLY | O_DIRECTORY);
	snprintf(plain_dir, sizeof(plain_dir), "/tmp/reclaimd-test-pool-plain.XXXXXX");
	if (!mkdtemp(plain_dir)) {
		perror("mkdtemp");
		return 1;
	}
	plain_dirfd = open(plain_dir, O_RDONLY | O_DIRECTORY);
	close(openat(plain_dirfd, "memory.reclaim", O_WRONLY | O_CREAT | O_TRUNC, 0600));

	test_cancel_blocked_job();
	test_bounded_queue_and_shutdown();
	test_missing_file_is_gone();
	test_pinning();
	test_allowed();
	test_rate_limit();
	unlinkat(plain_dirfd, "memory.reclaim", 0);
	close(openat(plain_dirfd, "memory.reclaim", O_WRONLY | O_CREAT | O_TRUNC, 0600));
	test_cancel_waiting_for_tokens();
	snprintf(sys_dir, sizeof(sys_dir), "/tmp/reclaimd-test-pool-sys.XXXXXX");
	if (!mkdtemp(sys_dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_node_job_on_pinned_pool();
	test_node_job_rate_limited();
	test_dispatcher_node_reclaim_routing();
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sys_dir);
		CHECK_EQ_INT(system(cmd), 0);
	}

	close(dirfd_);
	unlink(fifo);
	rmdir(dir);
	unlinkat(plain_dirfd, "memory.reclaim", 0);
	close(plain_dirfd);
	rmdir(plain_dir);
	return test_report("worker_pool");
}
