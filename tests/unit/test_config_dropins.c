/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_config_dropins.c - the drop-in directory (agent/config/dropins.c): which files are read
 * and in what order, how keys, sections and rules merge, a bad drop-in failing the whole load
 * with its own file named, and the trust check applied to drop-ins and their directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reclaimd/config.h"
#include "test.h"

static char top[64];
static char main_path[128], dir[128];

static void write_file(const char *name, const char *text, mode_t mode)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", name[0] == '/' ? "" : dir, name);
	f = fopen(name[0] == '/' ? name : path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
	chmod(name[0] == '/' ? name : path, mode);
}

static void clear_dir(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -m 0755 '%s'", dir, dir);
	if (system(cmd) != 0)
		exit(1);
}

static const char *main_json =
	"{ \"interval\": 6, \"log_level\": \"info\",\n"
	"  \"defaults\": { \"min_bytes\": \"100M\", \"probe_max\": 0.1 },\n"
	"  \"metrics\": { \"listen\": \"127.0.0.1:9333\" },\n"
	"  \"rules\": [ { \"match\": \"system.slice/*.service\" } ] }\n";

static void test_no_dir(void)
{
	struct config *c = NULL;
	struct config_error err;
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	CHECK_EQ_INT(config_load_file(main_path, CONFIG_LOAD_UNSAFE_PATH, &c, &err), 0);
	if (!c)
		return;
	CHECK_EQ_U64(c->n_files, 1);
	CHECK_STREQ(c->files[0], main_path);
	CHECK_EQ_U64(c->n_rules, 1);
	config_free(c);
}

static void test_merge(void)
{
	struct config *c = NULL;
	struct config_error err;
	char want[256];

	clear_dir();
	/* Read in strcmp order, whatever order they were made in. */
	write_file("20-b.json", "{ \"log_level\": \"debug\",\n"
		   "  \"rules\": [ { \"match\": \"c.slice/**\" } ] }\n", 0644);
	write_file("10-a.json", "{ \"interval\": 10, \"defaults\": { \"probe_max\": 0.3 },\n"
		   "  \"metrics\": { \"textfile\": \"/run/x.prom\" },\n"
		   "  \"rules\": [ { \"match\": \"system.slice/foo.service\", \"policy\": \"none\" },\n"
		   "             { \"match\": \"b.slice/**\" } ] }\n", 0644);
	/* Not drop-ins: another suffix, a hidden file. */
	write_file("30-c.json.bak", "not json", 0644);
	write_file(".40-d.json", "not json", 0644);

	CHECK_EQ_INT(config_load_file(main_path, CONFIG_LOAD_UNSAFE_PATH, &c, &err), 0);
	if (!c) {
		fprintf(stderr, "%s\n", err.text);
		return;
	}
	CHECK_EQ_U64(c->n_files, 3);
	CHECK_STREQ(c->files[0], main_path);
	snprintf(want, sizeof(want), "%s/10-a.json", dir);
	CHECK_STREQ(c->files[1], want);
	snprintf(want, sizeof(want), "%s/20-b.json", dir);
	CHECK_STREQ(c->files[2], want);
	/* Top-level keys: the later file wins. */
	CHECK_EQ_U64(c->interval_us, 10 * 1000000ull);
	CHECK_EQ_INT(c->log_level, CFG_LOG_DEBUG);
	/* Sections merge key by key. */
	CHECK_EQ_U64(c->defaults.min_bytes, 100ull << 20);
	CHECK_NEAR(c->defaults.probe_max, 0.3, 1e-12);
	CHECK_STREQ(c->metrics.listen, "127.0.0.1:9333");
	CHECK_STREQ(c->metrics.textfile, "/run/x.prom");
	/* Rules: the drop-ins' in file order, then the main file's. */
	CHECK_EQ_U64(c->n_rules, 4);
	if (c->n_rules == 4) {
		CHECK_STREQ(c->rules[0].match, "system.slice/foo.service");
		CHECK_STREQ(c->rules[1].match, "b.slice/**");
		CHECK_STREQ(c->rules[2].match, "c.slice/**");
		CHECK_STREQ(c->rules[3].match, "system.slice/*.service");
		/* Every rule sees the merged defaults. */
		CHECK_NEAR(c->rules[3].params.probe_max, 0.3, 1e-12);
	}
	/* The drop-in's rule for one service is the one that applies. */
	CHECK(config_match(c, "system.slice/foo.service") == &c->rules[0]);
	CHECK(config_match(c, "system.slice/bar.service") == &c->rules[3]);
	config_free(c);
}

