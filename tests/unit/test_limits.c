/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_limits.c - what happens to a policy's answer before it becomes a job (limits.h):
 * the tick's limits merged, applied in order (pacing, MGLRU warm-up, zswap room), and a job's
 * swappiness; and the zswap policy parameters taken from a configuration.
 */
#include "reclaimd/config.h"
#include "reclaimd/limits.h"
#include "reclaimd/zswap.h"
#include "test.h"

#define MiB (1024ULL * 1024)
#define PAGE 4096ULL

static struct reclaim_decision reclaim(uint64_t bytes)
{
	return (struct reclaim_decision){ .reason = DECISION_RECLAIM, .request_bytes = bytes };
}

static void test_none_and_merge(void)
{
	struct reclaim_limits none, z, m;

	reclaim_limits_none(&none);
	CHECK_NEAR(none.step_factor, 1.0, 0);
	CHECK_EQ_INT(none.swappiness_cap, SWAPPINESS_UNSET);
	CHECK_EQ_U64(none.zswap_room_bytes, LIMIT_MAX);

	/* No swap-out cap: the zswap limits as they are. */
	z = (struct reclaim_limits){ .step_factor = 0.5, .swappiness_cap = 40, .zswap_room_bytes = 7 * MiB };
	reclaim_limits_merge(&z, SWAPPINESS_UNSET, &m);
	CHECK_NEAR(m.step_factor, 0.5, 0);
	CHECK_EQ_INT(m.swappiness_cap, 40);
	CHECK_EQ_U64(m.zswap_room_bytes, 7 * MiB);
	/* The lower cap wins, either way round. */
	reclaim_limits_merge(&z, 20, &m);
	CHECK_EQ_INT(m.swappiness_cap, 20);
	reclaim_limits_merge(&z, 90, &m);
	CHECK_EQ_INT(m.swappiness_cap, 40);
	z.swappiness_cap = SWAPPINESS_UNSET;
	reclaim_limits_merge(&z, 90, &m);
	CHECK_EQ_INT(m.swappiness_cap, 90);
	CHECK_NEAR(m.step_factor, 0.5, 0);
}

static void test_apply_pacing(void)
{
	struct reclaim_limits lim;
	struct limits_cgroup cg = { .swappiness_supported = true };
	struct reclaim_decision dec;
	uint64_t room = LIMIT_MAX;

	reclaim_limits_none(&lim);
	dec = reclaim(10 * MiB);
	CHECK(!reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec));
	CHECK_EQ_U64(dec.request_bytes, 10 * MiB);
	CHECK_EQ_INT(dec.reason, DECISION_RECLAIM);

	/* Scaled, rounded down to pages. */
	lim.step_factor = 0.3;
	dec = reclaim(10 * MiB);
	reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec);
	CHECK_EQ_U64(dec.request_bytes, (uint64_t)(10.0 * MiB * 0.3) / PAGE * PAGE);
	CHECK_EQ_U64(dec.request_bytes % PAGE, 0);
	CHECK_EQ_INT(dec.reason, DECISION_RECLAIM);

	/* Below a page after pacing. */
	dec = reclaim(2 * PAGE);
	lim.step_factor = 0.25;
	reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec);
	CHECK_EQ_U64(dec.request_bytes, 0);
	CHECK_EQ_INT(dec.reason, DECISION_BELOW_PAGE);

	/* A decision that asks nothing keeps its own reason. */
	dec = (struct reclaim_decision){ .reason = DECISION_AT_FLOOR };
	reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec);
	CHECK_EQ_INT(dec.reason, DECISION_AT_FLOOR);
	CHECK_EQ_U64(room, LIMIT_MAX);
}

