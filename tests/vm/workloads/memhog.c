// SPDX-License-Identifier: MIT
/*
 * memhog - a memory workload with a known hot set, for reclaim tests.
 *
 * memhog allocates --anon bytes of anonymous memory and writes every page, so
 * that all of it is resident and charged to the caller's cgroup. With --file
 * it also creates a file of the given size and reads it back, which leaves
 * that much page cache behind (clean once fsync'ed, so it is cheap to drop).
 * It then creates --ready-file and starts its access loop.
 *
 * The first --hot-pct percent of the anonymous pages are the hot set; the rest
 * is never touched again and is what a proactive reclaimer should take away.
 * One access reads and then writes one random cache line of one random hot
 * page. Each access is timed with clock_gettime(CLOCK_MONOTONIC); an access
 * that hits a page which was swapped out includes the swap-in (a major
 * fault), so the latency percentiles show what reclaim of hot memory costs.
 * The file pages are not accessed after setup: they are cold page cache,
 * unless --file-hot-pct N is given: then the first N percent of the file's
 * pages are its hot set, and each access also pread()s one random cache line
 * of one random page of it (a service reading a small hot part of a large
 * file through the page cache; the other pages stay cold).
 *
 * Accesses are paced at --rate per second (0: back to back). When memhog
 * falls behind by more than a second (a long stall), the backlog is dropped
 * rather than replayed as a burst; the stall shows in the latency and in a
 * lower ops_per_s.
 *
 * Output (stdout, line buffered), one line per --report-interval:
 *   memhog t=12.0 ops=... ops_per_s=... p50_us=... p99_us=... p999_us=...
 *          max_us=... majflt=...
 * and when the run ends (--duration elapsed, SIGINT or SIGTERM):
 *   memhog summary ops_per_s=... p99_us=... p50_us=... p999_us=... max_us=...
 *          ops=... duration_s=... majflt=...
 * (each on one line). ops and majflt in interval lines are counts in that
 * interval; majflt is the major fault count from getrusage(2). Percentiles
 * come from a fixed logarithmic histogram (8 buckets per power of two, so a
 * reported value is within about 6 % of the true one); memory use does not
 * grow with the run length.
 *
 * Page contents: each 64-byte line holds 16 pseudo-random bytes followed by
 * a repeated 8-byte word, which lz4 or zstd compress to roughly 2-3x, like
 * typical heap data. No page is all zeroes (zram and zswap store those
 * specially, which would make swap look free).
 *
 * With --node N every page memhog allocates (anonymous, page cache, its own
 * stack and heap) comes from NUMA node N only: set_mempolicy(2) MPOL_BIND,
 * called through syscall(2) so that no libnuma is needed. When the node is
 * full the kernel reclaims on that node rather than falling back to another.
 *
 * Transparent huge pages are disabled for the anonymous area (MADV_NOHUGEPAGE)
 * unless --thp is given, so that the hot set is exactly the pages touched and
 * reclaim works page by page.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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

#define CACHE_LINE 64
#define LINE_WORDS (CACHE_LINE / sizeof(uint64_t))
/* Words of each cache line filled with random data; the rest repeat one word. */
#define RANDOM_WORDS 2
/* Buffer size for writing and reading the --file. */
#define FILE_CHUNK (1024 * 1024)

struct options {
	uint64_t anon_bytes;
	uint64_t file_bytes;
	const char *file_path;
	double hot_pct;
	double file_hot_pct;	/* --file-hot-pct, 0 = the file is never read again */
	uint64_t rate;		/* accesses per second, 0 = unlimited */
	double duration;	/* seconds, 0 = until SIGINT/SIGTERM */
	double report_interval;	/* seconds */
	const char *ready_file;
	uint64_t seed;
	bool thp;
	bool keep_file;
	int node;		/* --node, -1 = no memory policy */
	uint64_t tlb_flush_ms;	/* --tlb-flush-ms, 0 = never */
};

/* include/uapi/linux/mempolicy.h */
#define MEMHOG_MPOL_BIND 2

static volatile sig_atomic_t stop_requested;