/* A bad drop-in fails the whole load, naming itself (and line:column for syntax). */
static void expect_fail(unsigned flags, int want_r, const char *const *needles)
{
	struct config *c = (struct config *)&top; /* a sentinel the loader must leave */
	struct config_error err;
	int r = config_load_file(main_path, flags, &c, &err);
	bool ok = r == want_r && c == (struct config *)&top;

	for (const char *const *n = needles; *n; n++)
		ok = ok && strstr(err.text, *n);
	/* The file the reload reply names is the one the message starts with. */
	ok = ok && (!err.file[0] || strncmp(err.text, err.file, strlen(err.file)) == 0);
	if (!ok)
		fprintf(stderr, "gave r=%d \"%s\" (file \"%s\")\n", r, err.text, err.file);
	CHECK(ok);
}

static void test_bad_dropins(void)
{
	char name[200];

	clear_dir();
	write_file("10-ok.json", "{ \"interval\": 10 }\n", 0644);
	write_file("20-bad.json", "{ \"interval\": 10,\n  \"log_level\" \"info\" }\n", 0644);
	snprintf(name, sizeof(name), "%s/20-bad.json:2:", dir);
	expect_fail(CONFIG_LOAD_UNSAFE_PATH, -EINVAL, (const char *const[]){ name, NULL });

	clear_dir();
	write_file("10-bad.json", "{ \"rules\": [ { \"match\": \"a/**\", \"probe_max\": 2 } ] }\n",
		   0644);
	snprintf(name, sizeof(name), "%s/10-bad.json:1:33: rules[0].probe_max", dir);
	expect_fail(CONFIG_LOAD_UNSAFE_PATH, -EINVAL, (const char *const[]){ name, NULL });
	{
		struct config *c = NULL;
		struct config_error err;

		/* The error's file, line and column are the drop-in's, as the reload reply gives
		 * them (status.c io.reclaimd.Reload). */
		CHECK_EQ_INT(config_load_file(main_path, CONFIG_LOAD_UNSAFE_PATH, &c, &err), -EINVAL);
		snprintf(name, sizeof(name), "%s/10-bad.json", dir);
		CHECK_STREQ(err.file, name);
		CHECK_EQ_INT(err.line, 1);
		CHECK_EQ_INT(err.column, 33);
	}

	clear_dir();
	write_file("10-bad.json", "[]\n", 0644);
	snprintf(name, sizeof(name), "%s/10-bad.json: the top level must be an object", dir);
	expect_fail(CONFIG_LOAD_UNSAFE_PATH, -EINVAL, (const char *const[]){ name, NULL });

	/* A directory with a drop-in's name cannot be read. */
	clear_dir();
	snprintf(name, sizeof(name), "%s/10-dir.json", dir);
	CHECK(mkdir(name, 0755) == 0);
	expect_fail(CONFIG_LOAD_UNSAFE_PATH, -EISDIR, (const char *const[]){ "10-dir.json", NULL });
}

/* What only the merge can get wrong names the main file "with its drop-ins". */
static void test_merged_error(void)
{
	clear_dir();
	/* Valid alone (probe_min under the built-in probe_max 0.2), not under the main file's 0.1. */
	write_file("10-a.json", "{ \"defaults\": { \"probe_min\": 0.15 } }\n", 0644);
	expect_fail(CONFIG_LOAD_UNSAFE_PATH, -EINVAL,
		    (const char *const[]){ "with its drop-ins", "defaults", NULL });
}

/* Drop-ins pass the trust rule of the main file: root's, writable by root only, and so is
 * their directory. Needs root (files owned by root); as another user it is not run and not
 * counted. */
static void test_trust(void)
{
	char name[200];

	if (geteuid() != 0) {
		fprintf(stderr, "test_trust: not root, not run\n");
		return;
	}
	clear_dir();
	write_file("10-a.json", "{ \"interval\": 10 }\n", 0666);
	snprintf(name, sizeof(name), "%s/10-a.json is writable by others", dir);
	expect_fail(0, -EPERM, (const char *const[]){ name, NULL });

	clear_dir();
	write_file("10-a.json", "{ \"interval\": 10 }\n", 0644);
	CHECK(chmod(dir, 0777) == 0);
	snprintf(name, sizeof(name), "%s is writable by others", dir);
	expect_fail(0, -EPERM, (const char *const[]){ name, NULL });
	CHECK(chmod(dir, 0755) == 0);

	/* And trusted ones load. */
	{
		struct config *c = NULL;
		struct config_error err;

		CHECK_EQ_INT(config_load_file(main_path, 0, &c, &err), 0);
		if (c)
			CHECK_EQ_U64(c->interval_us, 10 * 1000000ull);
		config_free(c);
	}
}

int main(void)
{
	char cmd[512];

	snprintf(top, sizeof(top), "/tmp/reclaimd-dropins-XXXXXX");
	if (!mkdtemp(top))
		return 1;
	chmod(top, 0755);
	snprintf(main_path, sizeof(main_path), "%s/reclaimd.json", top);
	snprintf(dir, sizeof(dir), "%s/reclaimd.d", top);
	write_file(main_path, main_json, 0644);

	test_no_dir();
	test_merge();
	test_bad_dropins();
	test_merged_error();
	test_trust();

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (system(cmd) != 0)
		return 1;
	return test_report("test_config_dropins");
}
