/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_features.c - the kernel feature table (features.h): release parsing, the by-version
 * rule, the swappiness a request carries on each kernel, and the probe's file readers on
 * fixture trees built in a temporary directory (6.1-like, 6.12-like and 7.3-like hosts).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reclaimd/config.h"
#include "reclaimd/features.h"
#include "reclaimd/node_reclaim.h"
#include "test.h"

static void test_release(void)
{
	unsigned ma = 0, mi = 0;

	CHECK_EQ_INT(kernel_release_parse("6.12.48+deb13-amd64\n", &ma, &mi), 0);
	CHECK_EQ_INT((int)ma, 6);
	CHECK_EQ_INT((int)mi, 12);
	CHECK_EQ_INT(kernel_release_parse("7.3.4", &ma, &mi), 0);
	CHECK_EQ_INT((int)ma, 7);
	CHECK_EQ_INT((int)mi, 3);
	CHECK_EQ_INT(kernel_release_parse("6.1.0-40-amd64", &ma, &mi), 0);
	CHECK_EQ_INT((int)mi, 1);
	/* Not "N.N": rejected, outputs untouched. */
	ma = mi = 99;
	CHECK_EQ_INT(kernel_release_parse("linux-6.1", &ma, &mi), -EINVAL);
	CHECK_EQ_INT(kernel_release_parse("6", &ma, &mi), -EINVAL);
	CHECK_EQ_INT(kernel_release_parse("", &ma, &mi), -EINVAL);
	CHECK_EQ_INT(kernel_release_parse(NULL, &ma, &mi), -EINVAL);
	CHECK_EQ_INT((int)ma, 99);
}

static void test_by_version(void)
{
	/* swappiness= since 6.9, max since 6.16, node reclaim since 6.17. */
	CHECK_EQ_INT(feature_by_version(FEATURE_RECLAIM_SWAPPINESS, 6, 1), FEATURE_ABSENT);
	CHECK_EQ_INT(feature_by_version(FEATURE_RECLAIM_SWAPPINESS, 6, 9), FEATURE_PRESENT);
	CHECK_EQ_INT(feature_by_version(FEATURE_RECLAIM_SWAPPINESS, 6, 12), FEATURE_PRESENT);
	CHECK_EQ_INT(feature_by_version(FEATURE_RECLAIM_SWAPPINESS_MAX, 6, 12), FEATURE_ABSENT);
	CHECK_EQ_INT(feature_by_version(FEATURE_RECLAIM_SWAPPINESS_MAX, 7, 3), FEATURE_PRESENT);
	CHECK_EQ_INT(feature_by_version(FEATURE_NODE_RECLAIM, 6, 16), FEATURE_ABSENT);
	CHECK_EQ_INT(feature_by_version(FEATURE_NODE_RECLAIM, 6, 17), FEATURE_PRESENT);
	CHECK_EQ_INT(feature_by_version(FEATURE_ZSWAP_WRITEBACK, 5, 19), FEATURE_ABSENT);
	/* No version: a setting or a removed parameter; an unknown kernel. */
	CHECK_EQ_INT(feature_by_version(FEATURE_ZSWAP_ZPOOL, 6, 1), FEATURE_UNKNOWN);
	CHECK_EQ_INT(feature_by_version(FEATURE_NODE_RECLAIM, 0, 0), FEATURE_UNKNOWN);
	CHECK_EQ_INT(feature_by_version(_FEATURE_MAX, 7, 3), FEATURE_UNKNOWN);
}

