/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_mglru.c - the lru_gen parser (agent/kio/mglru.c) on a real 6.12 file recorded during the demo
 * (tests/fixtures/real-6.12/sys/kernel/debug/lru_gen: two memcgs being removed, printed with id
 * 0, then the live ones), on hand-written variants and on malformed input; the aging command
 * formatting and lru_gen_run() against a pipe.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reclaimd/actuator.h"
#include "reclaimd/mglru.h"
#include "reclaimd/reader.h"
#include "test.h"

static char fixture_buf[65536];

#define load(rel) test_load_fixture((rel), fixture_buf, sizeof(fixture_buf))

#define MAX_SEEN 16
struct seen {
	size_t n;
	struct lru_gen_lruvec v[MAX_SEEN];
	char path[MAX_SEEN][64];
	int stop_after; /* return 7 after this many; 0 = never */
};

static int collect(const struct lru_gen_lruvec *v, void *userdata)
{
	struct seen *s = userdata;

	if (s->n < MAX_SEEN) {
		s->v[s->n] = *v;
		snprintf(s->path[s->n], sizeof(s->path[0]), "%.*s", (int)v->path_len, v->path);
	}
	s->n++;
	if (s->stop_after && s->n == (size_t)s->stop_after)
		return 7;
	return 0;
}

/* Per-generation seq and age; "-0" pages (a type past its own min_seq) read as 0. */
static void test_ages_and_minus_zero(void)
{
	static const char buf[] =
		"memcg     7 /a\n"
		" node     0\n"
		"         20      91000         -0        300 \n"
		"         21      45000        100        200 \n"
		"         22       2000         50          0 \n";
	struct seen s = { 0 };

	CHECK_EQ_INT(lru_gen_parse(buf, sizeof(buf) - 1, collect, &s), 0);
	CHECK_EQ_U64(s.n, 1);
	CHECK_EQ_U64(s.v[0].n_gens, 3);
	CHECK_EQ_U64(s.v[0].seq[0], 20);
	CHECK_EQ_U64(s.v[0].seq[2], 22);
	CHECK_EQ_U64(s.v[0].age_ms[0], 91000);
	CHECK_EQ_U64(s.v[0].age_ms[1], 45000);
	CHECK_EQ_U64(s.v[0].age_ms[2], 2000);
	CHECK_EQ_U64(s.v[0].anon_pages[0], 0);
	CHECK_EQ_U64(s.v[0].file_pages[0], 300);
	CHECK_EQ_U64(s.v[0].anon_pages[1], 100);
	/* "-0" is a page count only: a seq, an age or an id of "-0" is malformed. */
	s = (struct seen){ 0 };
	CHECK_EQ_INT(lru_gen_parse("memcg 7 /a\n node 0\n -0 1 2 3\n", 29, collect, &s), -EBADMSG);
	CHECK_EQ_INT(lru_gen_parse("memcg 7 /a\n node 0\n 1 -0 2 3\n", 29, collect, &s), -EBADMSG);
	CHECK_EQ_INT(lru_gen_parse("memcg 7 /a\n node 0\n 1 2 -1 3\n", 29, collect, &s), -EBADMSG);
	CHECK_EQ_U64(s.n, 0);
}

static void test_real_file(void)
{
	struct seen s = { 0 };
	size_t len = load("real-6.12/sys/kernel/debug/lru_gen");

	CHECK_EQ_INT(lru_gen_parse(fixture_buf, len, collect, &s), 0);
	/* Two removed memcgs (id 0) are skipped; web and batch on two nodes each remain. */
	CHECK_EQ_U64(s.n, 4);
	CHECK_EQ_U64(s.v[0].memcg_id, 5);
	CHECK_STREQ(s.path[0], "/system.slice/web.service");
	CHECK_EQ_INT(s.v[0].node, 0);
	CHECK_EQ_U64(s.v[0].n_gens, 4);
	CHECK_EQ_U64(s.v[0].min_seq, 16);
	CHECK_EQ_U64(s.v[0].max_seq, 19);
	CHECK_EQ_U64(s.v[0].oldest_age_ms, 18740);
	CHECK_EQ_U64(s.v[0].anon_pages[0], 2777);
	CHECK_EQ_U64(s.v[0].anon_pages[2], 13305);
	CHECK_EQ_U64(s.v[0].file_pages[3], 0);
	/* The second node of a memcg has no "memcg" line of its own. */
	CHECK_EQ_U64(s.v[1].memcg_id, 5);
	CHECK_STREQ(s.path[1], "/system.slice/web.service");
	CHECK_EQ_INT(s.v[1].node, 1);
	CHECK_EQ_U64(s.v[1].anon_pages[0], 41744);
	CHECK_EQ_U64(s.v[2].memcg_id, 3);
	CHECK_STREQ(s.path[2], "/system.slice/batch.service");
	CHECK_EQ_U64(s.v[3].anon_pages[2], 5116);
	CHECK_EQ_U64(s.v[3].max_seq, 19);

	/* A callback's non-zero return stops the parse and comes back. */
	s = (struct seen){ .stop_after = 2 };
	CHECK_EQ_INT(lru_gen_parse(fixture_buf, len, collect, &s), 7);
	CHECK_EQ_U64(s.n, 2);
}

