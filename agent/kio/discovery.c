/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * discovery.c - finds the cgroup-v2 hierarchy (libcgroup), walks it every tick and keeps the set
 * of known cgroups keyed by directory inode (see cgroup.h).
 *
 * libcgroup finds where the memory controller is mounted (cgroup_root.c); reclaimd then walks
 * the tree itself:
 * the walk runs every tick, on directory fds it keeps, with getdents64() and d_type (oomd measured
 * ~10 % less CPU than stat-based walks), skipping the listing of leaves (is_leaf_dir()), and it
 * must also run on fixture trees that libcgroup's mount table does not know (--cgroup-root).
 *
 * Managed cgroups: the first rule matching a cgroup's path gives its policy; policy "none"
 * excludes it. Of the matching cgroups only the deepest are managed: one with a matching
 * descendant is a grouping (memory.reclaim on it would reclaim its children's memory too, and
 * processes live in leaves in cgroup v2). Cgroups without the memory controller are skipped.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "reclaimd/cgroup.h"

/* Deeper trees are not walked; cgroup.max.depth is unlimited by default, so bound recursion. */
#define MAX_WALK_DEPTH 128
/* getdents64 buffer: one syscall lists ~1000 entries of a typical cgroup directory. */
#define DIRENT_BUF (32 * 1024)

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static size_t hash_inode(uint64_t ino, size_t n_buckets)
{
	ino ^= ino >> 33;
	ino *= 0xff51afd7ed558ccdULL;
	ino ^= ino >> 33;
	return (size_t)(ino % n_buckets);
}

struct cgroup_node *cgroup_set_lookup(const struct cgroup_set *s, uint64_t inode)
{
	for (struct cgroup_node *cg = s->buckets[hash_inode(inode, s->n_buckets)]; cg; cg = cg->hash_next)
		if (cg->inode == inode)
			return cg;
	return NULL;
}

static int set_grow(struct cgroup_set *s)
{
	size_t n = s->n_buckets * 2;
	struct cgroup_node **b = calloc(n, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < s->n_buckets; i++) {
		struct cgroup_node *cg = s->buckets[i], *next;

		for (; cg; cg = next) {
			size_t h = hash_inode(cg->inode, n);

			next = cg->hash_next;
			cg->hash_next = b[h];
			b[h] = cg;
		}
	}
	free(s->buckets);
	s->buckets = b;
	s->n_buckets = n;
	return 0;
}

static void cgroup_node_free(struct cgroup_node *cg)
{
	cgroup_close_files(cg);
	if (cg->dirfd >= 0)
		close(cg->dirfd);
	free(cg->path);
	free(cg->aging.cmds);
	free(cg->aging.targets);
	free(cg);
}

static int cgroup_node_new(struct cgroup_set *s, uint64_t inode, int dirfd, const char *path,
		      struct cgroup_node *parent, struct cgroup_node **ret)
{
	struct cgroup_node *cg;
	size_t h;

	if (s->n >= s->n_buckets && set_grow(s) < 0)
		return -ENOMEM;
	cg = calloc(1, sizeof(*cg));
	if (!cg)
		return -ENOMEM;
	cg->path = strdup(path);
	if (!cg->path) {
		free(cg);
		return -ENOMEM;
	}
	cg->inode = inode;
	cg->dirfd = dirfd;
	cg->parent = parent;
	cg->files.fd_current = cg->files.fd_stat = cg->files.fd_pressure = cg->files.fd_io_pressure = -1;
	cg->trigger.fd = -1;
	h = hash_inode(inode, s->n_buckets);
	cg->hash_next = s->buckets[h];
	s->buckets[h] = cg;
	s->n++;
	*ret = cg;
	return 0;
}

static void set_remove(struct cgroup_set *s, struct cgroup_node *cg)
{
	struct cgroup_node **p = &s->buckets[hash_inode(cg->inode, s->n_buckets)];

	for (; *p; p = &(*p)->hash_next)
		if (*p == cg) {
			*p = cg->hash_next;
			s->n--;
			return;
		}
}

int cgroup_set_init(struct cgroup_set *s, const char *root_path)
{
	struct stat st;
	int fd, r;

	memset(s, 0, sizeof(*s));
	s->n_buckets = 256;
	s->buckets = calloc(s->n_buckets, sizeof(*s->buckets));
	if (!s->buckets)
		return -ENOMEM;
	fd = open(root_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		free(s->buckets);
		s->buckets = NULL;
		return r;
	}
	r = cgroup_node_new(s, (uint64_t)st.st_ino, fd, "", NULL, &s->root);
	if (r < 0) {
		close(fd);
		free(s->buckets);
		s->buckets = NULL;
	}
	s->config_generation = 1;
	return r;
}