static void test_apply_cold_cap(void)
{
	struct reclaim_limits lim;
	struct limits_cgroup cg = { .mglru_aging = true, .swappiness_supported = true };
	struct reclaim_decision dec;
	uint64_t room = 100 * MiB;

	reclaim_limits_none(&lim);
	cg.reaches_zswap = true;
	/* Nothing cold yet: no request, and the zswap room is not taken. */
	cg.cold_bytes = 0;
	dec = reclaim(8 * MiB);
	CHECK(!reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec));
	CHECK_EQ_U64(dec.request_bytes, 0);
	CHECK_EQ_INT(dec.reason, DECISION_NOT_COLD);
	CHECK_EQ_U64(room, 100 * MiB);
	/* Less than a page cold: the same. */
	cg.cold_bytes = PAGE - 1;
	dec = reclaim(8 * MiB);
	reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec);
	CHECK_EQ_U64(dec.request_bytes, 0);
	CHECK_EQ_INT(dec.reason, DECISION_NOT_COLD);
	/* Some cold: the request is cut to it, in pages, then the room is taken. */
	cg.cold_bytes = 3 * MiB + 100;
	dec = reclaim(8 * MiB);
	reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec);
	CHECK_EQ_U64(dec.request_bytes, 3 * MiB);
	CHECK_EQ_INT(dec.reason, DECISION_RECLAIM);
	CHECK_EQ_U64(room, 97 * MiB);
	/* More cold than asked: the request stands. */
	cg.cold_bytes = 64 * MiB;
	dec = reclaim(8 * MiB);
	reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec);
	CHECK_EQ_U64(dec.request_bytes, 8 * MiB);
	CHECK_EQ_U64(room, 89 * MiB);
	/* Without aging there is no cap. */
	cg.mglru_aging = false;
	cg.cold_bytes = 0;
	dec = reclaim(8 * MiB);
	reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec);
	CHECK_EQ_U64(dec.request_bytes, 8 * MiB);
	/* Pacing to below a page comes first: BELOW_PAGE, not NOT_COLD. */
	cg.mglru_aging = true;
	lim.step_factor = 0.1;
	dec = reclaim(PAGE);
	reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec);
	CHECK_EQ_INT(dec.reason, DECISION_BELOW_PAGE);
}

static void test_apply_room(void)
{
	struct reclaim_limits lim;
	struct limits_cgroup cg = { .reaches_zswap = true, .swappiness_supported = true,
				    .inactive_file_bytes = 10 * MiB };
	struct reclaim_decision dec;
	uint64_t room;

	reclaim_limits_none(&lim);
	/* Within the room: taken out of it. */
	room = 20 * MiB + 100; /* not a page multiple */
	dec = reclaim(8 * MiB);
	CHECK(!reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec));
	CHECK_EQ_U64(dec.request_bytes, 8 * MiB);
	CHECK_EQ_U64(room, 12 * MiB + 100);
	/* More than the room: the room, page-rounded. */
	dec = reclaim(30 * MiB);
	CHECK(!reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec));
	CHECK_EQ_U64(dec.request_bytes, 12 * MiB);
	CHECK_EQ_U64(room, 100);
	/* No room left: page cache only, at most half the inactive file. */
	dec = reclaim(30 * MiB);
	CHECK(reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec));
	CHECK_EQ_U64(dec.request_bytes, 5 * MiB);
	CHECK_EQ_INT(dec.reason, DECISION_RECLAIM);
	/* ... and nothing when the kernel takes no swappiness=, or there is no page cache. */
	cg.swappiness_supported = false;
	dec = reclaim(30 * MiB);
	CHECK(!reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec));
	CHECK_EQ_U64(dec.request_bytes, 0);
	CHECK_EQ_INT(dec.reason, DECISION_ZSWAP_FULL);
	cg.swappiness_supported = true;
	cg.inactive_file_bytes = 0;
	dec = reclaim(30 * MiB);
	CHECK(!reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec));
	CHECK_EQ_INT(dec.reason, DECISION_ZSWAP_FULL);
	/* A cgroup that cannot reach zswap takes nothing from the room. */
	cg.reaches_zswap = false;
	room = 0;
	dec = reclaim(30 * MiB);
	CHECK(!reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec));
	CHECK_EQ_U64(dec.request_bytes, 30 * MiB);
	CHECK_EQ_U64(room, 0);
	/* The room is shared: two requests in a row. */
	cg.reaches_zswap = true;
	room = 10 * MiB;
	dec = reclaim(6 * MiB);
	reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec);
	CHECK_EQ_U64(dec.request_bytes, 6 * MiB);
	dec = reclaim(6 * MiB);
	reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec);
	CHECK_EQ_U64(dec.request_bytes, 4 * MiB);
	CHECK_EQ_U64(room, 0);
	/* Pacing happens before the room is taken. */
	lim.step_factor = 0.5;
	room = 10 * MiB;
	dec = reclaim(8 * MiB);
	reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec);
	CHECK_EQ_U64(dec.request_bytes, 4 * MiB);
	CHECK_EQ_U64(room, 6 * MiB);
}