#define PARSE(lit, s) lru_gen_parse(lit, strlen(lit), collect, s)

static void test_variants(void)
{
	struct seen s = { 0 };

	/* The root memcg, a path with a space, a node without generations, file pages. */
	CHECK_EQ_INT(PARSE("memcg     1 /\n"
			   " node     0\n"
			   "          2     201345      12034       40211 \n"
			   "          3     150012       3011        9102 \n"
			   "memcg     9 /a b/c\n"
			   " node     0\n"
			   " node     1\n"
			   "          7         10          1           2 \n", &s), 0);
	CHECK_EQ_U64(s.n, 2);
	CHECK_STREQ(s.path[0], "/");
	CHECK_EQ_U64(s.v[0].file_pages[1], 9102);
	CHECK_EQ_U64(s.v[0].max_seq, 3);
	CHECK_STREQ(s.path[1], "/a b/c");
	CHECK_EQ_INT(s.v[1].node, 1);
	CHECK_EQ_U64(s.v[1].n_gens, 1);
	CHECK_EQ_U64(s.v[1].min_seq, 7);

	/* A cgroup may be named with a trailing space: "/a " is not "/a" (mkdir allows it, and
	 * taking one for the other would evict from a memcg no rule manages). */
	s = (struct seen){ 0 };
	CHECK_EQ_INT(PARSE("memcg     4 /a \n"
			   " node     0\n"
			   "          5       1000          1           2 \n"
			   "memcg     5 /a\n"
			   " node     0\n"
			   "          5       1000          1           2 \n", &s), 0);
	CHECK_EQ_U64(s.n, 2);
	CHECK_STREQ(s.path[0], "/a ");
	CHECK_EQ_U64(s.v[0].path_len, 3);
	CHECK_STREQ(s.path[1], "/a");

	/* Kernels whose mem_cgroup_id() is the 64-bit cgroup id print it with "%llu": a
	 * 16-bit limit would fail the whole file there, and with it every eviction. */
	s = (struct seen){ 0 };
	CHECK_EQ_INT(PARSE("memcg 4294967338 /a\n"
			   " node     0\n"
			   "          5       1000          1           2 \n", &s), 0);
	CHECK_EQ_U64(s.n, 1);
	CHECK_EQ_U64(s.v[0].memcg_id, 4294967338ULL);

	s = (struct seen){ 0 };
	CHECK_EQ_INT(lru_gen_parse("", 0, collect, &s), 0);
	CHECK_EQ_U64(s.n, 0);
}

