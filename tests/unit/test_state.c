/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_state.c - the state file (state_file.h) and what a start does with a crashed run's
 * records (state_merge.h): the pure verdicts for every case (adopt, restore, changed since,
 * gone), the text's round trip and its hostile forms (every truncation of a good file, another
 * version, wrong types), the ledger on a temporary directory (saved on each change, what a
 * SIGKILL leaves found again, removed at a clean stop, a corrupt file set aside), the hostile
 * forms of its directory (a FIFO at the file or at its old temporary name, a symlink, a
 * directory others can write, a second ledger on the same file) through safe_file.h, and zram
 * writeback's hooks around each chunk on a fixture device.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

#include "reclaimd/safe_file.h"
#include "reclaimd/state_file.h"
#include "reclaimd/state_merge.h"
#include "reclaimd/zram.h"

static char tmp_root[] = "/tmp/reclaimd-test-state.XXXXXX";

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmp_root, rel);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

static const char *get(const char *rel)
{
	static char buf[65536];
	char path[PATH_MAX];
	size_t len = 0;

	snprintf(path, sizeof(path), "%s/%s", tmp_root, rel);
	if (read_at(AT_FDCWD, path, buf, sizeof(buf), &len) < 0)
		return NULL;
	while (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	return buf;
}

static bool exists(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tmp_root, rel);
	return access(path, F_OK) == 0;
}

static void mkdir_rel(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tmp_root, rel);
	mkdir(path, 0755);
}

/* ---- the verdicts ---------------------------------------------------------------------- */

static void test_merge(void)
{
	/* Crash, then a start: the value is still the agent's, so the record's administrator's
	 * value is the true original. This run sets it too: adopt; else: put it back now. */
	CHECK_EQ_INT(state_merge("7", "7", 0, 0, true), STATE_ADOPT);
	CHECK_EQ_INT(state_merge("7", "7", 0, 0, false), STATE_RESTORE);
	/* An administrator wrote it after the crash: the new original, left alone either way. */
	CHECK_EQ_INT(state_merge("7", "30", 0, 0, true), STATE_ADMIN_CHANGED);
	CHECK_EQ_INT(state_merge("7", "30", 0, 0, false), STATE_ADMIN_CHANGED);
	/* ... even when it is the recorded administrator's value again. */
	CHECK_EQ_INT(state_merge("7", "20", 0, 0, false), STATE_ADMIN_CHANGED);
	/* The file or device is gone. */
	CHECK_EQ_INT(state_merge("7", NULL, 0, 0, true), STATE_GONE);
	/* A cgroup removed and made again under the same path: another inode, another object. */
	CHECK_EQ_INT(state_merge("1048576", "1048576", 4242, 4343, false), STATE_GONE);
	CHECK_EQ_INT(state_merge("1048576", "1048576", 4242, 4242, false), STATE_RESTORE);
	/* No identity recorded: compared by value only. */
	CHECK_EQ_INT(state_merge("Y", "Y", 0, 99, false), STATE_RESTORE);
	/* Exact strings: "Y" is not "1" (owners normalise before). */
	CHECK_EQ_INT(state_merge("Y", "1", 0, 0, false), STATE_ADMIN_CHANGED);
	CHECK_STREQ(state_verdict_to_string(STATE_ADOPT), "adopt");
	CHECK_STREQ(state_verdict_to_string(STATE_ADMIN_CHANGED), "changed-since");
	CHECK_STREQ(state_verdict_to_string((enum state_verdict)42), "unknown");
}

static void test_merge_budget(void)
{
	uint64_t back = 12345;

	/* Administrator's budget 1000 units, a chunk of 256, the kernel counted it down to 56:
	 * the chunk used 200, so 800 is owed. */
	CHECK_EQ_INT(state_merge_budget(1000, 256, true, 56, &back), STATE_RESTORE);
	CHECK_EQ_U64(back, 800);
	/* Crash before the chunk wrote anything (or before the write of the chunk's value when the
	 * budget was smaller than a chunk: agent == admin). */
	CHECK_EQ_INT(state_merge_budget(100, 100, true, 100, &back), STATE_RESTORE);
	CHECK_EQ_U64(back, 100);
	/* Used up. */
	CHECK_EQ_INT(state_merge_budget(256, 256, true, 0, &back), STATE_RESTORE);
	CHECK_EQ_U64(back, 0);
	/* More used than the administrator had (cannot happen; never below 0). */
	CHECK_EQ_INT(state_merge_budget(10, 256, true, 0, &back), STATE_RESTORE);
	CHECK_EQ_U64(back, 0);
	/* Above the chunk: written since (the agent's own put-back, or an administrator). */
	back = 7;
	CHECK_EQ_INT(state_merge_budget(1000, 256, true, 744, &back), STATE_ADMIN_CHANGED);
	CHECK_EQ_U64(back, 7);
	CHECK_EQ_INT(state_merge_budget(1000, 256, false, 0, &back), STATE_GONE);
	CHECK_EQ_U64(back, 7);
}

