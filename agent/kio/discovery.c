/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * discovery.c - keeps the set of known cgroups under the cgroup-v2 root it is given, keyed by
 * directory inode (see cgroup.h), matches each to its rule and, every tick, brings the set up
 * to date without listing every directory.
 *
 * libcgroup finds where the memory controller is mounted (cgroup_root.c); reclaimd then walks
 * the tree itself, on directory fds it keeps, with getdents64() and d_type (oomd measured ~10 %
 * less CPU than stat-based walks); it must also run on fixture trees that libcgroup's mount
 * table does not know (--cgroup-root).
 *
 * Change detection: every known directory has an inotify watch for IN_CREATE, IN_DELETE and
 * IN_MOVED_*. A pass reads the queued events and lists only the directories that had a child
 * directory created, removed or renamed, plus new directories, directories it could not watch
 * and, after IN_Q_OVERFLOW, all of them; the rest of the pass runs on the tree in memory. The
 * events come from the VFS, not from the filesystem: vfs_mkdir() and vfs_rmdir() call
 * fsnotify_mkdir()/fsnotify_rmdir() on the parent (fs/namei.c, include/linux/fsnotify.h), and a
 * cgroup is only ever made by mkdir(2) and removed by rmdir(2) on cgroupfs (kernel/cgroup/
 * cgroup.c cgroup_mkdir()/cgroup_rmdir() are kernfs_syscall_ops), so a cgroup made through any
 * cgroup2 mount (they share one superblock, fs/kernfs/mount.c kernfs_test_super()) is reported.
 * A directory's mtime is no substitute: kernfs_add_one() and __kernfs_remove() (fs/kernfs/
 * dir.c) update the parent's times only when its kernfs_iattrs were allocated (by a setattr or
 * an xattr), so a plain cgroup directory keeps the mtime it had when its inode was made; checked
 * on Debian's 6.12 kernel (mkdir/rmdir of a child and a grandchild: mtime and ctime unchanged,
 * IN_CREATE|IN_ISDIR and IN_DELETE|IN_ISDIR delivered, also for mkdir+rmdir+mkdir of one name).
 * cgroup.stat's nr_descendants would miss a cgroup removed and recreated between two passes.
 *
 * Files created inside a cgroup directory (a controller enabled in the parent's
 * cgroup.subtree_control) are made by kernfs directly and raise no event; the memory
 * controller is checked with faccessat() on every pass instead, for cgroups without it.
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
#include <sys/inotify.h>
#include <sys/stat.h>

#include "reclaimd/cgroup.h"

/* Deeper trees are not walked; cgroup.max.depth is unlimited by default, so bound recursion. */
#define MAX_WALK_DEPTH 128
/* getdents64 buffer: one syscall lists ~1000 entries of a typical cgroup directory. */
#define DIRENT_BUF (32 * 1024)
/* inotify read buffer: an event is 16 bytes + a NUL-padded name (a cgroup name is at most
 * NAME_MAX), so 64 KiB holds at least 240 events and usually a tick's worth in one read(). */
#define EVENT_BUF (64 * 1024)
/* Events that say a directory's list of subdirectories changed. IN_ONLYDIR: the watch is only
 * ever set on directories. */
#define WATCH_MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ONLYDIR)

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

static struct cgroup_node *wd_lookup(const struct cgroup_set *s, int wd)
{
	for (struct cgroup_node *cg = s->wd_buckets[hash_inode((uint64_t)wd, s->n_buckets)]; cg;
	     cg = cg->wd_next)
		if (cg->wd == wd)
			return cg;
	return NULL;
}

static void wd_insert(struct cgroup_set *s, struct cgroup_node *cg)
{
	size_t h = hash_inode((uint64_t)cg->wd, s->n_buckets);

	cg->wd_next = s->wd_buckets[h];
	s->wd_buckets[h] = cg;
}

static void wd_remove(struct cgroup_set *s, struct cgroup_node *cg)
{
	struct cgroup_node **p = &s->wd_buckets[hash_inode((uint64_t)cg->wd, s->n_buckets)];

	for (; *p; p = &(*p)->wd_next)
		if (*p == cg) {
			*p = cg->wd_next;
			break;
		}
	cg->wd = -1;
}

