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
static const char *dir_verdict(const struct stat *st, bool last)
{
	bool sticky = st->st_mode & S_ISVTX;

	if (!S_ISDIR(st->st_mode))
		return "is not a directory";
	if (!own_uid(st->st_uid))
		return "is not owned by root";
	if ((st->st_mode & S_IWOTH) && (last || !sticky))
		return last && sticky ? "is writable by others (sticky, like /tmp)" :
					"is writable by others";
	if ((st->st_mode & S_IWGRP) && (last || !sticky))
		return "is writable by its group";
	return NULL;
}

static int dir_check(int fd, const char *path, bool last, char *why, size_t size)
{
	struct stat st;
	const char *v;

	if (fstat(fd, &st) < 0)
		return fail(-errno, why, size, "%s: cannot stat it: %s", path, strerror(errno));
	v = dir_verdict(&st, last);
	if (!v)
		return 0;
	return fail(-EPERM, why, size, "%s %s (owner uid %u, mode %04o)", path, v,
		    (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
}

/* The path as walked so far, for messages: `name` appended to `shown` (".." drops the last
 * component, as the walk does). */
static void shown_push(char *shown, size_t size, const char *name)
{
	size_t len = strlen(shown);

	if (strcmp(name, "..") == 0) {
		char *slash = strrchr(shown, '/');

		if (slash && slash != shown)
			*slash = '\0';
		else
			strcpy(shown, "/");
		return;
	}
	if (strcmp(name, ".") == 0)
		return;
	snprintf(shown + len, size - len, "%s%s", len > 1 ? "/" : "", name);
}

/* At most this many symlinks are followed on one path (the kernel's MAXSYMLINKS, 40). */
#define LINKS_MAX 40

int safe_dir_open(const char *dir, unsigned flags, char *why, size_t why_size)
{
	char todo[2 * PATH_MAX], shown[PATH_MAX];
	bool check = !(flags & SAFE_DIR_ANY_OWNER);
	_cleanup_(closep) int cur = -1;
	size_t pos = 0;
	int links = 0, r;

	if (!dir || dir[0] != '/')
		return fail(-EINVAL, why, why_size, "%s: not an absolute path", dir ? dir : "(null)");
	if (strlen(dir) >= PATH_MAX)
		return fail(-ENAMETOOLONG, why, why_size, "%s: path too long", dir);
	strcpy(todo, dir);
	strcpy(shown, "/");
	cur = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return fail(-errno, why, why_size, "/: %s", strerror(errno));
	if (check) {
		r = dir_check(cur, "/", !todo[strspn(todo, "/")], why, why_size);
		if (r < 0)
			return r;
	}

	/* One component at a time, each opened relative to the one before with O_NOFOLLOW and
	 * checked through the fd that was opened. A symlink is seen through an O_PATH fd: followed
	 * (its target put in front of what is left) only when root or the daemon owns it. A
	 * directory made here is opened again with O_NOFOLLOW, so a symlink raced into its place
	 * fails (ELOOP, ENOTDIR) and is refused. */
	for (;;) {
		char name[NAME_MAX + 1], target[PATH_MAX];
		_cleanup_(closep) int link_fd = -1;
		struct stat st;
		bool last, made = false;
		size_t n;
		ssize_t tn;
		int fd;

		while (todo[pos] == '/')
			pos++;
		if (!todo[pos])
			break;
		n = strcspn(todo + pos, "/");
		if (n > NAME_MAX)
			return fail(-ENAMETOOLONG, why, why_size, "%s: name too long", dir);
		memcpy(name, todo + pos, n);
		name[n] = '\0';
		pos += n;
		last = !todo[pos + strspn(todo + pos, "/")];

		link_fd = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (link_fd < 0 && errno == ENOENT && (flags & SAFE_DIR_CREATE)) {
			if (mkdirat(cur, name, 0755) == 0)
				made = true;
			else if (errno != EEXIST)
				return fail(-errno, why, why_size, "cannot make %s%s%s: %s", shown,
					    strcmp(shown, "/") ? "/" : "", name, strerror(errno));
		} else if (link_fd < 0) {
			return fail(-errno, why, why_size, "%s%s%s: %s", shown,
				    strcmp(shown, "/") ? "/" : "", name, strerror(errno));
		} else if (fstat(link_fd, &st) < 0) {
			return fail(-errno, why, why_size, "%s: %s", dir, strerror(errno));
		} else if (S_ISLNK(st.st_mode)) {
			size_t rest_len = strlen(todo + pos);

			shown_push(shown, sizeof(shown), name);
			if (!own_uid(st.st_uid))
				return fail(-EPERM, why, why_size,
					    "%s is a symlink not owned by root (owner uid %u)", shown,
					    (unsigned)st.st_uid);
			if (++links > LINKS_MAX)
				return fail(-ELOOP, why, why_size, "%s: too many symlinks", dir);
			tn = readlinkat(link_fd, "", target, sizeof(target));
			if (tn < 0)
				return fail(-errno, why, why_size, "%s: %s", shown, strerror(errno));
			if ((size_t)tn >= sizeof(target) || (size_t)tn + 1 + rest_len >= sizeof(todo))
				return fail(-ENAMETOOLONG, why, why_size, "%s: path too long", dir);
			target[tn] = '\0';
			/* todo becomes target + "/" + the rest. */
			memmove(todo + (size_t)tn + 1, todo + pos, rest_len + 1);
			memcpy(todo, target, (size_t)tn);
			todo[tn] = '/';
			pos = 0;
			if (target[0] == '/') {
				fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
				if (fd < 0)
					return fail(-errno, why, why_size, "/: %s", strerror(errno));
				close(cur);
				cur = fd;
				strcpy(shown, "/");
			} else {
				/* Relative: resolved from the directory the link is in. */
				char *slash = strrchr(shown, '/');

				if (slash && slash != shown)
					*slash = '\0';
				else
					strcpy(shown, "/");
			}
			continue;
		}
		fd = openat(cur, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		shown_push(shown, sizeof(shown), name);
		if (fd < 0)
			return fail(-errno, why, why_size, "%s: %s", shown,
				    errno == ELOOP ? "a symlink here, not a directory" :
				    strerror(errno));
		close(cur);
		cur = fd;
		if (made && fchmod(cur, 0755) < 0)
			return fail(-errno, why, why_size, "%s: cannot set mode 0755: %s", shown,
				    strerror(errno));
		if (check) {
			r = dir_check(cur, shown, last, why, why_size);
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
		/* A read-only file system: flock(2) takes a descriptor opened for reading too. */
		if (fd == -EROFS)
			fd = open_checked(dirfd, name, O_RDONLY, why, why_size);
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
		if (e == EWOULDBLOCK && *ret_holder > 0)
			return fail(-EBUSY, why, why_size, "%s is locked by pid %ld", name, *ret_holder);
		if (e == EWOULDBLOCK)
			return fail(-EBUSY, why, why_size, "%s is locked by another process (its pid "
				    "could not be written: the file system was full or read-only)", name);
		return fail(-e, why, why_size, "cannot lock %s: %s", name, strerror(e));
	}
	/* The pid only names the holder in a second instance's message: the lock is the flock,
	 * held whether or not it can be written (a full or read-only file system, where the state
	 * file's records fail too and changes are held back, record_first.h). */
	n = snprintf(text, sizeof(text), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, text, (size_t)n, 0) != n) {
		/* Left as it is (empty, or a partial pid a reader's strtol() stops in). */
	}
	return fd;
}
