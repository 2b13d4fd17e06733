/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trust.h - whether a file can be trusted as reclaimd's configuration: only root may be able to
 * change it. The decision on one path component is pure (policies/trust.c); the walk that meets
 * the components one by one, following symlinks, and opens the file it checked is
 * agent/kio/trusted_file.c.
 *
 * The rule, applied to every component the kernel's own resolution of the path would meet (every
 * directory from / down, every symlink and what it leads to, the file itself):
 *  - everything must be owned by root (uid 0): the owner can chmod it;
 *  - the file must be a regular file that neither its group nor others can write;
 *  - a directory must not be writable by its group or others, with two exceptions:
 *     * the sticky bit (/tmp, 1777): in a sticky directory only the owner of an entry, the
 *       directory's owner or CAP_FOWNER may remove or rename it (fs/namei.c, may_delete() and
 *       __check_sticky()), so a root-owned entry in a root-owned sticky directory can only be
 *       replaced by root; whatever another user puts there is theirs, and the next component's
 *       owner check refuses it. (A hard link to a root-owned file is refused to other users by
 *       fs.protected_hardlinks=1, the default of systemd and Debian);
 *     * only when the caller asks for it (--trust-read-only-mounts): a directory on a read-only
 *       mount, through which nothing can create, remove or rename an entry. This is how a
 *       container gets its configuration: Kubernetes mounts a ConfigMap volume read-only, and its
 *       top directory is 0777 (kubernetes/kubernetes#125876). It is not the default because a
 *       read-only mount is only this mount namespace's view: the same directory may be writable
 *       through another mount of it (systemd's ProtectSystem=strict makes every directory of the
 *       service read-only while the host's users still reach them); only the operator knows that
 *       the mount's source is root's alone (the kubelet's pod directories are).
 *  - a symlink's own mode means nothing; it must be owned by root (another user's link could
 *    point anywhere), and the directories on the way to its target are checked like any other.
 */
#ifndef RECLAIMD_TRUST_H
#define RECLAIMD_TRUST_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

/* One component as lstat(2)/fstat(2) and fstatvfs(2) show it. */
struct trust_entry {
	uint32_t uid;       /* st_uid */
	uint32_t mode;      /* st_mode: type and permission bits */
	bool read_only;     /* on a read-only mount (ST_RDONLY), and read-only mounts are trusted */
	bool last;          /* the file itself, not a directory or symlink on the way to it */
};

enum trust_verdict {
	TRUST_OK,
	TRUST_NOT_ROOT_OWNED,    /* st_uid != 0 */
	TRUST_GROUP_WRITABLE,    /* S_IWGRP, and (a directory) neither sticky nor read-only */
	TRUST_OTHERS_WRITABLE,   /* S_IWOTH, likewise */
	TRUST_NOT_REGULAR,       /* the last component is not a regular file */
	TRUST_NOT_DIRECTORY,     /* a component before the last is neither directory nor symlink */
	_TRUST_VERDICT_MAX,
};

/* The verdict on one component (the rule above). Writable by others wins over by the group. */
enum trust_verdict trust_entry_check(const struct trust_entry *e);

/* "is not owned by root", "is writable by its group", ...: a predicate for "<path> %s". */
const char *trust_verdict_to_string(enum trust_verdict v);

/* ---- agent/kio/trusted_file.c -------------------------------------------------------------- */

/* The component refused, for the message: its path as resolved, its owner and mode. */
struct trust_refusal {
	char path[PATH_MAX];
	uint32_t uid;
	uint32_t mode;             /* st_mode; print mode & 07777 in octal */
	enum trust_verdict why;
};

/* trusted_open()'s flags. */
enum {
	TRUST_READ_ONLY_MOUNTS = 1 << 0, /* a directory on a read-only mount may be writable */
};

/* Opens `path` for reading (O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK) once every component
 * has passed trust_entry_check() (with read_only set only under TRUST_READ_ONLY_MOUNTS). The components are resolved one at a time from / (a relative
 * path from the working directory, itself checked from /) with O_PATH | O_NOFOLLOW, symlinks
 * followed by hand (at most 40, MAXSYMLINKS of include/linux/namei.h), so what is checked is what
 * is opened, and the returned fd is the one whose fstat(2) passed. Returns the fd; -EPERM with
 * *ret_refusal filled when a component is refused; -ELOOP past 40 symlinks; -EISDIR when the
 * path names a directory; -ENAMETOOLONG; else -errno of the failed open/stat/readlink. */
int trusted_open(const char *path, unsigned flags, struct trust_refusal *ret_refusal);

#endif
