/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * safe_file.h - opening, creating and replacing the files the daemon owns (the state file, its
 * lock, the textfile output, the status socket's directory) when the path may be reachable by
 * other local users. Implemented in agent/kio/safe_file.c; nothing there logs.
 *
 * The rules:
 *  - a directory that holds such a file is opened once (safe_dir_open()) and every file in it is
 *    reached relative to that fd with O_NOFOLLOW (openat(2)), so a symlink swapped in later is
 *    never followed;
 *  - the path is walked one component at a time from "/", each opened relative to the one
 *    before with O_NOFOLLOW (openat(2)); a symlink met on the way is followed (readlinkat(2))
 *    only when root or the daemon's uid owns it, so no check is separated from its use;
 *  - that directory must be owned by root or by the daemon's effective uid, and writable by
 *    nobody else: not by others (a sticky /tmp-like directory is refused too), not by its group.
 *    Every directory above it must be owned by root or the daemon's uid and writable by nobody
 *    else unless sticky (fs/namei.c may_delete(): a sticky directory's entries are removed or
 *    renamed only by their owner). This is sshd's StrictModes rule applied to where the daemon
 *    writes. SAFE_DIR_ANY_OWNER drops the owner and mode checks (a directory another user
 *    provides, such as node_exporter's textfile directory) but not the symlink rule;
 *  - a file is never opened in a way that can block or have effects: a FIFO or a device is seen
 *    through an O_PATH fd (fstat) and refused before any open for reading or writing; every open
 *    for I/O has O_NONBLOCK (fifo(7): an O_NONBLOCK open of a FIFO never waits for its peer);
 *  - a file that is read must be a regular file owned by the daemon's uid with one link;
 *  - a file is replaced by writing a temporary file created with O_CREAT | O_EXCL (which never
 *    follows a symlink nor opens what exists, open(2)) under an unpredictable name (getrandom(2)),
 *    then renameat(2) over the name; with SAFE_DURABLE the file is fsync'd before the rename and
 *    the directory after it, and the replacement counts as made only when both succeeded;
 *  - one daemon per lock file: flock(2) LOCK_EX | LOCK_NB, which the kernel drops when the holder
 *    dies however it dies, so a restart after SIGKILL takes it at once.
 *
 * Errors are -errno. A refusal is -EPERM, with `why` (when given) holding one line that names the
 * path, the owner (uid) and the mode (octal), e.g. "/tmp/x is writable by others (owner uid 0,
 * mode 1777)". Other failures fill `why` with the path and strerror.
 */
#ifndef RECLAIMD_SAFE_FILE_H
#define RECLAIMD_SAFE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* safe_dir_open()'s flags. */
enum {
	SAFE_DIR_CREATE = 1 << 0,    /* make missing directories (mode 0755, whatever the umask) */
	SAFE_DIR_ANY_OWNER = 1 << 1, /* no owner or mode checks; symlinks still only root's */
};

/* safe_replace()'s flags. */
enum {
	SAFE_DURABLE = 1 << 0, /* fsync the file before the rename and the directory after it */
};

/* Opens the directory `dir` (absolute) under the rules above and returns its fd (O_RDONLY |
 * O_DIRECTORY | O_CLOEXEC), or -errno: -EPERM when it or a directory above it is refused or
 * when a symlink on the way is not root's or the daemon's, -ELOOP when a symlink appears where
 * a directory was just made (or more than 40 are met), -ENOENT when missing without
 * SAFE_DIR_CREATE, -ENOTDIR, -EINVAL for a relative path. */
int safe_dir_open(const char *dir, unsigned flags, char *why, size_t why_size);

/* Splits `path` (absolute, not ending in '/') into its directory, copied to dir[dir_size], and
 * its last component, returned as a pointer into `path`. NULL when the path is relative, ends in
 * '/', its last component is "." or "..", or the directory does not fit. */
const char *safe_path_split(const char *path, char *dir, size_t dir_size);

/* Opens `name` in `dirfd` for reading (O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC) when it is
 * a regular file owned by the daemon's effective uid with exactly one link. Returns the fd;
 * -ENOENT when there is none; -ELOOP for a symlink; -EBADFD for anything that is not a regular
 * file (never opened for I/O); -EPERM for another owner or more than one link; else -errno. */
int safe_open_read(int dirfd, const char *name, char *why, size_t why_size);

/* Replaces `name` in `dirfd` by `len` bytes of `buf` with mode `mode` (the umask does not apply):
 * a temporary "<name>.tmp-XXXXXXXX" (8 random letters and digits) is made exclusively, written,
 * and renamed over `name`; whatever `name` was (a symlink, a FIFO) is replaced, never opened.
 * With SAFE_DURABLE, fsync(2) of the file and of the directory. On failure the temporary file is
 * removed and `name` is as it was. 0 or -errno (-ENAMETOOLONG when the temporary name passes
 * NAME_MAX). */
int safe_replace(int dirfd, const char *name, const void *buf, size_t len, mode_t mode,
		 unsigned flags, char *why, size_t why_size);

/* Takes the lock file `name` in `dirfd` (made 0600 when missing; refused like safe_open_read()
 * when it is not a regular file of the daemon's uid with one link; an existing one on a read-only
 * file system is opened for reading) with flock(LOCK_EX | LOCK_NB) and writes the caller's pid in
 * it ("<pid>\n"; left empty when the file system is full or read-only: the lock holds anyway).
 * Returns the fd, which holds the lock until it is closed (or the process ends); -EBUSY when
 * another process holds it, with *ret_holder set to the pid written in the file (0 when it cannot
 * be read); else -errno (-EROFS: no lock file and a read-only file system to make it in). */
int safe_lock(int dirfd, const char *name, long *ret_holder, char *why, size_t why_size);

#endif
