/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_reclaim_chunk.c - a job's write sizes and the meaning of the kernel's answers
 * (reclaim_chunk.h): which releases over-reclaim, what a job's numbers say about it, the next
 * write against the request, the bound and the floor, and EAGAIN from a removed cgroup.
 */
#include <errno.h>

#include "reclaimd/reclaim_chunk.h"
#include "test.h"

#define KiB 1024ULL
#define MiB (1024ULL * 1024)
#define PAGE 4096ULL

static void test_release(void)
{
	/* Debian's 6.1 and older kernels with memory.reclaim: no 0388536ac291. */
	CHECK(reclaim_chunk_release_overshoots("6.1.0-27-amd64"));
	CHECK(reclaim_chunk_release_overshoots("6.5.13"));
	CHECK(reclaim_chunk_release_overshoots("5.19.0-rc1"));
	CHECK(reclaim_chunk_release_overshoots("6.0"));
	/* 6.6 has the fix; 6.12 and 7.3 the later, larger batches. */
	CHECK(!reclaim_chunk_release_overshoots("6.6.0"));
	CHECK(!reclaim_chunk_release_overshoots("6.12.48+deb12-amd64"));
	CHECK(!reclaim_chunk_release_overshoots("6.10"));
	CHECK(!reclaim_chunk_release_overshoots("7.3.4+deb13-amd64"));
	CHECK(!reclaim_chunk_release_overshoots("10.0.1"));
	/* Nothing to go on: not bounded (a job's measurement decides). */
	CHECK(!reclaim_chunk_release_overshoots(NULL));
	CHECK(!reclaim_chunk_release_overshoots(""));
	CHECK(!reclaim_chunk_release_overshoots("six.one"));
	CHECK(!reclaim_chunk_release_overshoots("6"));
	CHECK(!reclaim_chunk_release_overshoots("6."));
	CHECK(!reclaim_chunk_release_overshoots("12345678.1"));
}

static void test_overshoot_seen(void)
{
	/* The 6.1 run: 32 MiB asked, 97.6 MiB taken. */
	CHECK(reclaim_chunk_overshoot_seen(JOB_DONE, 32 * MiB, 97 * MiB + 600 * KiB, PAGE));
	/* Twice is not enough: a fixed kernel may take a batch per lruvec more. */
	CHECK(!reclaim_chunk_overshoot_seen(JOB_DONE, 32 * MiB, 64 * MiB, PAGE));
	CHECK(reclaim_chunk_overshoot_seen(JOB_DONE, 32 * MiB, 64 * MiB + 2 * PAGE, PAGE));
	CHECK(!reclaim_chunk_overshoot_seen(JOB_DONE, 32 * MiB, 33 * MiB, PAGE));
	/* Small writes say nothing: 6.12 (fixed) took 512 KiB for 156 KiB, batches per lruvec. */
	CHECK(!reclaim_chunk_overshoot_seen(JOB_DONE, 156 * KiB, 512 * KiB, PAGE));
	CHECK(!reclaim_chunk_overshoot_seen(JOB_DONE, 4 * MiB - PAGE, 100 * MiB, PAGE));
	CHECK(reclaim_chunk_overshoot_seen(JOB_DONE, 4 * MiB, 8 * MiB + PAGE, PAGE));
	CHECK(!reclaim_chunk_overshoot_seen(JOB_DONE, 4 * MiB, 8 * MiB, PAGE));
	/* The minimum is in pages: 64 KiB pages need 64 MiB written. */
	CHECK(!reclaim_chunk_overshoot_seen(JOB_DONE, 32 * MiB, 100 * MiB, 65536));
	CHECK(reclaim_chunk_overshoot_seen(JOB_DONE, 64 * MiB, 200 * MiB, 65536));
	/* Nothing written (failed first write, aging only): nothing to judge. */
	CHECK(!reclaim_chunk_overshoot_seen(JOB_DONE, 0, 100 * MiB, PAGE));
	/* Cancelled by a PSI trigger or stopped by pressure: the cgroup reclaimed on its own too
	 * (seen on 6.1: 640 KiB written, 7 MiB in pgsteal while memory.high squeezed it). */
	CHECK(!reclaim_chunk_overshoot_seen(JOB_CANCELLED, 640 * KiB, 7 * MiB, PAGE));
	CHECK(!reclaim_chunk_overshoot_seen(JOB_STOPPED_PRESSURE, 32 * MiB, 100 * MiB, PAGE));
	CHECK(!reclaim_chunk_overshoot_seen(JOB_PARTIAL, 32 * MiB, 100 * MiB, PAGE));
	CHECK(!reclaim_chunk_overshoot_seen(JOB_GONE, 32 * MiB, 100 * MiB, PAGE));
}

static struct reclaim_chunk_state st(uint64_t request, uint64_t done)
{
	return (struct reclaim_chunk_state){ .request_bytes = request, .done_bytes = done,
					     .chunk_bytes = 32 * MiB, .page_size = PAGE,
					     .current_bytes = UINT64_MAX };
}