/* ---- the text -------------------------------------------------------------------------- */

static void fill(struct state_list *l)
{
	state_list_init(l);
	CHECK_EQ_INT(state_list_set(l, "zswap/max_pool_percent", 0, "20", "7"), 0);
	CHECK_EQ_INT(state_list_set(l, "zswap_max/system.slice/a \"b\".service", 4242, "max",
				    "1048576"), 0);
	CHECK_EQ_INT(state_list_set(l, "zram/zram0/writeback_limit_enable", 0, "0", "1"), 0);
}

static void test_round_trip(void)
{
	struct state_list l, back;
	char *text = NULL, why[256] = "";
	const struct state_entry *e;

	fill(&l);
	CHECK_EQ_U64(l.n, 3);
	/* set replaces, drop removes */
	CHECK_EQ_INT(state_list_set(&l, "zswap/max_pool_percent", 0, "20", "9"), 0);
	CHECK_EQ_U64(l.n, 3);
	CHECK_STREQ(state_list_find(&l, "zswap/max_pool_percent")->agent, "9");
	CHECK_EQ_INT(state_list_drop(&l, "zswap/nothing"), 0);
	CHECK_EQ_INT(state_list_set(&l, "", 0, "a", "b"), -EINVAL);
	{
		char big[STATE_VALUE_MAX + 1];

		memset(big, '9', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		CHECK_EQ_INT(state_list_set(&l, "zswap/x", 0, big, "1"), -EINVAL);
	}

	CHECK_EQ_INT(state_file_format(&l, 1234, &text), 0);
	CHECK(text && strstr(text, "\"version\": 1"));
	CHECK_EQ_INT(state_file_parse(text, strlen(text), &back, why, sizeof(why)), 0);
	CHECK_EQ_U64(back.n, 3);
	e = state_list_find(&back, "zswap_max/system.slice/a \"b\".service");
	CHECK(e && e->id == 4242 && strcmp(e->admin, "max") == 0 &&
	      strcmp(e->agent, "1048576") == 0);
	e = state_list_find(&back, "zswap/max_pool_percent");
	CHECK(e && e->id == 0 && strcmp(e->admin, "20") == 0 && strcmp(e->agent, "9") == 0);
	CHECK_STREQ(back.v[2].key, "zram/zram0/writeback_limit_enable"); /* order kept */

	/* Every truncation of a good file is refused as corrupt, never half read, never a crash. */
	{
		size_t len = strlen(text), refused = 0;

		for (size_t n = 0; n < len; n++) {
			struct state_list t;
			int r = state_file_parse(text, n, &t, why, sizeof(why));

			/* The only prefix that is still whole JSON is the text without its closing
			 * brace's trailing whitespace; there is none, so every prefix fails. */
			refused += r == -EBADMSG;
			state_list_done(&t);
		}
		CHECK_EQ_U64(refused, len);
		state_list_done(&back);
		CHECK_EQ_INT(state_file_parse(text, len / 2, &back, why, sizeof(why)), -EBADMSG);
		CHECK(strstr(why, "not valid JSON") != NULL);
	}
	state_list_done(&back);
	free(text);
	state_list_done(&l);

	/* No records: a file with an empty list. */
	state_list_init(&l);
	CHECK_EQ_INT(state_file_format(&l, 1, &text), 0);
	CHECK_EQ_INT(state_file_parse(text, strlen(text), &back, why, sizeof(why)), 0);
	CHECK_EQ_U64(back.n, 0);
	free(text);
	state_list_done(&back);
}

#define BAD(text, err, what)                                                                \
	do {                                                                                \
		struct state_list _l;                                                       \
		char _why[256] = "";                                                        \
		CHECK_EQ_INT(state_file_parse(text, strlen(text), &_l, _why, sizeof(_why)), err); \
		if (!strstr(_why, what))                                                    \
			fprintf(stderr, "why: \"%s\", expected \"%s\"\n", _why, what);       \
		CHECK(strstr(_why, what) != NULL);                                          \
		CHECK_EQ_U64(_l.n, 0);                                                      \
		state_list_done(&_l);                                                       \
	} while (0)

static void test_bad_text(void)
{
	BAD("", -EBADMSG, "empty");
	BAD("\x01\x02garbage", -EBADMSG, "not valid JSON: line 1");
	BAD("[]", -EBADMSG, "not a JSON object");
	BAD("{\"entries\": []}", -EBADMSG, "\"version\" is missing");
	BAD("{\"version\": \"1\", \"entries\": []}", -EBADMSG, "\"version\" is missing or not an integer");
	/* Another version: refused as a whole, with both versions named. */
	BAD("{\"version\": 2, \"entries\": []}", -EPROTONOSUPPORT,
	    "version 2, this agent reads version 1");
	BAD("{\"version\": 0}", -EPROTONOSUPPORT, "version 0");
	BAD("{\"version\": 1}", -EBADMSG, "\"entries\" is missing");
	BAD("{\"version\": 1, \"entries\": [1]}", -EBADMSG, "entries[0]: not an object");
	BAD("{\"version\": 1, \"entries\": [{\"key\": \"zswap/a\", \"agent\": \"1\"}]}", -EBADMSG,
	    "entries[0]: \"administrator\" is missing");
	BAD("{\"version\": 1, \"entries\": [{\"key\": \"zswap/a\", \"administrator\": 1, \"agent\": \"1\"}]}",
	    -EBADMSG, "entries[0].administrator: not a string");
	BAD("{\"version\": 1, \"entries\": [{\"key\": \"nosection\", \"administrator\": \"1\", \"agent\": \"1\"}]}",
	    -EBADMSG, "is not \"<section>/<name>\"");
	BAD("{\"version\": 1, \"entries\": [{\"key\": \"a/b\", \"id\": -1, \"administrator\": \"1\", \"agent\": \"1\"}]}",
	    -EBADMSG, "entries[0].id: not a non-negative integer");
	BAD("{\"version\": 1, \"entries\": [{\"key\": \"a/b\", \"administrator\": \"a\\u0000b\", \"agent\": \"1\"}]}",
	    -EBADMSG, "is not allowed");
	BAD("{\"version\": 1, \"version\": 1, \"entries\": []}", -EBADMSG, "duplicate");
	/* One good record and one bad: nothing is taken. */
	BAD("{\"version\": 1, \"entries\": [{\"key\": \"a/b\", \"administrator\": \"1\", \"agent\": \"2\"}, {}]}",
	    -EBADMSG, "entries[1]: \"key\" is missing");
}

/* ---- the ledger ------------------------------------------------------------------------ */

static void test_ledger(void)
{
	struct state_ledger *l = NULL;
	struct state_load load;
	struct state_list taken;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/run/state.json", tmp_root);
	CHECK_EQ_INT(state_ledger_open("relative/state.json", &l, &load), -EINVAL);

	/* No file: nothing found, nothing written until the first change (the directory is made
	 * then). */
	CHECK_EQ_INT(state_ledger_open(path, &l, &load), 0);
	CHECK_EQ_INT(load.error, 0);
	CHECK_EQ_U64(load.n_found, 0);
	CHECK(!exists("run/state.json"));
	CHECK_EQ_INT(state_ledger_set(l, "zswap/max_pool_percent", 0, "20", "7"), 0);
	CHECK(exists("run/state.json"));
	CHECK(!exists("run/state.json.tmp"));
	CHECK(strstr(get("run/state.json"), "\"administrator\": \"20\"") != NULL);
	CHECK_EQ_INT(state_ledger_set(l, "zswap_max/a.slice/b", 77, "max", "4096"), 0);
	CHECK_EQ_INT(state_ledger_set(l, "zram/zram0/writeback_limit_enable", 0, "0", "1"), 0);
	CHECK_EQ_INT(state_ledger_drop(l, "zram/zram0/writeback_limit_enable"), 0);
	CHECK(strstr(get("run/state.json"), "zram0") == NULL);
	CHECK_EQ_U64(state_ledger_count(l), 2);
	/* SIGKILL: the process ends without closing the ledger; the file stays as last saved. */
	state_ledger_free(l);

	/* The next start finds both records, and each owner takes its section. */
	CHECK_EQ_INT(state_ledger_open(path, &l, &load), 0);
	CHECK_EQ_INT(load.error, 0);
	CHECK_EQ_U64(load.n_found, 2);
	CHECK_EQ_INT(state_ledger_take(l, "zswap", &taken), 1);
	CHECK_EQ_U64(taken.n, 1);
	CHECK_STREQ(taken.v[0].key, "zswap/max_pool_percent");
	CHECK_STREQ(taken.v[0].admin, "20");
	CHECK_STREQ(taken.v[0].agent, "7");
	state_list_done(&taken);
	/* "zswap" takes no "zswap_max/" record: sections match whole. */
	CHECK_EQ_U64(state_ledger_count(l), 1);
	/* A record not yet taken survives saves (another crash before its owner took it). */
	CHECK_EQ_INT(state_ledger_set(l, "zswap/enabled", 0, "N", "Y"), 0);
	CHECK(strstr(get("run/state.json"), "zswap_max/a.slice/b") != NULL);
	CHECK_EQ_INT(state_ledger_take(l, "zswap_max", &taken), 1);
	CHECK_EQ_U64(taken.v[0].id, 77);
	state_list_done(&taken);
	CHECK_EQ_INT(state_ledger_take_rest(l, &taken), 0);
	state_list_done(&taken);
	CHECK_EQ_INT(state_ledger_set(l, "zswap_max/x", 1, "max", "4096"), 0);
	CHECK_EQ_INT(state_ledger_set(l, "zswap_max/y", 2, "max", "8192"), 0);
	CHECK_EQ_INT(state_ledger_drop_section(l, "zswap_max"), 0);
	CHECK_EQ_U64(state_ledger_count(l), 1);
	/* A clean stop with a value that could not be put back: the file keeps it. */
	CHECK_EQ_INT(state_ledger_close(l), 1);
	CHECK(exists("run/state.json"));
	CHECK(strstr(get("run/state.json"), "zswap/enabled") != NULL);
	CHECK(strstr(get("run/state.json"), "zswap_max") == NULL);
	state_ledger_free(l);

	/* A clean stop with everything put back removes the file. */
	CHECK_EQ_INT(state_ledger_open(path, &l, &load), 0);
	CHECK_EQ_U64(load.n_found, 1);
	CHECK_EQ_INT(state_ledger_take(l, "zswap", &taken), 1);
	state_list_done(&taken);
	CHECK_EQ_INT(state_ledger_close(l), 0);
	CHECK(!exists("run/state.json"));
	state_ledger_free(l);

	/* Records of a section no controller knows are handed to the loop. */
	put("run/state.json", "{\"version\": 1, \"entries\": [{\"key\": \"future/x\", "
			      "\"administrator\": \"1\", \"agent\": \"2\"}]}");
	CHECK_EQ_INT(state_ledger_open(path, &l, &load), 0);
	CHECK_EQ_INT(state_ledger_take(l, "zswap", &taken), 0);
	state_list_done(&taken);
	CHECK_EQ_INT(state_ledger_take_rest(l, &taken), 1);
	CHECK_STREQ(taken.v[0].key, "future/x");
	state_list_done(&taken);
	CHECK_EQ_INT(state_ledger_close(l), 0);
	CHECK(!exists("run/state.json"));
	state_ledger_free(l);

	/* NULL ledger (dry run, "state_file": null): every call is a no-op. */
	CHECK_EQ_INT(state_ledger_set(NULL, "zswap/a", 0, "1", "2"), 0);
	CHECK_EQ_INT(state_ledger_drop(NULL, "zswap/a"), 0);
	CHECK_EQ_INT(state_ledger_take(NULL, "zswap", &taken), 0);
	CHECK_EQ_U64(taken.n, 0);
	CHECK_EQ_INT(state_ledger_close(NULL), 0);
	state_ledger_free(NULL);
}

static void test_ledger_corrupt(void)
{
	struct state_ledger *l = NULL;
	struct state_load load;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/run/state.json", tmp_root);
	/* Truncated (a crash of the writer cannot do this: rename is atomic; a full disk or
	 * a hand edit can): reported, and the start goes on as if there were none. */
	put("run/state.json", "{\"version\": 1, \"entries\": [{\"key\": \"zswap/enab");
	CHECK_EQ_INT(state_ledger_open(path, &l, &load), 0);
	CHECK_EQ_INT(load.error, -EBADMSG);
	CHECK(strstr(load.why, "not valid JSON") != NULL);
	CHECK_EQ_U64(load.n_found, 0);
	CHECK_EQ_U64(state_ledger_count(l), 0);
	/* The first change replaces it with a good file. */
	CHECK_EQ_INT(state_ledger_set(l, "zswap/enabled", 0, "N", "Y"), 0);
	{
		struct state_list back;
		char why[256];
		const char *t = get("run/state.json");

		CHECK_EQ_INT(state_file_parse(t, strlen(t), &back, why, sizeof(why)), 0);
		CHECK_EQ_U64(back.n, 1);
		state_list_done(&back);
	}
	state_ledger_free(l);

	put("run/state.json", "{\"version\": 9, \"entries\": []}");
	CHECK_EQ_INT(state_ledger_open(path, &l, &load), 0);
	CHECK_EQ_INT(load.error, -EPROTONOSUPPORT);
	CHECK(strstr(load.why, "version 9") != NULL);
	state_ledger_free(l);

	/* A directory in its place: not a regular file. */
	unlink(path);
	mkdir(path, 0755);
	CHECK_EQ_INT(state_ledger_open(path, &l, &load), 0);
	CHECK_EQ_INT(load.error, -EBADMSG);
	CHECK_STREQ(load.why, "state.json is not a regular file (a directory)");
	/* ... and saving over it fails with the errno, keeping the record for the next try. */
	CHECK(state_ledger_set(l, "zswap/enabled", 0, "N", "Y") < 0);
	CHECK_EQ_U64(state_ledger_count(l), 1);
	state_ledger_free(l);
	rmdir(path);
}


/* ---- a hostile directory ------------------------------------------------------------------ */

/* A FIFO at the file or at "<file>.tmp" (the temporary name of older versions) never blocks:
 * alarm(5) kills the test if an open waits for a writer. */
static void test_ledger_fifo(void)
{
	struct state_ledger *l = NULL;
	struct state_load load;
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	struct stat st;

	mkdir_rel("fifo");
	snprintf(path, sizeof(path), "%s/fifo/state.json", tmp_root);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	CHECK_EQ_INT(mkfifo(path, 0600), 0);
	CHECK_EQ_INT(mkfifo(tmp, 0600), 0);
	alarm(5);
	CHECK_EQ_INT(state_ledger_open(path, &l, &load), 0);
	CHECK_EQ_INT(load.error, -EBADMSG);
	CHECK_STREQ(load.why, "state.json is not a regular file (a FIFO)");
	CHECK_EQ_INT(state_ledger_set(l, "zswap/enabled", 0, "N", "Y"), 0);
	alarm(0);
	CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600);
	CHECK(lstat(tmp, &st) == 0 && S_ISFIFO(st.st_mode));
	CHECK(strstr(get("fifo/state.json"), "\"zswap/enabled\"") != NULL);
	state_ledger_free(l);
}

