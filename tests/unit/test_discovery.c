/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_discovery.c - discovery and the per-cgroup reader on a generated cgroupfs tree (tmpfs or
 * any directory): rule matching, the deepest-match rule, cgroups without the memory controller,
 * identity by inode, cgroups removed between listing and reading, and which directories a pass
 * lists (only those whose inotify watch saw a child directory come or go, new ones, and all of
 * them without inotify).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "reclaimd/cgroup.h"
#include "test.h"

static char root[256];

static void put(const char *rel, const char *name, const char *content)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", rel, name);
	if (!test_write_str(root, path, content))
		exit(1);
}

/* A cgroup directory; with_memory adds the memory controller's files. */
static void mkcg(const char *rel, bool with_memory, unsigned current_mib)
{
	char path[1024], buf[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		perror(path);
		exit(1);
	}
	put(rel, "cgroup.procs", "");
	put(rel, "io.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=100\n"
				"full avg10=0.00 avg60=0.00 avg300=0.00 total=50\n");
	if (!with_memory)
		return;
	snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)current_mib << 20);
	put(rel, "memory.current", buf);
	snprintf(buf, sizeof(buf), "anon %llu\nfile %llu\nkernel 0\nshmem 0\npgscan 0\npgsteal 7\n"
		 "workingset_refault_anon 3\nworkingset_refault_file 4\n",
		 (unsigned long long)current_mib << 19, (unsigned long long)current_mib << 19);
	put(rel, "memory.stat", buf);
	put(rel, "memory.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=1234\n"
				    "full avg10=0.00 avg60=0.00 avg300=0.00 total=1000\n");
	put(rel, "memory.min", "0\n");
	put(rel, "memory.low", "0\n");
	put(rel, "memory.high", "max\n");
	put(rel, "memory.max", "max\n");
	put(rel, "memory.swap.current", "0\n");
	put(rel, "memory.swap.max", "max\n");
	put(rel, "memory.zswap.current", "0\n");
	put(rel, "memory.zswap.max", "max\n");
	put(rel, "memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n");
	put(rel, "memory.numa_stat", "anon N0=1024 N1=2048\nfile N0=4096 N1=0\n");
}

static int rm_entry(const char *p, const struct stat *sb _unused_, int flag _unused_,
		    struct FTW *ftw _unused_)
{
	return remove(p);
}

static void rmtree(const char *rel)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static struct config *load(const char *json)
{
	struct config *c = NULL;
	struct config_error err;

	if (config_load_string(json, &c, &err) < 0) {
		fprintf(stderr, "config: %s\n", err.text);
		exit(1);
	}
	return c;
}

static struct cgroup_node *find(struct cgroup_set *s, const char *path)
{
	CGROUP_SET_FOREACH(s, cg)
		if (strcmp(cg->path, path) == 0)
			return cg;
	return NULL;
}

static size_t n_managed(struct cgroup_set *s)
{
	size_t n = 0;

	CGROUP_SET_FOREACH(s, cg)
		n += cg->managed;
	return n;
}

static unsigned gone_count;
static void on_gone(struct cgroup_node *cg _unused_, void *ud _unused_) { gone_count++; }

static void test_matching_and_deepest_rule(void)
{
	_cleanup_(config_freep) struct config *c = load(
		"{\"rules\": ["
		" {\"match\": \"system.slice/skip.service\", \"policy\": \"none\"},"
		" {\"match\": \"system.slice/*.service\"},"
		" {\"match\": \"kubepods.slice/**\"}"
		"]}");
	struct cgroup_set s;
	struct cgroup_node *cg;

	mkcg("system.slice", true, 10);
	mkcg("system.slice/a.service", true, 200);
	mkcg("system.slice/skip.service", true, 200);
	mkcg("system.slice/nomem.service", false, 0);
	mkcg("kubepods.slice", true, 10);
	mkcg("kubepods.slice/pod1", true, 10);
	mkcg("kubepods.slice/pod1/ctr-a", true, 300);
	mkcg("kubepods.slice/pod1/ctr-b", true, 300);
	mkcg("kubepods.slice/pod2", true, 300);
	mkcg("user.slice", true, 500);

	CHECK_EQ_INT(cgroup_set_init(&s, root), 0);
	CHECK(cgroup_set_scan(&s, c, on_gone, NULL) >= 10);

	CHECK((cg = find(&s, "system.slice/a.service")) && cg->managed && cg->rule_manages);
	/* The rule lookup says once whether the rule manages: policy none's does not. */
	CHECK((cg = find(&s, "system.slice/skip.service")) && !cg->managed && cg->rule &&
	      cg->rule->policy->excludes && !cg->rule_manages);
	CHECK((cg = find(&s, "system.slice/nomem.service")) && !cg->managed && !cg->has_memory);
	CHECK((cg = find(&s, "system.slice")) && !cg->managed && !cg->rule);
	/* pod1 matches the kubepods rule but has matching children: a grouping. */
	CHECK((cg = find(&s, "kubepods.slice/pod1")) && !cg->managed && cg->has_matching_descendant);
	CHECK((cg = find(&s, "kubepods.slice/pod1/ctr-a")) && cg->managed);
	CHECK((cg = find(&s, "kubepods.slice/pod1/ctr-b")) && cg->managed);
	CHECK((cg = find(&s, "kubepods.slice/pod2")) && cg->managed);
	CHECK((cg = find(&s, "user.slice")) && !cg->managed);
	CHECK(!s.root->managed);
	CHECK_EQ_U64(n_managed(&s), 4);
	cgroup_set_done(&s);
	rmtree("system.slice");
	rmtree("kubepods.slice");
	rmtree("user.slice");
}

