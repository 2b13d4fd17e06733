/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tickmeter.c - runs reclaimd (or any sd_notify-speaking command) and reports its CPU time per
 * tick and its peak RSS, for bench/overhead.sh.
 *
 * reclaimd sends "STATUS=..." through $NOTIFY_SOCKET at the end of every tick (daemon.c,
 * notify_status). tickmeter listens on a datagram socket of its own, passed as NOTIFY_SOCKET, and
 * on each STATUS reads the child's CPU clock (clock_getcpuclockid: user + system of all its
 * threads, in nanoseconds). So:
 *   cold tick  = CPU time at the first STATUS (exec, dynamic linking, configuration, the first
 *                discovery of a fresh tree, the first reads, the first decisions)
 *   warm ticks = CPU time between the first and the (1+K)th STATUS, divided by K (the mean;
 *                warm_median_us is the median of the K ticks)
 * After K warm ticks (--ticks K) the child gets SIGTERM; without --ticks tickmeter waits for it
 * to exit (--once). The exit's rusage (wait4) gives user and system time of the whole run and
 * the peak RSS.
 *
 * --cgroup DIR moves the child into that cgroup before exec; before stopping the child,
 * tickmeter then also reports DIR's memory.current and the "kernel" line of its memory.stat
 * (the open files' kernel buffers are charged there on a real kernel).
 *
 * Output: key=value lines on stdout (tick_cpu_us lists every tick's CPU time).
 *
 * Usage: tickmeter [--ticks K] [--timeout SEC] [--cgroup DIR] -- COMMAND [ARGS...]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_TICKS 10000

static uint64_t ts_us(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000 + (uint64_t)ts->tv_nsec / 1000;
}

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts_us(&ts);
}

static uint64_t tv_us(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000 + (uint64_t)tv->tv_usec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* "<key> <value>" from a file of such lines (memory.stat), or the whole file's number. */
static long long read_number(const char *path, const char *key)
{
	char buf[16384], *p;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (!key)
		return strtoll(buf, NULL, 10);
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		size_t k = strlen(key);

		if (strncmp(p, key, k) == 0 && p[k] == ' ')
			return strtoll(p + k + 1, NULL, 10);
	}
	return -1;
}

/* VmHWM / VmRSS of a live process, in KiB. */
static long long proc_status_kib(pid_t pid, const char *key)
{
	char path[64], line[256];
	long long v = -1;
	size_t k = strlen(key);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, k) == 0 && line[k] == ':')
			v = strtoll(line + k + 1, NULL, 10);
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "ticks", required_argument, NULL, 'k' },
		{ "timeout", required_argument, NULL, 't' },
		{ "cgroup", required_argument, NULL, 'g' },
		{ 0 },
	};
	unsigned long warm = 0, timeout_s = 600;
	const char *cgroup = NULL;
	char sockdir[] = "/tmp/tickmeter.XXXXXX", sockpath[64], status[512] = "";
	static uint64_t tick_cpu[MAX_TICKS + 1];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	unsigned long ticks = 0;
	uint64_t start_us, deadline_us, last = 0;
	long long cg_current = -1, cg_kernel = -1, rss_kib = -1;
	struct rusage ru;
	clockid_t clk;
	bool killed = false, timed_out = false;
	int c, sock, wstatus = 0;
	pid_t pid;

	while ((c = getopt_long(argc, argv, "+", options, NULL)) >= 0) {
		switch (c) {
		case 'k':
			warm = strtoul(optarg, NULL, 10);
			if (warm >= MAX_TICKS)
				return 2;
			break;
		case 't':
			timeout_s = strtoul(optarg, NULL, 10);
			break;
		case 'g':
			cgroup = optarg;
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "Usage: tickmeter [--ticks K] [--timeout SEC] [--cgroup DIR] -- COMMAND [ARGS...]\n");
		return 2;
	}

	if (!mkdtemp(sockdir)) {
		perror("tickmeter: mkdtemp");
		return 1;
	}
	snprintf(sockpath, sizeof(sockpath), "%s/notify", sockdir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sockpath);
	sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0 || bind(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("tickmeter: notify socket");
		return 1;
	}

	start_us = mono_us();
	pid = fork();
	if (pid < 0) {
		perror("tickmeter: fork");
		return 1;
	}
	if (pid == 0) {
		if (cgroup) {
			char procs[4096];
			int fd;

			snprintf(procs, sizeof(procs), "%s/cgroup.procs", cgroup);
			fd = open(procs, O_WRONLY | O_CLOEXEC);
			if (fd < 0 || write(fd, "0", 1) != 1) {
				perror("tickmeter: joining the cgroup");
				_exit(127);
			}
			close(fd);
		}
		setenv("NOTIFY_SOCKET", sockpath, 1);
		execvp(argv[optind], argv + optind);
		perror("tickmeter: exec");
		_exit(127);
	}
	if (clock_getcpuclockid(pid, &clk) != 0) {
		perror("tickmeter: clock_getcpuclockid");
		kill(pid, SIGKILL);
		return 1;
	}

	deadline_us = start_us + (uint64_t)timeout_s * 1000000;
	for (;;) {
		struct pollfd pfd = { .fd = sock, .events = POLLIN };
		char msg[4096];
		ssize_t n;
		pid_t w;

		w = waitpid(pid, &wstatus, WNOHANG);
		if (w == pid)
			break;
		if (mono_us() > deadline_us && !killed) {
			timed_out = killed = true;
			kill(pid, SIGTERM);
		}
		if (poll(&pfd, 1, 20) <= 0)
			continue;
		n = recv(sock, msg, sizeof(msg) - 1, 0);
		if (n <= 0)
			continue;
		msg[n] = '\0';
		if (strncmp(msg, "STATUS=", 7) != 0 && !strstr(msg, "\nSTATUS="))
			continue;
		{
			struct timespec ts;

			if (clock_gettime(clk, &ts) == 0)
				last = ts_us(&ts);
		}
		if (ticks <= MAX_TICKS)
			tick_cpu[ticks] = last;
		ticks++;
		snprintf(status, sizeof(status), "%s", strstr(msg, "STATUS=") + 7);
		status[strcspn(status, "\n")] = '\0';
		if (warm > 0 && ticks == warm + 1 && !killed) {
			rss_kib = proc_status_kib(pid, "VmRSS");
			if (cgroup) {
				char path[4096];

				snprintf(path, sizeof(path), "%s/memory.current", cgroup);
				cg_current = read_number(path, NULL);
				snprintf(path, sizeof(path), "%s/memory.stat", cgroup);
				cg_kernel = read_number(path, "kernel");
			}
			killed = true;
			kill(pid, SIGTERM);
		}
	}
	if (getrusage(RUSAGE_CHILDREN, &ru) != 0)
		memset(&ru, 0, sizeof(ru));
	unlink(sockpath);
	rmdir(sockdir);

	printf("wall_us=%" PRIu64 "\n", mono_us() - start_us);
	printf("exit=%d\n", WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus));
	printf("timed_out=%d\n", timed_out);
	printf("ticks=%lu\n", ticks);
	printf("status=%s\n", status);
	printf("user_us=%" PRIu64 "\nsys_us=%" PRIu64 "\n", tv_us(&ru.ru_utime), tv_us(&ru.ru_stime));
	printf("maxrss_kib=%ld\n", ru.ru_maxrss);
	printf("rss_kib=%lld\n", rss_kib);
	if (ticks > 0)
		printf("cold_cpu_us=%" PRIu64 "\n", tick_cpu[0]);
	if (ticks > 1) {
		unsigned long k = (ticks < MAX_TICKS + 1 ? ticks : MAX_TICKS + 1) - 1;

		static uint64_t d[MAX_TICKS];

		for (unsigned long i = 1; i <= k; i++)
			d[i - 1] = tick_cpu[i] - tick_cpu[i - 1];
		qsort(d, k, sizeof(*d), cmp_u64);
		printf("warm_ticks=%lu\nwarm_cpu_us=%" PRIu64 "\n", k, (tick_cpu[k] - tick_cpu[0]) / k);
		printf("warm_median_us=%" PRIu64 "\n", k % 2 ? d[k / 2] : (d[k / 2 - 1] + d[k / 2]) / 2);
		printf("tick_cpu_us=");
		for (unsigned long i = 0; i <= k; i++)
			printf("%s%" PRIu64, i ? "," : "", i ? tick_cpu[i] - tick_cpu[i - 1] : tick_cpu[0]);
		printf("\n");
	}
	if (cgroup)
		printf("cgroup_current_bytes=%lld\ncgroup_kernel_bytes=%lld\n", cg_current, cg_kernel);
	return timed_out ? 124 : 0;
}