/*
 * --tlb-flush-ms: the kernel learns that a page is in use from the accessed bit the MMU sets in its
 * page table entry when a TLB miss walks the tables. Clearing that bit (LRU aging, rmap checks) does
 * not flush the TLB on x86 (ptep_clear_flush_young() skips the flush: "clearing the accessed bit
 * without a TLB flush doesn't cause data corruption"), so a page keeps being accessed through its
 * cached translation without the bit coming back until the TLB entry is evicted. A hardware TLB
 * (about 1,500-2,000 4 KiB entries) is evicted within moments by any working set of tens of MiB;
 * QEMU's software TLB (TCG) grows to millions of entries and is flushed only when the guest asks.
 * Under emulation hot pages therefore look unused to reclaim. Changing the protection of
 * TLB_FLUSH_PAGES populated pages makes the kernel flush this process's whole TLB
 * (flush_tlb_mm_range() flushes everything above tlb_single_page_flush_ceiling, 33 pages), which
 * gives the emulated TLB the reach of a hardware one.
 */
#define TLB_FLUSH_PAGES 64

static unsigned char *tlb_flush_area;

static void tlb_flush_setup(size_t page_size)
{
	size_t len = TLB_FLUSH_PAGES * page_size;

	tlb_flush_area = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (tlb_flush_area == MAP_FAILED) {
		perror("memhog: mmap (tlb flush area)");
		exit(1);
	}
	for (size_t i = 0; i < len; i += page_size)
		tlb_flush_area[i] = 1;
}

static void tlb_flush(size_t page_size)
{
	static bool writable = true;
	size_t len = TLB_FLUSH_PAGES * page_size;

	writable = !writable;
	if (mprotect(tlb_flush_area, len, writable ? PROT_READ | PROT_WRITE : PROT_READ) != 0) {
		perror("memhog: mprotect (tlb flush)");
		exit(1);
	}
}

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
	fputs("memhog: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static long major_faults(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return ru.ru_majflt;
}

/* splitmix64: small, fast and good enough to pick pages and fill them. */
static uint64_t rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* ---------------------------------------------------------------------------
 * Argument parsing.
 */

static void usage(FILE *f)
{
	fputs("usage: memhog [--anon SIZE] [--file SIZE --file-path PATH] [options]\n"
	      "  --anon SIZE             anonymous memory to allocate and fill\n"
	      "  --file SIZE             also create a file of SIZE and read it into page cache\n"
	      "  --file-path PATH        where to create it (required with --file)\n"
	      "  --keep-file             do not delete the file at exit\n"
	      "  --file-hot-pct N        percent of the file's pages read (pread) by each access (default 0)\n"
	      "  --hot-pct N             percent of the anonymous pages accessed (default 100)\n"
	      "  --rate N                accesses per second, 0 = unlimited (default 0)\n"
	      "  --duration SEC          run time, 0 = until SIGINT/SIGTERM (default 0)\n"
	      "  --report-interval SEC   seconds between report lines (default 1)\n"
	      "  --ready-file PATH       created once memory is set up\n"
	      "  --seed N                random seed (default 1)\n"
	      "  --thp                   allow transparent huge pages for the anonymous area\n"
	      "  --node N                allocate only from NUMA node N (set_mempolicy MPOL_BIND)\n"
	      "  --tlb-flush-ms N        flush this process's TLB every N ms (see TLB_FLUSH_PAGES)\n"
	      "SIZE takes a K, M, G or T suffix (powers of 1024).\n", f);
}

