/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gen_cgroupfs.c - writes a fake cgroup-v2 tree with N managed (leaf) cgroups into a directory
 * (bench/overhead.sh mounts a tmpfs for it), for the overhead benchmark on a host whose memory
 * controller is not on cgroup v2.
 *
 * Every cgroup directory gets every file of a recorded real cgroup (--template, normally
 * tests/fixtures/real-6.12/sys/fs/cgroup/fixture: ~50 files, so a directory listing costs what it
 * costs on kernfs), with memory.current, the anon/file lines of memory.stat and memory.numa_stat
 * and the PSI totals varied per cgroup so that no two cgroups look alike. The root directory gets
 * the recorded root files (--root-template, default: the template's parent).
 *
 * Shape (what a Kubernetes node with the systemd cgroup driver looks like):
 *   init.scope                                                   excluded ("none")
 *   system.slice/systemd-{journald,udevd,logind}.service         excluded ("none")
 *   system.slice/svc<i>.service                                  ~10 % of N, managed
 *   user.slice/user-1000.slice/session-<i>.scope                 1, managed
 *   kubepods.slice/kubepods-{burstable,besteffort}.slice/
 *     kubepods-<class>-pod<uid>.slice/cri-containerd-<id>.scope  the rest, 2-3 per pod, managed
 * bench/overhead.sh's configuration manages exactly those. --list FILE receives the managed paths
 * (relative to the root, one per line) for bench/floor.
 *
 * Usage: gen_cgroupfs --cgroups N [--template DIR] [--root-template DIR] [--seed S]
 *                     [--list FILE] OUTDIR
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_TEMPLATE "tests/fixtures/real-6.12/sys/fs/cgroup/fixture"
/* Recorded cgroup files are below 2 KiB (memory.stat ~1.1 KiB); generated ones stay close. */
#define CONTENT_MAX 16384

struct file {
	char name[256];
	char *data;
	size_t len;
};

struct template {
	struct file *files;
	size_t n;
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static unsigned long long n_files_written, n_dirs_written;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("gen_cgroupfs: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* xorshift64*: reproducible for a given --seed. */
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static uint64_t rnd_range(uint64_t lo, uint64_t hi)
{
	return lo + rnd() % (hi - lo + 1);
}

static char *read_file(int dirfd, const char *name, size_t *ret_len)
{
	char *buf = malloc(CONTENT_MAX);
	size_t n = 0;
	ssize_t k;
	int fd;

	if (!buf)
		die("out of memory");
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("%s: %s", name, strerror(errno));
	while ((k = read(fd, buf + n, CONTENT_MAX - 1 - n)) > 0)
		n += (size_t)k;
	if (k < 0)
		die("%s: %s", name, strerror(errno));
	if (n == CONTENT_MAX - 1)
		die("%s: larger than %d bytes", name, CONTENT_MAX - 1);
	close(fd);
	buf[n] = '\0';
	*ret_len = n;
	return buf;
}

/* Every regular file of a recorded cgroup directory. */
static void template_load(const char *dir, struct template *t)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		die("template %s: %s", dir, strerror(errno));
	memset(t, 0, sizeof(*t));
	while ((de = readdir(d))) {
		struct file *f;

		if (de->d_type != DT_REG)
			continue;
		t->files = realloc(t->files, (t->n + 1) * sizeof(*t->files));
		if (!t->files)
			die("out of memory");
		f = &t->files[t->n++];
		snprintf(f->name, sizeof(f->name), "%s", de->d_name);
		f->data = read_file(dirfd(d), de->d_name, &f->len);
	}
	closedir(d);
	if (t->n == 0)
		die("template %s has no files", dir);
}

static const struct file *template_find(const struct template *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->files[i].name, name) == 0)
			return &t->files[i];
	return NULL;
}

static void write_at(int dirfd, const char *name, const char *data, size_t len)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		die("%s: %s", name, strerror(errno));
	if (len > 0 && write(fd, data, len) != (ssize_t)len)
		die("%s: short write", name);
	close(fd);
	n_files_written++;
}

/* Appends to a bounded buffer. */
struct out {
	char buf[CONTENT_MAX];
	size_t len;
};

static void out_printf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(o->buf + o->len, sizeof(o->buf) - o->len, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= sizeof(o->buf) - o->len)
		die("generated file too large");
	o->len += (size_t)k;
}

/* The cgroup's varied numbers. */
struct cg_values {
	uint64_t current, anon, file, mem_some_us, mem_full_us, io_some_us, io_full_us;
};