/* A symlink at the file is not followed: its target keeps its text, the link is replaced. */
static void test_ledger_symlink(void)
{
	struct state_ledger *l = NULL;
	struct state_load load;
	char path[PATH_MAX], victim[PATH_MAX];
	struct stat st;

	mkdir_rel("link");
	snprintf(path, sizeof(path), "%s/link/state.json", tmp_root);
	snprintf(victim, sizeof(victim), "%s/victim", tmp_root);
	put("victim", "precious");
	CHECK_EQ_INT(chmod(victim, 0644), 0);
	CHECK_EQ_INT(symlink(victim, path), 0);
	CHECK_EQ_INT(state_ledger_open(path, &l, &load), 0);
	CHECK_EQ_INT(load.error, -EBADMSG);
	CHECK_STREQ(load.why, "state.json is a symlink");
	CHECK_EQ_INT(state_ledger_set(l, "zswap/enabled", 0, "N", "Y"), 0);
	CHECK_STREQ(get("victim"), "precious");
	CHECK(stat(victim, &st) == 0 && (st.st_mode & 07777) == 0644);
	CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
	CHECK_EQ_INT(state_ledger_close(l), 1);
	state_ledger_free(l);
	CHECK_STREQ(get("victim"), "precious");
}

/* A hard link at the file (to a file of the daemon's uid elsewhere) is not read, and the save
 * replaces the link: the other file keeps its text. */