static void test_identity_by_inode_and_removal(void)
{
	_cleanup_(config_freep) struct config *c = load("{\"rules\": [{\"match\": \"*\"}]}");
	struct cgroup_set s;
	struct cgroup_node *cg;
	struct cgroup_sample smp;
	uint64_t ino_before;
	int r;

	mkcg("web", true, 300);
	mkcg("batch", true, 400);
	CHECK_EQ_INT(cgroup_set_init(&s, root), 0);
	gone_count = 0;
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK((cg = find(&s, "web")) && cg->managed);
	if (!cg)
		return;
	ino_before = cg->inode;

	/* The reader on a live cgroup. */
	r = cgroup_read_sample(cg, 1, 1ULL << 40, &smp);
	CHECK_EQ_INT(r, 0);
	CHECK_EQ_U64(smp.current_bytes, 300ULL << 20);
	CHECK_EQ_U64(smp.stat.anon, 150ULL << 20);
	CHECK_EQ_U64(smp.mem_some_total_us, 1234);
	CHECK_EQ_U64(smp.io_some_total_us, 100);
	CHECK_EQ_U64(smp.max_bytes, LIMIT_MAX);
	CHECK(smp.numa && smp.numa->n_nodes == 2);
	if (smp.numa) {
		CHECK_EQ_U64(smp.numa->node[1].anon_bytes, 2048);
		CHECK_EQ_U64(smp.numa->node[0].file_bytes, 4096);
	}
	CHECK_EQ_U64(smp.swap_room_bytes, 1ULL << 40); /* swap.max is max: host bound */
	CHECK_STREQ(smp.path, "web");

	/* Past the hot-fd budget, files are read without keeping them open. */
	cgroup_close_files(cg);
	cgroup_reader_set_hot_fd_budget(0);
	r = cgroup_read_sample(cg, 1, 1ULL << 40, &smp);
	CHECK_EQ_INT(r, 0);
	CHECK_EQ_U64(smp.current_bytes, 300ULL << 20);
	CHECK_EQ_INT(cg->files.fd_current, -1);
	CHECK_EQ_INT(cg->files.fd_stat, -1);
	cgroup_reader_set_hot_fd_budget(SIZE_MAX);
	r = cgroup_read_sample(cg, 1, 1ULL << 40, &smp);
	CHECK_EQ_INT(r, 0);
	CHECK(cg->files.fd_current >= 0);

	/* memory.numa_stat is kept for as many nodes as it lists: a node brought online (memory
	 * hotplug) grows the table at the next read of the slow files, one gone shrinks it, and a
	 * malformed file leaves none. Generation g is one at which this cgroup reads them. */
	{
		unsigned g = 10 - (unsigned)(cg->inode % CGROUP_SLOW_FILES_TICKS);

		put("web", "memory.numa_stat", "anon N0=1 N1=2 N2=3\nfile N0=4 N1=5 N2=6\n");
		CHECK_EQ_INT(cgroup_read_sample(cg, g, 1ULL << 40, &smp), 0);
		CHECK(smp.numa && smp.numa->n_nodes == 3);
		if (smp.numa && smp.numa->n_nodes == 3)
			CHECK_EQ_U64(smp.numa->node[2].anon_bytes + smp.numa->node[2].file_bytes, 9);
		put("web", "memory.numa_stat", "anon N0=7\nfile N0=8\n");
		CHECK_EQ_INT(cgroup_read_sample(cg, g + 10, 1ULL << 40, &smp), 0);
		CHECK(smp.numa && smp.numa->n_nodes == 1 && smp.numa->node[0].file_bytes == 8);
		put("web", "memory.numa_stat", "anon N0=7\n");
		CHECK_EQ_INT(cgroup_read_sample(cg, g + 20, 1ULL << 40, &smp), 0);
		CHECK(!smp.numa);
		put("web", "memory.numa_stat", "anon N0=1024 N1=2048\nfile N0=4096 N1=0\n");
		CHECK_EQ_INT(cgroup_read_sample(cg, g + 30, 1ULL << 40, &smp), 0);
		CHECK(smp.numa && smp.numa->n_nodes == 2);
	}

	/* A swap.max on the cgroup bounds the room. */
	put("web", "memory.swap.max", "1048576\n");
	put("web", "memory.swap.current", "524288\n");
	r = cgroup_read_sample(cg, 2, 1ULL << 40, &smp);
	CHECK_EQ_INT(r, 0);
	CHECK_EQ_U64(smp.swap_room_bytes, 524288);

	/* memory.max is a slow file: a change shows at the cgroup's next slow refresh, not before;
	 * memory.min is read every tick. */
	put("web", "memory.max", "734003200\n");
	put("web", "memory.min", "4096\n");
	{
		unsigned g = 3, refresh;

		while ((g + cg->inode) % CGROUP_SLOW_FILES_TICKS == 0)
			g++;
		r = cgroup_read_sample(cg, g, 1ULL << 40, &smp);
		CHECK_EQ_INT(r, 0);
		CHECK_EQ_U64(smp.max_bytes, LIMIT_MAX);
		CHECK_EQ_U64(smp.min_bytes, 4096);
		refresh = g;
		while ((refresh + cg->inode) % CGROUP_SLOW_FILES_TICKS != 0)
			refresh++;
		r = cgroup_read_sample(cg, refresh, 1ULL << 40, &smp);
		CHECK_EQ_INT(r, 0);
		CHECK_EQ_U64(smp.max_bytes, 734003200);
	}

	/* Malformed file: an error, not a crash. */
	put("web", "memory.stat", "anon garbage\n");
	r = cgroup_read_sample(cg, 100, 0, &smp);
	CHECK_EQ_INT(r, -EBADMSG);

	/* Removed between listing and reading: ENOENT, quietly. */
	rmtree("batch");
	CHECK((cg = find(&s, "batch")) != NULL);
	if (cg) {
		r = cgroup_read_sample(cg, 101, 0, &smp);
		CHECK(r == -ENOENT || r == -ENODEV);
	}
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK_EQ_U64(gone_count, 1);
	CHECK(find(&s, "batch") == NULL);

	/* Removed and recreated under the same name: a new inode, a new cgroup. A filesystem may
	 * give a freed inode number to the next directory created (ext4 does), and then "web" would
	 * be the same cgroup to discovery by right. The test holds the old directory open, so its
	 * inode is not freed and cannot be reused, whatever the set itself keeps open. */
	{
		char path[1024];
		struct stat st;
		int old_fd;

		snprintf(path, sizeof(path), "%s/web", root);
		old_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		CHECK(old_fd >= 0);
		rmtree("web");
		mkcg("web", true, 100);
		CHECK_EQ_INT(stat(path, &st), 0);
		CHECK(st.st_ino != ino_before); /* the fixture did make a new inode */
		cgroup_set_scan(&s, c, on_gone, NULL);
		CHECK((cg = find(&s, "web")) != NULL);
		if (cg) {
			CHECK_EQ_U64(cg->inode, st.st_ino);
			CHECK(!cg->hist.has_prev);
		}
		CHECK_EQ_U64(gone_count, 2);
		if (old_fd >= 0)
			close(old_fd);
	}
	cgroup_set_done(&s);
	rmtree("web");
}