/* Copies the recorded memory.stat line by line, with this cgroup's anon/file sizes. */
static void rewrite_memory_stat(const struct file *src, const struct cg_values *v, struct out *o)
{
	const char *p = src->data, *end = src->data + src->len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n > 5 && memcmp(p, "anon ", 5) == 0)
			out_printf(o, "anon %" PRIu64 "\n", v->anon);
		else if (n > 5 && memcmp(p, "file ", 5) == 0)
			out_printf(o, "file %" PRIu64 "\n", v->file);
		else if (n > 12 && memcmp(p, "active_anon ", 12) == 0)
			out_printf(o, "active_anon %" PRIu64 "\n", v->anon / 10 * 9);
		else if (n > 14 && memcmp(p, "inactive_anon ", 14) == 0)
			out_printf(o, "inactive_anon %" PRIu64 "\n", v->anon / 10);
		else if (n > 12 && memcmp(p, "active_file ", 12) == 0)
			out_printf(o, "active_file %" PRIu64 "\n", v->file / 2);
		else if (n > 14 && memcmp(p, "inactive_file ", 14) == 0)
			out_printf(o, "inactive_file %" PRIu64 "\n", v->file / 2);
		else
			out_printf(o, "%.*s\n", (int)n, p);
		p += n + 1;
	}
}

/* memory.numa_stat: anon and file split over the template's nodes (N0/N1). */
static void rewrite_numa_stat(const struct file *src, const struct cg_values *v, struct out *o)
{
	const char *p = src->data, *end = src->data + src->len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		uint64_t total = 0;
		bool known = true;

		if (n > 5 && memcmp(p, "anon ", 5) == 0)
			total = v->anon;
		else if (n > 5 && memcmp(p, "file ", 5) == 0)
			total = v->file;
		else
			known = false;
		if (known) {
			uint64_t n0 = total / 4096 * 3 / 5 * 4096;

			out_printf(o, "%.4s N0=%" PRIu64 " N1=%" PRIu64 "\n", p, n0, total - n0);
		} else {
			out_printf(o, "%.*s\n", (int)n, p);
		}
		p += n + 1;
	}
}

static void pressure(struct out *o, uint64_t some_us, uint64_t full_us)
{
	out_printf(o, "some avg10=0.00 avg60=0.%02u avg300=0.%02u total=%" PRIu64 "\n",
		   (unsigned)(some_us % 7), (unsigned)(some_us % 3), some_us);
	out_printf(o, "full avg10=0.00 avg60=0.00 avg300=0.%02u total=%" PRIu64 "\n",
		   (unsigned)(full_us % 3), full_us);
}

