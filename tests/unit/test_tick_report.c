/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_tick_report.c - the observers of agent/obs/report.c run from a struct tick_report alone
 * (loop/tick_report.h), with no loop behind it: sd_notify STATUS= (read back from a NOTIFY_SOCKET
 * of the test's) and the stop summary line (stderr) show the numbers the report holds, and a
 * report of a start that failed part-way gives no summary.
 */
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "obs/report.h"
#include "reclaimd/log.h"
#include "test.h"

static struct snapshot snap; /* a 132 KiB host sample: not on the stack */

/* A report as the loop would fill it after a tick: 3 managed cgroups, node 0 with 2 workers. */
static void make_report(struct tick_report *r)
{
	*r = (struct tick_report){ .ctx = { .snap = &snap }, .n_managed = 3, .complete = true };
	snap.host.swaps.n = 2;
	r->dispatcher.total_reclaimed_bytes = 5ULL << 20;
	r->dispatcher.jobs_submitted = 7;
	r->dispatcher.pending = 1;
	r->dispatcher.n_pools = 1;
	r->dispatcher.node[0] = (struct dispatcher_node_report){
		.node = 0, .n_workers = 2, .allowed = 1, .busy = 1, .queued = 0, .idle_cores = 0.5,
		.reclaimed_bytes = 5ULL << 20 };
	r->headroom.enabled = true;
	r->headroom.n_nodes = 1;
	r->headroom.checks = 4;
	r->headroom.node[0] = (struct headroom_node_report){
		.considered = true, .free_bytes = 100ULL << 20, .high_bytes = 10ULL << 20,
		.goal_bytes = 20ULL << 20 };
	r->zswap.pool_fill = 0.25;
	r->zswap.inversions = 2;
	r->zram.written_bytes = 3ULL << 20;
	r->swap_tiers.swapout_cap = SWAPPINESS_UNSET;
}

/* What report_notify_status(r) sends to NOTIFY_SOCKET, into buf ("" when nothing came). */
static void notify_of(const struct tick_report *r, char *buf, size_t size)
{
	char dir[] = "/tmp/test_tick_report.XXXXXX";
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;
	ssize_t n;

	buf[0] = '\0';
	if (!mkdtemp(dir))
		return;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/notify", dir);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		setenv("NOTIFY_SOCKET", sa.sun_path, 1);
		report_notify_status(r);
		unsetenv("NOTIFY_SOCKET");
		n = recv(fd, buf, size - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
	}
	if (fd >= 0)
		close(fd);
	unlink(sa.sun_path);
	rmdir(dir);
}

/* What report_summary(r) logs on stderr, into buf. */
static void summary_of(const struct tick_report *r, char *buf, size_t size)
{
	FILE *f = tmpfile();
	int saved = dup(STDERR_FILENO);
	size_t n;

	buf[0] = '\0';
	if (!f || saved < 0)
		return;
	fflush(stderr);
	dup2(fileno(f), STDERR_FILENO);
	report_summary(r);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

int main(void)
{
	static struct tick_report r;
	static char buf[4096];

	log_use_stderr(true);
	log_set_level(LOG_DEBUG);
	make_report(&r);

	notify_of(&r, buf, sizeof(buf));
	CHECK_STREQ(buf, "STATUS=3 managed cgroups, 5 MiB reclaimed, 1 jobs in flight, 2 swap "
			 "devices, zswap pool 25 % of its limit, 2 inversions, 3 MiB written back "
			 "from zram; node 0: 1/2 workers, 1 busy, 0 queued, 0.5 idle cores, 5 MiB, "
			 "free 100 MiB for a goal of 30 MiB");

	summary_of(&r, buf, sizeof(buf));
	CHECK(strstr(buf, "since start: 5 MiB reclaimed by 7 requests (0 refused by a full queue, "
			  "1 in flight at stop") != NULL);
	CHECK(strstr(buf, "headroom on: 4 checks") != NULL);
	CHECK(strstr(buf, "swap: 0 devices, swap-out swappiness cap none; zram: 3 MiB written "
			  "back") != NULL);

	/* A start that failed part-way ran nothing: no summary. */
	r.complete = false;
	summary_of(&r, buf, sizeof(buf));
	CHECK_STREQ(buf, "");
	return test_report("test_tick_report");
}
