/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * safe_file.c - the files the daemon owns, opened, created and replaced without following a
 * symlink, without blocking on a FIFO and only in directories nobody else can write
 * (safe_file.h has the rules). Nothing here logs: refusals are returned as text.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "reclaimd/common.h"
#include "reclaimd/safe_file.h"

_printf_(4, 5) static int fail(int err, char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (why && size) {
		va_start(ap, fmt);
		vsnprintf(why, size, fmt, ap);
		va_end(ap);
	}
	return err;
}

static bool own_uid(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/* The verdict on one directory of the path: `last` is the one the files are in. NULL: accepted;
 * else a predicate for "<path> %s". */
static const char *dir_verdict(const struct stat *st, bool last, gid_t group)
{
	bool sticky = st->st_mode & S_ISVTX;

	if (!S_ISDIR(st->st_mode))
		return "is not a directory";
	if (!own_uid(st->st_uid))
		return "is not owned by root";
	if ((st->st_mode & S_IWOTH) && (last || !sticky))
		return last && sticky ? "is writable by others (sticky, like /tmp)" :
					"is writable by others";
	if ((st->st_mode & S_IWGRP) &&
	    (last ? group == (gid_t)-1 || st->st_gid != group : !sticky))
		return "is writable by its group";
	return NULL;
}

static int dir_check(int fd, const char *path, bool last, gid_t group, char *why, size_t size)
{
	struct stat st;
	const char *v;

	if (fstat(fd, &st) < 0)
		return fail(-errno, why, size, "%s: cannot stat it: %s", path, strerror(errno));
	v = dir_verdict(&st, last, group);
	if (!v)
		return 0;
	return fail(-EPERM, why, size, "%s %s (owner uid %u, mode %04o)", path, v,
		    (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
}

/* Every symlink met on the way along `dir` as written must be root's or the daemon's: realpath()
 * below follows them, and another user's link could lead anywhere. */
static int links_check(const char *dir, char *why, size_t size)
{
	char p[PATH_MAX];
	size_t n = strlen(dir);

	if (n >= sizeof(p))
		return fail(-ENAMETOOLONG, why, size, "%s: path too long", dir);
	for (size_t i = 1; i <= n; i++) {
		struct stat st;

		if (i < n && dir[i] != '/')
			continue;
		memcpy(p, dir, i);
		p[i] = '\0';
		if (lstat(p, &st) < 0)
			return errno == ENOENT ? 0 : fail(-errno, why, size, "%s: %s", p, strerror(errno));
		if (S_ISLNK(st.st_mode) && !own_uid(st.st_uid))
			return fail(-EPERM, why, size, "%s is a symlink not owned by root (owner uid %u)",
				    p, (unsigned)st.st_uid);
	}
	return 0;
}

int safe_dir_open(const char *dir, unsigned flags, gid_t group, char *why, size_t why_size)
{
	char canon[PATH_MAX], head[PATH_MAX], shown[PATH_MAX];
	_cleanup_(closep) int cur = -1;
	const char *rest;
	size_t pos, shown_len;
	int r;

	if (!dir || dir[0] != '/')
		return fail(-EINVAL, why, why_size, "%s: not an absolute path", dir ? dir : "(null)");
	if (strlen(dir) >= sizeof(head))
		return fail(-ENAMETOOLONG, why, why_size, "%s: path too long", dir);
	r = links_check(dir, why, why_size);
	if (r < 0)
		return r;

	/* The longest part that exists, resolved; what follows it is made below. */
	strcpy(head, dir);
	while (!realpath(head, canon)) {
		char *slash;

		if (errno != ENOENT || !(flags & SAFE_DIR_CREATE))
			return fail(-errno, why, why_size, "%s: %s", head, strerror(errno));
		slash = strrchr(head, '/');
		if (slash == head)
			head[1] = '\0';
		else
			*slash = '\0';
	}
	rest = dir + strlen(head);

	cur = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return fail(-errno, why, why_size, "/: %s", strerror(errno));
	strcpy(shown, "/");
	shown_len = 1;
	r = dir_check(cur, "/", strcmp(canon, "/") == 0 && !rest[strspn(rest, "/")], group, why,
		      why_size);
	if (r < 0)
		return r;

	/* canon, then rest: each component opened relative to the one before, never through a
	 * symlink (O_NOFOLLOW), and checked through the fd that was opened. */
	for (int part = 0; part < 2; part++) {
		const char *s = part == 0 ? canon : rest;

		pos = 0;
		for (;;) {
			char name[NAME_MAX + 1];
			size_t n;
			bool made = false, last;
			int fd;

			while (s[pos] == '/')
				pos++;
			if (!s[pos])
				break;
			n = strcspn(s + pos, "/");
			if (n > NAME_MAX)
				return fail(-ENAMETOOLONG, why, why_size, "%s: name too long", dir);
			memcpy(name, s + pos, n);
			name[n] = '\0';
			pos += n;
			if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
				return fail(-EINVAL, why, why_size,
					    "%s: \".\" or \"..\" in a directory to be made", dir);
			last = !s[pos + strspn(s + pos, "/")] &&
			       (part == 1 || !rest[strspn(rest, "/")]);
			if (shown_len + 1 + n >= sizeof(shown))
				return fail(-ENAMETOOLONG, why, why_size, "%s: path too long", dir);
			if (shown_len > 1)
				shown[shown_len++] = '/';
			memcpy(shown + shown_len, name, n + 1);
			shown_len += n;
			if (part == 1) {
				if (mkdirat(cur, name, 0755) == 0)
					made = true;
				else if (errno != EEXIST)
					return fail(-errno, why, why_size, "cannot make %s: %s", shown,
						    strerror(errno));
			}
			fd = openat(cur, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0)
				return fail(-errno, why, why_size, "%s: %s", shown,
					    errno == ELOOP ? "a symlink here, not a directory" :
					    strerror(errno));
			close(cur);
			cur = fd;
			if (made && fchmod(cur, 0755) < 0)
				return fail(-errno, why, why_size, "%s: cannot set mode 0755: %s", shown,
					    strerror(errno));
			r = dir_check(cur, shown, last, group, why, why_size);
			if (r < 0)
				return r;
		}
	}
	r = cur;
	cur = -1;
	return r;
}

const char *safe_path_split(const char *path, char *dir, size_t dir_size)
{
	const char *slash, *name;
	size_t n;

	if (!path || path[0] != '/')
		return NULL;
	slash = strrchr(path, '/');
	name = slash + 1;
	if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return NULL;
	n = slash == path ? 1 : (size_t)(slash - path);
	if (n >= dir_size)
		return NULL;
	memcpy(dir, path, n);
	dir[n] = '\0';
	return name;
}

/* What is at `name` in `dirfd`, seen through an O_PATH fd (nothing is opened for I/O). */
static int peek(int dirfd, const char *name, struct stat *st)
{
	_cleanup_(closep) int fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	return fstat(fd, st) < 0 ? -errno : 0;
}

/* The checks of a file the daemon reads or locks: regular, the daemon's, one link. */
static int file_verdict(const struct stat *st, const char *name, char *why, size_t size)
{
	if (S_ISLNK(st->st_mode))
		return fail(-ELOOP, why, size, "%s is a symlink", name);
	if (!S_ISREG(st->st_mode))
		return fail(-EBADFD, why, size, "%s is not a regular file (%s)", name,
			    S_ISFIFO(st->st_mode) ? "a FIFO" : S_ISSOCK(st->st_mode) ? "a socket" :
			    S_ISDIR(st->st_mode) ? "a directory" : "a device");
	if (st->st_uid != geteuid())
		return fail(-EPERM, why, size, "%s is not owned by uid %u (owner uid %u, mode %04o)",
			    name, (unsigned)geteuid(), (unsigned)st->st_uid,
			    (unsigned)(st->st_mode & 07777));
	if (st->st_nlink != 1)
		return fail(-EPERM, why, size, "%s has %lu links, not 1", name,
			    (unsigned long)st->st_nlink);
	return 0;
}

/* Opens `name` with `oflags` (O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY added) once an
 * O_PATH look showed a file that passes file_verdict(); the fd opened must be that same file. */
static int open_checked(int dirfd, const char *name, int oflags, char *why, size_t size)
{
	struct stat before, after;
	int fd, r;

	r = peek(dirfd, name, &before);
	if (r < 0)
		return fail(r, why, size, "%s: %s", name, strerror(-r));
	r = file_verdict(&before, name, why, size);
	if (r < 0)
		return r;
	fd = openat(dirfd, name, oflags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return fail(-errno, why, size, "%s: %s", name, strerror(errno));
	if (fstat(fd, &after) < 0 || after.st_dev != before.st_dev || after.st_ino != before.st_ino ||
	    file_verdict(&after, name, why, size) < 0) {
		close(fd);
		return fail(-EAGAIN, why, size, "%s changed while it was opened", name);
	}
	return fd;
}

int safe_open_read(int dirfd, const char *name, char *why, size_t why_size)
{
	return open_checked(dirfd, name, O_RDONLY, why, why_size);
}

/* 8 letters and digits from getrandom(2); the clock and a counter when it cannot answer. */
static void random_suffix(char out[9])
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static unsigned counter;
	unsigned char b[8];

	if (getrandom(b, sizeof(b), GRND_NONBLOCK) != (ssize_t)sizeof(b)) {
		struct timespec ts;
		uint64_t x;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		x = (uint64_t)ts.tv_nsec * 2654435761u ^ (uint64_t)getpid() << 20 ^ ++counter;
		for (size_t i = 0; i < sizeof(b); i++, x >>= 8)
			b[i] = (unsigned char)x;
	}
	for (size_t i = 0; i < sizeof(b); i++)
		out[i] = abc[b[i] % (sizeof(abc) - 1)];
	out[8] = '\0';
}

int safe_replace(int dirfd, const char *name, const void *buf, size_t len, mode_t mode,
		 unsigned flags, char *why, size_t why_size)
{
	char tmp[NAME_MAX + 1], suffix[9];
	struct stat st;
	int fd = -1, r = 0;

	if (strlen(name) + strlen(".tmp-") + 8 > NAME_MAX)
		return fail(-ENAMETOOLONG, why, why_size, "%s: name too long for a temporary file",
			    name);
	for (int i = 0; i < 100 && fd < 0; i++) {
		random_suffix(suffix);
		snprintf(tmp, sizeof(tmp), "%s.tmp-%s", name, suffix);
		fd = openat(dirfd, tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return fail(-errno, why, why_size, "cannot create %s: %s", tmp,
				    strerror(errno));
	}
	if (fd < 0)
		return fail(-EEXIST, why, why_size, "%s: no free temporary name in 100 tries", name);
	if (fstat(fd, &st) < 0)
		r = fail(-errno, why, why_size, "%s: %s", tmp, strerror(errno));
	else if (file_verdict(&st, tmp, why, why_size) < 0)
		r = -EPERM;
	else if (fchmod(fd, mode & 07777) < 0)
		r = fail(-errno, why, why_size, "%s: cannot set its mode: %s", tmp, strerror(errno));
	else if ((r = write_all(fd, buf, len)) < 0)
		fail(r, why, why_size, "cannot write %s: %s", tmp, strerror(-r));
	else if ((flags & SAFE_DURABLE) && fsync(fd) < 0)
		r = fail(-errno, why, why_size, "cannot fsync %s: %s", tmp, strerror(errno));
	if (close(fd) < 0 && r == 0)
		r = fail(-errno, why, why_size, "cannot write %s: %s", tmp, strerror(errno));
	if (r == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
		r = fail(-errno, why, why_size, "cannot rename %s to %s: %s", tmp, name,
			 strerror(errno));
	if (r < 0) {
		(void)unlinkat(dirfd, tmp, 0);
		return r;
	}
	if ((flags & SAFE_DURABLE) && fsync(dirfd) < 0)
		return fail(-errno, why, why_size, "cannot fsync the directory of %s: %s", name,
			    strerror(errno));
	return 0;
}

int safe_lock(int dirfd, const char *name, long *ret_holder, char *why, size_t why_size)
{
	char text[32];
	ssize_t n;
	int fd;

	*ret_holder = 0;
	fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		    0600);
	if (fd < 0 && errno != EEXIST)
		return fail(-errno, why, why_size, "cannot create %s: %s", name, strerror(errno));
	if (fd < 0) {
		fd = open_checked(dirfd, name, O_RDWR, why, why_size);
		if (fd < 0)
			return fd;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;

		n = pread(fd, text, sizeof(text) - 1, 0);
		if (n > 0) {
			text[n] = '\0';
			*ret_holder = strtol(text, NULL, 10);
		}
		close(fd);
		if (e == EWOULDBLOCK)
			return fail(-EBUSY, why, why_size, "%s is locked by pid %ld", name, *ret_holder);
		return fail(-e, why, why_size, "cannot lock %s: %s", name, strerror(e));
	}
	n = snprintf(text, sizeof(text), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, text, (size_t)n, 0) != n) {
		int e = errno;

		close(fd);
		return fail(-e, why, why_size, "cannot write %s: %s", name, strerror(e));
	}
	return fd;
}