static void parse_args(int argc, char **argv, struct options *o)
{
	enum { OPT_ANON = 1, OPT_FILE, OPT_FILE_PATH, OPT_KEEP_FILE, OPT_HOT_PCT,
	       OPT_RATE, OPT_DURATION, OPT_REPORT, OPT_READY, OPT_SEED, OPT_THP,
	       OPT_NODE, OPT_TLB_FLUSH, OPT_FILE_HOT_PCT, OPT_HELP };
	static const struct option longopts[] = {
		{ "anon", required_argument, NULL, OPT_ANON },
		{ "file", required_argument, NULL, OPT_FILE },
		{ "file-path", required_argument, NULL, OPT_FILE_PATH },
		{ "keep-file", no_argument, NULL, OPT_KEEP_FILE },
		{ "hot-pct", required_argument, NULL, OPT_HOT_PCT },
		{ "rate", required_argument, NULL, OPT_RATE },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "report-interval", required_argument, NULL, OPT_REPORT },
		{ "ready-file", required_argument, NULL, OPT_READY },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "thp", no_argument, NULL, OPT_THP },
		{ "node", required_argument, NULL, OPT_NODE },
		{ "tlb-flush-ms", required_argument, NULL, OPT_TLB_FLUSH },
		{ "file-hot-pct", required_argument, NULL, OPT_FILE_HOT_PCT },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};

	*o = (struct options){
		.hot_pct = 100.0,
		.report_interval = 1.0,
		.seed = 1,
		.node = -1,
	};

	int c;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		bool ok = true;

		switch (c) {
		case OPT_ANON: ok = parse_size(optarg, &o->anon_bytes); break;
		case OPT_FILE: ok = parse_size(optarg, &o->file_bytes); break;
		case OPT_FILE_PATH: o->file_path = optarg; break;
		case OPT_KEEP_FILE: o->keep_file = true; break;
		case OPT_HOT_PCT: ok = parse_double(optarg, 0.0, 100.0, &o->hot_pct); break;
		case OPT_RATE: ok = parse_u64(optarg, &o->rate); break;
		case OPT_DURATION: ok = parse_double(optarg, 0.0, 1e9, &o->duration); break;
		case OPT_REPORT: ok = parse_double(optarg, 0.01, 1e9, &o->report_interval); break;
		case OPT_READY: o->ready_file = optarg; break;
		case OPT_SEED: ok = parse_u64(optarg, &o->seed); break;
		case OPT_THP: o->thp = true; break;
		case OPT_FILE_HOT_PCT: ok = parse_double(optarg, 0.0, 100.0, &o->file_hot_pct); break;
		case OPT_TLB_FLUSH: ok = parse_u64(optarg, &o->tlb_flush_ms) && o->tlb_flush_ms < 3600000; break;
		case OPT_NODE: {
			uint64_t n;

			ok = parse_u64(optarg, &n) && n < 64;
			o->node = (int)n;
			break;
		}
		case OPT_HELP: usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
		if (!ok) /* the OPT_ values are 1 + the index in longopts */
			die("bad value '%s' for --%s", optarg, longopts[c - 1].name);
	}
	if (optind != argc)
		die("unexpected argument '%s'", argv[optind]);
	if (o->anon_bytes == 0 && o->file_bytes == 0)
		die("nothing to do: give --anon and/or --file");
	if (o->file_bytes != 0 && o->file_path == NULL)
		die("--file needs --file-path");
	if (o->file_hot_pct > 0 && o->file_bytes == 0)
		die("--file-hot-pct needs --file");
}

/* ---------------------------------------------------------------------------
 * Memory setup.
 */

/* set_mempolicy(MPOL_BIND, {node}): every later allocation of this process from node only. */
static void bind_to_node(int node)
{
	unsigned long mask = 1UL << node;

	/* maxnode: the kernel reads maxnode - 1 bits (mm/mempolicy.c get_nodes). */
	if (syscall(SYS_set_mempolicy, MEMHOG_MPOL_BIND, &mask,
		    (unsigned long)(sizeof(mask) * 8)) != 0)
		die("set_mempolicy(MPOL_BIND, node %d): %s", node, strerror(errno));
}

/*
 * Fills one page: per cache line RANDOM_WORDS random words, then a word that
 * depends only on the page number, repeated. The result compresses about
 * 2-3x and is never all zeroes.
 */
static void fill_page(uint64_t *page, size_t page_size, uint64_t page_no,
		      uint64_t *rng)
{
	uint64_t pattern = (page_no * 0x9e3779b97f4a7c15ULL) | 1;

	for (size_t line = 0; line < page_size / CACHE_LINE; line++) {
		uint64_t *w = page + line * LINE_WORDS;
		size_t i = 0;

		for (; i < RANDOM_WORDS; i++)
			w[i] = rng_next(rng);
		for (; i < LINE_WORDS; i++)
			w[i] = pattern;
	}
}

