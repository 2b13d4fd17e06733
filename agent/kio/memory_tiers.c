/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * memory_tiers.c - the kernel's memory tiers and demotion switch from sysfs (memory_tiers.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reclaimd/memory_tiers.h"
#include "reclaimd/reader.h"
#include "reclaimd/topology.h"
#include "parse/parse_util.h"

/* A nodelist of 64 nodes written out in full ("0,2,4,...,62") is under 200 bytes. */
#define NODELIST_BUF 512
#define TIER_PREFIX "memory_tier"

int nodelist_parse(const char *buf, size_t len, nodemask64_t *ret)
{
	cpu_set_t set;
	nodemask64_t m = 0;
	int r;

	r = cpulist_parse(buf, len, &set);
	if (r < 0)
		return r;
	for (size_t i = 0; i < CPU_SETSIZE; i++) {
		if (!CPU_ISSET(i, &set))
			continue;
		if (i >= RECLAIMD_MAX_NODES)
			return -E2BIG;
		m |= UINT64_C(1) << i;
	}
	*ret = m;
	return 0;
}

int demotion_enabled_parse(const char *buf, size_t len, bool *ret)
{
	if (len == 5 && memcmp(buf, "true\n", 5) == 0)
		*ret = true;
	else if (len == 6 && memcmp(buf, "false\n", 6) == 0)
		*ret = false;
	else
		return -EBADMSG;
	return 0;
}

/* Reads sys_root/<rel> into buf; -ENAMETOOLONG when the path does not fit. */
static int read_file(const char *sys_root, const char *rel, char *buf, size_t size, size_t *ret_len)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", sys_root, rel) >= sizeof(path))
		return -ENAMETOOLONG;
	return read_at(AT_FDCWD, path, buf, size, ret_len);
}

int mem_tiers_read(const char *sys_root, struct mem_tiers *ret)
{
	_cleanup_(freep) struct mem_tiers *t = calloc(1, sizeof(*t));
	char path[PATH_MAX], buf[NODELIST_BUF];
	struct dirent *de;
	DIR *dir;
	size_t len;
	int r = 0;

	if (!t)
		return -ENOMEM;
	r = read_file(sys_root, "kernel/mm/numa/demotion_enabled", buf, sizeof(buf), &len);
	if (r == 0)
		r = demotion_enabled_parse(buf, len, &t->demotion_enabled);
	if (r < 0 && r != -ENOENT)
		return r;

	if ((size_t)snprintf(path, sizeof(path), "%s/devices/virtual/memory_tiering", sys_root) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	dir = opendir(path);
	if (!dir) {
		if (errno != ENOENT)
			return -errno;
		*ret = *t;
		return 0;
	}
	r = 0;
	while ((de = readdir(dir))) {
		char rel[NAME_MAX + 64], *end;
		unsigned long id;

		if (strncmp(de->d_name, TIER_PREFIX, strlen(TIER_PREFIX)) != 0)
			continue;
		errno = 0;
		id = strtoul(de->d_name + strlen(TIER_PREFIX), &end, 10);
		if (*end || end == de->d_name + strlen(TIER_PREFIX) || errno || id > UINT_MAX)
			continue; /* not a tier directory (memory_tiering has none, but be strict) */
		if (t->n_tiers >= RECLAIMD_MAX_NODES) {
			r = -E2BIG; /* more non-empty tiers than node ids */
			break;
		}
		snprintf(rel, sizeof(rel), "devices/virtual/memory_tiering/%s/nodelist", de->d_name);
		r = read_file(sys_root, rel, buf, sizeof(buf), &len);
		if (r == -ENOENT || r == -ENODEV) {
			r = 0; /* the tier went away with its last node */
			continue;
		}
		if (r == 0)
			r = nodelist_parse(buf, len, &t->tier[t->n_tiers].nodes);
		if (r < 0)
			break;
		t->tier[t->n_tiers++].id = (unsigned)id;
	}
	closedir(dir);
	if (r < 0)
		return r;
	*ret = *t;
	return 0;
}

/* node<N>/meminfo is about 35 lines of < 50 bytes; node<N>/vmstat about 80 of < 40. */
#define NODE_FILE_BUF 8192

int node_meminfo_usage_parse(const char *buf, size_t len, unsigned node, uint64_t *ret_total_bytes,
			     uint64_t *ret_free_bytes)
{
	char prefix[32];
	size_t prefix_n = (size_t)snprintf(prefix, sizeof(prefix), "Node %u ", node);
	uint64_t total = 0, free_kb = 0;
	bool have_total = false, have_free = false;
	const char *line;
	size_t pos = 0, n;
	int r;

	while ((r = next_line(buf, len, &pos, &line, &n)) > 0) {
		static const char *const keys[] = { "MemTotal:", "MemFree:" };

		if (n < prefix_n || memcmp(line, prefix, prefix_n) != 0)
			return -EBADMSG;
		line += prefix_n;
		n -= prefix_n;
		for (unsigned k = 0; k < 2; k++) {
			size_t kn = strlen(keys[k]), i, j;
			uint64_t v;

			if (!starts_with(line, n, keys[k]))
				continue;
			for (i = kn; i < n && line[i] == ' '; i++)
				;
			for (j = i; j < n && line[j] != ' '; j++)
				;
			if (j + 3 != n || memcmp(line + j, " kB", 3) != 0 ||
			    u64_parse(line + i, j - i, &v) < 0 || v > UINT64_MAX / 1024)
				return -EBADMSG;
			if (k == 0) {
				total = v;
				have_total = true;
			} else {
				free_kb = v;
				have_free = true;
			}
		}
	}
	if (r < 0)
		return r;
	if (!have_total || !have_free)
		return -EBADMSG;
	*ret_total_bytes = total * 1024;
	*ret_free_bytes = free_kb * 1024;
	return 0;
}

int tier_node_sample_read(const char *sys_root, unsigned node, struct tier_node_sample *ret)
{
	_cleanup_(freep) char *buf = malloc(NODE_FILE_BUF);
	struct tier_node_sample s = { 0 };
	struct vmstat v;
	char rel[64];
	size_t len;
	int r;

	if (!buf)
		return -ENOMEM;
	snprintf(rel, sizeof(rel), "devices/system/node/node%u/meminfo", node);
	r = read_file(sys_root, rel, buf, NODE_FILE_BUF, &len);
	if (r == 0)
		r = node_meminfo_usage_parse(buf, len, node, &s.mem_total_bytes, &s.mem_free_bytes);
	if (r < 0)
		return r;
	snprintf(rel, sizeof(rel), "devices/system/node/node%u/vmstat", node);
	r = read_file(sys_root, rel, buf, NODE_FILE_BUF, &len);
	if (r == 0)
		r = vmstat_parse(buf, len, &v);
	if (r < 0)
		return r;
	s.demoted_pages = v.pgdemote_kswapd + v.pgdemote_direct + v.pgdemote_khugepaged +
			  v.pgdemote_proactive;
	s.promoted_pages = v.pgpromote_success;
	*ret = s;
	return 0;
}
