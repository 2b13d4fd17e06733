/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_varlink.c - the status socket's pure parts: the varlink wire format (agent/obs/
 * varlink_proto.c: framing, the call decoder on good, bad and hostile input, reply encoding)
 * and the floor's terms Explain shows (agent/obs/status.c floor_terms_compute()), held to
 * cgroup_floor_bytes().
 */
#include <errno.h>
#include <stdlib.h>

#include "obs/status.h"
#include "obs/varlink.h"
#include "reclaimd/policy.h"
#include "test.h"

#define MiB ((uint64_t)1 << 20)

static void test_frame(void)
{
	CHECK_EQ_INT(varlink_frame_len("", 0), -EAGAIN);
	CHECK_EQ_INT(varlink_frame_len(NULL, 0), -EAGAIN);
	CHECK_EQ_INT(varlink_frame_len("{}", 2), -EAGAIN);
	CHECK_EQ_INT(varlink_frame_len("{}\0{}", 5), 2);
	CHECK_EQ_INT(varlink_frame_len("\0", 1), 0);
}

static void test_method_names(void)
{
	static const char *const good[] = {
		"io.reclaimd.Status", "org.varlink.service.GetInfo", "a.b.C", "io.x-y.M2",
	};
	static const char *const bad[] = {
		"", "Status", ".Status", "io.reclaimd.", "io.reclaimd.status", "io..reclaimd.Status",
		"io.reclaimd.Sta-tus", "io.reclaimd.Sta tus", "1o.reclaimd.Status", "reclaimd.Status.",
		"io.reclaimd.Status\n", "io/reclaimd.Status", "io.Status",
	};

	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		if (!varlink_method_name_valid(good[i]))
			fprintf(stderr, "rejected good name \"%s\"\n", good[i]);
		CHECK(varlink_method_name_valid(good[i]));
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (varlink_method_name_valid(bad[i]))
			fprintf(stderr, "accepted bad name \"%s\"\n", bad[i]);
		CHECK(!varlink_method_name_valid(bad[i]));
	}
	CHECK(!varlink_method_name_valid(NULL));
}

static int parse(const char *msg, struct varlink_call *ret, const char **why)
{
	return varlink_call_parse(msg, strlen(msg), ret, why);
}

static void test_call_good(void)
{
	struct varlink_call c;
	const char *why = NULL;

	CHECK_EQ_INT(parse("{\"method\":\"io.reclaimd.Status\"}", &c, &why), 0);
	CHECK_STREQ(c.method, "io.reclaimd.Status");
	CHECK(json_is_object(c.parameters) && json_object_size(c.parameters) == 0);
	CHECK(!c.oneway && !c.more);
	varlink_call_done(&c);
	CHECK(c.parameters == NULL);

	CHECK_EQ_INT(parse("{\"parameters\": {\"cgroup\": \"a/b\"}, \"method\": \"io.reclaimd.Explain\","
			   " \"oneway\": true, \"more\": false, \"upgrade\": false}", &c, &why), 0);
	CHECK_STREQ(c.method, "io.reclaimd.Explain");
	CHECK_STREQ(json_string_value(json_object_get(c.parameters, "cgroup")), "a/b");
	CHECK(c.oneway && !c.more);
	varlink_call_done(&c);

	/* Not NUL-terminated: the length decides. */
	CHECK_EQ_INT(varlink_call_parse("{\"method\":\"a.b.C\"}garbage", 18, &c, &why), 0);
	varlink_call_done(&c);
	varlink_call_done(NULL);
}

