/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_swap_entries.c - the rule for configured swap entries (swap_entries_verdict(), swap.h)
 * that the agent and --check-config share, and its mechanism (swap_entries_resolve(),
 * swap_entry_reason()) on files in a temporary directory: a file with the swap signature, a
 * symlink to it, a plain file, a missing path.
 */
#include <errno.h>
#include <unistd.h>

#include "test.h"
#include "reclaimd/swap.h"

static void test_verdict(void)
{
	struct swap_entry e[6] = {
		{ .real = "/dev/zram0", .active = true },               /* kept, active */
		{ .real = NULL },                                        /* unresolved */
		{ .real = "/dev/zram0", .active = true },               /* duplicate of 0 */
		{ .real = "/swapfile", .active = false, .is_swap = false }, /* not swap */
		{ .real = "/swapfile", .active = false, .is_swap = true },  /* 3 was not kept: kept */
		{ .real = "/swapfile", .active = false, .is_swap = true },  /* duplicate of 4 */
	};

	swap_entries_verdict(e, 6);
	CHECK_EQ_INT(e[0].verdict, SWAP_ENTRY_KEEP);
	CHECK_EQ_INT(e[1].verdict, SWAP_ENTRY_UNRESOLVED);
	CHECK_EQ_INT(e[2].verdict, SWAP_ENTRY_DUPLICATE);
	CHECK_EQ_U64(e[2].same_as, 0);
	CHECK_EQ_INT(e[3].verdict, SWAP_ENTRY_NOT_SWAP);
	CHECK_EQ_INT(e[4].verdict, SWAP_ENTRY_KEEP);
	CHECK_EQ_INT(e[5].verdict, SWAP_ENTRY_DUPLICATE);
	CHECK_EQ_U64(e[5].same_as, 4);

	/* An active entry needs no signature check. */
	e[0] = (struct swap_entry){ .real = "/dev/sdb2", .active = true, .is_swap = false };
	swap_entries_verdict(e, 1);
	CHECK_EQ_INT(e[0].verdict, SWAP_ENTRY_KEEP);
	swap_entries_verdict(e, 0);
}

static int write_swap_file(const char *path, bool signature)
{
	long page = sysconf(_SC_PAGESIZE);
	char *buf = calloc(1, (size_t)page);
	FILE *f = fopen(path, "w");
	int r = 0;

	if (!buf || !f)
		r = -1;
	if (!r && signature)
		memcpy(buf + page - 10, "SWAPSPACE2", 10);
	if (!r && fwrite(buf, 1, (size_t)page, f) != (size_t)page)
		r = -1;
	if (f && fclose(f) != 0)
		r = -1;
	free(buf);
	return r;
}

static void test_resolve(void)
{
	char dir[] = "/tmp/reclaimd-swap-entries.XXXXXX", swapf[PATH_MAX], link1[PATH_MAX],
	     plain[PATH_MAX], missing[PATH_MAX], why[PATH_MAX + 64], real_swapf[PATH_MAX];
	struct swap_device_cfg cfg[5];
	struct swap_entry e[5];
	struct swap_entry_io io[5];
	struct swaps *active = calloc(1, sizeof(*active));

	if (!active || !mkdtemp(dir)) {
		SKIP("no temporary directory: %s", strerror(errno));
		free(active);
		return;
	}
	snprintf(swapf, sizeof(swapf), "%s/swapfile", dir);
	snprintf(link1, sizeof(link1), "%s/link", dir);
	snprintf(plain, sizeof(plain), "%s/plain", dir);
	snprintf(missing, sizeof(missing), "%s/missing", dir);
	CHECK(write_swap_file(swapf, true) == 0);
	CHECK(write_swap_file(plain, false) == 0);
	CHECK(symlink(swapf, link1) == 0);
	CHECK(realpath(swapf, real_swapf) != NULL);

	cfg[0] = (struct swap_device_cfg){ .path = swapf, .priority = 10, .kind = SWAP_KIND_FILE };
	cfg[1] = (struct swap_device_cfg){ .path = link1, .priority = 10, .kind = SWAP_KIND_FILE };
	cfg[2] = (struct swap_device_cfg){ .path = plain, .priority = 5, .kind = SWAP_KIND_FILE };
	cfg[3] = (struct swap_device_cfg){ .path = missing, .priority = 5, .kind = SWAP_KIND_FILE };
	cfg[4] = (struct swap_device_cfg){ .path = plain, .priority = 5, .kind = SWAP_KIND_FILE };
	swap_entries_resolve(cfg, 5, NULL, e, io);
	CHECK_EQ_INT(e[0].verdict, SWAP_ENTRY_KEEP);
	CHECK_STREQ(e[0].real, real_swapf);
	CHECK_EQ_INT(e[1].verdict, SWAP_ENTRY_DUPLICATE);
	CHECK_EQ_U64(e[1].same_as, 0);
	CHECK_EQ_INT(e[2].verdict, SWAP_ENTRY_NOT_SWAP);
	CHECK_EQ_INT(e[3].verdict, SWAP_ENTRY_UNRESOLVED);
	CHECK_EQ_INT(io[3].resolve_errno, ENOENT);
	/* A later spelling of a device that was not kept is judged on its own. */
	CHECK_EQ_INT(e[4].verdict, SWAP_ENTRY_NOT_SWAP);

	swap_entry_reason(cfg, e, io, 0, why, sizeof(why));
	CHECK_STREQ(why, "");
	swap_entry_reason(cfg, e, io, 1, why, sizeof(why));
	{
		char want[PATH_MAX + 64];

		snprintf(want, sizeof(want), "the same device as swap.devices[0] (%s)", real_swapf);
		CHECK_STREQ(why, want);
		snprintf(want, sizeof(want), "%s does not exist", missing);
		swap_entry_reason(cfg, e, io, 3, why, sizeof(why));
		CHECK_STREQ(why, want);
	}
	swap_entry_reason(cfg, e, io, 2, why, sizeof(why));
	CHECK(strstr(why, "plain") != NULL);

	/* The plain file, active under its canonical name: the kernel's, no signature asked. */
	active->n = 1;
	CHECK(realpath(plain, active->dev[0].path) != NULL);
	swap_entries_resolve(cfg, 3, active, e, io);
	CHECK(e[2].active);
	CHECK_EQ_INT(e[2].verdict, SWAP_ENTRY_KEEP);

	unlink(link1);
	unlink(swapf);
	unlink(plain);
	rmdir(dir);
	free(active);
}

int main(void)
{
	test_verdict();
	test_resolve();
	return test_report("swap_entries");
}
