/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_report_log.c - the log volume of agent/obs/report.c: at the default level (info) a cgroup
 * says a change of state once (starts being reclaimed, its first back-off, a skip reason), at most
 * once a minute, and nothing for the routine requests in between; at debug every decision is one
 * line; the reclaim summary comes at most once per REPORT_SUMMARY_US with the period's numbers,
 * and not at all for a period with nothing done; memory.events and direct reclaim lines at most
 * once a minute.
 */
#include <stdlib.h>
#include <unistd.h>

#include "obs/report.h"
#include "reclaimd/log.h"
#include "test.h"

static FILE *cap;
static int saved_stderr = -1;

static void capture_start(void)
{
	cap = tmpfile();
	fflush(stderr);
	saved_stderr = dup(STDERR_FILENO);
	dup2(fileno(cap), STDERR_FILENO);
}

/* Stops capturing; the captured text into buf. */
static void capture_end(char *buf, size_t size)
{
	size_t n;

	fflush(stderr);
	dup2(saved_stderr, STDERR_FILENO);
	close(saved_stderr);
	rewind(cap);
	n = fread(buf, 1, size - 1, cap);
	buf[n] = '\0';
	fclose(cap);
}

static unsigned count(const char *buf, const char *needle)
{
	unsigned n = 0;

	for (const char *p = buf; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static struct cgroup_node *node_new(const char *path, const struct rule *r)
{
	struct cgroup_node *cg = calloc(1, sizeof(*cg) + strlen(path) + 1);

	strcpy(cg->path, path);
	cg->rule = r;
	return cg;
}

static struct reclaim_decision dec_of(enum decision_reason r)
{
	return (struct reclaim_decision){ .reason = r,
					  .request_bytes = r == DECISION_RECLAIM ? 1 << 20 : 0,
					  .step = 0.01, .reclaimable_bytes = 64 << 20 };
}

#define S(x) ((usec_t)(x) * USEC_PER_SEC)

/* One cgroup's decisions every 2 s: 10 requests, then back-off and requests alternating 10
 * times, then at its floor for 80 s. */
static void run_cgroup(struct cgroup_node *cg, char *buf, size_t size)
{
	usec_t t = S(1000);

	capture_start();
	for (int i = 0; i < 10; i++, t += S(2)) {
		struct reclaim_decision d = dec_of(DECISION_RECLAIM);
		report_decision(cg, &d, false, t, false);
	}
	for (int i = 0; i < 20; i++, t += S(2)) {
		struct reclaim_decision d = dec_of(i % 2 ? DECISION_RECLAIM : DECISION_BACKING_OFF);
		report_decision(cg, &d, false, t, false);
	}
	for (int i = 0; i < 40; i++, t += S(2)) {
		struct reclaim_decision d = dec_of(i % 3 ? DECISION_AT_FLOOR : DECISION_BELOW_PAGE);
		report_decision(cg, &d, false, t, false);
	}
	capture_end(buf, size);
}

int main(void)
{
	static char buf[1 << 16];
	static struct snapshot snap;
	struct rule rules[1] = { { .match = (char *)"a/*", .policy = policy_find("psi") } };
	struct config c = { .rules = rules, .n_rules = 1, .interval_us = S(2) };
	struct obs_totals t = { 0 };
	struct cgroup_node *cg;
	struct tick_ctx ctx = { .snap = &snap, .config = &c };

	log_use_stderr(true);
	CHECK(rules[0].policy != NULL);

	/* info: the start, the first back-off, the floor, and nothing for the 25 other requests,
	 * the 9 other back-offs and the floor's repeats. */
	log_set_level(LOG_INFO);
	cg = node_new("a/one", &rules[0]);
	run_cgroup(cg, buf, sizeof(buf));
	CHECK_EQ_INT((int)count(buf, "\n"), 3);
	CHECK_EQ_INT((int)count(buf, "a/one: reclaiming 1024 KiB"), 1);
	CHECK(strstr(buf, "starts being reclaimed") != NULL);
	CHECK_EQ_INT((int)count(buf, "a/one: not reclaiming for now"), 1);
	CHECK_EQ_INT((int)count(buf, "a/one: not reclaiming: at or within"), 1);
	free(cg);

	/* debug: every decision but the quiet ones once more is one line (70 decisions). */
	log_set_level(LOG_DEBUG);
	cg = node_new("a/two", &rules[0]);
	run_cgroup(cg, buf, sizeof(buf));
	CHECK_EQ_INT((int)count(buf, "\n"), 70);
	CHECK_EQ_INT((int)count(buf, "a/two: reclaiming 1024 KiB"), 20);
	CHECK_EQ_INT((int)count(buf, "starts being reclaimed"), 1);
	free(cg);

	/* A cgroup flapping between reclaim and memory pressure at every 2 s tick for 5 minutes:
	 * 3 lines at once, then one a minute; the last one says the state it ended in. */
	log_set_level(LOG_INFO);
	cg = node_new("a/flap", &rules[0]);
	capture_start();
	for (int i = 0; i < 150; i++) {
		struct reclaim_decision d = dec_of(i % 2 ? DECISION_MEMORY_PRESSURE : DECISION_RECLAIM);
		report_decision(cg, &d, false, S(2000) + (usec_t)i * S(2), false);
	}
	capture_end(buf, sizeof(buf));
	CHECK_EQ_INT((int)count(buf, "\n"), 3 + 4);
	free(cg);

	/* The summary: 3 cgroups, 2 of them with requests (one twice), one back-off, a finished
	 * job; said once the period has passed, once. */
	log_set_level(LOG_INFO);
	{
		struct cgroup_node *cgs[3] = { node_new("a/x", &rules[0]), node_new("a/y", &rules[0]),
					       node_new("a/z", &rules[0]) };
		struct cgroup_sample samples[3] = { { .refault_delta_pages = 5 },
						    { .refault_delta_pages = 7 }, { 0 } };
		struct reclaim_decision r = dec_of(DECISION_RECLAIM);
		struct reclaim_decision b = dec_of(DECISION_BACKING_OFF);
		struct reclaim_job job = { .cgroup_path = (char *)"a/x", .request_bytes = 1 << 20,
					   .reclaimed_bytes = 3 << 19, .outcome = JOB_DONE };

		snap.cgroups = samples;
		snap.n_cgroups = 3;
		ctx.cgroups = cgs;
		capture_start();
		report_tick_summary(&t, &ctx, S(100), c.interval_us, false); /* starts the period */
		report_count_decision(&t, &c, cgs[0], &r);
		report_count_decision(&t, &c, cgs[0], &r);
		report_count_decision(&t, &c, cgs[1], &r);
		report_count_decision(&t, &c, cgs[2], &b);
		report_job_done(&t, &c, cgs[0], &job);
		report_tick_summary(&t, &ctx, S(130), c.interval_us, false); /* too early */
		report_tick_summary(&t, &ctx, S(160), c.interval_us, false);
		/* A period with nothing done says nothing. */
		report_tick_summary(&t, &ctx, S(220), c.interval_us, false);
		/* The next period counts a/x again. */
		report_count_decision(&t, &c, cgs[0], &r);
		report_tick_summary(&t, &ctx, S(280), c.interval_us, false);
		capture_end(buf, sizeof(buf));
		CHECK_EQ_INT((int)count(buf, "\n"), 2);
		CHECK(strstr(buf, "reclaim in the last 60 s: 2 of 3 managed cgroups reclaimed, 3 "
				  "requests for 3.0 MiB; 1 jobs finished, 1.5 MiB reclaimed; 1 "
				  "back-offs; 36 pages refaulted in managed cgroups") != NULL);
		CHECK(strstr(buf, "reclaim in the last 60 s: 1 of 3 managed cgroups reclaimed, 1 "
				  "requests for 1.0 MiB; 0 jobs finished") != NULL);
		report_free(&t);

		/* memory.events high growing at every tick: one NOTICE line a minute. */
		snap.host.meminfo.mem_total = 1 << 30; /* vmstat all 0: no direct reclaim */
		capture_start();
		for (int i = 0; i < 45; i++) {
			struct dispatcher_report dr = { 0 };

			samples[1].events_high = (uint64_t)i * 10;
			report_direct_reclaim(&t, &ctx, &dr); /* 45 calls well within a minute */
		}
		capture_end(buf, sizeof(buf));
		CHECK_EQ_INT((int)count(buf, "a/y: memory.events high +10"), 1);

		/* Host direct reclaim at every tick: one line, the rest within the minute summed
		 * into the next one. */
		capture_start();
		for (int i = 0; i < 5; i++) {
			struct dispatcher_report dr = { 0 };

			snap.host.vmstat.allocstall = (uint64_t)i * 3;
			report_direct_reclaim(&t, &ctx, &dr);
		}
		capture_end(buf, sizeof(buf));
		CHECK_EQ_INT((int)count(buf, "direct reclaim since the last such line"), 1);
		CHECK(strstr(buf, ": 3 allocstalls") != NULL);
		CHECK_EQ_U64(t.direct.stalls, 9);  /* 3 ticks of 3 not said yet */
		CHECK_EQ_U64(t.allocstalls, 12);   /* every tick counted for the metrics */
		for (int i = 0; i < 3; i++)
			free(cgs[i]);
	}
	report_free(&t);
	return test_report("test_report_log");
}
