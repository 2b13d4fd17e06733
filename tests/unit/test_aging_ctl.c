/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_aging_ctl.c - the MGLRU aging controller's on/off state (agent/ctl/aging_ctl.c) on a
 * fixture sys tree: MGLRU switched off and on, debugfs unmounted and mounted again, a kernel
 * without MGLRU, reloads; each change logged once, nothing logged for an unchanged state, a
 * kernel without MGLRU never probed again, and no descriptor held between ticks.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl/aging_ctl.h"
#include "reclaimd/config.h"
#include "reclaimd/log.h"
#include "reclaimd/snapshot.h"
#include "test.h"

static char root[] = "/tmp/reclaimd-test-aging-XXXXXX";
static char logpath[PATH_MAX];
static long log_seen; /* bytes of the log already looked at */

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void mkdir_rel(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	CHECK(mkdir(path, 0700) == 0);
}

static void unlink_rel(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	CHECK(unlink(path) == 0);
}

/* The log written since the last call, in buf; returns how many lines contain `needle`. */
static int new_lines_with(const char *needle, char *buf, size_t size)
{
	FILE *f;
	size_t n;
	int count = 0;

	fflush(stderr);
	f = fopen(logpath, "r");
	CHECK(f != NULL);
	if (!f)
		return -1;
	fseek(f, log_seen, SEEK_SET);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	log_seen += (long)n;
	fclose(f);
	for (const char *p = buf; (p = strstr(p, needle)); p++)
		count++;
	return count;
}

static void tick(struct aging_ctl *ag, const struct config *c, unsigned t)
{
	struct snapshot snap = { 0 };
	struct tick_ctx ctx = { .snap = &snap, .config = c, .tick = t };

	aging_ctl_tick(ag, &ctx);
}