static void test_grouping_when_child_excluded(void)
{
	/* A child excluded with "none" still makes its matching parent a grouping: reclaiming the
	 * parent would reclaim the excluded child's memory too. */
	_cleanup_(config_freep) struct config *c = load(
		"{\"rules\": [{\"match\": \"app/keep\", \"policy\": \"none\"}, {\"match\": \"**\"}]}");
	struct cgroup_set s;
	struct cgroup_node *cg;

	mkcg("app", true, 300);
	mkcg("app/keep", true, 300);
	CHECK_EQ_INT(cgroup_set_init(&s, root), 0);
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK((cg = find(&s, "app")) && !cg->managed);
	CHECK((cg = find(&s, "app/keep")) && !cg->managed && cg->rule && !cg->rule_manages);
	CHECK((cg = find(&s, "app")) && cg->rule_manages); /* a grouping: its rule manages */
	CHECK_EQ_U64(n_managed(&s), 0);
	cgroup_set_done(&s);
	rmtree("app");
}

static void test_open_failures_are_counted(void)
{
	_cleanup_(config_freep) struct config *c = load("{\"rules\": [{\"match\": \"many/*\"}]}");
	struct rlimit old_rl, rl;
	struct cgroup_set s;
	char rel[64];

	mkcg("many", true, 10);
	for (int i = 0; i < 40; i++) {
		snprintf(rel, sizeof(rel), "many/c%d", i);
		mkcg(rel, true, 200);
	}
	CHECK_EQ_INT(cgroup_set_init(&s, root), 0);
	/* Leave room for a handful of directory fds only: the rest fail with EMFILE, which must
	 * be counted, not mistaken for cgroups that went away. */
	getrlimit(RLIMIT_NOFILE, &old_rl);
	rl = old_rl;
	rl.rlim_cur = 24;
	setrlimit(RLIMIT_NOFILE, &rl);
	cgroup_set_scan(&s, c, on_gone, NULL);
	setrlimit(RLIMIT_NOFILE, &old_rl);
	CHECK(s.open_failures > 0);
	CHECK_EQ_INT(s.last_open_error, -EMFILE);
	/* With the limit back, the next pass finds them all. */
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK_EQ_U64(s.open_failures, 0);
	CHECK_EQ_U64(n_managed(&s), 40);
	cgroup_set_done(&s);
	rmtree("many");
}

static void test_depth_limit(void)
{
	_cleanup_(config_freep) struct config *c = load("{\"rules\": [{\"match\": \"**\"}]}");
	struct cgroup_set s;
	char rel[1024] = "deep";
	size_t managed;

	mkcg(rel, true, 200);
	for (int i = 0; i < 140; i++) {
		strcat(rel, "/d");
		mkcg(rel, true, 200);
	}
	CHECK_EQ_INT(cgroup_set_init(&s, root), 0);
	cgroup_set_scan(&s, c, on_gone, NULL);
	managed = n_managed(&s);
	/* The cgroup at the limit has unlisted children: it is not taken for a leaf. */
	CHECK_EQ_U64(managed, 0);
	CHECK_EQ_U64(s.depth_truncated, 1);
	cgroup_set_done(&s);
	rmtree("deep");
}

static void test_leaf_gains_a_child(void)
{
	/* Leaves are not listed (link count 2): a child created later must still be found,
	 * because the new subdirectory raises the parent's link count. */
	_cleanup_(config_freep) struct config *c = load("{\"rules\": [{\"match\": \"grow/**\"}]}");
	struct cgroup_set s;
	struct cgroup_node *cg;

	mkcg("grow", true, 10);
	mkcg("grow/a", true, 300);
	CHECK_EQ_INT(cgroup_set_init(&s, root), 0);
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK((cg = find(&s, "grow/a")) && cg->managed);
	mkcg("grow/a/b", true, 300);
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK((cg = find(&s, "grow/a/b")) && cg->managed);
	CHECK((cg = find(&s, "grow/a")) && !cg->managed);
	rmtree("grow/a/b");
	gone_count = 0;
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK_EQ_U64(gone_count, 1);
	CHECK((cg = find(&s, "grow/a")) && cg->managed);
	cgroup_set_done(&s);
	rmtree("grow");
}

/* The kubepods cgroup (a kubelet runs here) is kept as cgroups come and go, even one that no
 * rule matches; a second one takes over when the first goes. */
static void test_kubepods_tracked(void)
{
	_cleanup_(config_freep) struct config *c = load("{\"rules\": [{\"match\": \"x/**\"}]}");
	struct cgroup_set s;

	mkcg("system.slice", true, 10);
	CHECK_EQ_INT(cgroup_set_init(&s, root), 0);
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK(s.kubepods == NULL);
	mkcg("kubelet.slice", true, 10);
	mkcg("kubelet.slice/kubelet-kubepods.slice", true, 10);
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK(s.kubepods && strcmp(s.kubepods->path, "kubelet.slice/kubelet-kubepods.slice") == 0);
	mkcg("kubepods", true, 10);
	cgroup_set_scan(&s, c, on_gone, NULL);
	rmtree("kubelet.slice/kubelet-kubepods.slice");
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK(s.kubepods && strcmp(s.kubepods->path, "kubepods") == 0);
	rmtree("kubepods");
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK(s.kubepods == NULL);
	cgroup_set_done(&s);
	CHECK(s.kubepods == NULL);
	rmtree("kubelet.slice");
	rmtree("system.slice");
}

static size_t n_cgroups(struct cgroup_set *s)
{
	size_t n = 0;

	CGROUP_SET_FOREACH(s, cg)
		n++;
	return n;
}