static void test_table(void)
{
	struct feature_table t, u;
	enum feature_id id;

	features_init(&t);
	/* Every feature has its text, and names are unique. */
	for (unsigned i = 0; i < _FEATURE_MAX; i++) {
		const struct feature_info *f = feature_info((enum feature_id)i);

		CHECK(f && f->name && f->what && f->source && f->fallback);
		CHECK_EQ_INT(feature_by_name(f->name, &id), 0);
		CHECK_EQ_INT((int)id, (int)i);
		CHECK_EQ_INT(features_state(&t, (enum feature_id)i), FEATURE_UNKNOWN);
	}
	CHECK(feature_info(_FEATURE_MAX) == NULL);
	CHECK_EQ_INT(feature_by_name("nope", &id), -ENOENT);
	/* Unknown is tried; only absent is not. */
	CHECK(!features_absent(&t, FEATURE_NODE_RECLAIM));
	features_set(&t, FEATURE_NODE_RECLAIM, FEATURE_ABSENT, FEATURE_HOW_PROBED);
	CHECK(features_absent(&t, FEATURE_NODE_RECLAIM));
	CHECK_STREQ(feature_state_str(FEATURE_ABSENT), "absent");
	CHECK_STREQ(feature_how_str(FEATURE_HOW_LEARNED), "refused at run time");
	u = t;
	CHECK_EQ_INT((int)features_diff(&t, &u), 0);
	features_set(&u, FEATURE_NODE_RECLAIM, FEATURE_PRESENT, FEATURE_HOW_PROBED);
	features_set(&u, FEATURE_LRU_GEN, FEATURE_ABSENT, FEATURE_HOW_PROBED);
	CHECK_EQ_INT((int)features_diff(&t, &u), 2);
}

static void test_request_swappiness(void)
{
	struct feature_table t;

	features_init(&t);
	/* Unknown kernel: values as they are, "max" as 200 (every kernel with the key takes it). */
	CHECK_EQ_INT(features_request_swappiness(&t, 60), 60);
	CHECK_EQ_INT(features_request_swappiness(&t, SWAPPINESS_MAX), 200);
	CHECK_EQ_INT(features_request_swappiness(&t, SWAPPINESS_UNSET), SWAPPINESS_UNSET);
	/* 7.3: max is written as max. */
	features_set(&t, FEATURE_RECLAIM_SWAPPINESS, FEATURE_PRESENT, FEATURE_HOW_PROBED);
	features_set(&t, FEATURE_RECLAIM_SWAPPINESS_MAX, FEATURE_PRESENT, FEATURE_HOW_PROBED);
	CHECK_EQ_INT(features_request_swappiness(&t, SWAPPINESS_MAX), SWAPPINESS_MAX);
	CHECK_EQ_INT(features_request_swappiness(&t, 0), 0);
	/* 6.12: 200 instead. */
	features_set(&t, FEATURE_RECLAIM_SWAPPINESS_MAX, FEATURE_ABSENT, FEATURE_HOW_PROBED);
	CHECK_EQ_INT(features_request_swappiness(&t, SWAPPINESS_MAX), 200);
	CHECK_EQ_INT(features_request_swappiness(&t, 150), 150);
	/* 6.1: never the key. */
	features_set(&t, FEATURE_RECLAIM_SWAPPINESS, FEATURE_ABSENT, FEATURE_HOW_PROBED);
	CHECK_EQ_INT(features_request_swappiness(&t, 0), SWAPPINESS_UNSET);
	CHECK_EQ_INT(features_request_swappiness(&t, SWAPPINESS_MAX), SWAPPINESS_UNSET);
}

/* ---- the probe's readers on fixture trees ---------------------------------------------- */

static void put(const char *root, const char *rel, const char *text)
{
	(void)test_write_str(root, rel, text);
}

struct host {
	const char *release, *lru_gen;   /* lru_gen NULL: no file */
	bool debugfs, zswap, shrinker, zpool, node_reclaim, proactive;
	bool writeback, numa_stat, pressure;
};