static unsigned char *setup_anon(const struct options *o, size_t page_size,
				 uint64_t *rng)
{
	size_t len = (size_t)o->anon_bytes;
	unsigned char *base = mmap(NULL, len, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (base == MAP_FAILED)
		die("mmap %" PRIu64 " bytes: %s", o->anon_bytes, strerror(errno));
	if (!o->thp && madvise(base, len, MADV_NOHUGEPAGE) != 0)
		fprintf(stderr, "memhog: madvise(MADV_NOHUGEPAGE): %s\n", strerror(errno));

	for (size_t off = 0; off + page_size <= len; off += page_size)
		fill_page((uint64_t *)(void *)(base + off), page_size,
			  off / page_size, rng);
	return base;
}

/* Writes the file, makes its pages clean, then reads it all back; returns its open fd. */
static int setup_file(const struct options *o, uint64_t *rng)
{
	uint64_t *buf = malloc(FILE_CHUNK);
	int fd = open(o->file_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (buf == NULL)
		die("out of memory");
	if (fd < 0)
		die("open %s: %s", o->file_path, strerror(errno));

	for (uint64_t done = 0; done < o->file_bytes;) {
		size_t n = FILE_CHUNK;

		if (o->file_bytes - done < n)
			n = (size_t)(o->file_bytes - done);
		for (size_t i = 0; i < FILE_CHUNK / sizeof(uint64_t); i++)
			buf[i] = rng_next(rng) | 1;
		ssize_t w = write(fd, buf, n);
		if (w <= 0)
			die("write %s: %s", o->file_path,
			    w < 0 ? strerror(errno) : "short write");
		done += (uint64_t)w;
	}
	if (fsync(fd) != 0)
		die("fsync %s: %s", o->file_path, strerror(errno));

	for (off_t off = 0; (uint64_t)off < o->file_bytes;) {
		ssize_t r = pread(fd, buf, FILE_CHUNK, off);
		if (r < 0)
			die("read %s: %s", o->file_path, strerror(errno));
		if (r == 0)
			break;
		off += r;
	}
	free(buf);
	return fd;
}

/* Creates path atomically (write to a temporary name, then rename). */
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

/* ---------------------------------------------------------------------------
 * Access loop.
 */

/*
 * One access: read a whole cache line of a random hot page, then write one of
 * its random words back, changed (and still non-zero). The accesses go through
 * a volatile pointer so that the compiler keeps every load and the store.
 */
static void access_once(unsigned char *base, size_t page_size,
			    uint64_t hot_pages, uint64_t *rng)
{
	uint64_t r = rng_next(rng);
	uint64_t page = r % hot_pages;
	size_t line = (size_t)(rng_next(rng) % (page_size / CACHE_LINE));
	volatile uint64_t *w = (volatile uint64_t *)(void *)
		(base + (size_t)page * page_size + line * CACHE_LINE);
	uint64_t sum = 0;

	for (size_t i = 0; i < LINE_WORDS; i++)
		sum += w[i];
	w[r % RANDOM_WORDS] = (sum ^ r) | 1;
}

/* One access to the file's hot set: pread() of one random cache line of one random hot page. */
static void access_file(int fd, size_t page_size, uint64_t hot_pages, uint64_t *rng)
{
	unsigned char line[CACHE_LINE];
	uint64_t page = rng_next(rng) % hot_pages;
	uint64_t off = page * page_size + (rng_next(rng) % (page_size / CACHE_LINE)) * CACHE_LINE;

	if (pread(fd, line, sizeof(line), (off_t)off) < 0)
		die("pread: %s", strerror(errno));
}

static void print_interval(double t, uint64_t elapsed_ns, const struct histogram *h,
			   long majflt)
{
	double secs = (double)elapsed_ns / (double)NSEC_PER_SEC;

	printf("memhog t=%.1f ops=%" PRIu64 " ops_per_s=%.0f p50_us=%.2f "
	       "p99_us=%.2f p999_us=%.2f max_us=%.2f majflt=%ld\n",
	       t, h->count, secs > 0 ? (double)h->count / secs : 0.0,
	       ns_to_us(hist_quantile(h, 0.50)), ns_to_us(hist_quantile(h, 0.99)),
	       ns_to_us(hist_quantile(h, 0.999)), ns_to_us(h->max), majflt);
}

static void print_summary(uint64_t elapsed_ns, const struct histogram *h, long majflt)
{
	double secs = (double)elapsed_ns / (double)NSEC_PER_SEC;

	printf("memhog summary ops_per_s=%.0f p99_us=%.2f p50_us=%.2f "
	       "p999_us=%.2f max_us=%.2f ops=%" PRIu64 " duration_s=%.1f majflt=%ld\n",
	       secs > 0 ? (double)h->count / secs : 0.0,
	       ns_to_us(hist_quantile(h, 0.99)), ns_to_us(hist_quantile(h, 0.50)),
	       ns_to_us(hist_quantile(h, 0.999)), ns_to_us(h->max), h->count,
	       secs, majflt);
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

int main(int argc, char **argv)
{
	struct options o;
	static struct histogram interval, total;
	uint64_t rng;

	parse_args(argc, argv, &o);
	setvbuf(stdout, NULL, _IOLBF, 0);
	rng = o.seed;

	struct sigaction sa = { .sa_handler = on_stop_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	size_t page_size = (size_t)sysconf(_SC_PAGESIZE);
	if (o.anon_bytes > SIZE_MAX - page_size)
		die("--anon too large");
	uint64_t pages = o.anon_bytes / page_size;
	uint64_t hot_pages = (uint64_t)((double)pages * o.hot_pct / 100.0);
	if (hot_pages == 0 && o.hot_pct > 0 && pages > 0)
		hot_pages = 1;

	printf("memhog start pid=%ld anon_bytes=%" PRIu64 " file_bytes=%" PRIu64
	       " pages=%" PRIu64 " hot_pages=%" PRIu64 " rate=%" PRIu64
	       " duration_s=%.1f node=%d\n", (long)getpid(), o.anon_bytes, o.file_bytes,
	       pages, hot_pages, o.rate, o.duration, o.node);

	if (o.node >= 0)
		bind_to_node(o.node);
	uint64_t setup_start = now_ns();
	unsigned char *base = NULL;
	int file_fd = -1;
	uint64_t file_hot_pages = (uint64_t)((double)(o.file_bytes / page_size) * o.file_hot_pct / 100.0);
	if (file_hot_pages == 0 && o.file_hot_pct > 0)
		file_hot_pages = 1;
	if (o.anon_bytes > 0)
		base = setup_anon(&o, page_size, &rng);
	if (o.file_bytes > 0)
		file_fd = setup_file(&o, &rng);
	if (o.ready_file != NULL)
		write_ready_file(o.ready_file);

	uint64_t start = now_ns();
	printf("memhog ready setup_s=%.2f\n",
	       (double)(start - setup_start) / (double)NSEC_PER_SEC);

	uint64_t interval_ns = (uint64_t)(o.report_interval * (double)NSEC_PER_SEC);
	uint64_t end = o.duration > 0
		? start + (uint64_t)(o.duration * (double)NSEC_PER_SEC) : UINT64_MAX;
	uint64_t last_report = start, next_report = start + interval_ns;
	long majflt_start = major_faults(), majflt_last = majflt_start;
	/* Pacing: op number sched_ops is due at sched_start + sched_ops / rate. */
	uint64_t sched_start = start, sched_ops = 0;
	uint64_t tlb_flush_ns = o.tlb_flush_ms * 1000000, next_tlb_flush = start + tlb_flush_ns;

	if (tlb_flush_ns)
		tlb_flush_setup(page_size);

	uint64_t now = start;

	while (!stop_requested) {
		if (now >= next_report) {
			long mf = major_faults();

			print_interval((double)(now - start) / (double)NSEC_PER_SEC,
				       now - last_report, &interval, mf - majflt_last);
			hist_merge(&total, &interval);
			memset(&interval, 0, sizeof(interval));
			majflt_last = mf;
			last_report = now;
			next_report += interval_ns;
			if (next_report <= now)
				next_report = now + interval_ns;
		}
		if (now >= end)
			break;
		if (tlb_flush_ns && now >= next_tlb_flush) {
			tlb_flush(page_size);
			next_tlb_flush = now + tlb_flush_ns;
		}
		if (hot_pages == 0 && file_hot_pages == 0) {
			sleep_until(min_u64(next_report, end));
			now = now_ns();
			continue;
		}
		if (o.rate > 0) {
			uint64_t due = sched_start +
				(sched_ops / o.rate) * NSEC_PER_SEC +
				(sched_ops % o.rate) * NSEC_PER_SEC / o.rate;

			if (now < due) {
				sleep_until(min_u64(min_u64(due, next_report), end));
				now = now_ns();
				continue;
			}
			if (now - due > NSEC_PER_SEC) {
				/* More than 1 s behind: drop the backlog. */
				sched_start = now;
				sched_ops = 0;
			}
			sched_ops++;
		}

		uint64_t t0 = now_ns();
		if (hot_pages > 0)
			access_once(base, page_size, hot_pages, &rng);
		if (file_hot_pages > 0)
			access_file(file_fd, page_size, file_hot_pages, &rng);
		now = now_ns();
		hist_add(&interval, now - t0);
	}

	uint64_t stop = now_ns();
	hist_merge(&total, &interval);
	print_summary(stop - start, &total, major_faults() - majflt_start);

	if (file_fd >= 0)
		close(file_fd);
	if (o.file_bytes > 0 && !o.keep_file)
		unlink(o.file_path);
	return 0;
}
