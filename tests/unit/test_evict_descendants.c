/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_evict_descendants.c - a job's lru_gen eviction from a managed pod's containers
 * (agent/kio/reclaim_job.c): each container is opened by cgroup id (open_by_handle_at(2), here
 * pointed at fixture directories) before each chunk, and
 *   - gets no more, over the whole job, than it holds above its own memory.min and memory.low
 *     as read before each chunk, nor more than its target's idle pages, even after another
 *     target dropped out (the chunks are then split among fewer targets);
 *   - is skipped once it is gone (ESTALE), or when its directory has lost its files by the time
 *     its command would be written, or, nested in a child of the pod, once that child has
 *     memory.min or memory.low set;
 *   - with file_only, is asked at swappiness 0.
 * The fixture's lru_gen is a plain file, read back between chunks; pgsteal moves at each
 * container's check, as if the kernel evicted all a chunk asks.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reclaimd/actuator.h"
#include "reclaimd/mglru.h"
#include "test.h"

#define PAGE 4096ULL
#define MAX_ID 8

static char dir[] = "/tmp/reclaimd-test-evict-desc-XXXXXX";
static char lru_path[PATH_MAX];
static uint64_t pgsteal, asked[MAX_ID], asked_swappiness0[MAX_ID];
static bool gone[MAX_ID];

static void put(const char *rel, const char *text)
{
	if (!test_write_str(dir, rel, text))
		abort();
}

static void put_u64(const char *rel, uint64_t v)
{
	char b[32];

	snprintf(b, sizeof(b), "%" PRIu64 "\n", v);
	put(rel, b);
}

/* Container k's directory: <dir>/ck with memory.min, memory.low, memory.current. */
static void container(unsigned k, uint64_t min, uint64_t low, uint64_t current)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/c%u", dir, k);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "c%u/memory.min", k);
	put_u64(p, min);
	snprintf(p, sizeof(p), "c%u/memory.low", k);
	put_u64(p, low);
	snprintf(p, sizeof(p), "c%u/memory.current", k);
	put_u64(p, current);
}

static void write_stat(void)
{
	char st[128];

	snprintf(st, sizeof(st), "anon 104857600\nfile 0\npgsteal %" PRIu64 "\n", pgsteal);
	put("memory.stat", st);
}

/* The kernel, faked: cgroup id k opens <dir>/ck while it is not gone; ESTALE after. */
static int fake_open_by_handle(int mount_fd, struct file_handle *h, int flags)
{
	char p[PATH_MAX];
	uint64_t id;

	(void)mount_fd;
	memcpy(&id, h->f_handle, sizeof(id));
	if (h->handle_type != 0xfe || h->handle_bytes != 8 || id >= MAX_ID || gone[id]) {
		errno = ESTALE;
		return -1;
	}
	/* The chunk about to be written will have evicted all it asks: pgsteal moves far enough
	 * for the measure after it. */
	pgsteal += 1 << 20;
	write_stat();
	snprintf(p, sizeof(p), "%s/c%" PRIu64, dir, id);
	return open(p, flags);
}

static int eperm_open_by_handle(int mount_fd _unused_, struct file_handle *h _unused_,
				int flags _unused_)
{
	errno = EPERM;
	return -1;
}