void cgroup_set_done(struct cgroup_set *s)
{
	if (!s->buckets)
		return;
	CGROUP_SET_FOREACH(s, cg)
		cgroup_node_free(cg);
	free(s->buckets);
	memset(s, 0, sizeof(*s));
}

static void match_rule(struct cgroup_node *cg, const struct config *c, unsigned config_generation)
{
	if (cg->rule_generation == config_generation)
		return;
	cg->rule = config_match(c, cg->path);
	cg->rule_generation = config_generation;
}

/* A directory's link count is 2 + its number of subdirectories on kernfs (fs/kernfs/inode.c
 * kernfs_refresh_inode() sets it from dir.subdirs) and on tmpfs, so a count of exactly 2 means no
 * child cgroup: most cgroups are leaves, and one fstat() replaces a listing of their ~50 files.
 * Filesystems that do not count subdirectories (btrfs reports 1) are always listed. */
static bool is_leaf_dir(int dirfd)
{
	struct stat st;

	return fstat(dirfd, &st) == 0 && st.st_nlink == 2;
}

/* Lists one directory and recurses. Returns whether this subtree (including cg) matches a rule. */
static bool walk(struct cgroup_set *s, struct cgroup_node *cg, const struct config *c, unsigned depth)
{
	char buf[DIRENT_BUF];
	bool subtree_match = false;
	ssize_t n;

	cg->seen_generation = s->generation;
	match_rule(cg, c, s->config_generation);

	/* Memory controller: memory.current exists. Re-checked every pass for cgroups without it,
	 * since a parent may enable +memory in cgroup.subtree_control at any time. */
	if (!cg->has_memory && cg->parent)
		cg->has_memory = faccessat(cg->dirfd, "memory.current", F_OK, 0) == 0;

	cg->walk_truncated = depth >= MAX_WALK_DEPTH;
	if (cg->walk_truncated)
		s->depth_truncated++;
	else if (is_leaf_dir(cg->dirfd))
		; /* nothing below it to list */
	else if (lseek(cg->dirfd, 0, SEEK_SET) == 0) {
		while ((n = getdents64(cg->dirfd, buf, sizeof(buf))) > 0) {
			for (ssize_t off = 0; off < n;) {
				struct linux_dirent64 *de = (struct linux_dirent64 *)(buf + off);
				struct cgroup_node *child;

				off += de->d_reclen;
				if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 ||
				    strcmp(de->d_name, "..") == 0)
					continue;
				child = cgroup_set_lookup(s, de->d_ino);
				if (!child || child->parent != cg) {
					char *path;
					int fd;

					if (child) /* same inode under another parent: impossible on
						    * kernfs, but a fixture tree could do it */
						continue;
					fd = openat(cg->dirfd, de->d_name,
						    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
					if (fd < 0) {
						/* ENOENT: removed between listing and open. */
						if (errno != ENOENT && errno != ENODEV) {
							s->open_failures++;
							s->last_open_error = -errno;
						}
						continue;
					}
					if (asprintf(&path, "%s%s%s", cg->path, *cg->path ? "/" : "",
						     de->d_name) < 0) {
						close(fd);
						continue;
					}
					if (cgroup_node_new(s, de->d_ino, fd, path, cg, &child) < 0) {
						close(fd);
						free(path);
						continue;
					}
					free(path);
				}
				if (walk(s, child, c, depth + 1))
					subtree_match = true;
			}
		}
	}

	cg->has_matching_descendant = subtree_match;
	cg->managed = cg->rule && cg->rule->policy && strcmp(cg->rule->policy->name, "none") != 0 &&
		      cg->has_memory && !subtree_match && cg->parent &&
		      !cg->walk_truncated; /* unknown descendants: maybe not a leaf */
	if (!cg->managed)
		cgroup_close_files(cg);
	return subtree_match || cg->rule;
}

int cgroup_set_scan(struct cgroup_set *s, const struct config *c, cgroup_gone_fn gone, void *userdata)
{
	struct cgroup_node *dead = NULL;

	s->generation++;
	s->open_failures = 0;
	s->last_open_error = 0;
	s->depth_truncated = 0;
	walk(s, s->root, c, 0);

	/* Collect first, then free: the iteration must not see half-removed entries. */
	CGROUP_SET_FOREACH(s, cg) {
		if (cg->seen_generation == s->generation)
			continue;
		set_remove(s, cg);
		cg->hash_next = dead;
		dead = cg;
	}
	/* Children may point at a dead parent only if they are dead too; free after callbacks. */
	for (struct cgroup_node *cg = dead; cg; cg = cg->hash_next)
		if (gone)
			gone(cg, userdata);
	while (dead) {
		struct cgroup_node *next = dead->hash_next;

		cgroup_node_free(dead);
		dead = next;
	}
	return (int)MIN(s->n, (size_t)INT32_MAX);
}