/* An eviction at swappiness 0 (no swap room, a swappiness of 0): the cold cap is the cold page
 * cache. */
static void test_cold_cap_evict_file_only(void)
{
	struct reclaim_limits lim;
	struct limits_cgroup cg = { .mglru_aging = true, .cold_bytes = 64 * MiB,
				    .cold_file_bytes = 16 * MiB, .evict_file_only = true };
	struct reclaim_decision dec;
	uint64_t room = LIMIT_MAX;

	reclaim_limits_none(&lim);
	dec = reclaim(32 * MiB);
	CHECK(!reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec));
	CHECK_EQ_U64(dec.request_bytes, 16 * MiB);
	/* No cold page cache: nothing to evict, the job only ages. */
	cg.cold_file_bytes = 0;
	dec = reclaim(32 * MiB);
	reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec);
	CHECK_EQ_U64(dec.request_bytes, 0);
	CHECK_EQ_INT(dec.reason, DECISION_NOT_COLD);
	/* Anon allowed too: all of what is cold. */
	cg.evict_file_only = false;
	dec = reclaim(32 * MiB);
	reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec);
	CHECK_EQ_U64(dec.request_bytes, 32 * MiB);
	/* Without aging there is no cold cap. */
	cg.mglru_aging = false;
	cg.evict_file_only = true;
	dec = reclaim(32 * MiB);
	reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec);
	CHECK_EQ_U64(dec.request_bytes, 32 * MiB);
}

/* With aging on, page cache only is asked for no more than the cold generations' file pages:
 * an eviction with swappiness 0 takes nothing else. */
static void test_apply_room_aging(void)
{
	struct reclaim_limits lim;
	struct limits_cgroup cg = { .mglru_aging = true, .cold_bytes = 256 * MiB,
				    .cold_file_bytes = 0, .reaches_zswap = true,
				    .swappiness_supported = true, .inactive_file_bytes = 400 * MiB };
	struct reclaim_decision dec;
	uint64_t room;

	reclaim_limits_none(&lim);
	/* Cold generations all anon: the room, never page cache only, so cold anon keeps going
	 * into the pool as fast as it has room. */
	room = 64 * 1024;
	dec = reclaim(512 * MiB);
	CHECK(!reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec));
	CHECK_EQ_U64(dec.request_bytes, 64 * 1024);
	CHECK_EQ_U64(room, 0);
	/* No room and nothing cold in the page cache: nothing (zswap-full). */
	dec = reclaim(512 * MiB);
	CHECK(!reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec));
	CHECK_EQ_U64(dec.request_bytes, 0);
	CHECK_EQ_INT(dec.reason, DECISION_ZSWAP_FULL);
	/* 100 MiB of cold page cache: that much, not half the inactive file (200 MiB). */
	cg.cold_file_bytes = 100 * MiB;
	room = 64 * 1024;
	dec = reclaim(512 * MiB);
	CHECK(reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec));
	CHECK_EQ_U64(dec.request_bytes, 100 * MiB);
	CHECK_EQ_U64(room, 64 * 1024);
	/* Half the inactive file when that is less. */
	cg.inactive_file_bytes = 80 * MiB;
	dec = reclaim(512 * MiB);
	CHECK(reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec));
	CHECK_EQ_U64(dec.request_bytes, 40 * MiB);
	/* An eviction takes a swappiness on every MGLRU kernel: page cache only without
	 * swappiness= in memory.reclaim too (6.1 to 6.8). */
	cg.swappiness_supported = false;
	dec = reclaim(512 * MiB);
	CHECK(reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec));
	CHECK_EQ_U64(dec.request_bytes, 40 * MiB);
	cg.swappiness_supported = true;
	/* Without aging the cold generations do not count: half the inactive file. */
	cg.mglru_aging = false;
	cg.cold_file_bytes = 0;
	dec = reclaim(512 * MiB);
	CHECK(reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec));
	CHECK_EQ_U64(dec.request_bytes, 40 * MiB);
	/* ... and then page cache only needs swappiness= in memory.reclaim: the room. */
	cg.swappiness_supported = false;
	dec = reclaim(512 * MiB);
	CHECK(!reclaim_limits_apply(&lim, &cg, PAGE, &room, &dec));
	CHECK_EQ_U64(dec.request_bytes, 64 * 1024);
}

