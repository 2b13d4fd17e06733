// SPDX-License-Identifier: MIT
/*
 * allocburst - a latency-sensitive allocator, for direct-reclaim tests.
 *
 * allocburst repeats a burst: mmap --burst bytes of anonymous memory, write
 * one word into every page (so every page is faulted in and allocated), hold
 * the memory for --hold milliseconds, munmap it, then sleep --gap
 * milliseconds. When free memory is short the page allocations of a burst go
 * through direct reclaim (the allocating task reclaims itself, see
 * allocstall_* and pgscan_direct in /proc/vmstat), which shows up as latency.
 *
 * Latency unit: one step. A burst is faulted in --step bytes at a time
 * (default 2 MiB, 512 pages of 4 KiB) and each step is timed with
 * clock_gettime(CLOCK_MONOTONIC); p50/p99/p999/max are over all steps. A
 * step is large enough that the clock costs nothing next to it and small
 * enough that one direct-reclaim pass (a few ms) stands out in the p99. The
 * whole burst (mmap + all steps, not the hold) is timed too: burst_p99_ms.
 * ops are bursts; bursts_per_s falls when bursts stall.
 *
 * allocburst does not read /proc/vmstat: the scenario does, around the run.
 *
 * Transparent huge pages are disabled for the bursts (MADV_NOHUGEPAGE) unless
 * --thp is given: every 4 KiB page is one page allocation. With --node N the
 * process allocates only from NUMA node N (set_mempolicy MPOL_BIND).
 *
 * Output (stdout, line buffered), one line per --report-interval:
 *   allocburst t=10.0 bursts=... bursts_per_s=... p50_us=... p99_us=...
 *              max_us=... burst_max_ms=...
 * and when the run ends (--duration or --bursts reached, SIGINT or SIGTERM):
 *   allocburst summary bursts=... bursts_per_s=... p50_us=... p99_us=...
 *              p999_us=... max_us=... steps=... step_bytes=...
 *              burst_p50_ms=... burst_p99_ms=... burst_max_ms=...
 *              duration_s=... minflt=... majflt=...
 * (each on one line; interval lines count that interval only). The
 * histogram is memhog's (workload.h): 8 logarithmic buckets per power of
 * two, within about 6 % of the true value, fixed memory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

/* include/uapi/linux/mempolicy.h */
#define ALLOCBURST_MPOL_BIND 2

struct options {
	uint64_t burst_bytes;
	uint64_t step_bytes;
	double hold_ms;
	double gap_ms;
	double duration;	/* seconds, 0 = until a signal or --bursts */
	uint64_t max_bursts;	/* 0 = unlimited */
	double report_interval;	/* seconds */
	const char *ready_file;
	int node;		/* -1 = no memory policy */
	bool thp;
};

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("allocburst: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* ---------------------------------------------------------------------------
 * Argument parsing.
 */

static void usage(FILE *f)
{
	fputs("usage: allocburst [options]\n"
	      "  --burst SIZE            memory allocated and touched per burst (default 64M)\n"
	      "  --step SIZE             latency unit: bytes faulted in per timed step (default 2M)\n"
	      "  --hold MS               milliseconds the burst's memory is held (default 100)\n"
	      "  --gap MS                milliseconds between a burst's munmap and the next (default 400)\n"
	      "  --duration SEC          run time, 0 = until SIGINT/SIGTERM or --bursts (default 0)\n"
	      "  --bursts N              stop after N bursts, 0 = no limit (default 0)\n"
	      "  --report-interval SEC   seconds between report lines (default 5)\n"
	      "  --ready-file PATH       created when the first burst starts\n"
	      "  --node N                allocate only from NUMA node N (set_mempolicy MPOL_BIND)\n"
	      "  --thp                   allow transparent huge pages in the bursts\n"
	      "SIZE takes a K, M, G or T suffix (powers of 1024).\n", f);
}

static void parse_args(int argc, char **argv, struct options *o)
{
	enum { OPT_BURST = 1, OPT_STEP, OPT_HOLD, OPT_GAP, OPT_DURATION, OPT_BURSTS,
	       OPT_REPORT, OPT_READY, OPT_NODE, OPT_THP, OPT_HELP };
	static const struct option longopts[] = {
		{ "burst", required_argument, NULL, OPT_BURST },
		{ "step", required_argument, NULL, OPT_STEP },
		{ "hold", required_argument, NULL, OPT_HOLD },
		{ "gap", required_argument, NULL, OPT_GAP },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "bursts", required_argument, NULL, OPT_BURSTS },
		{ "report-interval", required_argument, NULL, OPT_REPORT },
		{ "ready-file", required_argument, NULL, OPT_READY },
		{ "node", required_argument, NULL, OPT_NODE },
		{ "thp", no_argument, NULL, OPT_THP },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};

	*o = (struct options){
		.burst_bytes = 64ULL << 20,
		.step_bytes = 2ULL << 20,
		.hold_ms = 100,
		.gap_ms = 400,
		.report_interval = 5,
		.node = -1,
	};

	int c;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		bool ok = true;
		uint64_t n;

		switch (c) {
		case OPT_BURST: ok = parse_size(optarg, &o->burst_bytes); break;
		case OPT_STEP: ok = parse_size(optarg, &o->step_bytes); break;
		case OPT_HOLD: ok = parse_double(optarg, 0.0, 1e7, &o->hold_ms); break;
		case OPT_GAP: ok = parse_double(optarg, 0.0, 1e7, &o->gap_ms); break;
		case OPT_DURATION: ok = parse_double(optarg, 0.0, 1e9, &o->duration); break;
		case OPT_BURSTS: ok = parse_u64(optarg, &o->max_bursts); break;
		case OPT_REPORT: ok = parse_double(optarg, 0.01, 1e9, &o->report_interval); break;
		case OPT_READY: o->ready_file = optarg; break;
		case OPT_NODE:
			ok = parse_u64(optarg, &n) && n < 64;
			o->node = (int)n;
			break;
		case OPT_THP: o->thp = true; break;
		case OPT_HELP: usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
		if (!ok) /* the OPT_ values are 1 + the index in longopts */
			die("bad value '%s' for --%s", optarg, longopts[c - 1].name);
	}
	if (optind != argc)
		die("unexpected argument '%s'", argv[optind]);
	if (o->burst_bytes == 0 || o->step_bytes == 0)
		die("--burst and --step must be more than 0");
	if (o->burst_bytes > SIZE_MAX / 2)
		die("--burst too large");
}

