/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trusted_file.c - trusted_open(): opens the configuration file only when nobody but root can
 * change it or any directory the path goes through (trust.h). The path is resolved here, one
 * component at a time, the way the kernel's path walk (fs/namei.c) would: from / (the process's
 * root), "." skipped, ".." to the parent, symlinks followed with their target put in front of
 * what is left. Each component is opened with O_PATH | O_NOFOLLOW relative to the one before and
 * stat'ed through that fd, so a component cannot be swapped between its check and its use; the
 * file is opened for reading relative to the directory that was checked, and the fd that is read
 * is the one whose fstat(2) passed. Nothing here logs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "reclaimd/common.h"
#include "reclaimd/trust.h"

/* MAXSYMLINKS, include/linux/namei.h: the kernel's own limit on links in one resolution. */
#define TRUST_MAX_SYMLINKS 40

/* What is left to resolve grows by a symlink's target (at most PATH_MAX) at each link. */
#define TRUST_TODO_MAX (TRUST_MAX_SYMLINKS * PATH_MAX)

struct walk {
	char resolved[PATH_MAX]; /* the path as resolved so far, for the message: "/", "/etc", ... */
	size_t len;
	unsigned flags;
	struct trust_refusal *refusal;
};

static int push(struct walk *w, const char *name)
{
	size_t n = strlen(name), sep = w->len > 1;

	if (w->len + sep + n >= sizeof(w->resolved))
		return -ENAMETOOLONG;
	if (sep)
		w->resolved[w->len++] = '/';
	memcpy(w->resolved + w->len, name, n + 1);
	w->len += n;
	return 0;
}

static void pop(struct walk *w)
{
	while (w->len > 1 && w->resolved[w->len - 1] != '/')
		w->len--;
	if (w->len > 1)
		w->len--;
	w->resolved[w->len] = '\0';
}

/* fstat(2) and fstatvfs(2) of fd into the decision's input; trust_entry_check() on it. 0, -EPERM
 * with the refusal filled in, or -errno. */
static int check(struct walk *w, int fd, bool last)
{
	struct trust_entry e = { .last = last };
	struct statvfs vfs;
	struct stat st;
	enum trust_verdict v;

	if (fstat(fd, &st) < 0)
		return -errno;
	/* A symlink's mount flags do not matter (its mode is ignored); O_PATH fds of directories
	 * and files answer fstatvfs since Linux 3.12. */
	if ((w->flags & TRUST_READ_ONLY_MOUNTS) && S_ISDIR(st.st_mode) && fstatvfs(fd, &vfs) == 0)
		e.read_only = vfs.f_flag & ST_RDONLY;
	e.uid = st.st_uid;
	e.mode = st.st_mode;
	v = trust_entry_check(&e);
	if (v == TRUST_OK)
		return 0;
	if (w->refusal) {
		snprintf(w->refusal->path, sizeof(w->refusal->path), "%s", w->resolved);
		w->refusal->uid = e.uid;
		w->refusal->mode = e.mode;
		w->refusal->why = v;
	}
	return -EPERM;
}

/* Back to /: the start, and where an absolute symlink target goes. */
static int to_root(struct walk *w, int *cur)
{
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	closep(cur);
	*cur = fd;
	w->resolved[0] = '/';
	w->resolved[1] = '\0';
	w->len = 1;
	return check(w, fd, false);
}

/* `target` followed by what is left of `todo` after `rest`, as the new todo. */
static int follow_link(char **todo, const char *target, const char *rest)
{
	size_t t = strlen(target), r = strlen(rest);
	char *s;

	if (t + 1 + r >= TRUST_TODO_MAX)
		return -ENAMETOOLONG;
	s = malloc(t + 1 + r + 1);
	if (!s)
		return -ENOMEM;
	memcpy(s, target, t);
	s[t] = '/';
	memcpy(s + t + 1, rest, r + 1);
	free(*todo);
	*todo = s;
	return 0;
}

int trusted_open(const char *path, unsigned flags, struct trust_refusal *ret_refusal)
{
	_cleanup_(freep) char *todo = NULL;
	_cleanup_(closep) int cur = -1;
	struct walk w = { .refusal = ret_refusal, .flags = flags };
	unsigned links = 0;
	size_t pos = 0;
	int r;

	if (!path)
		return -EINVAL;
	if (!*path)
		return -ENOENT;
	if (path[0] == '/') {
		todo = strdup(path);
	} else {
		/* Relative to the working directory, whose own path is checked from / too. */
		_cleanup_(freep) char *cwd = getcwd(NULL, 0);

		if (!cwd)
			return -errno;
		if (asprintf(&todo, "%s/%s", cwd, path) < 0)
			todo = NULL;
	}
	if (!todo)
		return -ENOMEM;
	r = to_root(&w, &cur);
	if (r < 0)
		return r;

	for (;;) {
		char name[NAME_MAX + 1];
		_cleanup_(closep) int fd = -1;
		struct stat st;
		size_t n, next;
		bool last;

		while (todo[pos] == '/')
			pos++;
		if (!todo[pos])
			return -EISDIR; /* "/", or a path that ends in "/", ".", ".." */
		n = strcspn(todo + pos, "/");
		if (n > NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(name, todo + pos, n);
		name[n] = '\0';
		for (next = pos + n; todo[next] == '/'; next++)
			;
		last = todo[next] == '\0';
		pos = next;

		if (strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0) {
			fd = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0)
				return -errno;
			pop(&w);
			r = check(&w, fd, false);
			if (r < 0)
				return r;
			closep(&cur);
			cur = fd;
			fd = -1;
			continue;
		}

		fd = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		r = push(&w, name);
		if (r < 0)
			return r;
		if (fstat(fd, &st) < 0)
			return -errno;

		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t k;

			r = check(&w, fd, false);
			if (r < 0)
				return r;
			if (++links > TRUST_MAX_SYMLINKS)
				return -ELOOP;
			/* An O_PATH | O_NOFOLLOW fd of the link with an empty name: the link itself
			 * (readlinkat(2), since Linux 2.6.39). */
			k = readlinkat(fd, "", target, sizeof(target));
			if (k < 0)
				return -errno;
			if ((size_t)k >= sizeof(target))
				return -ENAMETOOLONG;
			if (k == 0)
				return -ENOENT;
			target[k] = '\0';
			r = follow_link(&todo, target, todo + pos);
			if (r < 0)
				return r;
			pos = 0;
			/* A relative target goes on from the link's directory, an absolute one from /. */
			pop(&w);
			if (target[0] == '/') {
				r = to_root(&w, &cur);
				if (r < 0)
					return r;
			}
			continue;
		}
		if (!last) {
			if (!S_ISDIR(st.st_mode))
				return -ENOTDIR;
			r = check(&w, fd, false);
			if (r < 0)
				return r;
			closep(&cur);
			cur = fd;
			fd = -1;
			continue;
		}

		/* The file: a directory or a special file is not read at all (opening a device
		 * can have effects; a FIFO would block). */
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		if (!S_ISREG(st.st_mode))
			return -EBADFD;
		closep(&fd);
		fd = openat(cur, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
		if (fd < 0)
			return -errno;
		r = check(&w, fd, true);
		if (r < 0)
			return r;
		r = fd;
		fd = -1;
		return r;
	}
}