static void test_job_swappiness(void)
{
	struct job_swappiness j;

	/* Nothing set: memory.reclaim without swappiness=, eviction with vm.swappiness. */
	job_swappiness_decide(SWAPPINESS_UNSET, SWAPPINESS_UNSET, 35, MiB, false, &j);
	CHECK_EQ_INT(j.swappiness, SWAPPINESS_UNSET);
	CHECK_EQ_INT(j.evict_swappiness, 35);
	/* vm.swappiness unreadable: the kernel default 60. */
	job_swappiness_decide(SWAPPINESS_UNSET, SWAPPINESS_UNSET, -1, MiB, false, &j);
	CHECK_EQ_INT(j.evict_swappiness, 60);
	/* The rule's value, and "max" as 200 for eviction. */
	job_swappiness_decide(120, SWAPPINESS_UNSET, 35, MiB, false, &j);
	CHECK_EQ_INT(j.swappiness, 120);
	CHECK_EQ_INT(j.evict_swappiness, 120);
	job_swappiness_decide(SWAPPINESS_MAX, SWAPPINESS_UNSET, 35, MiB, false, &j);
	CHECK_EQ_INT(j.swappiness, SWAPPINESS_MAX);
	CHECK_EQ_INT(j.evict_swappiness, 200);
	/* The cap: lower wins, also over "max"; a cap alone is passed. */
	job_swappiness_decide(120, 30, 35, MiB, false, &j);
	CHECK_EQ_INT(j.swappiness, 30);
	CHECK_EQ_INT(j.evict_swappiness, 30);
	job_swappiness_decide(SWAPPINESS_MAX, 30, 35, MiB, false, &j);
	CHECK_EQ_INT(j.swappiness, 30);
	job_swappiness_decide(SWAPPINESS_UNSET, 50, 35, MiB, false, &j);
	CHECK_EQ_INT(j.swappiness, 50);
	CHECK_EQ_INT(j.evict_swappiness, 50);
	/* No swap room (no swap, or a NoSwap pod): page cache only, both 0, whatever the rule. */
	job_swappiness_decide(120, SWAPPINESS_UNSET, 35, 0, false, &j);
	CHECK_EQ_INT(j.swappiness, 0);
	CHECK_EQ_INT(j.evict_swappiness, 0);
	job_swappiness_decide(SWAPPINESS_UNSET, SWAPPINESS_UNSET, 35, 0, false, &j);
	CHECK_EQ_INT(j.swappiness, 0);
	/* Page cache only: both 0. */
	job_swappiness_decide(SWAPPINESS_MAX, SWAPPINESS_UNSET, 35, MiB, true, &j);
	CHECK_EQ_INT(j.swappiness, 0);
	CHECK_EQ_INT(j.evict_swappiness, 0);
}

static void test_zswap_params_from_config(void)
{
	struct config *c = NULL;
	struct config_error err = { 0 };
	struct zswap_policy_params p, def;
	const char *json =
		"{\"zswap\": {\"pool_target_pct\": 70},"
		" \"swap\": {\"swapout_budget\": {\"hdd\": \"8M\"}},"
		" \"rules\": [{\"match\": \"a.slice\", \"policy\": \"psi\"}]}";
	int r = config_load_string(json, &c, &err);

	CHECK_EQ_INT(r, 0);
	if (r < 0) {
		fprintf(stderr, "%s\n", err.text);
		return;
	}
	zswap_policy_params_default(&def);
	zswap_policy_params_from_config(c, &p);
	CHECK_NEAR(p.pool_target_pct, 70, 0);
	CHECK_EQ_U64(p.swapout_budget_bytes_per_s[SWAP_KIND_HDD], 8 * MiB);
	CHECK_EQ_U64(p.swapout_budget_bytes_per_s[SWAP_KIND_SSD], def.swapout_budget_bytes_per_s[SWAP_KIND_SSD]);
	CHECK_NEAR(p.calm_pct, def.calm_pct, 0);
	CHECK_NEAR(p.near_target_pct, def.near_target_pct, 0);
	config_free(c);
}

int main(void)
{
	test_none_and_merge();
	test_apply_pacing();
	test_apply_cold_cap();
	test_apply_room();
	test_apply_room_aging();
	test_cold_cap_evict_file_only();
	test_job_swappiness();
	test_zswap_params_from_config();
	return test_report("test_limits");
}