/* ---------------------------------------------------------------------------
 * Bursts.
 */

static void bind_to_node(int node)
{
	unsigned long mask = 1UL << node;

	/* maxnode: the kernel reads maxnode - 1 bits (mm/mempolicy.c get_nodes). */
	if (syscall(SYS_set_mempolicy, ALLOCBURST_MPOL_BIND, &mask,
		    (unsigned long)(sizeof(mask) * 8)) != 0)
		die("set_mempolicy(MPOL_BIND, node %d): %s", node, strerror(errno));
}

static void write_ready_file(const char *path)
{
	char tmp[4096];
	int n = snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());

	if (n < 0 || (size_t)n >= sizeof(tmp))
		die("ready file path too long");
	FILE *f = fopen(tmp, "w");
	if (f == NULL)
		die("create %s: %s", tmp, strerror(errno));
	fprintf(f, "%ld\n", (long)getpid());
	if (fclose(f) != 0 || rename(tmp, path) != 0)
		die("write %s: %s", path, strerror(errno));
}

/*
 * One burst: map, fault in step by step (each step timed into steps), hold,
 * unmap. Returns the time from mmap to the last page faulted in.
 */
static uint64_t one_burst(const struct options *o, size_t page_size, uint64_t seq,
			  struct histogram *steps)
{
	size_t len = (size_t)o->burst_bytes;
	uint64_t t_start = now_ns();
	unsigned char *base = mmap(NULL, len, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (base == MAP_FAILED)
		die("mmap %zu bytes: %s", len, strerror(errno));
	if (!o->thp && madvise(base, len, MADV_NOHUGEPAGE) != 0)
		fprintf(stderr, "allocburst: madvise(MADV_NOHUGEPAGE): %s\n", strerror(errno));

	for (size_t off = 0; off < len;) {
		size_t end = off + (size_t)o->step_bytes;

		if (end > len)
			end = len;
		uint64_t t0 = now_ns();
		for (size_t p = off; p < end; p += page_size)
			*(volatile uint64_t *)(void *)(base + p) = seq ^ p ^ 1;
		hist_add(steps, now_ns() - t0);
		off = end;
	}
	uint64_t t_faulted = now_ns();

	if (o->hold_ms > 0)
		sleep_ns((uint64_t)(o->hold_ms * (double)NSEC_PER_MSEC));
	if (munmap(base, len) != 0)
		die("munmap: %s", strerror(errno));
	return t_faulted - t_start;
}

static void faults(long *ret_min, long *ret_maj)
{
	struct rusage ru;

	*ret_min = *ret_maj = 0;
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		*ret_min = ru.ru_minflt;
		*ret_maj = ru.ru_majflt;
	}
}

