/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_zswap.h - the temporary sysfs/cgroupfs tree test_zswap.c and test_zswap_record.c build:
 * zswap's module parameters (PARAMS) and a cgroup with memory.zswap.max, under tmp_root (each
 * program's own, made by mkdtemp() in its main()). Exits 2 when the tree cannot be written.
 */
#ifndef RECLAIMD_TEST_ZSWAP_H
#define RECLAIMD_TEST_ZSWAP_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp_root[] = "/tmp/reclaimd-test-zswap-XXXXXX";

static inline void write_file(const char *rel, const char *content)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmp_root, rel);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(content, f);
	fclose(f);
}

static inline void slurp(const char *rel, char *buf, size_t size)
{
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", tmp_root, rel);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (!f)
		return;
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static inline void make_dir(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tmp_root, rel);
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		perror(path);
		exit(2);
	}
}

#define PARAMS "sys/module/zswap/parameters/"

static inline void build_tree(bool with_shrinker)
{
	char path[512];

	make_dir("sys");
	make_dir("sys/module");
	make_dir("sys/module/zswap");
	make_dir("sys/module/zswap/parameters");
	make_dir("cg");
	make_dir("cg/old");
	write_file(PARAMS "enabled", "N\n");
	write_file(PARAMS "compressor", "lzo\n");
	write_file(PARAMS "max_pool_percent", "20\n");
	write_file(PARAMS "accept_threshold_percent", "90\n");
	snprintf(path, sizeof(path), "%s/" PARAMS "shrinker_enabled", tmp_root);
	if (with_shrinker)
		write_file(PARAMS "shrinker_enabled", "N\n");
	else
		unlink(path);
	write_file("cg/memory.zswap.max", "max\n");
	write_file("cg/memory.zswap.writeback", "1\n");
}

static inline void cleanup_tree(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_root);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmp_root);
}

#endif