static void test_ledger_hardlink(void)
{
	struct state_ledger *l = NULL;
	struct state_load load;
	char path[PATH_MAX], other[PATH_MAX];

	mkdir_rel("hard");
	snprintf(path, sizeof(path), "%s/hard/state.json", tmp_root);
	snprintf(other, sizeof(other), "%s/hard-other", tmp_root);
	put("hard-other", "{\"version\": 1, \"entries\": []}");
	CHECK_EQ_INT(link(other, path), 0);
	CHECK_EQ_INT(state_ledger_open(path, &l, &load), 0);
	CHECK_EQ_INT(load.error, -EPERM);
	CHECK_STREQ(load.why, "state.json has 2 links, not 1");
	CHECK_EQ_INT(state_ledger_set(l, "zswap/enabled", 0, "N", "Y"), 0);
	CHECK_STREQ(get("hard-other"), "{\"version\": 1, \"entries\": []}");
	CHECK(strstr(get("hard/state.json"), "\"zswap/enabled\"") != NULL);
	state_ledger_free(l);
}

/* A directory others can write (or its group, or a sticky /tmp-like one) is refused, naming it,
 * its owner and mode, and nothing is made in it. */
static void test_ledger_dir_refused(void)
{
	static const struct { mode_t mode; const char *what; } cases[] = {
		{ 0777, "is writable by others (owner uid %u, mode 0777)" },
		{ 01777, "is writable by others (sticky, like /tmp) (owner uid %u, mode 1777)" },
		{ 0775, "is writable by its group (owner uid %u, mode 0775)" },
	};
	char dir[PATH_MAX], path[PATH_MAX + 16], lock[PATH_MAX + 32], want[PATH_MAX + 128], what[128];

	snprintf(dir, sizeof(dir), "%s/open", tmp_root);
	snprintf(path, sizeof(path), "%s/state.json", dir);
	snprintf(lock, sizeof(lock), "%s.lock", path);
	mkdir_rel("open");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct state_ledger *l = NULL;
		struct state_load load;

		CHECK_EQ_INT(chmod(dir, cases[i].mode), 0);
		CHECK_EQ_INT(state_ledger_open(path, &l, &load), -EPERM);
		CHECK(l == NULL);
		snprintf(what, sizeof(what), cases[i].what, (unsigned)geteuid());
		snprintf(want, sizeof(want), "%s %s", dir, what);
		CHECK_STREQ(load.why, want);
		CHECK(access(lock, F_OK) < 0);
	}
	/* A group-writable directory is refused whatever its group (status.read_group needs only
	 * to connect to the socket, never to write its directory). */
	CHECK_EQ_INT(chmod(dir, 0775), 0);
	{
		char gwhy[512];

		CHECK_EQ_INT(safe_dir_open(dir, 0, gwhy, sizeof(gwhy)), -EPERM);
		CHECK(strstr(gwhy, "is writable by its group") != NULL);
		CHECK(strstr(gwhy, dir) == gwhy);
	}
	CHECK_EQ_INT(chmod(dir, 0755), 0);
	/* A directory above it that others can write, without the sticky bit. */
	CHECK_EQ_INT(chmod(tmp_root, 0777), 0);
	{
		struct state_ledger *l = NULL;
		struct state_load load;

		CHECK_EQ_INT(state_ledger_open(path, &l, &load), -EPERM);
		snprintf(want, sizeof(want), "%s is writable by others (owner uid %u, mode 0777)",
			 tmp_root, (unsigned)geteuid());
		CHECK_STREQ(load.why, want);
	}
	CHECK_EQ_INT(chmod(tmp_root, 0700), 0);
}