static void test_unchanged_tree_not_relisted(void)
{
	/* The first pass lists every directory (leaves through their link count); with nothing
	 * created or removed, the next passes list none, and files written inside cgroups (new
	 * files included) do not count as a change. */
	_cleanup_(config_freep) struct config *c = load("{\"rules\": [{\"match\": \"t/**\"}]}");
	struct cgroup_set s;
	struct cgroup_node *cg;

	mkcg("t", true, 10);
	mkcg("t/a", true, 100);
	mkcg("t/a/x", true, 100);
	mkcg("t/b", true, 100);
	CHECK_EQ_INT(cgroup_set_init(&s, root), 0);
	CHECK(s.inotify_fd >= 0);
	CHECK_EQ_INT(cgroup_set_scan(&s, c, on_gone, NULL), 5);
	CHECK_EQ_U64(s.listings, 5); /* root, t, t/a, t/a/x, t/b */
	CHECK_EQ_U64(s.unwatched, 0);
	CHECK_EQ_INT(cgroup_set_scan(&s, c, on_gone, NULL), 5);
	CHECK_EQ_U64(s.listings, 0);
	put("t/a", "memory.current", "1\n");
	put("t/a", "new-file", "1\n");
	CHECK_EQ_INT(cgroup_set_scan(&s, c, on_gone, NULL), 5);
	CHECK_EQ_U64(s.listings, 0);
	CHECK_EQ_U64(s.listings_total, 5);
	/* Not listed, still visited: managed state and a config reload are kept up to date. */
	CHECK((cg = find(&s, "t/a/x")) && cg->managed);
	CHECK((cg = find(&s, "t/b")) && cg->managed);
	CHECK((cg = find(&s, "t/a")) && !cg->managed);
	{
		_cleanup_(config_freep) struct config *c2 = load(
			"{\"rules\": [{\"match\": \"t/b\", \"policy\": \"none\"}, {\"match\": \"t/**\"}]}");

		s.config_generation++;
		cgroup_set_scan(&s, c2, on_gone, NULL);
		CHECK_EQ_U64(s.listings, 0);
		CHECK((cg = find(&s, "t/b")) && !cg->managed);
		CHECK((cg = find(&s, "t/a/x")) && cg->managed);
	}
	cgroup_set_done(&s);
	rmtree("t");
}

static void test_new_and_removed_in_one_pass(void)
{
	_cleanup_(config_freep) struct config *c = load("{\"rules\": [{\"match\": \"n/**\"}]}");
	struct cgroup_set s;
	struct cgroup_node *cg;

	mkcg("n", true, 10);
	mkcg("n/a", true, 100);
	CHECK_EQ_INT(cgroup_set_init(&s, root), 0);
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK_EQ_U64(n_cgroups(&s), 3);

	/* New: the parent's watch names it; the parent and the new leaf are listed. */
	mkcg("n/b", true, 100);
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK((cg = find(&s, "n/b")) && cg->managed);
	CHECK_EQ_U64(s.listings, 2);
	CHECK_EQ_U64(n_cgroups(&s), 4);

	/* Removed: gone in the next pass, nothing else listed but its parent. */
	gone_count = 0;
	rmtree("n/a");
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK(find(&s, "n/a") == NULL);
	CHECK_EQ_U64(gone_count, 1);
	CHECK_EQ_U64(s.listings, 1);
	CHECK_EQ_U64(n_cgroups(&s), 3);

	/* A whole subtree removed at once: every node of it reported gone, none left behind. */
	mkcg("n/deep", true, 10);
	mkcg("n/deep/1", true, 10);
	mkcg("n/deep/1/2", true, 10);
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK((cg = find(&s, "n/deep/1/2")) && cg->managed);
	gone_count = 0;
	rmtree("n/deep");
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK_EQ_U64(gone_count, 3);
	CHECK(find(&s, "n/deep/1") == NULL);
	CHECK_EQ_U64(n_cgroups(&s), 3);
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK_EQ_U64(s.listings, 0);
	cgroup_set_done(&s);
	rmtree("n");
}

static void test_nested_creation_under_unchanged_ancestors(void)
{
	/* A grandchild made under an existing child changes neither the root's nor the parent's
	 * entries (and on kernfs no directory's mtime at all): only the child's watch sees it, and
	 * only the child is listed. A new child made with a grandchild before the pass is listed
	 * as new, grandchild included. */
	_cleanup_(config_freep) struct config *c = load("{\"rules\": [{\"match\": \"g/**\"}]}");
	struct cgroup_set s;
	struct cgroup_node *cg;
	struct stat before, after;
	char path[1024];

	mkcg("g", true, 10);
	mkcg("g/p", true, 10);
	mkcg("g/p/c", true, 100);
	CHECK_EQ_INT(cgroup_set_init(&s, root), 0);
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK((cg = find(&s, "g/p/c")) && cg->managed);
	snprintf(path, sizeof(path), "%s/g", root);
	CHECK_EQ_INT(stat(path, &before), 0);

	mkcg("g/p/c/gc", true, 100);
	CHECK_EQ_INT(stat(path, &after), 0);
	CHECK(before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
	      before.st_mtim.tv_nsec == after.st_mtim.tv_nsec); /* "g" itself did not change */
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK((cg = find(&s, "g/p/c/gc")) && cg->managed);
	CHECK((cg = find(&s, "g/p/c")) && !cg->managed); /* now a grouping */
	CHECK_EQ_U64(s.listings, 2);                     /* g/p/c, and the new leaf */

	mkcg("g/p/q", true, 10);
	mkcg("g/p/q/r", true, 10);
	mkcg("g/p/q/r/s", true, 100);
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK((cg = find(&s, "g/p/q/r/s")) && cg->managed);
	CHECK_EQ_U64(s.listings, 4); /* g/p, then q, r and s: new */
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK_EQ_U64(s.listings, 0);
	cgroup_set_done(&s);
	rmtree("g");
}

static void test_recreated_in_one_pass_is_new(void)
{
	/* Removed and made again under the same name, with a child, between two passes: the
	 * parent is listed, the old cgroup is reported gone and the new one (new inode) starts
	 * fresh, together with its child. */
	_cleanup_(config_freep) struct config *c = load("{\"rules\": [{\"match\": \"r/**\"}]}");
	struct cgroup_set s;
	struct cgroup_node *cg;
	uint64_t old_ino = 0;
	char path[1024];
	struct stat st;
	int old_fd;

	mkcg("r", true, 10);
	mkcg("r/w", true, 100);
	CHECK_EQ_INT(cgroup_set_init(&s, root), 0);
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK((cg = find(&s, "r/w")) != NULL);
	if (cg) {
		old_ino = cg->inode;
		cg->hist.has_prev = true; /* history that must not carry over */
	}
	snprintf(path, sizeof(path), "%s/r/w", root);
	old_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* keeps the old inode number */
	CHECK(old_fd >= 0);
	rmtree("r/w");
	mkcg("r/w", true, 100);
	mkcg("r/w/k", true, 100);
	CHECK_EQ_INT(stat(path, &st), 0);
	CHECK(st.st_ino != old_ino);
	gone_count = 0;
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK_EQ_U64(gone_count, 1);
	CHECK((cg = find(&s, "r/w")) != NULL);
	if (cg) {
		CHECK_EQ_U64(cg->inode, st.st_ino);
		CHECK(!cg->hist.has_prev);
		CHECK(!cg->managed);
	}
	CHECK((cg = find(&s, "r/w/k")) && cg->managed);
	CHECK_EQ_U64(n_cgroups(&s), 4);
	if (old_fd >= 0)
		close(old_fd);
	cgroup_set_done(&s);
	rmtree("r");
}