static void test_call_bad(void)
{
	static const struct {
		const char *msg;
		const char *why;
	} bad[] = {
		{ "", "not JSON" },
		{ "not json", "not JSON" },
		{ "{\"method\":\"a.b.C\"", "not JSON" },
		{ "{\"method\":\"a.b.C\"} {}", "not JSON" },
		{ "[]", "not a JSON object" },
		{ "\"io.reclaimd.Status\"", "not a JSON object" },
		{ "{}", "no \"method\"" },
		{ "{\"method\": 1}", "\"method\" is not a string" },
		{ "{\"method\": null}", "\"method\" is not a string" },
		{ "{\"method\": \"Status\"}", "not a method name" },
		{ "{\"method\": \"a.b.C\", \"parameters\": []}", "\"parameters\" is not an object" },
		{ "{\"method\": \"a.b.C\", \"parameters\": null}", "\"parameters\" is not an object" },
		{ "{\"method\": \"a.b.C\", \"oneway\": 1}", "take true or false" },
		{ "{\"method\": \"a.b.C\", \"more\": \"yes\"}", "take true or false" },
		{ "{\"method\": \"a.b.C\", \"upgrade\": true}", "upgrades are not supported" },
		{ "{\"method\": \"a.b.C\", \"extra\": 1}", "an unknown key" },
		{ "{\"method\": \"a.b.C\", \"method\": \"a.b.D\"}", "not JSON" }, /* duplicate key */
		{ "{\"method\": \"io.reclaimd.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.Status\"}",
		  "not a method name" },
		{ "\xff\xfe{\"method\": \"a.b.C\"}", "not JSON" },
		{ "{\"method\": \"a.b.\\u0000C\"}", "not JSON" }, /* jansson refuses \u0000 by default */
	};
	struct varlink_call sentinel = { .method = "untouched" }, c;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *why = NULL;
		int r;

		c = sentinel;
		r = parse(bad[i].msg, &c, &why);
		if (r != -EBADMSG || !why || !strstr(why, bad[i].why))
			fprintf(stderr, "bad[%zu] %s: r=%d why=\"%s\"\n", i, bad[i].msg, r,
				why ? why : "(null)");
		CHECK_EQ_INT(r, -EBADMSG);
		CHECK(why && strstr(why, bad[i].why));
		CHECK_STREQ(c.method, "untouched"); /* untouched on failure */
	}
	/* A NUL inside the length given. */
	CHECK_EQ_INT(varlink_call_parse("{}\0{}", 5, &c, NULL), -EBADMSG);
	CHECK_EQ_INT(varlink_call_parse(NULL, 0, &c, NULL), -EBADMSG);
}

/* Hostile input: deep nesting, a 1 MiB string, every truncation of a good call, random bytes. */
static void test_call_hostile(void)
{
	const char *good = "{\"method\":\"io.reclaimd.Explain\",\"parameters\":{\"cgroup\":\"x\"}}";
	size_t n = 1 << 20;
	char *buf = malloc(n + 64);
	struct varlink_call c;
	unsigned seed = 1;
	int ok = 0;

	CHECK(buf != NULL);
	if (!buf)
		return;
	/* 100,000 nested arrays: jansson's depth limit refuses them, without a stack overflow. */
	for (size_t i = 0; i < 100000; i++)
		buf[i] = '[';
	CHECK_EQ_INT(varlink_call_parse(buf, 100000, &c, NULL), -EBADMSG);
	/* A 1 MiB method name. */
	memcpy(buf, "{\"method\":\"", 11);
	memset(buf + 11, 'a', n);
	memcpy(buf + 11 + n, "\"}", 2);
	CHECK_EQ_INT(varlink_call_parse(buf, n + 13, &c, NULL), -EBADMSG);
	/* Every proper prefix of a good call fails; the whole parses. */
	for (size_t len = 0; len < strlen(good); len++)
		if (varlink_call_parse(good, len, &c, NULL) == 0) {
			ok++;
			varlink_call_done(&c);
		}
	CHECK_EQ_INT(ok, 0);
	CHECK_EQ_INT(varlink_call_parse(good, strlen(good), &c, NULL), 0);
	varlink_call_done(&c);
	/* Random bytes, and random flips of a good call: no crash, and a result either way. */
	for (int round = 0; round < 2000; round++) {
		size_t len = (size_t)(rand_r(&seed) % 200);
		int r;

		if (round % 2) {
			len = strlen(good);
			memcpy(buf, good, len);
			buf[(size_t)rand_r(&seed) % len] = (char)(rand_r(&seed) & 0xff);
		} else {
			for (size_t i = 0; i < len; i++)
				buf[i] = (char)(rand_r(&seed) & 0xff);
		}
		r = varlink_call_parse(buf, len, &c, NULL);
		if (r == 0)
			varlink_call_done(&c);
		CHECK(r == 0 || r == -EBADMSG);
	}
	free(buf);
}

static void test_reply(void)
{
	char *out = NULL;
	size_t len = 0;
	json_t *j;

	CHECK_EQ_INT(varlink_reply_encode(NULL, json_pack("{s:i}", "a", 1), &out, &len), 0);
	CHECK(out && len == strlen(out) + 1 && out[len - 1] == '\0');
	CHECK_STREQ(out, "{\"parameters\":{\"a\":1}}");
	free(out);
	CHECK_EQ_INT(varlink_reply_encode("io.reclaimd.NoSuchCgroup", NULL, &out, &len), 0);
	CHECK_STREQ(out, "{\"error\":\"io.reclaimd.NoSuchCgroup\",\"parameters\":{}}");
	/* What the server sends, the framing and the decoder's JSON reader take back. */
	CHECK_EQ_INT(varlink_frame_len(out, len), (ssize_t)len - 1);
	j = json_loads(out, 0, NULL);
	CHECK(json_is_object(j));
	json_decref(j);
	free(out);
	/* Non-ASCII cgroup names stay UTF-8. */
	CHECK_EQ_INT(varlink_reply_encode(NULL, json_pack("{s:s}", "cgroup", "caf\xc3\xa9"), &out, &len), 0);
	CHECK(out && strstr(out, "caf\xc3\xa9"));
	free(out);
}