static int set_grow(struct cgroup_set *s)
{
	size_t n = s->n_buckets * 2;
	struct cgroup_node **b = calloc(n, sizeof(*b)), **wb = calloc(n, sizeof(*wb));

	if (!b || !wb) {
		free(b);
		free(wb);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->n_buckets; i++) {
		struct cgroup_node *cg, *next;

		for (cg = s->buckets[i]; cg; cg = next) {
			size_t h = hash_inode(cg->inode, n);

			next = cg->hash_next;
			cg->hash_next = b[h];
			b[h] = cg;
		}
		for (cg = s->wd_buckets[i]; cg; cg = next) {
			size_t h = hash_inode((uint64_t)cg->wd, n);

			next = cg->wd_next;
			cg->wd_next = wb[h];
			wb[h] = cg;
		}
	}
	free(s->buckets);
	free(s->wd_buckets);
	s->buckets = b;
	s->wd_buckets = wb;
	s->n_buckets = n;
	return 0;
}

/* Frees the node alone: the caller has taken it out of the hashes and the tree. */
static void cgroup_node_free(struct cgroup_set *s, struct cgroup_node *cg)
{
	cgroup_close_files(cg);
	/* EINVAL when the kernel already dropped the watch (IN_IGNORED not read yet). */
	if (cg->wd >= 0 && s->inotify_fd >= 0)
		(void)inotify_rm_watch(s->inotify_fd, cg->wd);
	if (cg->dirfd >= 0)
		close(cg->dirfd);
	free(cg->aging.cmds);
	free(cg->aging.targets);
	free(cg->tiers.state);
	cold_hist_cgroup_free(cg->coldhist.state);
	free(cg);
}

static int cgroup_node_new(struct cgroup_set *s, uint64_t inode, int dirfd, const char *path,
		      struct cgroup_node *parent, struct cgroup_node **ret)
{
	struct cgroup_node *cg;
	size_t h;

	if (s->n >= s->n_buckets && set_grow(s) < 0)
		return -ENOMEM;
	cg = calloc(1, sizeof(*cg) + strlen(path) + 1);
	if (!cg)
		return -ENOMEM;
	strcpy(cg->path, path);
	workload_recognise(cg->path, &cg->workload);
	if (cg->workload.kind == WORKLOAD_KUBEPODS && !s->kubepods)
		s->kubepods = cg;
	cg->inode = inode;
	cg->dirfd = dirfd;
	cg->parent = parent;
	cg->wd = -1;
	cg->list_pending = true;
	if (parent) {
		cg->next_sibling = parent->first_child;
		if (parent->first_child)
			parent->first_child->prev_sibling = cg;
		parent->first_child = cg;
	}
	cg->files.fd_current = cg->files.fd_stat = cg->files.fd_pressure = cg->files.fd_io_pressure = -1;
	cg->trigger.fd = -1;
	h = hash_inode(inode, s->n_buckets);
	cg->hash_next = s->buckets[h];
	s->buckets[h] = cg;
	s->n++;
	*ret = cg;
	return 0;
}

/* Takes a node out of the inode hash, the watch hash and its parent's list of children. */
static void set_remove(struct cgroup_set *s, struct cgroup_node *cg)
{
	struct cgroup_node **p = &s->buckets[hash_inode(cg->inode, s->n_buckets)];

	for (; *p; p = &(*p)->hash_next)
		if (*p == cg) {
			*p = cg->hash_next;
			s->n--;
			break;
		}
	if (cg->wd >= 0) {
		int wd = cg->wd;

		wd_remove(s, cg);
		cg->wd = wd; /* cgroup_node_free() removes the watch */
	}
	/* Out of the hash now: another kubepods cgroup, if any, takes its place. */
	if (s->kubepods == cg) {
		s->kubepods = NULL;
		CGROUP_SET_FOREACH(s, other)
			if (other->workload.kind == WORKLOAD_KUBEPODS && !s->kubepods)
				s->kubepods = other;
	}
	if (cg->prev_sibling)
		cg->prev_sibling->next_sibling = cg->next_sibling;
	else if (cg->parent && cg->parent->first_child == cg)
		cg->parent->first_child = cg->next_sibling;
	if (cg->next_sibling)
		cg->next_sibling->prev_sibling = cg->prev_sibling;
	cg->prev_sibling = cg->next_sibling = NULL;
}

int cgroup_set_init(struct cgroup_set *s, const char *root_path)
{
	struct stat st;
	int fd, r;

	memset(s, 0, sizeof(*s));
	s->inotify_fd = -1;
	s->n_buckets = 256;
	s->buckets = calloc(s->n_buckets, sizeof(*s->buckets));
	s->wd_buckets = calloc(s->n_buckets, sizeof(*s->wd_buckets));
	if (!s->buckets || !s->wd_buckets) {
		r = -ENOMEM;
		goto fail;
	}
	fd = open(root_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		goto fail;
	}
	r = cgroup_node_new(s, (uint64_t)st.st_ino, fd, "", NULL, &s->root);
	if (r < 0) {
		close(fd);
		goto fail;
	}
	/* Without inotify (EMFILE: fs.inotify.max_user_instances) discovery still works: every
	 * directory then counts as unwatched and is listed every pass. */
	s->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (s->inotify_fd < 0)
		s->last_watch_error = -errno;
	s->config_generation = 1;
	return 0;
fail:
	free(s->buckets);
	free(s->wd_buckets);
	s->buckets = s->wd_buckets = NULL;
	return r;
}