/* One ledger per file: a second open is -EBUSY naming the holder's pid; closing the first (or
 * the holder's death: the kernel drops a flock with the process) frees it. */
static void test_ledger_lock(void)
{
	struct state_ledger *a = NULL, *b = NULL;
	struct state_load load;
	char path[PATH_MAX];
	int pipefd[2];
	pid_t child;
	char c;

	snprintf(path, sizeof(path), "%s/lock/state.json", tmp_root);
	CHECK_EQ_INT(state_ledger_open(path, &a, &load), 0);
	CHECK_EQ_INT(state_ledger_open(path, &b, &load), -EBUSY);
	CHECK(b == NULL);
	CHECK_EQ_INT((int)load.holder_pid, (int)getpid());
	state_ledger_free(a);
	CHECK_EQ_INT(state_ledger_open(path, &b, &load), 0);
	state_ledger_free(b);

	/* Held by a child, which is then SIGKILLed. */
	CHECK_EQ_INT(pipe(pipefd), 0);
	child = fork();
	if (child == 0) {
		struct state_ledger *c_l = NULL;
		struct state_load c_load;

		if (state_ledger_open(path, &c_l, &c_load) == 0 &&
		    write(pipefd[1], "x", 1) == 1)
			pause();
		_exit(1);
	}
	CHECK_EQ_INT((int)read(pipefd[0], &c, 1), 1);
	CHECK_EQ_INT(state_ledger_open(path, &b, &load), -EBUSY);
	CHECK_EQ_INT((int)load.holder_pid, (int)child);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	CHECK_EQ_INT(state_ledger_open(path, &b, &load), 0);
	state_ledger_free(b);
	close(pipefd[0]);
	close(pipefd[1]);
}