/* floor_terms_compute() gives the floor cgroup_floor_bytes() gives, and names its largest term. */
static void test_floor_terms(void)
{
	static const struct {
		uint64_t min, memory_min, memory_low, children, current, anon, file, room;
		const char *applied;
	} cases[] = {
		{ 100 * MiB, 0, 0, 0, 300 * MiB, 200 * MiB, 100 * MiB, 1024 * MiB, "min_bytes" },
		{ 10 * MiB, 50 * MiB, 0, 0, 300 * MiB, 200 * MiB, 100 * MiB, 1024 * MiB, "memory.min" },
		{ 10 * MiB, 50 * MiB, 120 * MiB, 0, 300 * MiB, 200 * MiB, 100 * MiB, 1024 * MiB, "memory.low" },
		{ 10 * MiB, 50 * MiB, 50 * MiB, 0, 300 * MiB, 200 * MiB, 100 * MiB, 1024 * MiB, "memory.min" },
		{ 10 * MiB, 0, 250 * MiB, 0, 300 * MiB, 200 * MiB, 100 * MiB, 0, "memory.low" },
		{ 10 * MiB, 0, 220 * MiB, 60 * MiB, 300 * MiB, 200 * MiB, 100 * MiB, 0, "unreclaimable" },
		{ 10 * MiB, 0, 0, 0, 300 * MiB, 200 * MiB, 100 * MiB, 0, "unreclaimable" },
		{ 10 * MiB, 0, 0, 90 * MiB, 300 * MiB, 200 * MiB, 100 * MiB, 50 * MiB, "unreclaimable" },
		{ 10 * MiB, 0, 0, 900 * MiB, 300 * MiB, 200 * MiB, 100 * MiB, 50 * MiB, "unreclaimable" },
		{ 0, 0, 0, 0, 0, 0, 0, 0, "min_bytes" },
		{ 0, 0, 0, 0, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, "min_bytes" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct policy_params p;
		struct cgroup_sample s = { 0 };
		struct floor_terms t;

		policy_params_default(&p);
		p.min_bytes = cases[i].min;
		s.min_bytes = cases[i].memory_min;
		s.low_bytes = cases[i].memory_low;
		s.children_protected_bytes = cases[i].children;
		s.current_bytes = cases[i].current;
		s.stat.anon = cases[i].anon;
		s.stat.file = cases[i].file;
		s.swap_room_bytes = cases[i].room;
		floor_terms_compute(cases[i].min, &s, &t);
		CHECK_EQ_U64(t.floor_bytes, cgroup_floor_bytes(&p, &s));
		CHECK_STREQ(t.applied, cases[i].applied);
		CHECK_EQ_U64(t.floor_bytes, MAX(MAX(t.min_bytes, MAX(t.memory_min_bytes,
								      t.memory_low_bytes)),
						 t.unreclaimable_bytes));
	}
}

/* The interface description is what varlinkctl parses: every line is a comment, blank, or a
 * member of the IDL; each io.reclaimd method the server implements is declared. */
static void test_idl(void)
{
	static const char *const declared[] = {
		"method Status()", "method Cgroups()", "method Explain(cgroup: string)",
		"method Reload()", "error NoSuchCgroup", "error CgroupNotManaged",
		"error ConfigRejected", "error PermissionDenied", "error InvalidRequest",
		"error RequestTooLarge",
	};

	CHECK(strncmp(strstr(status_interface_idl, "interface "), "interface io.reclaimd\n", 22) == 0);
	for (size_t i = 0; i < ARRAY_SIZE(declared); i++) {
		if (!strstr(status_interface_idl, declared[i]))
			fprintf(stderr, "IDL lacks \"%s\"\n", declared[i]);
		CHECK(strstr(status_interface_idl, declared[i]) != NULL);
	}
}

int main(void)
{
	test_frame();
	test_method_names();
	test_call_good();
	test_call_bad();
	test_call_hostile();
	test_reply();
	test_floor_terms();
	test_idl();
	return test_report("test_varlink");
}