static void mv(const char *from, const char *to)
{
	char a[1024], b[1024];

	snprintf(a, sizeof(a), "%s/%s", root, from);
	snprintf(b, sizeof(b), "%s/%s", root, to);
	if (rename(a, b) < 0) {
		perror(a);
		exit(1);
	}
}

static void test_renamed_and_moved_directories(void)
{
	/* cgroup2 has no rename(2), but a fixture tree (--cgroup-root) does, and an inode number
	 * may come back under another name. A directory found under a name or a parent its node
	 * does not have is a new cgroup: the old node goes, and the new path is found by the next
	 * pass, never later. */
	_cleanup_(config_freep) struct config *c = load("{\"rules\": [{\"match\": \"m/**\"}]}");
	struct cgroup_set s;
	struct cgroup_node *cg;

	mkcg("m", true, 10);
	mkcg("m/x", true, 100);
	mkcg("m/p", true, 100);
	CHECK_EQ_INT(cgroup_set_init(&s, root), 0);
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK((cg = find(&s, "m/x")) && cg->managed);
	/* Renamed in place. */
	mv("m/x", "m/y");
	gone_count = 0;
	cgroup_set_scan(&s, c, on_gone, NULL);
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK_EQ_U64(gone_count, 1);
	CHECK(find(&s, "m/x") == NULL);
	CHECK((cg = find(&s, "m/y")) && cg->managed);
	/* Moved under a sibling: the sibling becomes a grouping, its new child is managed. */
	mv("m/y", "m/p/y");
	gone_count = 0;
	cgroup_set_scan(&s, c, on_gone, NULL);
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK_EQ_U64(gone_count, 1);
	CHECK(find(&s, "m/y") == NULL);
	CHECK((cg = find(&s, "m/p/y")) && cg->managed);
	CHECK((cg = find(&s, "m/p")) && !cg->managed);
	CHECK_EQ_U64(n_cgroups(&s), 4);
	/* Quiet again: nothing more is listed. */
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK_EQ_U64(s.listings, 0);
	cgroup_set_done(&s);
	rmtree("m");
}

static void test_without_inotify_lists_every_pass(void)
{
	/* No inotify instance (fs.inotify.max_user_instances reached): every directory is listed
	 * every pass, and changes are still seen in one pass. */
	_cleanup_(config_freep) struct config *c = load("{\"rules\": [{\"match\": \"u/**\"}]}");
	struct cgroup_set s;

	mkcg("u", true, 10);
	mkcg("u/a", true, 100);
	CHECK_EQ_INT(cgroup_set_init(&s, root), 0);
	if (s.inotify_fd >= 0)
		close(s.inotify_fd);
	s.inotify_fd = -1;
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK_EQ_U64(s.listings, 3);
	CHECK_EQ_U64(s.unwatched, 3);
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK_EQ_U64(s.listings, 3);
	mkcg("u/a/b", true, 100);
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK(find(&s, "u/a/b") != NULL);
	CHECK_EQ_U64(s.listings, 4);
	cgroup_set_done(&s);
	rmtree("u");
}

static void test_missing_root(void)
{
	struct cgroup_set s;

	CHECK_EQ_INT(cgroup_set_init(&s, "/nonexistent/reclaimd-test"), -ENOENT);
}

/* Pods and containers: recognised once when discovered and kept in the node; a pod-level rule
 * makes the pod the managed leaf (its containers match nothing), a container-level rule the
 * containers; conmon is never managed. */
#define T_UID_ "0f4c6a1e_2b3d_4e5f_8a9b_0c1d2e3f4a5b"
#define T_CID  "4340c1a2b3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e"
#define T_BE   "kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" T_UID_ ".slice"
#define T_GU   "kubepods.slice/kubepods-pod" T_UID_ ".slice"

static void test_workloads(void)
{
	_cleanup_(config_freep) struct config *c = load(
		"{\"rules\": ["
		" {\"match\": \"**\", \"qos\": [\"besteffort\"]},"
		" {\"match\": \"**\", \"qos\": [\"guaranteed\"], \"level\": \"container\"},"
		" {\"match\": \"kubepods.slice/**\"}"
		"]}");
	struct cgroup_set s;
	struct cgroup_node *cg;

	mkcg("kubepods.slice", true, 10);
	mkcg("kubepods.slice/kubepods-besteffort.slice", true, 10);
	mkcg(T_BE, true, 300);
	mkcg(T_BE "/cri-containerd-" T_CID ".scope", true, 300);
	mkcg(T_BE "/crio-conmon-" T_CID ".scope", true, 2);
	mkcg(T_GU, true, 300);
	mkcg(T_GU "/crio-" T_CID ".scope", true, 300);
	mkcg(T_GU "/crio-" T_CID ".scope/container", true, 300);
	mkcg(T_GU "/crio-conmon-" T_CID ".scope", true, 2);

	CHECK_EQ_INT(cgroup_set_init(&s, root), 0);
	cgroup_set_scan(&s, c, on_gone, NULL);

	CHECK((cg = find(&s, T_BE)) && cg->managed && cg->rule == &c->rules[0] &&
	      cg->workload.kind == WORKLOAD_POD && cg->workload.qos == WORKLOAD_QOS_BESTEFFORT &&
	      strcmp(cg->workload.pod_uid, "0f4c6a1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b") == 0);
	CHECK((cg = find(&s, T_BE "/cri-containerd-" T_CID ".scope")) && !cg->managed && !cg->rule &&
	      cg->workload.kind == WORKLOAD_CONTAINER &&
	      cg->workload.runtime == WORKLOAD_RUNTIME_CONTAINERD &&
	      strcmp(cg->workload.container_id, T_CID) == 0);
	CHECK((cg = find(&s, T_BE "/crio-conmon-" T_CID ".scope")) && !cg->managed && !cg->rule &&
	      cg->workload.kind == WORKLOAD_CONMON);
	/* level container: the scope, not the pod, not crun's inner cgroup */
	CHECK((cg = find(&s, T_GU)) && !cg->managed && cg->has_matching_descendant &&
	      cg->rule == &c->rules[2]);
	CHECK((cg = find(&s, T_GU "/crio-" T_CID ".scope")) && cg->rule == &c->rules[1] &&
	      cg->workload.runtime == WORKLOAD_RUNTIME_CRIO);
	CHECK((cg = find(&s, T_GU "/crio-" T_CID ".scope/container")) && cg->rule == &c->rules[2] &&
	      cg->workload.kind == WORKLOAD_CONTAINER_INNER && cg->managed);
	CHECK((cg = find(&s, T_GU "/crio-conmon-" T_CID ".scope")) && !cg->managed && !cg->rule);
	CHECK((cg = find(&s, "kubepods.slice")) && cg->workload.kind == WORKLOAD_KUBEPODS &&
	      !cg->managed);
	CHECK_EQ_U64(n_managed(&s), 2);
	cgroup_set_done(&s);
	rmtree("kubepods.slice");
}