/* ---- zram writeback's hooks ------------------------------------------------------------- */

struct hook_log {
	unsigned before, after;
	bool admin_limit;
	uint64_t admin_units, chunk_units;
	char enable_seen[8]; /* writeback_limit_enable when `before` ran */
};

static int on_before(void *ud, const char *dev, bool admin_limit, uint64_t admin_units,
		     uint64_t chunk_units)
{
	struct hook_log *h = ud;

	CHECK_STREQ(dev, "zram0");
	h->before++;
	h->admin_limit = admin_limit;
	h->admin_units = admin_units;
	h->chunk_units = chunk_units;
	snprintf(h->enable_seen, sizeof(h->enable_seen), "%s",
		 get("sys/block/zram0/writeback_limit_enable"));
	return 0;
}

static void on_after(void *ud, const char *dev)
{
	struct hook_log *h = ud;

	CHECK_STREQ(dev, "zram0");
	h->after++;
}

static void test_zram_hooks(void)
{
	char root[PATH_MAX], buf[32];
	struct hook_log h = { 0 };
	struct zram_wb_hooks hooks = { .before = on_before, .after = on_after, .userdata = &h };
	uint64_t written = 0;

	snprintf(root, sizeof(root), "%s/sys", tmp_root);
	mkdir_rel("sys");
	mkdir_rel("sys/block");
	mkdir_rel("sys/block/zram0");
	put("sys/block/zram0/writeback", "");
	put("sys/block/zram0/writeback_limit", "12");
	put("sys/block/zram0/writeback_limit_enable", "0");

	/* No administrator's limit: recorded before it is switched on, dropped once off again. */
	CHECK_EQ_INT(zram_writeback_chunk(root, "zram0", 1 << 20, &hooks, &written), 0);
	CHECK_EQ_U64(h.before, 1);
	CHECK_EQ_U64(h.after, 1);
	CHECK(!h.admin_limit);
	CHECK_EQ_U64(h.chunk_units, 256);
	CHECK_STREQ(h.enable_seen, "0"); /* before the write */
	CHECK_STREQ(get("sys/block/zram0/writeback_limit_enable"), "0");

	/* An administrator's budget of 100 units: the chunk is 100, put back to 100 (a fixture
	 * file is not counted down). */
	put("sys/block/zram0/writeback_limit", "100");
	put("sys/block/zram0/writeback_limit_enable", "1");
	CHECK_EQ_INT(zram_writeback_chunk(root, "zram0", 1 << 20, &hooks, &written), 0);
	CHECK_EQ_U64(h.before, 2);
	CHECK_EQ_U64(h.after, 2);
	CHECK(h.admin_limit);
	CHECK_EQ_U64(h.admin_units, 100);
	CHECK_EQ_U64(h.chunk_units, 100);
	CHECK_STREQ(get("sys/block/zram0/writeback_limit"), "100");

	/* Used up: nothing written, no hook. */
	put("sys/block/zram0/writeback_limit", "0");
	CHECK_EQ_INT(zram_writeback_chunk(root, "zram0", 1 << 20, &hooks, &written), -EDQUOT);
	CHECK_EQ_U64(h.before, 2);

	/* The attribute helpers the start uses on a crashed run's records. */
	CHECK_EQ_INT(zram_attr_write(root, "zram0", "writeback_limit", "744"), 0);
	CHECK_EQ_INT(zram_attr_read(root, "zram0", "writeback_limit", buf, sizeof(buf)), 0);
	CHECK_STREQ(buf, "744");
	CHECK_EQ_INT(zram_attr_read(root, "zram9", "writeback_limit", buf, sizeof(buf)), -ENOENT);
	CHECK_EQ_INT(zram_attr_read(root, "../x", "writeback_limit", buf, sizeof(buf)), -EINVAL);
}

