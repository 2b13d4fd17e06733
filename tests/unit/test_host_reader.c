/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_host_reader.c - reader.h: pread_whole/read_at on regular and procfs files, and
 * host_reader on fixture trees (tests/fixtures/real-6.12, recorded in the VM with zswap on;
 * tests/fixtures/host-nozswap, without zswap) and on temporary copies of the first with broken,
 * missing, oversized and changing files.
 *
 * Fixtures are found under $RECLAIMD_FIXTURES, by default tests/fixtures (run from the repo root).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "reclaimd/reader.h"
#include "test.h"

static char fixtures[PATH_MAX];
static char tmp_root[PATH_MAX];

/* host_sample is about 130 KiB: keep them off the stack. */
static struct host_sample sample, sample2, pattern;

static const char *path_in(const char *root, const char *rel)
{
	static char path[2][PATH_MAX];
	static unsigned which;

	which ^= 1;
	if (snprintf(path[which], sizeof(path[which]), "%s/%s", root, rel) >= (int)sizeof(path[which])) {
		fprintf(stderr, "path too long: %s/%s\n", root, rel);
		exit(2);
	}
	return path[which];
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "%s %s: %s\n", what, path, strerror(errno));
	exit(2);
}

/* Writes rel under the temporary tree in place (same inode when it exists). */
static void put_file(const char *rel, const char *content, size_t len)
{
	if (!test_write_file(tmp_root, rel, content, len))
		exit(2);
}

static void put_str(const char *rel, const char *content)
{
	put_file(rel, content, strlen(content));
}