static void test_next(void)
{
	struct reclaim_chunk_state s = st(100 * MiB, 0);

	/* Unbounded, no floor: chunk_bytes, then the rest, then stop. */
	CHECK_EQ_U64(reclaim_chunk_next(&s), 32 * MiB);
	s.done_bytes = 96 * MiB;
	CHECK_EQ_U64(reclaim_chunk_next(&s), 4 * MiB);
	s.done_bytes = 100 * MiB;
	CHECK_EQ_U64(reclaim_chunk_next(&s), 0);
	/* done past the request (an over-reclaiming kernel counted by pgsteal): stop. */
	s.done_bytes = 300 * MiB;
	CHECK_EQ_U64(reclaim_chunk_next(&s), 0);
	/* Whole pages only: less than a page left is nothing to write. */
	s = st(100 * MiB + 100, 100 * MiB);
	CHECK_EQ_U64(reclaim_chunk_next(&s), 0);
	s = st(10 * PAGE + 100, 0);
	CHECK_EQ_U64(reclaim_chunk_next(&s), 10 * PAGE);

	/* Bounded: two SWAP_CLUSTER_MAX batches (64 pages) per write, whatever chunk_bytes says;
	 * less at the end. */
	s = st(100 * MiB, 0);
	s.bounded = true;
	CHECK_EQ_U64(reclaim_chunk_next(&s), 64 * PAGE);
	s.done_bytes = 100 * MiB - 8 * PAGE;
	CHECK_EQ_U64(reclaim_chunk_next(&s), 8 * PAGE);
	/* A rule's chunk smaller than the bound wins. */
	s = st(100 * MiB, 0);
	s.bounded = true;
	s.chunk_bytes = 16 * PAGE;
	CHECK_EQ_U64(reclaim_chunk_next(&s), 16 * PAGE);
	/* 64 KiB pages: the bound is in pages. */
	s = st(100 * MiB, 0);
	s.bounded = true;
	s.page_size = 65536;
	CHECK_EQ_U64(reclaim_chunk_next(&s), 4 * MiB);
}

static void test_floor(void)
{
	struct reclaim_chunk_state s = st(100 * MiB, 0);

	s.floor_bytes = 200 * MiB;
	/* Unknown memory.current: the floor cannot cap the write. */
	CHECK_EQ_U64(reclaim_chunk_next(&s), 32 * MiB);
	/* Far above the floor: as without it. */
	s.current_bytes = 400 * MiB;
	CHECK_EQ_U64(reclaim_chunk_next(&s), 32 * MiB);
	/* 10 MiB above it: at most 10 MiB. */
	s.current_bytes = 210 * MiB;
	CHECK_EQ_U64(reclaim_chunk_next(&s), 10 * MiB);
	/* Less than a page above it, at it, below it (the kernel overshot): stop. */
	s.current_bytes = 200 * MiB + PAGE - 1;
	CHECK_EQ_U64(reclaim_chunk_next(&s), 0);
	s.current_bytes = 200 * MiB;
	CHECK_EQ_U64(reclaim_chunk_next(&s), 0);
	s.current_bytes = 150 * MiB;
	CHECK_EQ_U64(reclaim_chunk_next(&s), 0);
	/* Bounded and near the floor: the smaller of the two. */
	s.bounded = true;
	s.current_bytes = 200 * MiB + 5 * PAGE;
	CHECK_EQ_U64(reclaim_chunk_next(&s), 5 * PAGE);
	s.current_bytes = 300 * MiB;
	CHECK_EQ_U64(reclaim_chunk_next(&s), 64 * PAGE);
	/* floor 0: no check, even with memory.current known. */
	s = st(100 * MiB, 0);
	s.current_bytes = 1 * MiB;
	CHECK_EQ_U64(reclaim_chunk_next(&s), 32 * MiB);
}

static void test_outcome(void)
{
	/* 7.x: EAGAIN from a dying memcg, and the probe then finds the cgroup's files gone. */
	CHECK_EQ_INT(reclaim_chunk_outcome(-EAGAIN, -ENOENT), JOB_GONE);
	CHECK_EQ_INT(reclaim_chunk_outcome(-EAGAIN, -ENODEV), JOB_GONE);
	/* EAGAIN with the cgroup still there (or the probe failing otherwise): too little to take. */
	CHECK_EQ_INT(reclaim_chunk_outcome(-EAGAIN, 0), JOB_PARTIAL);
	CHECK_EQ_INT(reclaim_chunk_outcome(-EAGAIN, -EACCES), JOB_PARTIAL);
	CHECK_EQ_INT(reclaim_chunk_outcome(-EAGAIN, -EINTR), JOB_PARTIAL);
	/* 6.1, 6.12: the write after the removal fails with ENODEV (open fd) or ENOENT (open). */
	CHECK_EQ_INT(reclaim_chunk_outcome(-ENODEV, 0), JOB_GONE);
	CHECK_EQ_INT(reclaim_chunk_outcome(-ENOENT, 0), JOB_GONE);
	CHECK_EQ_INT(reclaim_chunk_outcome(-EBUSY, 0), JOB_BUSY);
	/* Other errors are failures whatever a probe says. */
	CHECK_EQ_INT(reclaim_chunk_outcome(-EINVAL, -ENOENT), JOB_FAILED);
	CHECK_EQ_INT(reclaim_chunk_outcome(-ENOMEM, 0), JOB_FAILED);
	CHECK(reclaim_chunk_probe_gone(-ENOENT));
	CHECK(reclaim_chunk_probe_gone(-ENODEV));
	CHECK(!reclaim_chunk_probe_gone(0));
	CHECK(!reclaim_chunk_probe_gone(-EACCES));
}