/* safe_dir_open() walks the path itself: a symlink of root's (or the test's uid) is followed,
 * relative or absolute, also where a directory is to be made below it; another uid's symlink is
 * refused, naming it and its owner; SAFE_DIR_ANY_OWNER keeps that symlink rule. */
static void test_dir_walk(void)
{
	char real[PATH_MAX], abs_link[PATH_MAX], rel_link[PATH_MAX], p[PATH_MAX + 32], why[512];
	char want[PATH_MAX + 160];
	struct stat a, b;
	int fd;

	snprintf(real, sizeof(real), "%s/walk-real", tmp_root);
	snprintf(abs_link, sizeof(abs_link), "%s/walk-abs", tmp_root);
	snprintf(rel_link, sizeof(rel_link), "%s/walk-rel", tmp_root);
	CHECK_EQ_INT(mkdir(real, 0755), 0);
	CHECK_EQ_INT(chmod(tmp_root, 0755), 0);
	CHECK_EQ_INT(symlink(real, abs_link), 0);
	CHECK_EQ_INT(symlink("walk-real", rel_link), 0);
	CHECK_EQ_INT(stat(real, &a), 0);
	fd = safe_dir_open(abs_link, 0, why, sizeof(why));
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK_EQ_INT(fstat(fd, &b), 0);
		CHECK(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
		close(fd);
	}
	snprintf(p, sizeof(p), "%s/made/below", rel_link);
	fd = safe_dir_open(p, SAFE_DIR_CREATE, why, sizeof(why));
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	snprintf(p, sizeof(p), "%s/made/below", real);
	CHECK(stat(p, &b) == 0 && S_ISDIR(b.st_mode));
	if (geteuid() != 0) {
		SKIP("a symlink of another uid: lchown needs root");
		return;
	}
	CHECK_EQ_INT(lchown(rel_link, 65534, 65534), 0);
	snprintf(p, sizeof(p), "%s/made", rel_link);
	CHECK_EQ_INT(safe_dir_open(p, 0, why, sizeof(why)), -EPERM);
	snprintf(want, sizeof(want), "%s is a symlink not owned by root (owner uid 65534)",
		 rel_link);
	CHECK_STREQ(why, want);
	CHECK_EQ_INT(safe_dir_open(p, SAFE_DIR_ANY_OWNER, why, sizeof(why)), -EPERM);
	CHECK_STREQ(why, want);
	snprintf(p, sizeof(p), "%s/new", rel_link);
	CHECK_EQ_INT(safe_dir_open(p, SAFE_DIR_CREATE, why, sizeof(why)), -EPERM);
	snprintf(p, sizeof(p), "%s/new", real);
	CHECK(access(p, F_OK) < 0);
}

int main(void)
{
	if (!mkdtemp(tmp_root)) {
		perror(tmp_root);
		return 2;
	}
	test_merge();
	test_merge_budget();
	test_round_trip();
	test_bad_text();
	test_ledger();
	test_ledger_corrupt();
	test_ledger_fifo();
	test_ledger_symlink();
	test_ledger_hardlink();
	test_ledger_dir_refused();
	test_ledger_lock();
	test_zram_hooks();
	test_dir_walk();
	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_root);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", tmp_root);
	}
	return test_report("test_state");
}
