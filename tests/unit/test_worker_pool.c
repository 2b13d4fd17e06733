/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_worker_pool.c - the worker pool's mechanics with real threads and a real blocking
 * syscall: the bounded queue, draining, and cancellation of a job blocked in the kernel. The
 * "cgroup" is a directory whose memory.reclaim is a FIFO with no reader, so opening it blocks
 * until the cancel signal interrupts it (EINTR), the way a long memory.reclaim write is
 * interrupted on a real kernel (that case is tested in the VM: tests/vm/scenarios).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "reclaimd/actuator.h"
#include "reclaimd/config.h"
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

static void test_cancel_blocked_job(void)
{
	struct worker_pool *p = NULL;
	struct reclaim_job *a, *got[4];
	usec_t t0;
	unsigned n;

	CHECK_EQ_INT(worker_pool_new(1, 2, -1, &p), 0);
	if (!p)
		return;
	a = new_job(1);
	CHECK_EQ_INT(worker_pool_submit(p, a), 0);
	usleep(100000); /* the worker is now blocked opening the FIFO */
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
	CHECK_EQ_U64(worker_pool_pending(p), 0);
	worker_pool_free(p);
}

static void test_bounded_queue_and_shutdown(void)
{
	struct worker_pool *p = NULL;
	struct reclaim_job *running, *queued, *extra;
	usec_t t0;

	CHECK_EQ_INT(worker_pool_new(1, 1, -1, &p), 0);
	if (!p)
		return;
	running = new_job(1);
	queued = new_job(2);
	extra = new_job(3);
	CHECK_EQ_INT(worker_pool_submit(p, running), 0);
	usleep(100000);
	CHECK_EQ_INT(worker_pool_submit(p, queued), 0);
	/* The queue holds one job: a third is refused at once, never waited for. */
	t0 = now_us();
	CHECK_EQ_INT(worker_pool_submit(p, extra), -EAGAIN);
	CHECK(now_us() - t0 < 10000);
	CHECK_EQ_U64(worker_pool_pending(p), 2);

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
	CHECK_EQ_INT(worker_pool_new(2, 4, -1, &p), 0);
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
	test_cancel_blocked_job();
	test_bounded_queue_and_shutdown();
	test_missing_file_is_gone();
	close(dirfd_);
	unlink(fifo);
	rmdir(dir);
	return test_report("worker_pool");
}