/* Why jobs are bounded, and when a finished job turns an unbounded agent bounded: only an
 * unbounded memory.reclaim job that shows the overshoot; never back, never from the kernel's
 * reason to the measured one. */
static void test_bound(void)
{
	const uint64_t W = 1024 * PAGE; /* RECLAIM_OVERSHOOT_MIN_PAGES */

	CHECK_STREQ(reclaim_bound_str(RECLAIM_UNBOUNDED), "unbounded");
	CHECK_STREQ(reclaim_bound_str(RECLAIM_BOUNDED_KERNEL), "kernel-below-6.6");
	CHECK_STREQ(reclaim_bound_str(RECLAIM_BOUNDED_MEASURED), "measured-overshoot");
	CHECK_STREQ(reclaim_bound_str(_RECLAIM_BOUND_MAX), "?");

	/* 6.1 in the VM: 97.6 MiB taken for a 32 MiB request. */
	CHECK_EQ_INT(reclaim_bound_after_job(RECLAIM_UNBOUNDED, JOB_DONE, false, false, 32 * MiB,
					     97 * MiB, PAGE), RECLAIM_BOUNDED_MEASURED);
	/* Twice exactly is not more than twice; a small write says nothing. */
	CHECK_EQ_INT(reclaim_bound_after_job(RECLAIM_UNBOUNDED, JOB_DONE, false, false, W, 2 * W,
					     PAGE), RECLAIM_UNBOUNDED);
	CHECK_EQ_INT(reclaim_bound_after_job(RECLAIM_UNBOUNDED, JOB_DONE, false, false, W - PAGE,
					     10 * W, PAGE), RECLAIM_UNBOUNDED);
	/* Only a job that ran to the end: pressure or a cancel means other reclaim ran too. */
	CHECK_EQ_INT(reclaim_bound_after_job(RECLAIM_UNBOUNDED, JOB_STOPPED_PRESSURE, false, false,
					     W, 10 * W, PAGE), RECLAIM_UNBOUNDED);
	CHECK_EQ_INT(reclaim_bound_after_job(RECLAIM_UNBOUNDED, JOB_CANCELLED, false, false, W,
					     10 * W, PAGE), RECLAIM_UNBOUNDED);
	/* A bounded job, or an eviction through lru_gen, says nothing about unbounded writes. */
	CHECK_EQ_INT(reclaim_bound_after_job(RECLAIM_UNBOUNDED, JOB_DONE, true, false, W, 10 * W,
					     PAGE), RECLAIM_UNBOUNDED);
	CHECK_EQ_INT(reclaim_bound_after_job(RECLAIM_UNBOUNDED, JOB_DONE, false, true, W, 10 * W,
					     PAGE), RECLAIM_UNBOUNDED);
	/* Once bounded, it stays so, for the reason it had. */
	CHECK_EQ_INT(reclaim_bound_after_job(RECLAIM_BOUNDED_KERNEL, JOB_DONE, false, false, W,
					     10 * W, PAGE), RECLAIM_BOUNDED_KERNEL);
	CHECK_EQ_INT(reclaim_bound_after_job(RECLAIM_BOUNDED_KERNEL, JOB_DONE, true, false, W, W,
					     PAGE), RECLAIM_BOUNDED_KERNEL);
	CHECK_EQ_INT(reclaim_bound_after_job(RECLAIM_BOUNDED_MEASURED, JOB_DONE, true, false, W, W,
					     PAGE), RECLAIM_BOUNDED_MEASURED);

	/* Which jobs wrote bounded chunks: memory.reclaim ones submitted bounded. */
	CHECK(reclaim_chunk_bounded_job(true, false));
	CHECK(!reclaim_chunk_bounded_job(true, true));
	CHECK(!reclaim_chunk_bounded_job(false, false));
	CHECK(!reclaim_chunk_bounded_job(false, true));
}

int main(void)
{
	test_release();
	test_overshoot_seen();
	test_next();
	test_floor();
	test_outcome();
	test_bound();
	return test_report("test_reclaim_chunk");
}
