/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_trust.c - who may change the configuration file (trust.h): the pure decision on one
 * component (every owner, type and write bit, the sticky and read-only exceptions), then
 * trusted_open() and config_load_file() on real trees in a temporary directory under /tmp: a
 * safe file, each unsafe component (file, parent, grandparent, a symlink of another user, a
 * symlink into an unsafe directory), symlinks (relative, absolute, chains, loops), "." and "..",
 * relative paths, and what is not a regular file. Owners other than root need root to make
 * (chown); without it those checks are skipped. The temporary directory must itself sit under
 * directories the rule accepts (/tmp: root's, sticky): otherwise the tree checks are skipped.
 */
#include <errno.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reclaimd/config.h"
#include "reclaimd/trust.h"
#include "test.h"

/* ---- the decision -------------------------------------------------------------------------- */

static enum trust_verdict verdict(uint32_t uid, uint32_t mode, bool ro, bool last)
{
	return trust_entry_check(&(struct trust_entry){ .uid = uid, .mode = mode, .read_only = ro,
							 .last = last });
}

static void test_decision(void)
{
	/* The file: root's, regular, no group or other write; nothing exempts it. */
	CHECK_EQ_INT(verdict(0, S_IFREG | 0644, false, true), TRUST_OK);
	CHECK_EQ_INT(verdict(0, S_IFREG | 0600, false, true), TRUST_OK);
	CHECK_EQ_INT(verdict(0, S_IFREG | 0755, false, true), TRUST_OK);
	CHECK_EQ_INT(verdict(0, S_IFREG | 0444, false, true), TRUST_OK);
	CHECK_EQ_INT(verdict(1000, S_IFREG | 0644, false, true), TRUST_NOT_ROOT_OWNED);
	CHECK_EQ_INT(verdict(1000, S_IFREG | 0600, true, true), TRUST_NOT_ROOT_OWNED);
	CHECK_EQ_INT(verdict(0, S_IFREG | 0664, false, true), TRUST_GROUP_WRITABLE);
	CHECK_EQ_INT(verdict(0, S_IFREG | 0646, false, true), TRUST_OTHERS_WRITABLE);
	CHECK_EQ_INT(verdict(0, S_IFREG | 0666, false, true), TRUST_OTHERS_WRITABLE);
	CHECK_EQ_INT(verdict(0, S_IFREG | 0666, true, true), TRUST_OTHERS_WRITABLE);
	CHECK_EQ_INT(verdict(0, S_IFREG | 01666, false, true), TRUST_OTHERS_WRITABLE);
	CHECK_EQ_INT(verdict(0, S_IFREG | 02664, false, true), TRUST_GROUP_WRITABLE);
	CHECK_EQ_INT(verdict(0, S_IFDIR | 0755, false, true), TRUST_NOT_REGULAR);
	CHECK_EQ_INT(verdict(0, S_IFIFO | 0600, false, true), TRUST_NOT_REGULAR);
	CHECK_EQ_INT(verdict(0, S_IFCHR | 0600, false, true), TRUST_NOT_REGULAR);
	CHECK_EQ_INT(verdict(0, S_IFLNK | 0777, false, true), TRUST_NOT_REGULAR);
	/* Not root's comes first, whatever else is wrong. */
	CHECK_EQ_INT(verdict(1, S_IFREG | 0666, false, true), TRUST_NOT_ROOT_OWNED);
	CHECK_EQ_INT(verdict(65534, S_IFDIR | 0777, false, true), TRUST_NOT_ROOT_OWNED);

	/* A directory: root's and not group/other-writable, unless sticky or on a read-only mount. */
	CHECK_EQ_INT(verdict(0, S_IFDIR | 0755, false, false), TRUST_OK);
	CHECK_EQ_INT(verdict(0, S_IFDIR | 0700, false, false), TRUST_OK);
	CHECK_EQ_INT(verdict(0, S_IFDIR | 0555, false, false), TRUST_OK);
	CHECK_EQ_INT(verdict(0, S_IFDIR | 0775, false, false), TRUST_GROUP_WRITABLE);
	CHECK_EQ_INT(verdict(0, S_IFDIR | 0757, false, false), TRUST_OTHERS_WRITABLE);
	CHECK_EQ_INT(verdict(0, S_IFDIR | 0777, false, false), TRUST_OTHERS_WRITABLE);
	CHECK_EQ_INT(verdict(0, S_IFDIR | 02775, false, false), TRUST_GROUP_WRITABLE); /* setgid is no sticky */
	CHECK_EQ_INT(verdict(0, S_IFDIR | 01777, false, false), TRUST_OK);  /* /tmp */
	CHECK_EQ_INT(verdict(0, S_IFDIR | 01775, false, false), TRUST_OK);
	CHECK_EQ_INT(verdict(0, S_IFDIR | 0777, true, false), TRUST_OK);    /* a ConfigMap volume */
	CHECK_EQ_INT(verdict(0, S_IFDIR | 0775, true, false), TRUST_OK);
	CHECK_EQ_INT(verdict(1000, S_IFDIR | 01777, false, false), TRUST_NOT_ROOT_OWNED);
	CHECK_EQ_INT(verdict(1000, S_IFDIR | 0755, true, false), TRUST_NOT_ROOT_OWNED);
	CHECK_EQ_INT(verdict(1000, S_IFDIR | 0700, false, false), TRUST_NOT_ROOT_OWNED);

	/* A symlink: root's; its mode means nothing. */
	CHECK_EQ_INT(verdict(0, S_IFLNK | 0777, false, false), TRUST_OK);
	CHECK_EQ_INT(verdict(1000, S_IFLNK | 0777, false, false), TRUST_NOT_ROOT_OWNED);

	/* Anything else on the way is no directory. */
	CHECK_EQ_INT(verdict(0, S_IFREG | 0644, false, false), TRUST_NOT_DIRECTORY);
	CHECK_EQ_INT(verdict(0, S_IFBLK | 0600, false, false), TRUST_NOT_DIRECTORY);

	CHECK_STREQ(trust_verdict_to_string(TRUST_OTHERS_WRITABLE), "is writable by others");
	CHECK_STREQ(trust_verdict_to_string(TRUST_GROUP_WRITABLE), "is writable by its group");
	CHECK_STREQ(trust_verdict_to_string(TRUST_NOT_ROOT_OWNED), "is not owned by root");
	CHECK_STREQ(trust_verdict_to_string(_TRUST_VERDICT_MAX), "is refused");
}

/* ---- trusted_open() on real trees ---------------------------------------------------------- */

static char base[64]; /* /tmp/test_trust.XXXXXX */

static const char *at(const char *rel)
{
	static char bufs[4][PATH_MAX];
	static unsigned i;
	char *b = bufs[i++ % 4];

	snprintf(b, PATH_MAX, "%s/%s", base, rel);
	return b;
}

static void put(const char *rel, mode_t mode)
{
	int fd = open(at(rel), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, "{}\n", 3) != 3 || fchmod(fd, mode) < 0)
		fprintf(stderr, "cannot make %s: %s\n", at(rel), strerror(errno));
	if (fd >= 0)
		close(fd);
}