/* Creates rel (its parent exists) with every template file; leaves get a process. */
static void make_cgroup(int rootfd, const char *rel, const struct template *t, bool leaf)
{
	struct cg_values v;
	unsigned pid;
	int fd;

	if (mkdirat(rootfd, rel, 0755) < 0 && errno != EEXIST)
		die("mkdir %s: %s", rel, strerror(errno));
	fd = openat(rootfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		die("%s: %s", rel, strerror(errno));
	n_dirs_written++;

	/* 8 MiB .. 2 GiB, about log-uniform: as many of 10 MiB as of 1 GiB. */
	v.current = (8ULL << 20) << rnd_range(0, 7);
	v.current += rnd_range(0, v.current / 4096) * 4096;
	v.anon = v.current / 100 * 70 / 4096 * 4096;
	v.file = v.current / 100 * 25 / 4096 * 4096;
	v.mem_some_us = rnd_range(0, 50000000);
	v.mem_full_us = v.mem_some_us / 3;
	v.io_some_us = rnd_range(0, 20000000);
	v.io_full_us = v.io_some_us / 2;

	/* Leaves hold one process, as a running service or container does. */
	pid = (unsigned)rnd_range(300, 4000000);

	for (size_t i = 0; i < t->n; i++) {
		const struct file *f = &t->files[i];
		struct out o = { .len = 0 };

		if (strcmp(f->name, "memory.current") == 0)
			out_printf(&o, "%" PRIu64 "\n", v.current);
		else if (strcmp(f->name, "memory.stat") == 0)
			rewrite_memory_stat(f, &v, &o);
		else if (strcmp(f->name, "memory.numa_stat") == 0)
			rewrite_numa_stat(f, &v, &o);
		else if (strcmp(f->name, "memory.pressure") == 0)
			pressure(&o, v.mem_some_us, v.mem_full_us);
		else if (strcmp(f->name, "io.pressure") == 0)
			pressure(&o, v.io_some_us, v.io_full_us);
		else if (strcmp(f->name, "memory.max") == 0 || strcmp(f->name, "memory.high") == 0 ||
			 strcmp(f->name, "memory.swap.max") == 0 ||
			 strcmp(f->name, "memory.zswap.max") == 0)
			out_printf(&o, "max\n");
		else if (strcmp(f->name, "memory.low") == 0 || strcmp(f->name, "memory.min") == 0)
			out_printf(&o, "0\n");
		else if (strcmp(f->name, "cgroup.subtree_control") == 0)
			out_printf(&o, "%s", leaf ? "" : "cpu io memory pids\n");
		else if (strcmp(f->name, "cgroup.procs") == 0 || strcmp(f->name, "cgroup.threads") == 0) {
			if (leaf)
				out_printf(&o, "%u\n", pid);
		} else {
			write_at(fd, f->name, f->data, f->len); /* as recorded */
			continue;
		}
		write_at(fd, f->name, o.buf, o.len);
	}
	close(fd);
}

static FILE *list_out;

static void managed(int rootfd, const char *rel, const struct template *t)
{
	make_cgroup(rootfd, rel, t, true);
	if (list_out)
		fprintf(list_out, "%s\n", rel);
}

static void hex(char *out, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++)
		out[i] = digits[rnd() & 15];
	out[n] = '\0';
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "cgroups", required_argument, NULL, 'n' },
		{ "template", required_argument, NULL, 't' },
		{ "root-template", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ "list", required_argument, NULL, 'l' },
		{ 0 },
	};
	const char *template_dir = DEFAULT_TEMPLATE, *root_template = NULL, *list_path = NULL;
	struct template t, rt;
	unsigned long n = 0, n_services, n_containers, done, pod = 0;
	char rel[1024], root_buf[4096];
	int c, rootfd;

	while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0) {
		switch (c) {
		case 'n':
			n = strtoul(optarg, NULL, 10);
			break;
		case 't':
			template_dir = optarg;
			break;
		case 'r':
			root_template = optarg;
			break;
		case 's':
			rng_state ^= strtoull(optarg, NULL, 0) * 0xff51afd7ed558ccdULL;
			if (!rng_state)
				rng_state = 1;
			break;
		case 'l':
			list_path = optarg;
			break;
		default:
			return 2;
		}
	}
	if (optind + 1 != argc || n < 3) {
		fprintf(stderr, "Usage: gen_cgroupfs --cgroups N (>= 3) [--template DIR] "
				"[--root-template DIR] [--seed S] [--list FILE] OUTDIR\n");
		return 2;
	}
	if (!root_template) {
		snprintf(root_buf, sizeof(root_buf), "%s/..", template_dir);
		root_template = root_buf;
	}
	template_load(template_dir, &t);
	template_load(root_template, &rt);
	if (!template_find(&t, "memory.current") || !template_find(&t, "memory.stat"))
		die("template %s is not a cgroup with the memory controller", template_dir);

	if (mkdir(argv[optind], 0755) < 0 && errno != EEXIST)
		die("%s: %s", argv[optind], strerror(errno));
	rootfd = open(argv[optind], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		die("%s: %s", argv[optind], strerror(errno));
	if (list_path && !(list_out = fopen(list_path, "w")))
		die("%s: %s", list_path, strerror(errno));

	for (size_t i = 0; i < rt.n; i++)
		write_at(rootfd, rt.files[i].name, rt.files[i].data, rt.files[i].len);

	make_cgroup(rootfd, "init.scope", &t, true);
	make_cgroup(rootfd, "system.slice", &t, false);
	make_cgroup(rootfd, "system.slice/systemd-journald.service", &t, true);
	make_cgroup(rootfd, "system.slice/systemd-udevd.service", &t, true);
	make_cgroup(rootfd, "system.slice/systemd-logind.service", &t, true);
	make_cgroup(rootfd, "user.slice", &t, false);
	make_cgroup(rootfd, "user.slice/user-1000.slice", &t, false);
	managed(rootfd, "user.slice/user-1000.slice/session-1.scope", &t);
	done = 1;

	n_services = (n - done) / 10 ? (n - done) / 10 : 1;
	for (unsigned long i = 0; i < n_services; i++, done++) {
		snprintf(rel, sizeof(rel), "system.slice/svc%lu.service", i);
		managed(rootfd, rel, &t);
	}

	n_containers = n - done;
	make_cgroup(rootfd, "kubepods.slice", &t, false);
	make_cgroup(rootfd, "kubepods.slice/kubepods-burstable.slice", &t, false);
	make_cgroup(rootfd, "kubepods.slice/kubepods-besteffort.slice", &t, false);
	for (unsigned long left = n_containers; left > 0; pod++) {
		const char *class = pod % 3 == 2 ? "besteffort" : "burstable";
		unsigned long k = rnd_range(2, 3);
		char uid[37], podrel[512];

		hex(uid, 36);
		uid[8] = uid[13] = uid[18] = uid[23] = '_'; /* systemd escapes '-' in the pod uid */
		snprintf(podrel, sizeof(podrel), "kubepods.slice/kubepods-%s.slice/kubepods-%s-pod%s.slice",
			 class, class, uid);
		if (k > left)
			k = left;
		make_cgroup(rootfd, podrel, &t, false);
		for (unsigned long j = 0; j < k; j++, left--) {
			char id[65];

			hex(id, 64);
			snprintf(rel, sizeof(rel), "%s/cri-containerd-%s.scope", podrel, id);
			managed(rootfd, rel, &t);
		}
	}
	if (list_out && fclose(list_out) != 0)
		die("%s: write failed", list_path);
	printf("gen_cgroupfs: %lu managed cgroups (%lu services, 1 session, %lu containers in %lu pods), "
	       "%llu cgroup directories, %llu files, template %s\n",
	       n, n_services, n_containers, pod, n_dirs_written, n_files_written, template_dir);
	return 0;
}