static void test_malformed(void)
{
	struct seen s = { 0 };

	/* Truncated: the last line has no newline. */
	CHECK_EQ_INT(PARSE("memcg 1 /\n node 0\n 2 1 1 1", &s), -EBADMSG);
	/* A generation line before any node. */
	CHECK_EQ_INT(PARSE("memcg 1 /\n 2 1 1 1\n", &s), -EBADMSG);
	/* A node before any memcg. */
	CHECK_EQ_INT(PARSE(" node 0\n", &s), -EBADMSG);
	/* Too few fields, non-numeric, overflowing. */
	CHECK_EQ_INT(PARSE("memcg 1 /\n node 0\n 2 1 1\n", &s), -EBADMSG);
	CHECK_EQ_INT(PARSE("memcg 1 /\n node 0\n 2 1 x 1\n", &s), -EBADMSG);
	CHECK_EQ_INT(PARSE("memcg 1 /\n node 0\n 2 1 99999999999999999999999 1\n", &s), -EBADMSG);
	/* A memcg id beyond 64 bits, a path not starting with '/', no path. */
	CHECK_EQ_INT(PARSE("memcg 18446744073709551616 /\n", &s), -EBADMSG);
	CHECK_EQ_INT(PARSE("memcg 1 x\n", &s), -EBADMSG);
	CHECK_EQ_INT(PARSE("memcg 1\n", &s), -EBADMSG);
	/* Sequence numbers must grow. */
	CHECK_EQ_INT(PARSE("memcg 1 /\n node 0\n 3 1 1 1\n 3 1 1 1\n", &s), -EBADMSG);
	/* More generation lines than the reader takes. */
	CHECK_EQ_INT(PARSE("memcg 1 /\n node 0\n 1 1 1 1\n 2 1 1 1\n 3 1 1 1\n 4 1 1 1\n"
			   " 5 1 1 1\n 6 1 1 1\n 7 1 1 1\n 8 1 1 1\n 9 1 1 1\n", &s), -EBADMSG);
	/* Nothing reported from a lruvec whose block was cut by an error. */
	s = (struct seen){ 0 };
	CHECK_EQ_INT(PARSE("memcg 1 /\n node 0\n 3 1 1 1\n zz\n", &s), -EBADMSG);
	CHECK_EQ_U64(s.n, 0);
}

static void test_commands(void)
{
	char buf[64], big[256], out[256];
	size_t len = 0;
	int fds[2], err;
	ssize_t n;

	CHECK_EQ_INT(lru_gen_format_age(buf, sizeof(buf), &len, 5, 1, 19), 0);
	CHECK_STREQ(buf, "+ 5 1 19\n");
	CHECK_EQ_INT(lru_gen_format_age(buf, sizeof(buf), &len, 65535, 0, UINT64_MAX), 0);
	CHECK_STREQ(buf, "+ 5 1 19\n+ 65535 0 18446744073709551615\n");
	/* Does not fit: nothing appended, the old content intact. */
	len = strlen(buf);
	CHECK_EQ_INT(lru_gen_format_age(buf, sizeof(buf), &len, 65535, 0, UINT64_MAX), -ENOBUFS);
	CHECK_EQ_U64(len, strlen("+ 5 1 19\n+ 65535 0 18446744073709551615\n"));
	CHECK_STREQ(buf, "+ 5 1 19\n+ 65535 0 18446744073709551615\n");

	/* lru_gen_run writes one command per write(): a pipe receives both, in order. */
	snprintf(big, sizeof(big), "+ 3 0 18\n+ 3 1 18\n");
	CHECK_EQ_INT(pipe(fds), 0);
	CHECK_EQ_U64(lru_gen_run(fds[1], big, &err), 2);
	CHECK_EQ_INT(err, 0);
	n = read(fds[0], out, sizeof(out) - 1);
	CHECK_EQ_INT((int)n, (int)strlen(big));
	out[n > 0 ? n : 0] = '\0';
	CHECK_STREQ(out, big);
	/* Every command fails on the read end: the first unexpected error is reported. */
	CHECK_EQ_U64(lru_gen_run(fds[0], big, &err), 0);
	CHECK_EQ_INT(err, -EBADF);
	close(fds[0]);
	close(fds[1]);
	/* An empty command list does nothing. */
	CHECK_EQ_U64(lru_gen_run(1, "", &err), 0);
	CHECK_EQ_INT(err, 0);
}