int main(int argc, char **argv)
{
	struct options o;
	static struct histogram interval, total, bursts;
	uint64_t interval_bursts = 0, interval_burst_max = 0;

	parse_args(argc, argv, &o);
	setvbuf(stdout, NULL, _IOLBF, 0);

	struct sigaction sa = { .sa_handler = on_stop_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	size_t page_size = (size_t)sysconf(_SC_PAGESIZE);
	if (o.node >= 0)
		bind_to_node(o.node);

	printf("allocburst start pid=%ld burst_bytes=%" PRIu64 " step_bytes=%" PRIu64
	       " hold_ms=%.0f gap_ms=%.0f duration_s=%.1f max_bursts=%" PRIu64 " node=%d\n",
	       (long)getpid(), o.burst_bytes, o.step_bytes, o.hold_ms, o.gap_ms,
	       o.duration, o.max_bursts, o.node);
	if (o.ready_file != NULL)
		write_ready_file(o.ready_file);

	long minflt0, majflt0;
	faults(&minflt0, &majflt0);
	uint64_t start = now_ns();
	uint64_t interval_ns = (uint64_t)(o.report_interval * (double)NSEC_PER_SEC);
	uint64_t end = o.duration > 0
		? start + (uint64_t)(o.duration * (double)NSEC_PER_SEC) : UINT64_MAX;
	uint64_t last_report = start, next_report = start + interval_ns;

	for (uint64_t seq = 0; !stop_requested; seq++) {
		uint64_t now = now_ns();

		if (now >= next_report) {
			double secs = (double)(now - last_report) / (double)NSEC_PER_SEC;

			printf("allocburst t=%.1f bursts=%" PRIu64 " bursts_per_s=%.2f p50_us=%.1f "
			       "p99_us=%.1f max_us=%.1f burst_max_ms=%.1f\n",
			       (double)(now - start) / (double)NSEC_PER_SEC, interval_bursts,
			       secs > 0 ? (double)interval_bursts / secs : 0.0,
			       ns_to_us(hist_quantile(&interval, 0.50)),
			       ns_to_us(hist_quantile(&interval, 0.99)),
			       ns_to_us(interval.max), ns_to_ms(interval_burst_max));
			hist_merge(&total, &interval);
			memset(&interval, 0, sizeof(interval));
			interval_bursts = 0;
			interval_burst_max = 0;
			last_report = now;
			next_report += interval_ns;
			if (next_report <= now)
				next_report = now + interval_ns;
		}
		if (now >= end || (o.max_bursts > 0 && seq >= o.max_bursts))
			break;

		uint64_t b = one_burst(&o, page_size, seq, &interval);
		hist_add(&bursts, b);
		interval_bursts++;
		if (b > interval_burst_max)
			interval_burst_max = b;
		if (o.gap_ms > 0 && !stop_requested)
			sleep_ns((uint64_t)(o.gap_ms * (double)NSEC_PER_MSEC));
	}

	uint64_t stop = now_ns();
	double secs = (double)(stop - start) / (double)NSEC_PER_SEC;
	long minflt1, majflt1;

	hist_merge(&total, &interval);
	faults(&minflt1, &majflt1);
	printf("allocburst summary bursts=%" PRIu64 " bursts_per_s=%.2f p50_us=%.1f p99_us=%.1f "
	       "p999_us=%.1f max_us=%.1f steps=%" PRIu64 " step_bytes=%" PRIu64
	       " burst_p50_ms=%.1f burst_p99_ms=%.1f burst_max_ms=%.1f duration_s=%.1f"
	       " minflt=%ld majflt=%ld\n",
	       bursts.count, secs > 0 ? (double)bursts.count / secs : 0.0,
	       ns_to_us(hist_quantile(&total, 0.50)), ns_to_us(hist_quantile(&total, 0.99)),
	       ns_to_us(hist_quantile(&total, 0.999)), ns_to_us(total.max), total.count,
	       o.step_bytes, ns_to_ms(hist_quantile(&bursts, 0.50)),
	       ns_to_ms(hist_quantile(&bursts, 0.99)), ns_to_ms(bursts.max), secs,
	       minflt1 - minflt0, majflt1 - majflt0);
	return 0;
}
