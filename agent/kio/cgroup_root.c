/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgroup_root.c - where the cgroup-v2 hierarchy with the memory controller is mounted, asked of
 * libcgroup (which reads /proc/self/mounts and each hierarchy's controllers). Kept apart from
 * discovery.c because libcgroup's own "struct cgroup" is a different thing.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/statfs.h>

#include <libcgroup.h>

#include "reclaimd/cgroup.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270 /* include/uapi/linux/magic.h */
#endif

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