static void test_evict_format_and_split(void)
{
	char buf[128];
	struct lru_gen_target t[3] = {
		{ .memcg_id = 6, .node = 0, .max_seq = 12, .idle_pages = 800 },
		{ .memcg_id = 6, .node = 1, .max_seq = 12, .idle_pages = 44000 },
		{ .memcg_id = 6, .node = 2, .max_seq = 12, .idle_pages = 0 },
	};
	bool skip[3] = { false, false, false };
	uint64_t nr[3];

	CHECK_EQ_INT(lru_gen_format_evict(buf, sizeof(buf), 6, 1, 11, 60, 8192),
		     (int)strlen("- 6 1 11 60 8192\n"));
	CHECK_STREQ(buf, "- 6 1 11 60 8192\n");
	CHECK_EQ_INT(lru_gen_format_evict(buf, sizeof(buf), 6, 1, 11, 201, 1), -EINVAL);
	CHECK_EQ_INT(lru_gen_format_evict(buf, sizeof(buf), 6, 1, 11, -1, 1), -EINVAL);
	CHECK_EQ_INT(lru_gen_format_evict(buf, 8, 6, 1, 11, 0, 1), -ENOBUFS);
	/* A 64-bit cgroup id, written back whole. */
	CHECK_EQ_INT(lru_gen_format_evict(buf, sizeof(buf), 4294967338ULL, 1, 11, 60, 8192),
		     (int)strlen("- 4294967338 1 11 60 8192\n"));
	CHECK_STREQ(buf, "- 4294967338 1 11 60 8192\n");

	/* Proportional to the idle pages: node 0 holds 800 of 44,800, so of 4,480 pages it gets 80;
	 * a lruvec without idle pages gets nothing. */
	CHECK_EQ_U64(lru_gen_split(t, 3, skip, 4480, nr), 4480);
	CHECK_EQ_U64(nr[0], 80);
	CHECK_EQ_U64(nr[1], 4400);
	CHECK_EQ_U64(nr[2], 0);
	/* Rounding: the remainder goes to the largest. */
	CHECK_EQ_U64(lru_gen_split(t, 3, skip, 7, nr), 7);
	CHECK_EQ_U64(nr[0] + nr[1], 7);
	CHECK_EQ_U64(nr[0], 0);
	/* More than is idle: each gets its idle pages, no more. */
	CHECK_EQ_U64(lru_gen_split(t, 3, skip, 100000, nr), 44800);
	CHECK_EQ_U64(nr[0], 800);
	CHECK_EQ_U64(nr[1], 44000);
	/* A skipped lruvec gets nothing; the others are not given its part beyond their idle. */
	skip[1] = true;
	CHECK_EQ_U64(lru_gen_split(t, 3, skip, 4480, nr), 800);
	CHECK_EQ_U64(nr[0], 800);
	CHECK_EQ_U64(nr[1], 0);
	skip[0] = true;
	CHECK_EQ_U64(lru_gen_split(t, 3, skip, 4480, nr), 0);
	CHECK_EQ_U64(lru_gen_split(t, 0, NULL, 4480, nr), 0);
	CHECK_EQ_U64(lru_gen_split(t, 2, NULL, 0, nr), 0);
}

/* An eviction at swappiness 0 takes file pages only: split by the cold file pages, so a lruvec
 * whose cold generations hold only anon is not given pages it cannot evict. */
static void test_split_file_only(void)
{
	struct lru_gen_target t[2] = {
		{ .memcg_id = 6, .node = 0, .idle_pages = 1000000, .idle_file_pages = 0 },
		{ .memcg_id = 6, .node = 1, .idle_pages = 1000, .idle_file_pages = 1000 },
	};
	uint64_t nr[2];

	/* By all idle pages, node 0 would get (nearly) everything. */
	CHECK_EQ_U64(lru_gen_split(t, 2, NULL, 1000, nr), 1000);
	CHECK_EQ_U64(nr[0], 1000);
	lru_gen_targets_file_only(t, 2);
	CHECK_EQ_U64(t[0].idle_pages, 0);
	CHECK_EQ_U64(t[1].idle_pages, 1000);
	CHECK_EQ_U64(lru_gen_split(t, 2, NULL, 1000, nr), 1000);
	CHECK_EQ_U64(nr[0], 0);
	CHECK_EQ_U64(nr[1], 1000);
	/* No cold file anywhere: nothing to give. */
	t[1].idle_file_pages = 0;
	lru_gen_targets_file_only(t, 2);
	CHECK_EQ_U64(lru_gen_split(t, 2, NULL, 1000, nr), 0);
	lru_gen_targets_file_only(NULL, 0);
}

static void put_file(const char *dir, const char *name, const char *text)
{
	CHECK(test_write_str(dir, name, text));
}

/*
 * The job's eviction path on a fixture cgroup: lru_gen is a plain file that collects the
 * commands. The fixture's memory.stat pgsteal never moves, so the first chunk "reclaims"
 * nothing: the job must stop after it, idle generations used up (JOB_PARTIAL), with one
 * command per lruvec that has idle pages, split by idle pages, up to each one's evict_seq.
 */