void cgroup_set_done(struct cgroup_set *s)
{
	if (!s->buckets)
		return;
	/* Closing the instance drops every watch at once (fs/notify/inotify/inotify_user.c
	 * inotify_release()). */
	if (s->inotify_fd >= 0)
		close(s->inotify_fd);
	s->inotify_fd = -1;
	CGROUP_SET_FOREACH(s, cg)
		cgroup_node_free(s, cg);
	free(s->buckets);
	free(s->wd_buckets);
	memset(s, 0, sizeof(*s));
	s->inotify_fd = -1;
}

static void match_rule(struct cgroup_node *cg, const struct config *c, unsigned config_generation)
{
	if (cg->rule_generation == config_generation)
		return;
	cg->rule = config_match_workload(c, cg->path, &cg->workload);
	cg->rule_manages = cg->rule && cg->rule->policy && !cg->rule->policy->excludes;
	cg->rule_generation = config_generation;
}

/* Reads the events queued since the last pass and marks the directories they name for
 * listing. IN_IGNORED: the kernel dropped the watch (the directory was removed, or its
 * filesystem unmounted), so the directory is listed every pass until it gets a new one.
 * IN_Q_OVERFLOW (more than fs.inotify.max_queued_events between two passes): events were lost,
 * so every directory is listed. Returns whether everything must be listed. */