/* Folds the commands written since the last call into asked[] (by memcg id). */
static void collect(void)
{
	char buf[8192];
	int fd = open(lru_path, O_RDWR | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	uint64_t id, seq, nr;
	int node, sw;

	buf[n > 0 ? n : 0] = '\0';
	for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (sscanf(l, "- %" SCNu64 " %d %" SCNu64 " %d %" SCNu64, &id, &node, &seq, &sw, &nr) == 5 &&
		    id < MAX_ID) {
			asked[id] += nr;
			if (sw == 0)
				asked_swappiness0[id] += nr;
		}
	if (fd >= 0) {
		if (ftruncate(fd, 0) < 0)
			abort();
		close(fd);
	}
}

/* Between chunks: each chunk opens lru_gen anew and writes from its start. */
static bool throttle(struct reclaim_job *job _unused_, uint64_t chunk_bytes _unused_)
{
	collect();
	return true;
}

static struct reclaim_job *new_job(int dirfd, uint64_t request_bytes, size_t n)
{
	struct reclaim_job *job = NULL;
	int fd = open(lru_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd >= 0)
		close(fd);
	memset(asked, 0, sizeof(asked));
	memset(asked_swappiness0, 0, sizeof(asked_swappiness0));
	write_stat();
	CHECK_EQ_INT(reclaim_job_new(dirfd, "pod", 1, &job), 0);
	if (!job)
		abort();
	job->request_bytes = request_bytes;
	job->chunk_bytes = 256 * PAGE;
	job->page_size = PAGE;
	job->psi_some_target_pct = 100;
	job->lru_gen_path = strdup(lru_path);
	job->evict_swappiness = 60;
	job->throttle = throttle;
	job->evict = calloc(n, sizeof(*job->evict));
	job->n_evict = n;
	return job;
}

/* Runs the same job again for request_bytes more, as the next tick's job would continue. */
static void rerun(struct reclaim_job *job, uint64_t request_bytes)
{
	job->request_bytes = request_bytes;
	job->outcome = JOB_DONE;
	job->written_bytes = 0;
	job->idle_exhausted = false;
	reclaim_job_run(job);
	collect();
}

static struct lru_gen_target target(uint64_t memcg_id, int node, uint64_t idle, uint64_t cgroup_id)
{
	return (struct lru_gen_target){ .memcg_id = memcg_id, .node = node, .max_seq = 12,
					.evict_seq = 10, .idle_pages = idle, .idle_file_pages = idle,
					.cgroup_id = cgroup_id };
}

int main(void)
{
	struct reclaim_job *job;
	int dirfd;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(lru_path, sizeof(lru_path), "%s/lru_gen", dir);
	put("memory.reclaim", "");
	put("memory.current", "1073741824\n");
	put("memory.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
			       "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(dirfd >= 0);
	reclaim_open_by_handle = fake_open_by_handle;

	/* Container 1 (no protection, 2,000 cold pages) and container 2 (memory.low 96 MiB, 5,000
	 * cold pages on two nodes, and above memory.low 100 pages plus what two commands may take
	 * beyond what they ask, 576 pages each). 2's two targets share its 100 pages. */
	container(1, 0, 0, 64 << 20);
	container(2, 0, 96 << 20, (96 << 20) + (100 + 2 * 576) * PAGE);
	job = new_job(dirfd, 10000 * PAGE, 3);
	job->evict[0] = target(1, 0, 2000, 1);
	job->evict[1] = target(2, 0, 3000, 2);
	job->evict[2] = target(2, 1, 2000, 2);
	reclaim_job_run(job);
	collect();
	CHECK_EQ_U64(asked[1], 2000);
	CHECK_EQ_U64(asked[2], 100);
	CHECK(job->idle_exhausted);
	CHECK_EQ_INT(job->evict_check_error, 0);
	reclaim_job_free(job);

	/* Container 1 removed after the first chunk: the chunks then go to container 2 alone, which
	 * still gets no more than its 100 pages above memory.low, and container 3 (no protection,
	 * 300 cold pages) no more than its idle pages, over the whole job. */
	container(3, 0, 0, 64 << 20);
	container(2, 0, 96 << 20, (96 << 20) + (100 + 576) * PAGE);
	job = new_job(dirfd, 10000 * PAGE, 3);
	job->evict[0] = target(1, 0, 5000, 1);
	job->evict[1] = target(2, 0, 3000, 2);
	job->evict[2] = target(3, 0, 300, 3);
	{
		/* One chunk with all three, then container 1 is gone. */
		job->request_bytes = 256 * PAGE;
		reclaim_job_run(job);
		collect();
		CHECK(asked[1] > 0 && asked[1] <= 256);
		gone[1] = true;
		rerun(job, 10000 * PAGE);
	}
	CHECK_EQ_U64(asked[2], 100);
	CHECK_EQ_U64(asked[3], 300);
	CHECK_EQ_INT(job->evict_check_error, 0); /* ESTALE: gone, not a failed check */
	reclaim_job_free(job);
	gone[1] = false;

	/* Protection raised between chunks: memory.min now at memory.current, nothing more. */
	container(2, 0, 96 << 20, (96 << 20) + (1000 + 576) * PAGE);
	job = new_job(dirfd, 256 * PAGE, 1);
	job->evict[0] = target(2, 0, 3000, 2);
	reclaim_job_run(job);
	collect();
	CHECK_EQ_U64(asked[2], 256);
	container(2, (96 << 20) + 1000 * PAGE, 0, (96 << 20) + 1000 * PAGE);
	rerun(job, 10000 * PAGE);
	CHECK_EQ_U64(asked[2], 256);
	reclaim_job_free(job);

	/* A container whose directory has lost its files (removed between the check and its
	 * command): no command. memory.min and memory.low read 0, so memory.current is not read
	 * before the chunk; the check right before the write finds no memory.current. */
	container(4, 0, 0, 0);
	{
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s/c4/memory.current", dir);
		unlink(p);
	}
	job = new_job(dirfd, 1000 * PAGE, 2);
	job->evict[0] = target(4, 0, 500, 4);
	job->evict[1] = target(6, 0, 500, 0); /* the pod's own memcg: no check */
	reclaim_job_run(job);
	collect();
	CHECK_EQ_U64(asked[4], 0);
	CHECK(asked[6] > 0);
	reclaim_job_free(job);

	/* A target nested in a child (crun's inner cgroup of container 3): evicted while the
	 * child has no protection, not once it has memory.low. */
	job = new_job(dirfd, 100 * PAGE, 1);
	job->evict[0] = target(5, 0, 100, 5);
	job->evict[0].child_cgroup_id = 3;
	container(5, 0, 0, 64 << 20);
	reclaim_job_run(job);
	collect();
	CHECK_EQ_U64(asked[5], 100);
	reclaim_job_free(job);
	job = new_job(dirfd, 100 * PAGE, 1);
	job->evict[0] = target(5, 0, 100, 5);
	job->evict[0].child_cgroup_id = 3;
	container(3, 0, 1 << 20, 64 << 20);
	reclaim_job_run(job);
	collect();
	CHECK_EQ_U64(asked[5], 0);
	reclaim_job_free(job);
	container(3, 0, 0, 64 << 20);

	/* file_only (a NoSwap container): its command says swappiness 0, the other's the job's. */
	job = new_job(dirfd, 600 * PAGE, 2);
	job->evict[0] = target(1, 0, 200, 1);
	job->evict[0].file_only = true;
	job->evict[1] = target(3, 0, 200, 3);
	reclaim_job_run(job);
	collect();
	CHECK_EQ_U64(asked[1], 200);
	CHECK_EQ_U64(asked_swappiness0[1], 200);
	CHECK_EQ_U64(asked[3], 200);
	CHECK_EQ_U64(asked_swappiness0[3], 0);
	reclaim_job_free(job);

	/* A check that fails for another reason than ESTALE (EPERM, as from a seccomp filter
	 * without the call): no command, and the error kept for the warning. */
	job = new_job(dirfd, 100 * PAGE, 1);
	job->evict[0] = target(3, 0, 100, 3);
	reclaim_open_by_handle = eperm_open_by_handle;
	reclaim_job_run(job);
	collect();
	CHECK_EQ_U64(asked[3], 0);
	CHECK_EQ_INT(job->evict_check_error, -EPERM);
	reclaim_job_free(job);
	reclaim_open_by_handle = fake_open_by_handle;

	close(dirfd);
	for (unsigned k = 1; k <= 5; k++)
		for (const char *const *f = (const char *const[]){ "memory.min", "memory.low",
			"memory.current", NULL }; *f; f++) {
			char p[PATH_MAX];

			snprintf(p, sizeof(p), "%s/c%u/%s", dir, k, *f);
			unlink(p);
			snprintf(p, sizeof(p), "%s/c%u", dir, k);
			rmdir(p);
		}
	for (const char *const *f = (const char *const[]){ "memory.reclaim", "memory.current",
		"memory.stat", "memory.pressure", "lru_gen", NULL }; *f; f++) {
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s/%s", dir, *f);
		unlink(p);
	}
	rmdir(dir);
	return test_report("test_evict_descendants");
}