/* The reader on kubelet's shapes: the swap room a pod and its containers get (NoSwap writes
 * swap.max 0 on each container, not on the pod; LimitedSwap a byte count), and memory.low and
 * memory.high read every tick. */
static void test_kubelet_swap_room_and_protection(void)
{
	static const char *const pod_dirs[] = {
		"kubepods.slice", "kubepods.slice/kubepods-burstable.slice",
	};
#define BU "kubepods.slice/kubepods-burstable.slice/"
	_cleanup_(config_freep) struct config *pods = load(
		"{\"rules\": [{\"match\": \"kubepods.slice/kubepods-burstable.slice/*.slice\"}]}");
	_cleanup_(config_freep) struct config *ctrs = load(
		"{\"rules\": [{\"match\": \"kubepods.slice/**/*.scope\"}]}");
	struct cgroup_set s;
	struct cgroup_node *cg;
	struct cgroup_sample smp;
	unsigned g = 1;

	for (size_t i = 0; i < ARRAY_SIZE(pod_dirs); i++)
		mkcg(pod_dirs[i], true, 10);
	/* Pod A: NoSwap, two containers. */
	mkcg(BU "kubepods-burstable-poda.slice", true, 300);
	mkcg(BU "kubepods-burstable-poda.slice/cri-containerd-a1.scope", true, 200);
	mkcg(BU "kubepods-burstable-poda.slice/cri-containerd-a2.scope", true, 100);
	put(BU "kubepods-burstable-poda.slice/cri-containerd-a1.scope", "memory.swap.max", "0\n");
	put(BU "kubepods-burstable-poda.slice/cri-containerd-a2.scope", "memory.swap.max", "0\n");
	/* Pod B: LimitedSwap container (64 MiB, 16 in use) and a NoSwap sidecar. */
	mkcg(BU "kubepods-burstable-podb.slice", true, 300);
	mkcg(BU "kubepods-burstable-podb.slice/cri-containerd-b1.scope", true, 200);
	mkcg(BU "kubepods-burstable-podb.slice/cri-containerd-b2.scope", true, 100);
	put(BU "kubepods-burstable-podb.slice/cri-containerd-b1.scope", "memory.swap.max", "67108864\n");
	put(BU "kubepods-burstable-podb.slice/cri-containerd-b1.scope", "memory.swap.current", "16777216\n");
	put(BU "kubepods-burstable-podb.slice/cri-containerd-b2.scope", "memory.swap.max", "0\n");
	/* Pod C: a container without a swap limit. */
	mkcg(BU "kubepods-burstable-podc.slice", true, 300);
	mkcg(BU "kubepods-burstable-podc.slice/cri-containerd-c1.scope", true, 300);

	/* level pod: the pods are managed, the containers only known. */
	CHECK_EQ_INT(cgroup_set_init(&s, root), 0);
	cgroup_set_scan(&s, pods, on_gone, NULL);
	CHECK((cg = find(&s, BU "kubepods-burstable-poda.slice")) && cg->managed);
	if (cg) {
		CHECK_EQ_INT(cgroup_read_sample(cg, g++, 1ULL << 40, &smp), 0);
		CHECK_EQ_U64(smp.swap_room_bytes, 0); /* file only */
		CHECK_EQ_U64(smp.children_protected_bytes, 0);
		/* Memory QoS on the containers: what they keep counts in the pod's floor, each up
		 * to its memory.current. */
		put(BU "kubepods-burstable-poda.slice/cri-containerd-a1.scope", "memory.low", "104857600\n");
		put(BU "kubepods-burstable-poda.slice/cri-containerd-a2.scope", "memory.min", "157286400\n");
		CHECK_EQ_INT(cgroup_read_sample(cg, g++, 1ULL << 40, &smp), 0);
		/* Each container: current N MiB = N/2 anon + N/2 file, no swap room: a1 (200 MiB)
		 * protects 100 MiB of which its 100 MiB anon stays anyway; a2 (100 MiB) protects all
		 * 100, of which 50 is page cache. */
		CHECK_EQ_U64(smp.children_protected_bytes, 50ULL << 20);
		CHECK_EQ_U64(smp.low_bytes, 0);
		CHECK(!smp.child_at_high && !cgroup_at_high(&smp));
		/* A container at its own memory.high (a2: 100 MiB, high 90 MiB): the kernel reclaims
		 * it, so the pod is at high for the agent; a limit above usage is not. */
		put(BU "kubepods-burstable-poda.slice/cri-containerd-a2.scope", "memory.high", "94371840\n");
		CHECK_EQ_INT(cgroup_read_sample(cg, g++, 1ULL << 40, &smp), 0);
		CHECK(smp.child_at_high && cgroup_at_high(&smp));
		put(BU "kubepods-burstable-poda.slice/cri-containerd-a2.scope", "memory.high", "209715200\n");
		CHECK_EQ_INT(cgroup_read_sample(cg, g++, 1ULL << 40, &smp), 0);
		CHECK(!smp.child_at_high && !cgroup_at_high(&smp));
		/* An empty child with memory.high 0 holds nothing the kernel could be reclaiming. */
		put(BU "kubepods-burstable-poda.slice/cri-containerd-a2.scope", "memory.high", "0\n");
		put(BU "kubepods-burstable-poda.slice/cri-containerd-a2.scope", "memory.current", "0\n");
		CHECK_EQ_INT(cgroup_read_sample(cg, g++, 1ULL << 40, &smp), 0);
		CHECK(!smp.child_at_high);
		put(BU "kubepods-burstable-poda.slice/cri-containerd-a2.scope", "memory.current", "104857600\n");
		put(BU "kubepods-burstable-poda.slice/cri-containerd-a2.scope", "memory.high", "max\n");
		put(BU "kubepods-burstable-poda.slice/cri-containerd-a1.scope", "memory.low", "0\n");
		put(BU "kubepods-burstable-poda.slice/cri-containerd-a2.scope", "memory.min", "0\n");
	}
	CHECK((cg = find(&s, BU "kubepods-burstable-podb.slice")) && cg->managed);
	if (cg) {
		CHECK_EQ_INT(cgroup_read_sample(cg, g++, 1ULL << 40, &smp), 0);
		CHECK_EQ_U64(smp.swap_room_bytes, 48ULL << 20);
		/* The host's free swap still bounds it. */
		CHECK_EQ_INT(cgroup_read_sample(cg, g++, 1ULL << 20, &smp), 0);
		CHECK_EQ_U64(smp.swap_room_bytes, 1ULL << 20);
		/* swap.current read again each tick: the room follows. */
		put(BU "kubepods-burstable-podb.slice/cri-containerd-b1.scope", "memory.swap.current",
		    "60817408\n");
		CHECK_EQ_INT(cgroup_read_sample(cg, g++, 1ULL << 40, &smp), 0);
		CHECK_EQ_U64(smp.swap_room_bytes, 6ULL << 20);
	}
	CHECK((cg = find(&s, BU "kubepods-burstable-podc.slice")) && cg->managed);
	if (cg) {
		CHECK_EQ_INT(cgroup_read_sample(cg, g++, 1ULL << 40, &smp), 0);
		/* No limit anywhere: bounded by what its container holds (300 MiB), more than the
		 * pod's 150 MiB anon, so all of that anon counts as evictable. */
		CHECK_EQ_U64(smp.swap_room_bytes, 300ULL << 20);
	}
	/* A container protecting all its 300 MiB (150 anon, 150 file) in a pod whose own swap.max
	 * is 0: its anon cannot go anyway, so what it protects of the evictable is its file. */
	put(BU "kubepods-burstable-podc.slice", "memory.swap.max", "0\n");
	put(BU "kubepods-burstable-podc.slice/cri-containerd-c1.scope", "memory.low", "314572800\n");
	if ((cg = find(&s, BU "kubepods-burstable-podc.slice"))) {
		CHECK_EQ_INT(cgroup_read_sample(cg, g++, 1ULL << 40, &smp), 0);
		CHECK_EQ_U64(smp.swap_room_bytes, 0);
		CHECK_EQ_U64(smp.children_protected_bytes, 150ULL << 20);
	}
	put(BU "kubepods-burstable-podc.slice", "memory.swap.max", "max\n");
	if (cg) { /* with swap room, its anon could go too: all 300 MiB are protected evictable */
		CHECK_EQ_INT(cgroup_read_sample(cg, g++, 1ULL << 40, &smp), 0);
		CHECK_EQ_U64(smp.children_protected_bytes, 300ULL << 20);
	}
	put(BU "kubepods-burstable-podc.slice/cri-containerd-c1.scope", "memory.low", "0\n");

	/* Pod D: a NoSwap app container (300 MiB) beside a sandbox-like one without a swap limit
	 * (1 MiB: containerd's pause, whose swap.max kubelet leaves at "max"). Only what the sandbox
	 * holds can go to swap: the pod's room is bounded by each child's memory.current, not the
	 * host's free swap, or the app's 150 MiB anon would count as evictable. */
	mkcg(BU "kubepods-burstable-podd.slice", true, 301);
	mkcg(BU "kubepods-burstable-podd.slice/cri-containerd-d0.scope", true, 1);
	mkcg(BU "kubepods-burstable-podd.slice/cri-containerd-d1.scope", true, 300);
	put(BU "kubepods-burstable-podd.slice/cri-containerd-d1.scope", "memory.swap.max", "0\n");
	cgroup_set_scan(&s, pods, on_gone, NULL);
	CHECK((cg = find(&s, BU "kubepods-burstable-podd.slice")) && cg->managed);
	if (cg) {
		CHECK_EQ_INT(cgroup_read_sample(cg, g++, 1ULL << 40, &smp), 0);
		CHECK_EQ_U64(smp.swap_room_bytes, 1ULL << 20);
	}
	rmtree(BU "kubepods-burstable-podd.slice");
	cgroup_set_scan(&s, pods, on_gone, NULL);

	/* A container removed after discovery saw it (no rescan yet): the pod's sample still
	 * succeeds (the child is left out), and the child counts as protected and without swap
	 * room, so that nothing is planned from its memcg for the pod. */
	mkcg(BU "kubepods-burstable-podc.slice/cri-containerd-c9.scope", true, 10);
	cgroup_set_scan(&s, pods, on_gone, NULL);
	rmtree(BU "kubepods-burstable-podc.slice/cri-containerd-c9.scope");
	if ((cg = find(&s, BU "kubepods-burstable-podc.slice"))) {
		struct cgroup_node *c9 = find(&s, BU "kubepods-burstable-podc.slice/cri-containerd-c9.scope");

		CHECK_EQ_INT(cgroup_read_sample(cg, g++, 1ULL << 40, &smp), 0);
		CHECK(c9 != NULL);
		if (c9) {
			CHECK(c9->files.protection_set);
			CHECK(c9->files.no_swap_room);
		}
	}
	cgroup_set_scan(&s, pods, on_gone, NULL);

	/* A limit on the pod's parent still bounds every pod below. */
	put("kubepods.slice/kubepods-burstable.slice", "memory.swap.max", "1048576\n");
	if ((cg = find(&s, BU "kubepods-burstable-podc.slice"))) {
		CHECK_EQ_INT(cgroup_read_sample(cg, g++, 1ULL << 40, &smp), 0);
		CHECK_EQ_U64(smp.swap_room_bytes, 1ULL << 20);
	}
	put("kubepods.slice/kubepods-burstable.slice", "memory.swap.max", "max\n");
	cgroup_set_done(&s);

	/* level container: each container's own room. */
	CHECK_EQ_INT(cgroup_set_init(&s, root), 0);
	cgroup_set_scan(&s, ctrs, on_gone, NULL);
	CHECK((cg = find(&s, BU "kubepods-burstable-poda.slice")) && !cg->managed);
	CHECK((cg = find(&s, BU "kubepods-burstable-poda.slice/cri-containerd-a1.scope")) && cg->managed);
	if (cg) {
		unsigned slow_free = g;

		CHECK_EQ_INT(cgroup_read_sample(cg, g++, 1ULL << 40, &smp), 0);
		CHECK_EQ_U64(smp.swap_room_bytes, 0);
		CHECK_EQ_U64(smp.low_bytes, 0);
		CHECK_EQ_U64(smp.high_bytes, LIMIT_MAX);
		/* memory.low and memory.high as Memory QoS writes them: seen the next tick, whether
		 * or not the slow files are read then. */
		put(BU "kubepods-burstable-poda.slice/cri-containerd-a1.scope", "memory.low", "104857600\n");
		put(BU "kubepods-burstable-poda.slice/cri-containerd-a1.scope", "memory.high", "188743680\n");
		slow_free = g;
		while ((slow_free + cg->inode) % CGROUP_SLOW_FILES_TICKS == 0)
			slow_free++;
		CHECK_EQ_INT(cgroup_read_sample(cg, slow_free, 1ULL << 40, &smp), 0);
		CHECK_EQ_U64(smp.low_bytes, 100ULL << 20);
		CHECK_EQ_U64(smp.high_bytes, 180ULL << 20);
		CHECK(cgroup_at_high(&smp)); /* 200 MiB >= 180 MiB */
		g = slow_free + 1;
	}
	CHECK((cg = find(&s, BU "kubepods-burstable-podb.slice/cri-containerd-b1.scope")) && cg->managed);
	if (cg) {
		CHECK_EQ_INT(cgroup_read_sample(cg, g++, 1ULL << 40, &smp), 0);
		CHECK_EQ_U64(smp.swap_room_bytes, 6ULL << 20); /* 64 MiB - 58 MiB in use */
	}
	CHECK((cg = find(&s, BU "kubepods-burstable-podb.slice/cri-containerd-b2.scope")) && cg->managed);
	if (cg) {
		CHECK_EQ_INT(cgroup_read_sample(cg, g++, 1ULL << 40, &smp), 0);
		CHECK_EQ_U64(smp.swap_room_bytes, 0);
	}
	CHECK((cg = find(&s, BU "kubepods-burstable-podc.slice/cri-containerd-c1.scope")) && cg->managed);
	if (cg) {
		CHECK_EQ_INT(cgroup_read_sample(cg, g++, 1ULL << 40, &smp), 0);
		CHECK_EQ_U64(smp.swap_room_bytes, 1ULL << 40);
	}
	cgroup_set_done(&s);
	rmtree("kubepods.slice");
#undef BU
}