static void dir(const char *rel, mode_t mode)
{
	if ((mkdir(at(rel), 0700) < 0 && errno != EEXIST) || chmod(at(rel), mode) < 0)
		fprintf(stderr, "cannot make %s: %s\n", at(rel), strerror(errno));
}

static void link_(const char *target, const char *rel)
{
	if (symlink(target, at(rel)) < 0)
		fprintf(stderr, "cannot link %s: %s\n", at(rel), strerror(errno));
}

/* trusted_open(path): its result, the fd closed; the refusal in *ret_ref. */
static int try_open(const char *path, struct trust_refusal *ret_ref)
{
	struct trust_refusal ref = { .path = "" };
	int fd = trusted_open(path, 0, &ref);

	if (fd >= 0) {
		char buf[8];
		ssize_t n = read(fd, buf, sizeof(buf));

		/* The fd returned is the file's, open for reading. */
		CHECK_EQ_INT(n, 3);
		close(fd);
		fd = 0;
	}
	if (ret_ref)
		*ret_ref = ref;
	return fd;
}

/* Refused: -EPERM naming `rel` (relative to base) with `why`. */
#define CHECK_REFUSED(p_, rel_, why_)                                                       \
	do {                                                                                \
		struct trust_refusal _ref;                                                  \
		CHECK_EQ_INT(try_open(p_, &_ref), -EPERM);                                  \
		CHECK_STREQ(_ref.path, at(rel_));                                           \
		CHECK_EQ_INT(_ref.why, why_);                                               \
	} while (0)

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(p);
}