static void probe_host(const struct host *h, struct feature_table *ret)
{
	char dir[] = "/tmp/test_features.XXXXXX", proc[4200], sys[4200], cg[4200], cmd[4300];
	int fd;

	if (!mkdtemp(dir)) {
		CHECK(false);
		return;
	}
	snprintf(proc, sizeof(proc), "%s/proc", dir);
	snprintf(sys, sizeof(sys), "%s/sys", dir);
	snprintf(cg, sizeof(cg), "%s/cg", dir);
	put(proc, "sys/kernel/osrelease", h->release);
	put(proc, "vmstat", h->proactive ? "pgsteal_direct 1\npgsteal_proactive 5\n" :
					   "pgsteal_direct 1\n");
	if (h->lru_gen)
		put(sys, "kernel/mm/lru_gen/enabled", h->lru_gen);
	if (h->debugfs)
		put(sys, "kernel/debug/lru_gen", "");
	if (h->zswap)
		put(sys, "module/zswap/parameters/enabled", "Y\n");
	if (h->shrinker)
		put(sys, "module/zswap/parameters/shrinker_enabled", "N\n");
	if (h->zpool)
		put(sys, "module/zswap/parameters/zpool", "zsmalloc\n");
	put(sys, "devices/system/node/node0/meminfo", "");
	if (h->node_reclaim)
		put(sys, "devices/system/node/node0/reclaim", "");
	/* memory.reclaim is a plain file here: the write probe must not trust it. */
	put(cg, "memory.reclaim", "");
	put(cg, "a.slice/memory.current", "0\n");
	if (h->writeback)
		put(cg, "a.slice/memory.zswap.writeback", "1\n");
	if (h->numa_stat)
		put(cg, "a.slice/memory.numa_stat", "");
	if (h->pressure)
		put(cg, "a.slice/cgroup.pressure", "1\n");
	fd = open(cg, O_RDONLY | O_DIRECTORY);
	features_probe(&(struct features_probe_roots){ .proc_root = proc, .sys_root = sys,
						       .cgroup_root_fd = fd, .may_write = true }, ret);
	if (fd >= 0)
		close(fd);
	{
		/* The plain memory.reclaim file stayed empty: nothing was written to it. */
		struct stat st;
		char p[4300];

		snprintf(p, sizeof(p), "%s/memory.reclaim", cg);
		CHECK(stat(p, &st) == 0 && st.st_size == 0);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK_EQ_INT(system(cmd), 0);
}

static void test_probe_fixtures(void)
{
	struct feature_table t;

	/* Debian 12's 6.1: MGLRU built but off, no zswap shrinker, no writeback file. */
	probe_host(&(struct host){ .release = "6.1.0-40-amd64\n", .lru_gen = "0x0000\n",
				   .zswap = true, .zpool = true, .numa_stat = true, .pressure = true }, &t);
	CHECK_EQ_INT((int)t.kernel_major, 6);
	CHECK_EQ_INT((int)t.kernel_minor, 1);
	/* Not cgroup2: from the release. */
	CHECK_EQ_INT(features_state(&t, FEATURE_RECLAIM_SWAPPINESS), FEATURE_ABSENT);
	CHECK_EQ_INT(t.how[FEATURE_RECLAIM_SWAPPINESS], FEATURE_HOW_VERSION);
	CHECK_EQ_INT(features_state(&t, FEATURE_RECLAIM_SWAPPINESS_MAX), FEATURE_ABSENT);
	CHECK_EQ_INT(features_state(&t, FEATURE_LRU_GEN), FEATURE_ABSENT);
	CHECK_EQ_INT(features_state(&t, FEATURE_LRU_GEN_DEBUGFS), FEATURE_ABSENT);
	CHECK_EQ_INT(features_state(&t, FEATURE_ZSWAP_SHRINKER), FEATURE_ABSENT);
	CHECK_EQ_INT(features_state(&t, FEATURE_ZSWAP_ZPOOL), FEATURE_PRESENT);
	CHECK_EQ_INT(features_state(&t, FEATURE_ZSWAP_WRITEBACK), FEATURE_ABSENT);
	CHECK_EQ_INT(t.how[FEATURE_ZSWAP_WRITEBACK], FEATURE_HOW_PROBED);
	CHECK_EQ_INT(features_state(&t, FEATURE_NODE_RECLAIM), FEATURE_ABSENT);
	CHECK_EQ_INT(features_state(&t, FEATURE_PROACTIVE_COUNTERS), FEATURE_ABSENT);
	CHECK_EQ_INT(features_state(&t, FEATURE_NUMA_STAT), FEATURE_PRESENT);
	CHECK_EQ_INT(features_state(&t, FEATURE_CGROUP_PRESSURE), FEATURE_PRESENT);

	/* 6.12: MGLRU on with debugfs, shrinker and writeback, no node reclaim yet. */
	probe_host(&(struct host){ .release = "6.12.48+deb13-amd64\n", .lru_gen = "0x0007\n",
				   .debugfs = true, .zswap = true, .shrinker = true, .zpool = true,
				   .writeback = true, .numa_stat = true, .pressure = true }, &t);
	CHECK_EQ_INT(features_state(&t, FEATURE_RECLAIM_SWAPPINESS), FEATURE_PRESENT);
	CHECK_EQ_INT(features_state(&t, FEATURE_RECLAIM_SWAPPINESS_MAX), FEATURE_ABSENT);
	CHECK_EQ_INT(features_state(&t, FEATURE_LRU_GEN), FEATURE_PRESENT);
	CHECK_EQ_INT(features_state(&t, FEATURE_LRU_GEN_DEBUGFS), FEATURE_PRESENT);
	CHECK_EQ_INT(features_state(&t, FEATURE_ZSWAP_SHRINKER), FEATURE_PRESENT);
	CHECK_EQ_INT(features_state(&t, FEATURE_ZSWAP_WRITEBACK), FEATURE_PRESENT);
	CHECK_EQ_INT(features_state(&t, FEATURE_NODE_RECLAIM), FEATURE_ABSENT);

	/* 7.3: zpool gone, node reclaim and the proactive counters there. */
	probe_host(&(struct host){ .release = "7.3.4+bpo-amd64\n", .lru_gen = "0x0007\n",
				   .zswap = true, .shrinker = true, .node_reclaim = true,
				   .proactive = true, .writeback = true, .numa_stat = true,
				   .pressure = true }, &t);
	CHECK_EQ_INT(features_state(&t, FEATURE_RECLAIM_SWAPPINESS_MAX), FEATURE_PRESENT);
	CHECK_EQ_INT(features_state(&t, FEATURE_ZSWAP_ZPOOL), FEATURE_ABSENT);
	CHECK_EQ_INT(features_state(&t, FEATURE_NODE_RECLAIM), FEATURE_PRESENT);
	CHECK_EQ_INT(features_state(&t, FEATURE_PROACTIVE_COUNTERS), FEATURE_PRESENT);
	CHECK_EQ_INT(features_state(&t, FEATURE_LRU_GEN_DEBUGFS), FEATURE_ABSENT);

	/* No zswap at all; psi=0 hides cgroup.pressure. */
	probe_host(&(struct host){ .release = "6.12.1\n", .numa_stat = true }, &t);
	CHECK_EQ_INT(features_state(&t, FEATURE_ZSWAP_SHRINKER), FEATURE_ABSENT);
	CHECK_EQ_INT(features_state(&t, FEATURE_ZSWAP_ZPOOL), FEATURE_ABSENT);
	CHECK_EQ_INT(features_state(&t, FEATURE_CGROUP_PRESSURE), FEATURE_ABSENT);
	CHECK_EQ_INT(features_state(&t, FEATURE_LRU_GEN), FEATURE_ABSENT);
}

/* A nodeN/reclaim job run in this thread (what a worker does) on a fixture file: one write of
 * the bytes in decimal; a node without the file fails with ENOENT, which is a refusal. */
static void test_node_reclaim_job(void)
{
	char dir[] = "/tmp/test_node_reclaim.XXXXXX", path[4200], buf[64] = "", cmd[4300];
	struct reclaim_job *job = NULL;
	FILE *f;

	if (!mkdtemp(dir)) {
		CHECK(false);
		return;
	}
	put(dir, "devices/system/node/node1/reclaim", "");
	CHECK_EQ_INT(node_reclaim_job_new(dir, 1, 8388608, &job), 0);
	if (job) {
		CHECK_EQ_INT(job->reclaim_node, 1);
		CHECK_EQ_INT(job->cgroup_dirfd, -1);
		CHECK(job->cgroup_path == NULL);
		reclaim_job_run(job);
		CHECK_EQ_INT(job->outcome, JOB_DONE);
		CHECK_EQ_INT(job->error, 0);
		CHECK_EQ_U64(job->written_bytes, 8388608);
		CHECK_EQ_U64(job->reclaimed_bytes, 0); /* nothing measured: not a cgroup's */
		CHECK_EQ_INT((int)job->chunks, 1);
		reclaim_job_free(job);
	}
	snprintf(path, sizeof(path), "%s/devices/system/node/node1/reclaim", dir);
	f = fopen(path, "r");
	CHECK(f && fgets(buf, sizeof(buf), f));
	if (f)
		fclose(f);
	CHECK_STREQ(buf, "8388608");
	/* A node without the file: the error comes back in the job. */
	job = NULL;
	CHECK_EQ_INT(node_reclaim_job_new(dir, 2, 4096, &job), 0);
	if (job) {
		reclaim_job_run(job);
		CHECK_EQ_INT(job->error, -ENOENT);
		CHECK_EQ_INT(job->outcome, JOB_FAILED);
		CHECK_EQ_U64(job->written_bytes, 0);
		CHECK(node_reclaim_refused(job->error));
		reclaim_job_free(job);
	}
	/* A job cancelled before it ran writes nothing. */
	job = NULL;
	CHECK_EQ_INT(node_reclaim_job_new(dir, 1, 4096, &job), 0);
	if (job) {
		atomic_store(&job->cancel, true);
		reclaim_job_run(job);
		CHECK_EQ_INT(job->outcome, JOB_CANCELLED);
		CHECK_EQ_U64(job->written_bytes, 0);
		reclaim_job_free(job);
	}
	f = fopen(path, "r");
	CHECK(f && fgets(buf, sizeof(buf), f));
	if (f)
		fclose(f);
	CHECK_STREQ(buf, "8388608");
	/* Bad arguments. */
	job = NULL;
	CHECK_EQ_INT(node_reclaim_job_new(dir, RECLAIMD_MAX_NODES, 4096, &job), -EINVAL);
	CHECK_EQ_INT(node_reclaim_job_new(dir, 0, 0, &job), -EINVAL);
	CHECK(job == NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK_EQ_INT(system(cmd), 0);
}

/* The kernel's answers to a nodeN/reclaim write, as a job's outcome, and which ones stop the
 * writes for good. */
static void test_node_reclaim_outcome(void)
{
	CHECK_EQ_INT(node_reclaim_outcome(0, false), JOB_DONE);
	CHECK_EQ_INT(node_reclaim_outcome(-EAGAIN, false), JOB_PARTIAL);
	CHECK_EQ_INT(node_reclaim_outcome(-EBUSY, false), JOB_BUSY);
	CHECK_EQ_INT(node_reclaim_outcome(-EINTR, true), JOB_CANCELLED);
	/* An interruption that is not the agent's cancel is a failure (after the retries). */
	CHECK_EQ_INT(node_reclaim_outcome(-EINTR, false), JOB_FAILED);
	/* ENOENT is not "gone" as for a cgroup: the node's file is missing. */
	CHECK_EQ_INT(node_reclaim_outcome(-ENOENT, false), JOB_FAILED);
	CHECK_EQ_INT(node_reclaim_outcome(-EROFS, false), JOB_FAILED);
	/* Errors retrying cannot mend stop the writes for good; the kernel's own do not. */
	CHECK(node_reclaim_refused(-ENOENT));
	CHECK(node_reclaim_refused(-EROFS));
	CHECK(node_reclaim_refused(-EACCES));
	CHECK(node_reclaim_refused(-EPERM));
	CHECK(!node_reclaim_refused(-EBUSY));
	CHECK(!node_reclaim_refused(-EAGAIN));
	CHECK(!node_reclaim_refused(-EINTR));
	CHECK(!node_reclaim_refused(-ECANCELED));
	CHECK(!node_reclaim_refused(0));
}

int main(void)
{
	test_release();
	test_by_version();
	test_table();
	test_request_swappiness();
	test_probe_fixtures();
	test_node_reclaim_job();
	test_node_reclaim_outcome();
	return test_report("test_features");
}