static void copy_fixture(const char *from, const char *to)
{
	static char buf[1 << 20];
	const char *path = path_in(fixtures, from);
	size_t len;

	if (read_at(AT_FDCWD, path, buf, sizeof(buf), &len) < 0)
		die("read fixture", path);
	put_file(to, buf, len);
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

/* A fresh temporary copy of the files of fixtures/real-6.12 that host_reader reads. */
static void make_tree(void)
{
	static const char *const files[] = {
		"proc/meminfo", "proc/vmstat", "proc/pressure/memory", "proc/swaps",
		"sys/module/zswap/parameters/enabled", "sys/module/zswap/parameters/compressor",
		"sys/module/zswap/parameters/max_pool_percent",
		"sys/module/zswap/parameters/accept_threshold_percent",
		"sys/module/zswap/parameters/shrinker_enabled",
		"sys/kernel/debug/zswap/pool_limit_hit", "sys/kernel/debug/zswap/reject_reclaim_fail",
		"sys/kernel/debug/zswap/reject_alloc_fail", "sys/kernel/debug/zswap/reject_kmemcache_fail",
		"sys/kernel/debug/zswap/reject_compress_fail", "sys/kernel/debug/zswap/reject_compress_poor",
		"sys/kernel/debug/zswap/written_back_pages", "sys/kernel/debug/zswap/pool_total_size",
		"sys/kernel/debug/zswap/stored_pages",
	};
	char from[PATH_MAX];

	if (tmp_root[0])
		nftw(tmp_root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	snprintf(tmp_root, sizeof(tmp_root), "/tmp/reclaimd-test-host-XXXXXX");
	if (!mkdtemp(tmp_root))
		die("mkdtemp", tmp_root);
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(from, sizeof(from), "real-6.12/%s", files[i]);
		copy_fixture(from, files[i]);
	}
}

static int open_tree(struct host_reader **ret)
{
	return host_reader_open(path_in(tmp_root, "proc"), path_in(tmp_root, "sys"), ret, NULL);
}

/* ---- pread_whole / read_at ---------------------------------------------------------------- */

static void test_pread_whole(void)
{
	char buf[64];
	size_t len = 12345;
	int fd;

	make_tree();
	put_str("ten", "0123456789");
	fd = open(path_in(tmp_root, "ten"), O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0);

	/* Ten bytes need a buffer of 12: one for the NUL, one to see that nothing was cut. */
	CHECK_EQ_INT(pread_whole(fd, buf, 12, &len), 0);
	CHECK_EQ_U64(len, 10);
	CHECK_STREQ(buf, "0123456789");
	len = 777;
	CHECK_EQ_INT(pread_whole(fd, buf, 11, &len), -EFBIG);
	CHECK_EQ_U64(len, 777);
	CHECK_EQ_INT(pread_whole(fd, buf, 5, &len), -EFBIG);
	CHECK_EQ_INT(pread_whole(fd, buf, 1, &len), -EINVAL);
	CHECK_EQ_INT(pread_whole(fd, buf, 0, &len), -EINVAL);
	/* Re-reading starts at offset 0 whatever the file offset is. */
	CHECK_EQ_INT((int)lseek(fd, 7, SEEK_SET), 7);
	CHECK_EQ_INT(pread_whole(fd, buf, sizeof(buf), &len), 0);
	CHECK_EQ_U64(len, 10);
	close(fd);

	CHECK_EQ_INT(pread_whole(-1, buf, sizeof(buf), &len), -EBADF);
	fd = open(tmp_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK_EQ_INT(pread_whole(fd, buf, sizeof(buf), &len), -EISDIR);
	CHECK_EQ_INT(read_at(fd, "ten", buf, sizeof(buf), &len), 0);
	CHECK_STREQ(buf, "0123456789");
	CHECK_EQ_INT(read_at(fd, "missing", buf, sizeof(buf), &len), -ENOENT);
	CHECK_EQ_INT(read_at(fd, "ten", buf, 4, &len), -EFBIG);
	close(fd);
	put_str("empty", "");
	CHECK_EQ_INT(read_at(AT_FDCWD, path_in(tmp_root, "empty"), buf, sizeof(buf), &len), 0);
	CHECK_EQ_U64(len, 0);
	CHECK_STREQ(buf, "");
}

/*
 * /proc/self/maps is a seq_file with one record per mapping: one read() returns at most about a
 * page. With a few hundred mappings, pread_whole must keep reading to get all of it.
 */
static void test_pread_whole_seq_file(void)
{
	static char buf[1 << 20];
	const size_t page = (size_t)sysconf(_SC_PAGESIZE), n_maps = 400;
	size_t len = 0, lines = 0;
	ssize_t first;
	char *area;
	int fd;

	/* Alternating protections keep neighbouring pages from merging into one mapping. */
	area = mmap(NULL, n_maps * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(area != MAP_FAILED);
	if (area == MAP_FAILED)
		return;
	for (size_t i = 0; i < n_maps; i += 2)
		mprotect(area + i * page, page, PROT_NONE);

	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		SKIP("no /proc/self/maps: seq_file check not run");
		munmap(area, n_maps * page);
		return;
	}
	first = pread(fd, buf, sizeof(buf) - 1, 0);
	CHECK_EQ_INT(pread_whole(fd, buf, sizeof(buf), &len), 0);
	CHECK(first > 0 && (size_t)first < len); /* one pread was not enough */
	CHECK(len > n_maps * 20);
	CHECK(len > 0 && buf[len - 1] == '\n');
	CHECK_EQ_U64(strlen(buf), len);
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\n')
			lines++;
	CHECK(lines >= n_maps);
	close(fd);
	munmap(area, n_maps * page);
}

/* ---- host_reader on the fixture trees ----------------------------------------------------- */

static void test_fixture_tree(void)
{
	struct host_reader *r = NULL;

	CHECK_EQ_INT(host_reader_open(path_in(fixtures, "real-6.12/proc"), path_in(fixtures, "real-6.12/sys"), &r, NULL),
		     0);
	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_EQ_INT(host_reader_read(r, &sample), 0);

	CHECK_EQ_U64(sample.meminfo.mem_total, UINT64_C(1507940) * 1024);
	CHECK_EQ_U64(sample.meminfo.mem_available, UINT64_C(1153508) * 1024);
	CHECK_EQ_U64(sample.meminfo.swap_total, UINT64_C(1572856) * 1024);
	CHECK_EQ_U64(sample.meminfo.zswap, UINT64_C(4768) * 1024);
	CHECK_EQ_U64(sample.vmstat.pswpout, 39635);
	CHECK_EQ_U64(sample.vmstat.zswpwb, 17202);
	CHECK_EQ_U64(sample.mem_psi.some.total_us, 2963107);
	CHECK_NEAR(sample.mem_psi.full.avg10, 15.51, 1e-9);

	CHECK_EQ_U64(sample.swaps.n, 2);
	CHECK_STREQ(sample.swaps.dev[0].path, "/dev/zram0");
	CHECK_EQ_INT(sample.swaps.dev[0].priority, 100);
	CHECK_EQ_U64(sample.swaps.dev[0].used_bytes, UINT64_C(148480) * 1024);
	CHECK_STREQ(sample.swaps.dev[1].path, "/dev/vda");
	CHECK_EQ_INT(sample.swaps.dev[1].priority, 10);

	CHECK(sample.zswap.available);
	CHECK_EQ_U64(sample.zswap.pool_limit_hit, 0);
	CHECK_EQ_U64(sample.zswap.reject_reclaim_fail, 5);
	CHECK_EQ_U64(sample.zswap.reject_alloc_fail, 0);
	CHECK_EQ_U64(sample.zswap.reject_compress_poor, 0);
	CHECK_EQ_U64(sample.zswap.written_back_pages, 17202);
	CHECK_EQ_U64(sample.zswap.pool_total_size_bytes, 4845568);
	CHECK_EQ_U64(sample.zswap.stored_pages, 2496);

	/* zpool is there too (removed in later kernels) and ignored. */
	CHECK(sample.zswap_params.available);
	CHECK(sample.zswap_params.enabled);
	CHECK_STREQ(sample.zswap_params.compressor, "lzo");
	CHECK_EQ_INT(sample.zswap_params.max_pool_percent, 20);
	CHECK_EQ_INT(sample.zswap_params.accept_threshold_percent, 90);
	CHECK_EQ_INT(sample.zswap_params.shrinker_enabled, 0);
	CHECK_EQ_INT(sample.vm_swappiness, 60);
	CHECK_EQ_INT(sample.vm_zone_reclaim_mode, 0);

	/* A second read through the same fds gives the same sample. */
	CHECK_EQ_INT(host_reader_read(r, &sample2), 0);
	CHECK(memcmp(&sample, &sample2, sizeof(sample)) == 0);
	host_reader_free(r);
	host_reader_free(NULL);
}

static void test_fixture_tree_without_zswap(void)
{
	struct host_reader *r = NULL;
	char proc[PATH_MAX];

	snprintf(proc, sizeof(proc), "%s", path_in(fixtures, "host-nozswap/proc"));
	CHECK_EQ_INT(host_reader_open(proc, path_in(fixtures, "host-nozswap/sys"), &r, NULL), 0);
	if (!r)
		return;
	memset(&sample, 0xa5, sizeof(sample));
	CHECK_EQ_INT(host_reader_read(r, &sample), 0);
	CHECK_EQ_U64(sample.meminfo.mem_total, UINT64_C(24731708) * 1024); /* the 6.18 host's */
	CHECK_EQ_U64(sample.swaps.n, 0);
	CHECK_EQ_INT(sample.vm_zone_reclaim_mode, -1); /* no sys/vm/zone_reclaim_mode there */
	CHECK(!sample.zswap.available);
	CHECK_EQ_U64(sample.zswap.stored_pages, 0);
	CHECK(!sample.zswap_params.available);
	CHECK(!sample.zswap_params.enabled);
	CHECK_EQ_INT(sample.zswap_params.shrinker_enabled, -1);
	host_reader_free(r);

	/* No sysfs root at all is the same as no zswap. */
	CHECK_EQ_INT(host_reader_open(proc, "/nonexistent/sys", &r, NULL), 0);
	if (!r)
		return;
	CHECK_EQ_INT(host_reader_read(r, &sample), 0);
	CHECK(!sample.zswap.available);
	CHECK(!sample.zswap_params.available);
	host_reader_free(r);
}

/* ---- host_reader on temporary trees ------------------------------------------------------- */

static void test_open_errors(void)
{
	struct host_reader *r = (struct host_reader *)&pattern; /* must stay untouched */

	const char *failed = "untouched";

	CHECK_EQ_INT(host_reader_open("/nonexistent/proc", "/nonexistent/sys", &r, &failed), -ENOENT);
	CHECK(r == (struct host_reader *)&pattern);
	CHECK(failed == NULL); /* the root itself */

	/* Each required file missing: -ENOENT naming it (for pressure/memory: a kernel without PSI,
	 * where kernel/sched/psi.c makes no /proc/pressure at all). */
	static const char *const required[] = {
		"proc/meminfo", "proc/vmstat", "proc/pressure/memory", "proc/swaps",
	};
	for (size_t i = 0; i < ARRAY_SIZE(required); i++) {
		make_tree();
		CHECK_EQ_INT(remove(path_in(tmp_root, required[i])), 0);
		CHECK_EQ_INT(host_reader_open(path_in(tmp_root, "proc"), path_in(tmp_root, "sys"), &r,
					      &failed), -ENOENT);
		CHECK(r == (struct host_reader *)&pattern);
		CHECK_STREQ(failed, required[i] + strlen("proc/"));
	}
	make_tree();
	CHECK_EQ_INT(remove(path_in(tmp_root, "proc/pressure/memory")), 0);
	CHECK_EQ_INT(remove(path_in(tmp_root, "proc/pressure")), 0);
	CHECK_EQ_INT(host_reader_open(path_in(tmp_root, "proc"), path_in(tmp_root, "sys"), &r, &failed),
		     -ENOENT);
	CHECK_STREQ(failed, "pressure/memory");
	/* All there: nothing failed. */
	make_tree();
	CHECK_EQ_INT(host_reader_open(path_in(tmp_root, "proc"), path_in(tmp_root, "sys"), &r, &failed), 0);
	CHECK(failed == NULL);
	host_reader_free(r == (struct host_reader *)&pattern ? NULL : r);
	r = (struct host_reader *)&pattern;

	/* proc_root that is a file, not a directory. */
	make_tree();
	CHECK_EQ_INT(host_reader_open(path_in(tmp_root, "proc/meminfo"), tmp_root, &r, NULL), -ENOTDIR);
}

/* A required file that turns bad fails the whole read and leaves *ret alone. */
static void check_read_fails(const char *rel, const char *content, int err)
{
	struct host_reader *r = NULL;

	make_tree();
	CHECK_EQ_INT(open_tree(&r), 0);
	if (!r)
		return;
	CHECK_EQ_INT(host_reader_read(r, &sample), 0);
	put_str(rel, content);
	memset(&sample, 0xa5, sizeof(sample));
	memset(&pattern, 0xa5, sizeof(pattern));
	CHECK_EQ_INT(host_reader_read(r, &sample), err);
	CHECK(memcmp(&sample, &pattern, sizeof(sample)) == 0);
	host_reader_free(r);
}

static void test_read_errors(void)
{
	static char big[100 * 1024];
	size_t n = 0;

	check_read_fails("proc/vmstat", "nr_free_pages x\n", -EBADMSG);
	check_read_fails("proc/meminfo", "MemTotal: 1 kB\n", -EBADMSG);
	check_read_fails("proc/pressure/memory", "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", -EBADMSG);
	check_read_fails("proc/swaps", "/dev/vda partition 1 0 -2\n", -EBADMSG);
	check_read_fails("proc/swaps", "", -ENODATA);

	/* Larger than the reader's buffer: refused rather than parsed truncated. */
	while (n < sizeof(big) - 32)
		n += (size_t)snprintf(big + n, sizeof(big) - n, "nr_counter_%zu %zu\n", n, n);
	check_read_fails("proc/vmstat", big, -EFBIG);
}

static void test_reread_changes(void)
{
	struct host_reader *r = NULL;

	make_tree();
	CHECK_EQ_INT(open_tree(&r), 0);
	if (!r)
		return;
	CHECK_EQ_INT(host_reader_read(r, &sample), 0);
	CHECK_EQ_U64(sample.vmstat.allocstall, 0);

	/* Rewritten in place: the kept fds see the new content from offset 0. */
	put_str("proc/vmstat", "allocstall_normal 4\nallocstall_movable 5\npgscan_direct 6\n");
	put_str("proc/meminfo", "MemTotal: 1000 kB\nMemFree: 10 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n");
	put_str("sys/kernel/debug/zswap/stored_pages", "7\n");
	put_str("sys/module/zswap/parameters/enabled", "N\n");
	CHECK_EQ_INT(host_reader_read(r, &sample), 0);
	CHECK_EQ_U64(sample.vmstat.allocstall, 9);
	CHECK_EQ_U64(sample.vmstat.pgscan_direct, 6);
	CHECK_EQ_U64(sample.meminfo.mem_total, 1024000);
	CHECK_EQ_U64(sample.zswap.stored_pages, 7);
	CHECK(!sample.zswap_params.enabled);

	/* The hot files stay open: a file replaced by another inode is not seen; the zswap files,
	 * opened by name every time, are. */
	put_str("new-vmstat", "allocstall_normal 100\n");
	CHECK_EQ_INT(rename(path_in(tmp_root, "new-vmstat"), path_in(tmp_root, "proc/vmstat")), 0);
	put_str("new-stored", "8\n");
	CHECK_EQ_INT(rename(path_in(tmp_root, "new-stored"),
			    path_in(tmp_root, "sys/kernel/debug/zswap/stored_pages")), 0);
	CHECK_EQ_INT(host_reader_read(r, &sample), 0);
	CHECK_EQ_U64(sample.vmstat.allocstall, 9);
	CHECK_EQ_U64(sample.zswap.stored_pages, 8);
	host_reader_free(r);
}

/* zswap is optional: trouble there marks that part unavailable; the read still succeeds. */
static void check_zswap(const char *rel, const char *content, bool stats_ok, bool params_ok)
{
	struct host_reader *r = NULL;

	make_tree();
	if (content)
		put_str(rel, content);
	else
		CHECK_EQ_INT(remove(path_in(tmp_root, rel)), 0);
	CHECK_EQ_INT(open_tree(&r), 0);
	if (!r)
		return;
	CHECK_EQ_INT(host_reader_read(r, &sample), 0);
	CHECK_EQ_INT(sample.zswap.available, stats_ok);
	CHECK_EQ_INT(sample.zswap_params.available, params_ok);
	if (!stats_ok)
		CHECK_EQ_U64(sample.zswap.pool_total_size_bytes, 0);
	if (!params_ok)
		CHECK_EQ_INT(sample.zswap_params.shrinker_enabled, -1);
	CHECK_EQ_U64(sample.meminfo.mem_total, UINT64_C(1507940) * 1024);
	host_reader_free(r);
}

static void test_zswap_optional(void)
{
	const char *dbg = "sys/kernel/debug/zswap/", *par = "sys/module/zswap/parameters/";
	char p[PATH_MAX];

#define AT(dir, name) (snprintf(p, sizeof(p), "%s%s", dir, name), p)
	/* A counter that an older kernel lacks reads as 0. */
	check_zswap(AT(dbg, "written_back_pages"), NULL, true, true);
	CHECK_EQ_U64(sample.zswap.written_back_pages, 0);
	CHECK_EQ_U64(sample.zswap.stored_pages, 2496);
	check_zswap(AT(dbg, "pool_total_size"), "abc\n", false, true);
	check_zswap(AT(dbg, "stored_pages"), "", false, true);
	check_zswap(AT(dbg, "pool_limit_hit"), "18446744073709551616\n", false, true);

	/* shrinker_enabled is 6.8+: -1 without it. */
	check_zswap(AT(par, "shrinker_enabled"), NULL, true, true);
	CHECK_EQ_INT(sample.zswap_params.shrinker_enabled, -1);
	check_zswap(AT(par, "shrinker_enabled"), "Y\n", true, true);
	CHECK_EQ_INT(sample.zswap_params.shrinker_enabled, 1);
	check_zswap(AT(par, "accept_threshold_percent"), NULL, true, true);
	CHECK_EQ_INT(sample.zswap_params.accept_threshold_percent, 0);
	check_zswap(AT(par, "max_pool_percent"), "150\n", true, true);
	CHECK_EQ_INT(sample.zswap_params.max_pool_percent, 150);
	check_zswap(AT(par, "compressor"), "zstd\n", true, true);
	CHECK_STREQ(sample.zswap_params.compressor, "zstd");
	check_zswap(AT(par, "compressor"), "0123456789012345678901234567890\n", true, true);
	CHECK_EQ_U64(strlen(sample.zswap_params.compressor), 31);

	check_zswap(AT(par, "compressor"), "01234567890123456789012345678901\n", true, false);
	check_zswap(AT(par, "compressor"), "\n", true, false);
	check_zswap(AT(par, "enabled"), "maybe\n", true, false);
	check_zswap(AT(par, "enabled"), NULL, true, false);
	check_zswap(AT(par, "max_pool_percent"), "4294967296\n", true, false);
	check_zswap(AT(par, "max_pool_percent"), NULL, true, false);
#undef AT
}

int main(void)
{
	const char *dir = getenv("RECLAIMD_FIXTURES");

	snprintf(fixtures, sizeof(fixtures), "%s", dir ? dir : "tests/fixtures");

	test_pread_whole();
	test_pread_whole_seq_file();
	test_fixture_tree();
	test_fixture_tree_without_zswap();
	test_open_errors();
	test_read_errors();
	test_reread_changes();
	test_zswap_optional();

	if (tmp_root[0])
		nftw(tmp_root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return test_report("test_host_reader");
}