static void test_tree(void)
{
	struct trust_refusal ref;
	char cwd[PATH_MAX];
	int r;

	put("safe.json", 0644);
	r = try_open(at("safe.json"), &ref);
	if (r == -EPERM && strncmp(ref.path, base, strlen(base)) != 0) {
		SKIP("%s %s (owner %u, mode %04o): the tree checks need a temporary directory "
		     "under directories only root can change", ref.path, trust_verdict_to_string(ref.why),
		     ref.uid, ref.mode & 07777);
		return;
	}
	if (geteuid() != 0) {
		/* Everything made here is ours, not root's: the directory is refused first. */
		CHECK_EQ_INT(r, -EPERM);
		CHECK_STREQ(ref.path, base);
		CHECK_EQ_INT(ref.why, TRUST_NOT_ROOT_OWNED);
		CHECK_EQ_INT(ref.uid, geteuid());
		SKIP("not root: files owned by root cannot be made, only refusals are checked");
		return;
	}
	CHECK_EQ_INT(r, 0);

	/* The file's own mode. */
	put("g.json", 0664);
	put("o.json", 0646);
	put("ro.json", 0400);
	CHECK_REFUSED(at("g.json"), "g.json", TRUST_GROUP_WRITABLE);
	CHECK_REFUSED(at("o.json"), "o.json", TRUST_OTHERS_WRITABLE);
	CHECK_EQ_U64(ref.uid, 0);
	CHECK_EQ_INT(try_open(at("ro.json"), NULL), 0);
	{
		struct trust_refusal ref2;

		CHECK_EQ_INT(try_open(at("o.json"), &ref2), -EPERM);
		CHECK_EQ_U64(ref2.mode & 07777, 0646);
		CHECK_EQ_U64(ref2.uid, 0);
	}
	/* Another owner. */
	put("u.json", 0644);
	CHECK_EQ_INT(chown(at("u.json"), 1000, 0), 0);
	CHECK_REFUSED(at("u.json"), "u.json", TRUST_NOT_ROOT_OWNED);

	/* The parent and the grandparent; the sticky exception; another owner's directory. */
	dir("p", 0755);
	dir("p/q", 0755);
	put("p/q/c.json", 0644);
	CHECK_EQ_INT(try_open(at("p/q/c.json"), NULL), 0);
	CHECK_EQ_INT(chmod(at("p/q"), 0775), 0);
	CHECK_REFUSED(at("p/q/c.json"), "p/q", TRUST_GROUP_WRITABLE);
	CHECK_EQ_INT(chmod(at("p/q"), 0755), 0);
	CHECK_EQ_INT(chmod(at("p"), 0777), 0);
	CHECK_REFUSED(at("p/q/c.json"), "p", TRUST_OTHERS_WRITABLE);
	CHECK_EQ_INT(chmod(at("p"), 01777), 0);
	CHECK_EQ_INT(try_open(at("p/q/c.json"), NULL), 0);
	CHECK_EQ_INT(chown(at("p"), 1000, 1000), 0);
	CHECK_REFUSED(at("p/q/c.json"), "p", TRUST_NOT_ROOT_OWNED);
	CHECK_EQ_INT(chown(at("p"), 0, 0), 0);
	CHECK_EQ_INT(chmod(at("p"), 0755), 0);

	/* Symlinks: relative and absolute, a chain, the link's owner, a link into an unsafe
	 * directory, a link in a safe directory to a file in an unsafe one. */
	link_("safe.json", "rel.json");
	link_(at("safe.json"), "abs.json");
	link_("rel.json", "chain.json");
	link_("p/q/c.json", "deep.json");
	link_("p", "pl");
	CHECK_EQ_INT(try_open(at("rel.json"), NULL), 0);
	CHECK_EQ_INT(try_open(at("abs.json"), NULL), 0);
	CHECK_EQ_INT(try_open(at("chain.json"), NULL), 0);
	CHECK_EQ_INT(try_open(at("deep.json"), NULL), 0);
	CHECK_EQ_INT(try_open(at("pl/q/c.json"), NULL), 0);
	CHECK_EQ_INT(lchown(at("chain.json"), 1000, 1000), 0);
	CHECK_REFUSED(at("chain.json"), "chain.json", TRUST_NOT_ROOT_OWNED);
	CHECK_EQ_INT(chmod(at("p/q"), 0777), 0);
	CHECK_REFUSED(at("deep.json"), "p/q", TRUST_OTHERS_WRITABLE);
	CHECK_REFUSED(at("pl/q/c.json"), "p/q", TRUST_OTHERS_WRITABLE);
	CHECK_EQ_INT(chmod(at("p/q"), 0755), 0);
	dir("w", 0777);
	put("w/c.json", 0644);
	link_("w/c.json", "intow.json");
	CHECK_REFUSED(at("intow.json"), "w", TRUST_OTHERS_WRITABLE);

	/* ".", ".." and extra slashes; ".." back through an unsafe directory is refused. */
	CHECK_EQ_INT(try_open(at("p/./q/../q//c.json"), NULL), 0);
	CHECK_EQ_INT(try_open(at("p/q/../../safe.json"), NULL), 0);
	CHECK_REFUSED(at("w/../safe.json"), "w", TRUST_OTHERS_WRITABLE);
	/* ".." after a symlinked directory goes to the target's parent, as the kernel does. */
	link_("p/q", "ql");
	CHECK_EQ_INT(try_open(at("ql/../q/c.json"), NULL), 0);

	/* Relative to the working directory, which is checked from / too. */
	if (getcwd(cwd, sizeof(cwd)) && chdir(at("p")) == 0) {
		CHECK_EQ_INT(try_open("q/c.json", NULL), 0);
		CHECK_EQ_INT(try_open("../safe.json", NULL), 0);
		CHECK_EQ_INT(chmod(at("p"), 0770), 0);
		CHECK_REFUSED("q/c.json", "p", TRUST_GROUP_WRITABLE);
		CHECK_EQ_INT(chmod(at("p"), 0755), 0);
		CHECK(chdir(cwd) == 0);
	}

	/* Errors: missing, a directory, a FIFO, a file on the way, loops, empty. */
	CHECK_EQ_INT(try_open(at("missing.json"), NULL), -ENOENT);
	CHECK_EQ_INT(try_open(at("nodir/c.json"), NULL), -ENOENT);
	CHECK_EQ_INT(try_open(at("p"), NULL), -EISDIR);
	CHECK_EQ_INT(try_open(at("p/"), NULL), -EISDIR);
	CHECK_EQ_INT(try_open(at("p/.."), NULL), -EISDIR);
	CHECK_EQ_INT(try_open("/", NULL), -EISDIR);
	CHECK_EQ_INT(try_open(at("safe.json/x"), NULL), -ENOTDIR);
	CHECK_EQ_INT(mkfifo(at("fifo"), 0600), 0);
	CHECK_EQ_INT(try_open(at("fifo"), NULL), -EBADFD);
	link_("loop1", "loop2");
	link_("loop2", "loop1");
	CHECK_EQ_INT(try_open(at("loop1"), NULL), -ELOOP);
	link_("dangling-target", "dangling");
	CHECK_EQ_INT(try_open(at("dangling"), NULL), -ENOENT);
	CHECK_EQ_INT(try_open("", NULL), -ENOENT);
	CHECK_EQ_INT(trusted_open(NULL, 0, NULL), -EINVAL);
	/* 40 links in a row are followed, 41 are not (MAXSYMLINKS). */
	{
		char name[32], target[32];

		for (int i = 1; i <= 41; i++) {
			snprintf(name, sizeof(name), "l%d", i);
			if (i == 1)
				snprintf(target, sizeof(target), "safe.json");
			else
				snprintf(target, sizeof(target), "l%d", i - 1);
			link_(target, name);
		}
		CHECK_EQ_INT(try_open(at("l40"), NULL), 0);
		CHECK_EQ_INT(try_open(at("l41"), NULL), -ELOOP);
	}

	/* config_load_file(): the refusal as one line naming path, owner and mode; the test-only
	 * flag reads the same file. */
	{
		struct config *c = NULL;
		struct config_error err;

		CHECK_EQ_INT(config_load_file(at("o.json"), 0, &c, &err), -EPERM);
		CHECK(c == NULL);
		CHECK(strstr(err.text, at("o.json")) != NULL);
		CHECK(strstr(err.text, "is writable by others (owner uid 0, mode 0646)") != NULL);
		CHECK_EQ_INT(config_load_file(at("intow.json"), 0, &c, &err), -EPERM);
		CHECK(strstr(err.text, "/w is writable by others (owner uid 0, mode 0777)") != NULL);
		CHECK_EQ_INT(config_load_file(at("o.json"), CONFIG_LOAD_UNSAFE_PATH, &c, &err), 0);
		config_free(c);
		c = NULL;
		CHECK_EQ_INT(config_load_file(at("safe.json"), 0, &c, &err), 0);
		config_free(c);
		c = NULL;
		CHECK_EQ_INT(config_load_file(at("fifo"), 0, &c, &err), -EINVAL);
		CHECK(strstr(err.text, "cannot read: not a regular file") != NULL);
		CHECK_EQ_INT(config_load_file(at("p"), 0, &c, &err), -EISDIR);
	}
}

int main(void)
{
	test_decision();
	snprintf(base, sizeof(base), "/tmp/test_trust.XXXXXX");
	if (!mkdtemp(base)) {
		fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
		return 2;
	}
	test_tree();
	nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return test_report("test_trust");
}
