/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgroup_root.c - where the cgroup-v2 hierarchy with the memory controller is mounted, asked of
 * libcgroup (which reads /proc/self/mounts and each hierarchy's controllers). Kept apart from
 * discovery.c because libcgroup's own "struct cgroup" is a different thing. And whether a
 * directory given as the root is on a cgroup2 mount at all.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/statfs.h>

#include <linux/magic.h>
#include <libcgroup.h>

#include "reclaimd/cgroup.h"

int cgroup_root_find(char **ret_path)
{
	char *mount = NULL;
	struct statfs sfs;
	int r;

	/* libcgroup answers with its own ECG* codes; all mean "no usable mount". */
	r = cgroup_init();
	if (r != 0)
		return -ENOENT;
	r = cgroup_get_subsys_mount_point("memory", &mount);
	if (r != 0 || !mount)
		return -ENOENT;
	if (statfs(mount, &sfs) < 0) {
		r = -errno;
		free(mount);
		return r;
	}
	if ((uint64_t)sfs.f_type != CGROUP2_SUPER_MAGIC) {
		/* The memory controller is bound to a cgroup-v1 hierarchy. */
		free(mount);
		return -EMEDIUMTYPE;
	}
	*ret_path = mount;
	return 0;
}


int cgroup_root_check_fd(int dirfd, uint64_t *ret_fs_type)
{
	struct statfs sfs;

	if (fstatfs(dirfd, &sfs) < 0)
		return -errno;
	if (ret_fs_type)
		*ret_fs_type = (uint64_t)sfs.f_type;
	return (uint64_t)sfs.f_type == CGROUP2_SUPER_MAGIC ? 0 : -EMEDIUMTYPE;
}

const char *fs_type_name(uint64_t f_type)
{
	/* The file systems a mistaken --cgroup-root is likely to be on (include/uapi/linux/magic.h). */
	static const struct {
		uint64_t magic;
		const char *name;
	} names[] = {
		{ CGROUP2_SUPER_MAGIC, "cgroup2" },
		{ CGROUP_SUPER_MAGIC, "a cgroup-v1 hierarchy" },
		{ TMPFS_MAGIC, "tmpfs" },
		{ EXT4_SUPER_MAGIC, "ext2/ext3/ext4" },
		{ XFS_SUPER_MAGIC, "xfs" },
		{ BTRFS_SUPER_MAGIC, "btrfs" },
		{ OVERLAYFS_SUPER_MAGIC, "overlayfs" },
		{ PROC_SUPER_MAGIC, "procfs" },
		{ SYSFS_MAGIC, "sysfs" },
		{ NFS_SUPER_MAGIC, "nfs" },
		{ SQUASHFS_MAGIC, "squashfs" },
		{ RAMFS_MAGIC, "ramfs" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].magic == f_type)
			return names[i].name;
	return "another file system";
}