/* A read that fails names the cgroup's file: a missing memory.stat is named, without the hint
 * that belongs to memory.pressure alone; a malformed file is named with what is wrong. */
static void test_read_error_names_the_file(void)
{
	_cleanup_(config_freep) struct config *c = load("{\"rules\": [{\"match\": \"rd\"}]}");
	struct cgroup_set s;
	struct cgroup_node *cg;
	struct cgroup_sample smp;
	char path[1024], text[256];

	mkcg("rd", true, 100);
	CHECK_EQ_INT(cgroup_set_init(&s, root), 0);
	cgroup_set_scan(&s, c, on_gone, NULL);
	CHECK((cg = find(&s, "rd")) && cg->managed);
	if (!cg) {
		cgroup_set_done(&s);
		rmtree("rd");
		return;
	}

	snprintf(path, sizeof(path), "%s/rd/memory.stat", root);
	CHECK_EQ_INT(unlink(path), 0);
	cgroup_close_files(cg); /* an open fd would still read the unlinked file */
	CHECK_EQ_INT(cgroup_read_sample(cg, 1, 1ULL << 40, &smp), -ENOENT);
	CHECK_STREQ(cg->files.read_failed, "memory.stat");
	cgroup_read_error_text(cg, -ENOENT, text, sizeof(text));
	CHECK_STREQ(text, "rd/memory.stat is missing");

	mkcg("rd", true, 100);
	snprintf(path, sizeof(path), "%s/rd/memory.pressure", root);
	CHECK_EQ_INT(unlink(path), 0);
	cgroup_close_files(cg);
	CHECK_EQ_INT(cgroup_read_sample(cg, 2, 1ULL << 40, &smp), -ENOENT);
	cgroup_read_error_text(cg, -ENOENT, text, sizeof(text));
	CHECK_STREQ(text, "rd/memory.pressure is missing (memory.pressure is hidden when "
			  "cgroup.pressure is 0)");

	mkcg("rd", true, 100);
	put("rd", "memory.current", "lots\n");
	cgroup_close_files(cg);
	CHECK_EQ_INT(cgroup_read_sample(cg, 3, 1ULL << 40, &smp), -EBADMSG);
	cgroup_read_error_text(cg, -EBADMSG, text, sizeof(text));
	CHECK_STREQ(text, "cannot read rd/memory.current: not in the kernel's format");

	mkcg("rd", true, 100);
	cgroup_close_files(cg);
	CHECK_EQ_INT(cgroup_read_sample(cg, 4, 1ULL << 40, &smp), 0);
	CHECK(cg->files.read_failed == NULL);
	/* a failure outside the cgroup's own files has no name to give */
	cgroup_read_error_text(cg, -ENOENT, text, sizeof(text));
	CHECK_STREQ(text, "rd: a memory file it needs is missing");

	cgroup_set_done(&s);
	rmtree("rd");
}

int main(void)
{
	snprintf(root, sizeof(root), "/tmp/reclaimd-test-discovery.XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	test_matching_and_deepest_rule();
	test_identity_by_inode_and_removal();
	test_grouping_when_child_excluded();
	test_open_failures_are_counted();
	test_leaf_gains_a_child();
	test_depth_limit();
	test_unchanged_tree_not_relisted();
	test_new_and_removed_in_one_pass();
	test_nested_creation_under_unchanged_ancestors();
	test_recreated_in_one_pass_is_new();
	test_renamed_and_moved_directories();
	test_without_inotify_lists_every_pass();
	test_missing_root();
	test_workloads();
	test_kubepods_tracked();
	test_kubelet_swap_room_and_protection();
	test_read_error_names_the_file();
	rmdir(root);
	return test_report("discovery");
}