static void test_job_evicts_through_lru_gen(void)
{
	char dir[] = "/tmp/reclaimd-test-evict-XXXXXX", path[PATH_MAX], got[512];
	struct reclaim_job *job = NULL;
	int dirfd, fd;
	ssize_t n;

	CHECK(mkdtemp(dir) != NULL);
	put_file(dir, "memory.reclaim", "");
	put_file(dir, "memory.current", "104857600\n");
	put_file(dir, "memory.stat", "anon 104857600\nfile 0\npgsteal 10\n");
	put_file(dir, "memory.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
					 "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
	snprintf(path, sizeof(path), "%s/lru_gen", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(fd >= 0 && dirfd >= 0);
	CHECK_EQ_INT(reclaim_job_new(dirfd, "evict", 1, &job), 0);
	if (!job || fd < 0)
		return;
	job->request_bytes = 64 << 20;
	job->chunk_bytes = 16 << 20;
	job->page_size = 4096;
	job->psi_some_target_pct = 0.1;
	job->lru_gen_path = strdup(path);
	job->evict_swappiness = 60;
	job->evict = calloc(2, sizeof(*job->evict));
	job->n_evict = 2;
	job->evict[0] = (struct lru_gen_target){ .memcg_id = 6, .node = 0, .max_seq = 12,
						 .evict_seq = 11, .idle_pages = 1024 };
	job->evict[1] = (struct lru_gen_target){ .memcg_id = 6, .node = 1, .max_seq = 12,
						 .evict_seq = 10, .idle_pages = 3072 };
	reclaim_job_run(job);
	CHECK_EQ_INT(job->outcome, JOB_PARTIAL);
	CHECK(job->idle_exhausted);
	CHECK_EQ_U64(job->chunks, 1);
	n = pread(fd, got, sizeof(got) - 1, 0);
	got[n > 0 ? n : 0] = '\0';
	/* 16 MiB = 4,096 pages: 1,024 and 3,072, the idle pages each holds. */
	CHECK_STREQ(got, "- 6 0 11 60 1024\n- 6 1 10 60 3072\n");
	/* memory.reclaim was not written. */
	snprintf(path, sizeof(path), "%s/memory.reclaim", dir);
	{
		struct stat st;

		CHECK(stat(path, &st) == 0 && st.st_size == 0);
	}
	reclaim_job_free(job);
	close(fd); /* the job opened lru_gen itself, per chunk */

	/* No lru_gen path (the strdup failed): no eviction, and no memory.reclaim
	 * in its place, which would take hot pages too. */
	job = NULL;
	CHECK_EQ_INT(reclaim_job_new(dirfd, "evict", 1, &job), 0);
	if (job) {
		struct stat st;

		job->request_bytes = 64 << 20;
		job->chunk_bytes = 16 << 20;
		job->page_size = 4096;
		job->lru_gen_path = NULL;
		job->evict_swappiness = 60;
		job->evict = calloc(1, sizeof(*job->evict));
		job->n_evict = 1;
		job->evict[0] = (struct lru_gen_target){ .memcg_id = 6, .node = 0, .max_seq = 12,
							 .evict_seq = 10, .idle_pages = 4096 };
		reclaim_job_run(job);
		CHECK_EQ_INT(job->outcome, JOB_FAILED);
		CHECK_EQ_INT(job->error, -EBADF);
		CHECK_EQ_U64(job->written_bytes, 0);
		CHECK(stat(path, &st) == 0 && st.st_size == 0);
		/* memory.stat unreadable: the same. */
		snprintf(path, sizeof(path), "%s/memory.stat", dir);
		put_file(dir, "memory.stat", "garbage\n");
		job->outcome = JOB_DONE;
		job->lru_gen_path = strdup("/dev/null");
		reclaim_job_run(job);
		CHECK(job->outcome == JOB_FAILED || job->outcome == JOB_GONE);
		CHECK_EQ_U64(job->written_bytes, 0);
		snprintf(path, sizeof(path), "%s/memory.reclaim", dir);
		CHECK(stat(path, &st) == 0 && st.st_size == 0);
		reclaim_job_free(job);
	}

	/* A descendant's target (a pod's container) whose cgroup cannot be found alive, as after
	 * its removal (here: no cgroup2 mount to ask), is not evicted from, since its memcg id may
	 * name another memcg by now; the job's own memcg still is, and gets the whole chunk. */
	put_file(dir, "memory.stat", "anon 104857600\nfile 0\npgsteal 10\n");
	snprintf(path, sizeof(path), "%s/lru_gen", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	job = NULL;
	CHECK_EQ_INT(reclaim_job_new(dirfd, "evict", 1, &job), 0);
	CHECK(fd >= 0);
	if (job && fd >= 0) {
		job->request_bytes = 64 << 20;
		job->chunk_bytes = 16 << 20;
		job->page_size = 4096;
		job->psi_some_target_pct = 0.1;
		job->lru_gen_path = strdup(path);
		job->evict_swappiness = 60;
		job->evict = calloc(2, sizeof(*job->evict));
		job->n_evict = 2;
		job->evict[0] = (struct lru_gen_target){ .memcg_id = 9, .node = 0, .max_seq = 12,
							 .evict_seq = 10, .idle_pages = 3072,
							 .cgroup_id = 4242 };
		job->evict[1] = (struct lru_gen_target){ .memcg_id = 6, .node = 0, .max_seq = 12,
							 .evict_seq = 11, .idle_pages = 1024 };
		reclaim_job_run(job);
		CHECK_EQ_INT(job->outcome, JOB_PARTIAL);
		CHECK(job->idle_exhausted);
		n = pread(fd, got, sizeof(got) - 1, 0);
		got[n > 0 ? n : 0] = '\0';
		CHECK_STREQ(got, "- 6 0 11 60 1024\n");
		reclaim_job_free(job);
	}
	if (fd >= 0)
		close(fd);
	close(dirfd);
	for (const char *const *f = (const char *const[]){ "memory.reclaim", "memory.current",
		"memory.stat", "memory.pressure", "lru_gen", NULL }; *f; f++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *f);
		unlink(path);
	}
	rmdir(dir);
}

/* A fake lru_gen seq_file: each read() hands out at most three lruvecs and resumes the walk at the
 * number of lruvecs shown so far (lru_gen_seq_start()), in the memcg list current at that call.
 * `shift_at`: from that call on (counted from the first), memcg "/z" is gone. */
static const char *const fake_with_z[] = {
	"memcg 3 /z\n node 0\n 5 90000 10 10\n 6 1000 10 10\n", " node 1\n 5 90000 10 10\n 6 1000 10 10\n",
	"memcg 4 /a\n node 0\n 7 90000 10 10\n 8 1000 10 10\n", " node 1\n 7 900 10 10\n 8 10 10 10\n",
	"memcg 5 /b\n node 0\n 7 90000 10 10\n 8 1000 10 10\n", " node 1\n 7 90000 20 20\n 8 80000 20 20\n",
	NULL,
};
static struct {
	unsigned calls, shift_at, shown;
} fake;

static ssize_t fake_pread(int fd _unused_, void *buf, size_t n, off_t off)
{
	const char *const *recs = fake_with_z + (fake.calls++ >= fake.shift_at ? 2 : 0);
	size_t len = 0;

	if (off == 0)
		fake.shown = 0;
	for (unsigned k = 0; k < 3 && recs[fake.shown]; k++, fake.shown++) {
		size_t l = strlen(recs[fake.shown]);

		if (len + l > n)
			break;
		memcpy((char *)buf + len, recs[fake.shown], l);
		len += l;
	}
	return (ssize_t)len;
}

static void test_read_across_a_memcg_going_away(void)
{
	size_t size = 4096, len;
	char *buf = malloc(size);
	struct seen s = { 0 };

	/* "/z" is freed between the first and the second read(): the second resumes three lruvecs
	 * on, at b's node 1, which prints no "memcg" line, and would be read as a's node 1 (whose
	 * generations are young). That read is not used: the next one, all after the change, is
	 * used when the one after it lists the same lruvecs. */
	fake.calls = 0;
	fake.shift_at = 1;
	CHECK_EQ_INT(lru_gen_read(-1, fake_pread, &buf, &size, &len), 0);
	CHECK_EQ_U64(fake.calls, 3 * 3);
	CHECK_EQ_INT(lru_gen_parse(buf, len, collect, &s), 0);
	CHECK_EQ_U64(s.n, 4);
	CHECK_STREQ(s.path[1], "/a");
	CHECK_EQ_INT(s.v[1].node, 1);
	CHECK_EQ_U64(s.v[1].age_ms[1], 10);
	CHECK_STREQ(s.path[3], "/b");
	CHECK_EQ_U64(s.v[3].age_ms[1], 80000);
	/* Nothing changes: two reads agree (the first one alone cannot be told from a shifted one
	 * when a read() started at a node line). */
	fake.calls = 0;
	fake.shift_at = 1000;
	CHECK_EQ_INT(lru_gen_read(-1, fake_pread, &buf, &size, &len), 0);
	CHECK_EQ_U64(fake.calls, 2 * 3);
	s = (struct seen){ 0 };
	CHECK_EQ_INT(lru_gen_parse(buf, len, collect, &s), 0);
	CHECK_EQ_U64(s.n, 6);
	free(buf);
}

/* mglru_open()/mglru_check() on a sys tree: MGLRU on, switched off, absent, debugfs gone; and no
 * descriptor held between uses (an administrator's umount of debugfs must not see it busy). */
static void test_open_check_hold_nothing(void)
{
	char dir[] = "/tmp/reclaimd-test-mglru-XXXXXX", path[PATH_MAX];
	struct mglru *m = NULL;
	struct seen s = { 0 };
	int fds0, fd;

	CHECK(mkdtemp(dir) != NULL);
	/* No kernel/mm/lru_gen: a kernel without MGLRU. */
	CHECK_EQ_INT(mglru_open(dir, &m), -ENODEV);
	snprintf(path, sizeof(path), "%s/kernel", dir);
	CHECK(mkdir(path, 0700) == 0);
	snprintf(path, sizeof(path), "%s/kernel/mm", dir);
	CHECK(mkdir(path, 0700) == 0);
	snprintf(path, sizeof(path), "%s/kernel/mm/lru_gen", dir);
	CHECK(mkdir(path, 0700) == 0);
	put_file(path, "enabled", "0x0000\n");
	CHECK_EQ_INT(mglru_open(dir, &m), -EOPNOTSUPP);
	put_file(path, "enabled", "0x0007\n");
	/* Switched on, but no debugfs. */
	CHECK_EQ_INT(mglru_open(dir, &m), -ENOENT);
	snprintf(path, sizeof(path), "%s/kernel/debug", dir);
	CHECK(mkdir(path, 0700) == 0);
	put_file(path, "lru_gen", "memcg     1 /\n node     0\n         15     112240          1           0 \n");

	fds0 = test_count_fds();
	CHECK_EQ_INT(mglru_open(dir, &m), 0);
	if (!m)
		return;
	CHECK_EQ_INT(test_count_fds(), fds0);
	CHECK_EQ_INT(mglru_read(m, collect, &s), 0);
	CHECK_EQ_U64(s.n, 1);
	CHECK_EQ_INT(test_count_fds(), fds0);
	fd = mglru_open_fd(m);
	CHECK(fd >= 0);
	CHECK_EQ_INT(test_count_fds(), fds0 + 1);
	if (fd >= 0)
		close(fd);
	CHECK_EQ_INT(mglru_check(m), 0);

	/* MGLRU switched off by an administrator, then debugfs unmounted. */
	snprintf(path, sizeof(path), "%s/kernel/mm/lru_gen", dir);
	put_file(path, "enabled", "0x0000\n");
	CHECK_EQ_INT(mglru_check(m), -EOPNOTSUPP);
	put_file(path, "enabled", "0x0001\n");
	CHECK_EQ_INT(mglru_check(m), 0);
	snprintf(path, sizeof(path), "%s/kernel/debug/lru_gen", dir);
	CHECK(unlink(path) == 0);
	CHECK_EQ_INT(mglru_check(m), -ENOENT);
	CHECK_EQ_INT(mglru_open_fd(m), -ENOENT);
	CHECK(mglru_read(m, collect, &s) == -ENOENT);
	CHECK_EQ_INT(test_count_fds(), fds0);
	mglru_free(m);

	snprintf(path, sizeof(path), "rm -r '%s'", dir);
	CHECK(system(path) == 0);
}

int main(void)
{
	test_real_file();
	test_ages_and_minus_zero();
	test_variants();
	test_malformed();
	test_commands();
	test_evict_format_and_split();
	test_split_file_only();
	test_job_evicts_through_lru_gen();
	test_read_across_a_memcg_going_away();
	test_open_check_hold_nothing();
	return test_report("test_mglru");
}