static bool read_events(struct cgroup_set *s)
{
	char buf[EVENT_BUF] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool all = false;
	ssize_t n;

	if (s->inotify_fd < 0)
		return false;
	for (;;) {
		n = read(s->inotify_fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* EAGAIN: queue empty */
		for (ssize_t off = 0; off + (ssize_t)sizeof(struct inotify_event) <= n;) {
			const struct inotify_event *ev = (const struct inotify_event *)(buf + off);
			struct cgroup_node *cg;

			off += (ssize_t)(sizeof(*ev) + ev->len);
			if (ev->mask & IN_Q_OVERFLOW) {
				s->event_overflows++;
				all = true;
				continue;
			}
			cg = wd_lookup(s, ev->wd);
			if (!cg) /* a watch removed with its node */
				continue;
			if (ev->mask & IN_IGNORED) {
				wd_remove(s, cg);
				cg->list_pending = true;
			} else if (ev->mask & IN_ISDIR)
				cg->list_pending = true; /* a file: no cgroup came or went */
		}
	}
	if (n < 0 && errno != EAGAIN) /* cannot happen on a valid fd: trust nothing */
		all = true;
	return all;
}

/* Sets the watch through /proc/self/fd, so that it lands on the directory the fd holds even if
 * its name was reused since it was opened (inotify_add_watch() takes a path). Without /proc
 * (ENOENT) or past fs.inotify.max_user_watches (ENOSPC) the directory stays unwatched. */
static void watch(struct cgroup_set *s, struct cgroup_node *cg)
{
	char proc_path[64];
	int wd;

	if (s->inotify_fd < 0)
		return;
	snprintf(proc_path, sizeof(proc_path), "/proc/self/fd/%d", cg->dirfd);
	wd = inotify_add_watch(s->inotify_fd, proc_path, WATCH_MASK);
	if (wd < 0) {
		s->last_watch_error = -errno;
		return;
	}
	/* The same wd comes back for an inode already watched; that is not expected here, since
	 * inodes are unique in the set, but never let two nodes share one. */
	if (wd_lookup(s, wd))
		return;
	cg->wd = wd;
	wd_insert(s, cg);
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

/* The last component of a node's path (the root's is ""). */
static const char *node_name(const struct cgroup_node *cg)
{
	const char *slash = strrchr(cg->path, '/');

	return slash ? slash + 1 : cg->path;
}

/* Lists one directory: children found get listed_generation = this pass, new ones are created
 * (and listed on their turn, this pass). The watch is set before the listing, so that a child
 * made after the listing read its name raises an event for the next pass. A listing that could
 * not take in every child (EMFILE, ENOMEM) leaves the directory pending: listed again next pass,
 * when no event would name it. */
static void list_dir(struct cgroup_set *s, struct cgroup_node *cg)
{
	char buf[DIRENT_BUF];
	ssize_t n;

	if (cg->wd < 0)
		watch(s, cg);
	cg->list_pending = false;
	s->listings++;
	s->listings_total++;
	if (is_leaf_dir(cg->dirfd) || lseek(cg->dirfd, 0, SEEK_SET) != 0)
		return; /* no children; or gone (ENOENT on kernfs): its children go with it */
	while ((n = getdents64(cg->dirfd, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < n;) {
			struct linux_dirent64 *de = (struct linux_dirent64 *)(buf + off);
			struct cgroup_node *child;
			char *path;
			int fd;

			off += de->d_reclen;
			if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			child = cgroup_set_lookup(s, de->d_ino);
			if (child) {
				if (child->parent == cg && strcmp(node_name(child), de->d_name) == 0) {
					child->listed_generation = s->generation;
					continue;
				}
				/* Renamed, moved here, or its inode number reused: cgroup2 has no
				 * rename(2), but a fixture tree does. The node keeps the old path:
				 * it goes (missing from this listing or from its old parent's), and
				 * the next pass lists this directory again to add the new one. */
				cg->list_pending = true;
				continue;
			}
			fd = openat(cg->dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0) {
				/* ENOENT: removed between listing and open. */
				if (errno != ENOENT && errno != ENODEV) {
					s->open_failures++;
					s->last_open_error = -errno;
					cg->list_pending = true;
				}
				continue;
			}
			if (asprintf(&path, "%s%s%s", cg->path, *cg->path ? "/" : "", de->d_name) < 0) {
				close(fd);
				cg->list_pending = true;
				continue;
			}
			if (cgroup_node_new(s, de->d_ino, fd, path, cg, &child) < 0) {
				close(fd);
				free(path);
				cg->list_pending = true;
				continue;
			}
			free(path);
			child->listed_generation = s->generation;
		}
	}
	/* A failed read (other than a removed directory's) misses children: try again. */
	if (n < 0 && errno != ENOENT && errno != ENODEV)
		cg->list_pending = true;
}

/* Visits one cgroup of the tree in memory, listing its directory when needed, and recurses.
 * Returns whether this subtree (including cg) matches a rule. */
static bool visit(struct cgroup_set *s, struct cgroup_node *cg, const struct config *c,
		  unsigned depth, bool list_all)
{
	bool subtree_match = false, listed = false;

	cg->seen_generation = s->generation;
	match_rule(cg, c, s->config_generation);

	/* Memory controller: memory.current exists. Re-checked every pass for cgroups without it,
	 * since a parent may enable +memory in cgroup.subtree_control at any time (kernfs makes
	 * the files itself: no inotify event). */
	if (!cg->has_memory && cg->parent)
		cg->has_memory = faccessat(cg->dirfd, "memory.current", F_OK, 0) == 0;

	cg->walk_truncated = depth >= MAX_WALK_DEPTH;
	if (cg->walk_truncated) {
		s->depth_truncated++;
	} else {
		if (cg->list_pending || cg->wd < 0 || list_all) {
			list_dir(s, cg);
			listed = true;
		}
		if (cg->wd < 0)
			s->unwatched++;
		for (struct cgroup_node *child = cg->first_child; child; child = child->next_sibling) {
			/* Not in this listing: gone, swept with its subtree after the pass. */
			if (listed && child->listed_generation != s->generation)
				continue;
			if (visit(s, child, c, depth + 1, list_all))
				subtree_match = true;
		}
	}

	cg->has_matching_descendant = subtree_match;
	cg->managed = cg->rule_manages && cg->has_memory && !subtree_match && cg->parent &&
		      !cg->walk_truncated; /* unknown descendants: maybe not a leaf */
	if (!cg->managed)
		cgroup_close_files(cg);
	return subtree_match || cg->rule;
}

int cgroup_set_scan(struct cgroup_set *s, const struct config *c, cgroup_gone_fn gone, void *userdata)
{
	struct cgroup_node *dead = NULL;
	bool list_all;

	s->generation++;
	s->open_failures = 0;
	s->last_open_error = 0;
	s->depth_truncated = 0;
	s->unwatched = 0;
	s->listings = 0;
	list_all = read_events(s);
	visit(s, s->root, c, 0, list_all);

	/* Collect first, then free: the iteration must not see half-removed entries. A node not
	 * reached this pass was missing from its parent's listing, or its parent was. */
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

		cgroup_node_free(s, dead);
		dead = next;
	}
	return (int)MIN(s->n, (size_t)INT32_MAX);
}
