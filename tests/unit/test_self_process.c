/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_self_process.c - the process_* metrics' sources: /proc/<pid>/stat (a comm with spaces and
 * parentheses, truncated and malformed lines), /proc/stat's btime line, self_process_read()
 * on a fake proc root (btime read once, kept) and on this test's own /proc/self.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include "reclaimd/parse.h"
#include "reclaimd/self_process.h"
#include "test.h"

/* A 6.12 line for a process whose comm is "a) (b c" (comm may hold anything but NUL). */
static const char stat_line[] =
	"4242 (a) (b c) S 1 4242 4242 0 -1 4194560 1234 0 5 0 150 75 0 0 20 0 3 0 98765 "
	"123456789 2048 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0\n";

static void test_pid_stat(void)
{
	struct proc_pid_stat st, keep = { .utime_ticks = 7 };
	char buf[sizeof(stat_line)];

	CHECK_EQ_INT(proc_pid_stat_parse(stat_line, strlen(stat_line), &st), 0);
	CHECK_EQ_U64(st.utime_ticks, 150);
	CHECK_EQ_U64(st.stime_ticks, 75);
	CHECK_EQ_U64(st.starttime_ticks, 98765);
	CHECK_EQ_U64(st.vsize_bytes, 123456789);
	CHECK_EQ_U64(st.rss_pages, 2048);

	/* Cut before field 24 (rss): refused, *ret untouched. */
	st = keep;
	CHECK_EQ_INT(proc_pid_stat_parse(stat_line, (size_t)(strstr(stat_line, " 2048") - stat_line),
					 &st), -EBADMSG);
	CHECK_EQ_U64(st.utime_ticks, 7);
	CHECK_EQ_INT(proc_pid_stat_parse("", 0, &st), -ENODATA);
	CHECK_EQ_INT(proc_pid_stat_parse("4242 no-paren S 1", 17, &st), -EBADMSG);
	/* A letter where utime goes. */
	memcpy(buf, stat_line, sizeof(stat_line));
	*strstr(buf, " 150 ") = 'x';
	CHECK_EQ_INT(proc_pid_stat_parse(buf, strlen(buf), &st), -EBADMSG);
	/* A number too large for 64 bits. */
	{
		static const char big[] = "1 (x) S 1 1 1 0 -1 0 0 0 0 0 99999999999999999999999 0 0 0 "
					  "20 0 1 0 1 1 1\n";

		CHECK_EQ_INT(proc_pid_stat_parse(big, strlen(big), &st), -EBADMSG);
	}
}

static void test_btime(void)
{
	static const char s[] = "cpu  1 2 3 4\ncpu0 1 2 3 4\nintr 5\nctxt 6\nbtime 1765000000\n"
				"processes 7\n";
	uint64_t b = 0;

	CHECK_EQ_INT(proc_stat_btime_parse(s, strlen(s), &b), 0);
	CHECK_EQ_U64(b, 1765000000);
	CHECK_EQ_INT(proc_stat_btime_parse("cpu 1 2\n", 8, &b), -EBADMSG);
	CHECK_EQ_INT(proc_stat_btime_parse("btime x\n", 8, &b), -EBADMSG);
	CHECK_EQ_INT(proc_stat_btime_parse("", 0, &b), -ENODATA);
	/* The last line without its newline. */
	CHECK_EQ_INT(proc_stat_btime_parse("btime 12", 8, &b), 0);
	CHECK_EQ_U64(b, 12);
}

static void test_read_self(void)
{
	struct self_process sp;
	double now = (double)time(NULL);
	volatile uint64_t spin = 0;

	/* Some CPU time for cpu_seconds to show. */
	for (uint64_t i = 0; i < 50000000; i++)
		spin = spin + i;
	CHECK(spin > 0);
	if (access("/proc/self/stat", R_OK) < 0) {
		SKIP("no /proc/self/stat here");
		return;
	}
	CHECK_EQ_INT(self_process_read("/proc", &sp), 0);
	CHECK(sp.cpu_seconds > 0);
	CHECK(sp.start_time_seconds > now - 3600 && sp.start_time_seconds <= now + 1);
	CHECK(sp.resident_bytes > 0);
	CHECK(sp.virtual_bytes >= sp.resident_bytes);
	CHECK(sp.open_fds >= 3);
	CHECK(sp.max_fds >= sp.open_fds);
	CHECK_EQ_INT(self_process_read("/nonexistent", &sp), -ENOENT);
}

/* btime is read at the first call and kept for that proc_root: a later btime (a clock step),
 * or /proc/stat gone, changes nothing; the first call ran before any other here, so the fake
 * root is the one kept. */
static void test_btime_once(void)
{
	char root[] = "/tmp/test_self_process.XXXXXX", path[PATH_MAX];
	long tck = sysconf(_SC_CLK_TCK);
	struct self_process sp;
	double start;
	FILE *f;

	CHECK(mkdtemp(root) != NULL);
	snprintf(path, sizeof(path), "%s/self", root);
	CHECK_EQ_INT(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/self/fd", root);
	CHECK_EQ_INT(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/self/stat", root);
	CHECK((f = fopen(path, "w")) != NULL);
	fputs(stat_line, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/stat", root);
	CHECK((f = fopen(path, "w")) != NULL);
	fputs("cpu  1 2 3 4\nbtime 1765000000\n", f);
	fclose(f);

	start = 1765000000.0 + 98765.0 / (double)tck;
	CHECK_EQ_INT(self_process_read(root, &sp), 0);
	CHECK(sp.start_time_seconds > start - 0.001 && sp.start_time_seconds < start + 0.001);
	CHECK((f = fopen(path, "w")) != NULL);
	fputs("cpu  1 2 3 4\nbtime 1765003600\n", f);
	fclose(f);
	CHECK_EQ_INT(self_process_read(root, &sp), 0);
	CHECK(sp.start_time_seconds > start - 0.001 && sp.start_time_seconds < start + 0.001);
	CHECK_EQ_INT(unlink(path), 0);
	CHECK_EQ_INT(self_process_read(root, &sp), 0);
	CHECK(sp.start_time_seconds > start - 0.001 && sp.start_time_seconds < start + 0.001);

	snprintf(path, sizeof(path), "%s/self/stat", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/self/fd", root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/self", root);
	rmdir(path);
	rmdir(root);
}

int main(void)
{
	test_btime_once();
	test_pid_stat();
	test_btime();
	test_read_self();
	return test_report("test_self_process");
}