int main(void)
{
	static char buf[1 << 16];
	struct config *on = NULL, *off = NULL;
	struct config_error err;
	struct aging_ctl *ag = NULL;
	struct ctl_env env = { 0 };
	struct aging_hooks hooks = { 0 };
	int saved_stderr, fd, fds0;

	CHECK(mkdtemp(root) != NULL);
	snprintf(logpath, sizeof(logpath), "%s/log", root);
	/* The log goes to a file this test reads back. */
	fflush(stderr);
	saved_stderr = dup(2);
	fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	CHECK(fd >= 0 && dup2(fd, 2) == 2);
	close(fd);
	log_use_stderr(true);

	mkdir_rel("kernel");
	mkdir_rel("kernel/mm");
	mkdir_rel("kernel/mm/lru_gen");
	mkdir_rel("kernel/debug");
	put("kernel/mm/lru_gen/enabled", "0x0007\n");
	put("kernel/debug/lru_gen", "memcg     1 /\n node     0\n         15     112240          1           0 \n");
	CHECK_EQ_INT(config_load_string("{\"mglru_aging\": true}", &on, &err), 0);
	CHECK_EQ_INT(config_load_string("{\"mglru_aging\": false}", &off, &err), 0);
	if (!on || !off)
		return test_report("test_aging_ctl");
	env.sys_root = root;
	env.proc_root = "/proc";

	/* Start: on, said once; ticks with nothing changed say nothing and hold no descriptor. */
	CHECK_EQ_INT(aging_ctl_new(&env, on, &hooks, &ag), 0);
	if (!ag)
		return test_report("test_aging_ctl");
	CHECK(aging_ctl_active(ag));
	CHECK_EQ_INT(new_lines_with("MGLRU aging on:", buf, sizeof(buf)), 1);
	fds0 = test_count_fds();
	for (unsigned t = 1; t <= 3; t++)
		tick(ag, on, t);
	CHECK_EQ_INT(test_count_fds(), fds0);
	CHECK_EQ_INT(new_lines_with("MGLRU", buf, sizeof(buf)), 0);

	/* MGLRU switched off: one line, off; more ticks: nothing more. Back on: one line. */
	put("kernel/mm/lru_gen/enabled", "0x0000\n");
	tick(ag, on, 4);
	CHECK(!aging_ctl_active(ag));
	CHECK_EQ_INT(new_lines_with("MGLRU aging stopped (Operation not supported): MGLRU is switched off",
				    buf, sizeof(buf)), 1);
	tick(ag, on, 5);
	tick(ag, on, 6);
	CHECK_EQ_INT(new_lines_with("MGLRU", buf, sizeof(buf)), 0);
	put("kernel/mm/lru_gen/enabled", "0x0001\n");
	tick(ag, on, 7);
	CHECK(aging_ctl_active(ag));
	CHECK_EQ_INT(new_lines_with("MGLRU aging back on:", buf, sizeof(buf)), 1);

	/* debugfs gone: one line; mounted again: one line. */
	unlink_rel("kernel/debug/lru_gen");
	tick(ag, on, 8);
	tick(ag, on, 9);
	CHECK(!aging_ctl_active(ag));
	CHECK_EQ_INT(new_lines_with("MGLRU aging stopped (No such file or directory): debugfs is not mounted",
				    buf, sizeof(buf)), 1);
	CHECK_EQ_INT(new_lines_with("MGLRU", buf, sizeof(buf)), 0);
	put("kernel/debug/lru_gen", "memcg     1 /\n node     0\n         15     112240          1           0 \n");
	tick(ag, on, 10);
	CHECK(aging_ctl_active(ag));
	CHECK_EQ_INT(new_lines_with("MGLRU aging back on:", buf, sizeof(buf)), 1);
	CHECK_EQ_INT(test_count_fds(), fds0);

	/* Reloads with aging on, then off, then on: nothing said while nothing changes; on again is
	 * "on" (not "back on") after it was not wanted. */
	aging_ctl_reload(ag, on);
	CHECK_EQ_INT(new_lines_with("MGLRU", buf, sizeof(buf)), 0);
	aging_ctl_reload(ag, off);
	CHECK(!aging_ctl_active(ag));
	tick(ag, off, 11);
	CHECK_EQ_INT(new_lines_with("MGLRU", buf, sizeof(buf)), 0);
	aging_ctl_reload(ag, on);
	CHECK(aging_ctl_active(ag));
	CHECK_EQ_INT(new_lines_with("MGLRU aging on:", buf, sizeof(buf)), 1);

	/* Switched off, then reload storms while off: the reason is said once, not per reload. */
	put("kernel/mm/lru_gen/enabled", "0x0000\n");
	tick(ag, on, 12);
	CHECK_EQ_INT(new_lines_with("MGLRU aging stopped", buf, sizeof(buf)), 1);
	for (int i = 0; i < 20; i++)
		aging_ctl_reload(ag, on);
	CHECK_EQ_INT(new_lines_with("MGLRU", buf, sizeof(buf)), 0);
	aging_ctl_free(ag);
	ag = NULL;

	/* A kernel without MGLRU: said once at start, never probed again (ticks or reloads), even if
	 * the file then appears (it cannot on a real kernel). */
	unlink_rel("kernel/mm/lru_gen/enabled");
	CHECK_EQ_INT(aging_ctl_new(&env, on, &hooks, &ag), 0);
	CHECK_EQ_INT(new_lines_with("MGLRU aging off (No such device): no MGLRU in this kernel",
				    buf, sizeof(buf)), 1);
	put("kernel/mm/lru_gen/enabled", "0x0007\n");
	for (unsigned t = 1; t <= 3; t++)
		tick(ag, on, t);
	aging_ctl_reload(ag, on);
	CHECK(!aging_ctl_active(ag));
	CHECK_EQ_INT(new_lines_with("MGLRU", buf, sizeof(buf)), 0);
	aging_ctl_free(ag);

	/* A dry run never ages and says nothing. */
	env.dry_run = true;
	CHECK_EQ_INT(aging_ctl_new(&env, on, &hooks, &ag), 0);
	tick(ag, on, 1);
	CHECK(!aging_ctl_active(ag));
	CHECK_EQ_INT(new_lines_with("MGLRU", buf, sizeof(buf)), 0);
	aging_ctl_free(ag);

	config_free(on);
	config_free(off);
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	snprintf(buf, sizeof(buf), "rm -r '%s'", root);
	CHECK(system(buf) == 0);
	return test_report("test_aging_ctl");
}
