/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reclaimctl.c - asks a running reclaimd through its status socket (agent/obs/status.c) what it
 * is doing and why, and asks it to reload. A separate program: it links only the varlink wire
 * format (agent/obs/varlink_proto.c), str_escape() (agent/base/escape.c) and jansson.
 *
 * One connection per call: the request, one NUL-terminated reply, each bounded in time
 * (--timeout). Tables are printed from the reply's fields; --json prints the reply's
 * parameters as they came. Every string of a reply that a table, explain, top or a message
 * prints (cgroup names first: any container names its own) is escaped (str_escape(),
 * reclaimd/escape.h), so no control byte reaches the terminal; --json keeps them exact, in
 * JSON's own escapes. Exit codes are listed in usage() and docs/operating.md "Status socket
 * and reclaimctl".
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "obs/varlink.h"
#include "reclaimd/escape.h"
#include "reclaimd/version.h"

#define DEFAULT_SOCKET "/run/reclaimd/reclaimd.sock"
/* Largest reply read: Cgroups on a host with 100,000 managed cgroups is about 60 MiB. */
#define REPLY_MAX_BYTES ((size_t)256 << 20)

enum exit_code {
	EXIT_OK = 0,
	EXIT_FAIL = 1,          /* the daemon answered with an error not listed below, or we failed */
	EXIT_USAGE = 2,
	EXIT_NOT_RUNNING = 3,   /* no socket, or nobody listens on it (stale socket file) */
	EXIT_DENIED = 4,        /* the socket's permissions, or the daemon refused the call */
	EXIT_VERSION = 5,       /* the daemon speaks another protocol or lacks the method */
	EXIT_NO_CGROUP = 6,     /* explain: no such cgroup, or it is not managed */
	EXIT_REJECTED = 7,      /* reload: the configuration was rejected, the old one stays */
	EXIT_TIMEOUT = 8,       /* no whole answer in time, or the connection broke */
};

static struct {
	const char *socket;
	bool json;
	long iterations;        /* top: 0 = until 'q' or a signal */
	double delay_s;
	double timeout_s;
} opt = { .delay_s = 2.0, .timeout_s = 5.0 };

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: reclaimctl [OPTIONS] COMMAND [ARGS]\n"
		"Ask a running reclaimd (PSI-driven proactive memory reclaim) what it is doing and why.\n"
		"\n"
		"Commands:\n"
		"  status            the agent: host, NUMA nodes (worker pools, headroom goal and\n"
		"                    deficit), swap tiers, zswap pool and inversions, zram, totals,\n"
		"                    tick timing, uptime, configuration file and when it was loaded\n"
		"  cgroups           one row per managed cgroup: rule, policy, memory.current, floor,\n"
		"                    reclaimable, step, last decision, request, PSI some %%, reclaimed,\n"
		"                    zswap, job\n"
		"  explain CGROUP    why the last decision on CGROUP (a path relative to the cgroup\n"
		"                    root) was what it was: the rule and why it matched, the floor and\n"
		"                    which term applied, every term of the law, the limits\n"
		"  top               a refreshing view of the cgroups, most reclaimed first ('q' quits)\n"
		"  reload            re-read the configuration file, as SIGHUP does (root only)\n"
		"\n"
		"Options:\n"
		"  -s, --socket PATH      the status socket (default " DEFAULT_SOCKET ",\n"
		"                         or $RECLAIMD_SOCKET)\n"
		"  -j, --json             print the daemon's answer as JSON (top: one object a line)\n"
		"  -n, --iterations N     top: stop after N refreshes\n"
		"  -d, --delay SECONDS    top: seconds between refreshes (default 2)\n"
		"  -t, --timeout SECONDS  how long to wait for the daemon's answer (default 5)\n"
		"  -h, --help             this text\n"
		"      --version          print the version\n"
		"\n"
		"Access: root, and members of the group named by status.read_group in the daemon's\n"
		"configuration (all but reload).\n"
		"\n"
		"Exit status:\n"
		"  0  success\n"
		"  1  the daemon answered with another error, or reclaimctl failed\n"
		"  2  bad command line\n"
		"  3  reclaimd is not running (no socket, or a stale socket nobody listens on)\n"
		"  4  access denied (the socket's permissions, or the daemon refused the call)\n"
		"  5  a reclaimd of another version (another protocol, or it lacks the method)\n"
		"  6  explain: no such cgroup, or it is not managed\n"
		"  7  reload: the configuration was rejected; the daemon keeps the previous one\n"
		"  8  no answer within the timeout, or the connection broke\n");
}

/* The escape of s (reclaimd/escape.h) for a terminal. The last 64 results stay valid (a ring
 * of buffers), enough for every string of one printf; "-" when out of memory. */
static const char *esc(const char *s)
{
	static char *ring[64];
	static unsigned next;
	char **slot = &ring[next++ % ARRAY_SIZE(ring)];
	size_t size = ESCAPE_SIZE(strlen(s));

	free(*slot);
	if (!(*slot = malloc(size)))
		return "-";
	str_escape(*slot, size, s);
	return *slot;
}

/* "reclaimctl: <message>" on stderr, the message escaped: it may quote the daemon's answer or
 * the command line. Returns code. */
_printf_(2, 3) static int fail(int code, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "reclaimctl: %s\n", r >= 0 ? esc(msg) : "out of memory");
	if (r >= 0)
		free(msg);
	return code;
}

/* ---- the call ---------------------------------------------------------------------------- */

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits for `events` on fd until `deadline` (mono_s()). 0, or EXIT_TIMEOUT. */
static int wait_fd(int fd, short events, double deadline)
{
	for (;;) {
		double left = deadline - mono_s();
		struct pollfd p = { .fd = fd, .events = events };
		int r;

		if (left <= 0)
			return EXIT_TIMEOUT;
		r = poll(&p, 1, (int)ceil(left * 1000));
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return EXIT_TIMEOUT;
	}
}

static int connect_socket(int *ret_fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd;

	if (strlen(opt.socket) >= sizeof(sa.sun_path))
		return fail(EXIT_USAGE, "%s: too long for a socket path", opt.socket);
	strcpy(sa.sun_path, opt.socket);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(EXIT_FAIL, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(fd);
		if (e == ENOENT || e == ENOTDIR)
			return fail(EXIT_NOT_RUNNING, "reclaimd is not running: no socket at %s (is the "
				    "service started, with status.socket set? --socket names another)",
				    opt.socket);
		if (e == ECONNREFUSED && lstat(opt.socket, &st) == 0 && !S_ISSOCK(st.st_mode))
			return fail(EXIT_NOT_RUNNING, "reclaimd is not running: %s is not a socket (a "
				    "reclaimd configured with it runs without its status socket)",
				    opt.socket);
		if (e == ECONNREFUSED)
			return fail(EXIT_NOT_RUNNING, "reclaimd is not running: %s is a stale socket "
				    "that nobody listens on (left by a reclaimd that was killed; the "
				    "next start removes it)", opt.socket);
		if (e == EACCES || e == EPERM)
			return fail(EXIT_DENIED, "access denied to %s: only root, and members of the "
				    "group status.read_group names, may use it", opt.socket);
		if (e == EAGAIN)
			return fail(EXIT_TIMEOUT, "%s: reclaimd is not accepting connections (its "
				    "backlog is full)", opt.socket);
		return fail(EXIT_FAIL, "cannot connect to %s: %s", opt.socket, strerror(e));
	}
	*ret_fd = fd;
	return 0;
}

/* Sends one call and reads its reply: *ret_reply the whole message (an object). */
static int call_raw(const char *method, json_t *params, json_t **ret_reply)
{
	json_t *req = json_pack("{s:s,s:o}", "method", method, "parameters",
				params ? params : json_object());
	double deadline = mono_s() + opt.timeout_s;
	char *text = NULL, *buf = NULL;
	size_t len, off = 0, size = 0;
	json_error_t jerr;
	int fd = -1, r;

	if (!req || !(text = json_dumps(req, JSON_COMPACT))) {
		json_decref(req);
		return fail(EXIT_FAIL, "out of memory");
	}
	json_decref(req);
	len = strlen(text) + 1; /* with the NUL that ends it */
	r = connect_socket(&fd);
	if (r) {
		free(text);
		return r;
	}
	while (off < len) {
		ssize_t n;

		if ((r = wait_fd(fd, POLLOUT, deadline)))
			goto timeout;
		n = send(fd, text + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			r = fail(EXIT_TIMEOUT, "%s: connection broken while sending: %s", opt.socket,
				 strerror(errno));
			goto out;
		}
		if (n > 0)
			off += (size_t)n;
	}
	off = 0;
	for (;;) {
		ssize_t n;

		if (off == size) {
			char *bigger;

			if (size >= REPLY_MAX_BYTES) {
				r = fail(EXIT_FAIL, "the answer is larger than %zu MiB", REPLY_MAX_BYTES >> 20);
				goto out;
			}
			size = size ? size * 2 : 65536;
			if (!(bigger = realloc(buf, size))) {
				r = fail(EXIT_FAIL, "out of memory");
				goto out;
			}
			buf = bigger;
		}
		if ((r = wait_fd(fd, POLLIN, deadline)))
			goto timeout;
		n = recv(fd, buf + off, size - off, MSG_DONTWAIT);
		if (n == 0 && off > 0) {
			r = fail(EXIT_TIMEOUT, "%s: reclaimd closed the connection in the middle of its "
				 "answer (it stopped, or this client was slower to read it than the 3 s "
				 "reclaimd gives a client)", opt.socket);
			goto out;
		}
		if (n == 0) {
			r = fail(EXIT_TIMEOUT, "%s: reclaimd closed the connection without an answer "
				 "(too many clients, or it is stopping)", opt.socket);
			goto out;
		}
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			r = fail(EXIT_TIMEOUT, "%s: connection broken: %s", opt.socket, strerror(errno));
			goto out;
		}
		if (memchr(buf + off, '\0', (size_t)n)) {
			off += (size_t)n;
			break;
		}
		off += (size_t)n;
	}
	*ret_reply = json_loadb(buf, strlen(buf), 0, &jerr);
	if (!*ret_reply || !json_is_object(*ret_reply)) {
		json_decref(*ret_reply);
		r = fail(EXIT_VERSION, "%s: the answer is not a varlink message (%s): is this a "
			 "reclaimd socket?", opt.socket, jerr.text);
		goto out;
	}
	r = 0;
	goto out;
timeout:
	r = fail(EXIT_TIMEOUT, "%s: no answer within %.1f s", opt.socket, opt.timeout_s);
out:
	free(text);
	free(buf);
	close(fd);
	return r;
}

/* A string parameter of an error reply, "-" when it has none (a daemon of another version). */
static const char *param(json_t *p, const char *key)
{
	const char *s = json_string_value(json_object_get(p, key));

	return s ? s : "-";
}

/* A call whose error replies become messages and exit codes; *ret_params its parameters. */
static int call(const char *method, json_t *params, json_t **ret_params)
{
	json_t *reply = NULL, *p;
	const char *error;
	json_int_t proto;
	int r = call_raw(method, params, &reply);

	if (r)
		return r;
	error = json_string_value(json_object_get(reply, "error"));
	p = json_object_get(reply, "parameters");
	if (error) {
		const char *s;

		if (strcmp(error, VARLINK_ERROR_METHOD_NOT_FOUND) == 0 ||
		    strcmp(error, VARLINK_ERROR_INTERFACE_NOT_FOUND) == 0)
			r = fail(EXIT_VERSION, "the daemon does not know %s: a reclaimd of another "
				 "version? (this reclaimctl is " RECLAIMD_VERSION ")", method);
		else if (strcmp(error, VARLINK_ERROR_PERMISSION_DENIED) == 0 ||
			 strcmp(error, "org.varlink.service.PermissionDenied") == 0)
			r = fail(EXIT_DENIED, "access denied: %s needs %s", method,
				 (s = json_string_value(json_object_get(p, "needs"))) ? s : "root");
		else if (strcmp(error, "io.reclaimd.NoSuchCgroup") == 0)
			r = fail(EXIT_NO_CGROUP, "no cgroup \"%s\" under the cgroup root (a path "
				 "relative to it, e.g. system.slice/foo.service)", param(p, "cgroup"));
		else if (strcmp(error, "io.reclaimd.CgroupNotManaged") == 0)
			r = fail(EXIT_NO_CGROUP, "%s is not managed: %s",
				 (s = json_string_value(json_object_get(p, "cgroup"))) && *s ? s :
				 "the root cgroup", param(p, "reason"));
		else if (strcmp(error, "io.reclaimd.ConfigRejected") == 0)
			r = fail(EXIT_REJECTED, "configuration rejected, reclaimd keeps the previous "
				 "one: %s", param(p, "message"));
		else if ((s = json_string_value(json_object_get(p, "reason"))))
			r = fail(EXIT_FAIL, "%s: %s", error, s);
		else
			r = fail(EXIT_FAIL, "the daemon answered %s", error);
		if (opt.json && p) {
			json_dumpf(reply, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			putchar('\n');
		}
		json_decref(reply);
		return r;
	}
	proto = json_integer_value(json_object_get(p, "protocol"));
	if (!json_is_object(p) || proto != RECLAIMD_STATUS_PROTOCOL) {
		const char *v = json_string_value(json_object_get(p, "version"));

		r = fail(EXIT_VERSION, "reclaimd %s speaks status protocol %lld, this reclaimctl (%s) "
			 "speaks %d: use the reclaimctl that came with the daemon", v ? v : "(unknown)",
			 (long long)proto, RECLAIMD_VERSION, RECLAIMD_STATUS_PROTOCOL);
		json_decref(reply);
		return r;
	}
	*ret_params = json_incref(p);
	json_decref(reply);
	return 0;
}

/* ---- formatting -------------------------------------------------------------------------- */

/* "12.0 MiB"; buf of at least 16 bytes. */
static const char *fmt_bytes(double b, char *buf, size_t size)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	unsigned u = 0;

	while (fabs(b) >= 1024 && u + 1 < ARRAY_SIZE(units)) {
		b /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%.0f B", b);
	else
		snprintf(buf, size, "%.1f %s", b, units[u]);
	return buf;
}

/* Up to 8 formatted values live at once (a ring of buffers). */
static const char *B(json_t *v)
{
	static char ring[8][24];
	static unsigned next;
	char *buf = ring[next++ % 8];

	if (!v || json_is_null(v))
		return "-";
	return fmt_bytes(json_number_value(v), buf, 24);
}

static const char *dur(double s, char *buf, size_t size)
{
	long t = (long)s;

	if (t >= 86400)
		snprintf(buf, size, "%ldd %ldh %ldm", t / 86400, t % 86400 / 3600, t % 3600 / 60);
	else if (t >= 3600)
		snprintf(buf, size, "%ldh %ldm %lds", t / 3600, t % 3600 / 60, t % 60);
	else if (t >= 60)
		snprintf(buf, size, "%ldm %lds", t / 60, t % 60);
	else
		snprintf(buf, size, "%.1fs", s);
	return buf;
}

static json_t *get(json_t *o, const char *path)
{
	char key[64];
	const char *dot;

	while (o && (dot = strchr(path, '.'))) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		o = json_object_get(o, key);
		path = dot + 1;
	}
	return o ? json_object_get(o, path) : NULL;
}

static double num(json_t *o, const char *path)
{
	return json_number_value(get(o, path));
}

static long long integer(json_t *o, const char *path)
{
	return (long long)json_number_value(get(o, path));
}

/* The string at path, escaped for a terminal (esc()); "-" when there is none. */
static const char *str(json_t *o, const char *path)
{
	const char *s = json_string_value(get(o, path));

	return s ? esc(s) : "-";
}

static void print_json(json_t *p, size_t flags)
{
	json_dumpf(p, stdout, flags | JSON_PRESERVE_ORDER);
	putchar('\n');
}

/* ---- status ------------------------------------------------------------------------------ */

/* The kernel features: present ones on one line, each absent one with what the agent does
 * without it. */
static void print_features(json_t *f)
{
	const char *name;
	json_t *v;
	bool first = true;

	if (!json_is_object(f))
		return;
	printf("kernel:  present:");
	json_object_foreach(f, name, v)
		if (strcmp(str(v, "state"), "present") == 0) {
			printf("%s%s", first ? " " : ", ", esc(name));
			first = false;
		}
	putchar('\n');
	json_object_foreach(f, name, v)
		if (strcmp(str(v, "state"), "present") != 0)
			printf("  %-19s %s (%s)%s%s\n", esc(name), str(v, "state"), str(v, "how"),
			       json_is_string(get(v, "fallback")) ? ": " : "",
			       json_is_string(get(v, "fallback")) ? str(v, "fallback") : "");
}

/* One line: whether memory.reclaim writes are bounded (an over-reclaiming kernel), why, and how
 * many were. Nothing from an agent that does not say. */
static void print_memory_reclaim(json_t *m, const char *kernel)
{
	const char *reason = str(m, "reason");

	if (!json_is_object(m))
		return;
	if (!json_is_true(get(m, "bounded"))) {
		printf("reclaim: memory.reclaim writes not bounded (chunk_bytes each)\n");
		return;
	}
	printf("reclaim: memory.reclaim writes of at most %lld pages (%s): ",
	       integer(m, "max_pages_per_write"), B(get(m, "max_bytes_per_write")));
	if (strcmp(reason, "kernel-below-6.6") == 0)
		printf("kernel %s predates 6.6's fix of proactive over-reclaim", kernel);
	else if (strcmp(reason, "measured-overshoot") == 0)
		printf("a job saw %s taken for %s written", B(get(m, "overshoot_reclaimed_bytes")),
		       B(get(m, "overshoot_written_bytes")));
	else
		printf("%s", reason);
	printf(" (%s); %lld bounded writes in %lld jobs\n", reason, integer(m, "bounded_writes"),
	       integer(m, "bounded_jobs"));
}

static void print_status(json_t *p)
{
	char d1[32], d2[32];
	json_t *v;
	size_t i;

	printf("reclaimd %s on %s (Linux %s), up %s%s\n", str(p, "version"), str(p, "host.hostname"),
	       str(p, "host.kernel"), dur(num(p, "uptime_s"), d1, sizeof(d1)),
	       json_is_true(get(p, "config.dry_run")) ? ", dry run (nothing is written)" : "");
	printf("config:  %s, %lld rules, interval %g s, loaded %s (%s ago), %lld reloads "
	       "(%lld rejected)\n", str(p, "config.file"), integer(p, "config.rules"),
	       num(p, "config.interval_s"), str(p, "config.loaded_at"),
	       dur(num(p, "config.loaded_ago_s"), d2, sizeof(d2)), integer(p, "config.reloads"),
	       integer(p, "config.reloads_rejected"));
	printf("memory:  %s total, %s free, %s available; swap %s total, %s free; "
	       "vm.swappiness %lld\n", B(get(p, "host.mem_total_bytes")),
	       B(get(p, "host.mem_free_bytes")), B(get(p, "host.mem_available_bytes")),
	       B(get(p, "host.swap_total_bytes")), B(get(p, "host.swap_free_bytes")),
	       integer(p, "host.vm_swappiness"));
	printf("ticks:   %lld, the last began %.1f ms late (max %.1f ms, over the last 32 "
	       "%.1f ms) and ran %.1f ms (max %.1f ms)\n", integer(p, "tick.count"),
	       num(p, "tick.late_last_us") / 1000, num(p, "tick.late_max_us") / 1000,
	       num(p, "tick.late_recent_max_us") / 1000, num(p, "tick.run_last_us") / 1000,
	       num(p, "tick.run_max_us") / 1000);
	if (json_is_object(get(p, "self")))
		printf("agent:   cgroup %s, memory.current %s, memory.high %s, %lld high events "
		       "since start%s\n", str(p, "self.cgroup"), B(get(p, "self.memory_current_bytes")),
		       json_is_null(get(p, "self.memory_high_bytes")) ? "max" :
		       B(get(p, "self.memory_high_bytes")), integer(p, "self.high_events"),
		       json_is_true(get(p, "self.throttled")) ?
		       ": THROTTLED at its memory.high (raise MemoryHigh=)" : "");

	printf("\n%-5s %7s %7s %4s %6s %10s %10s  %-10s %-10s %-10s\n", "NODE", "WORKERS", "ALLOWED",
	       "BUSY", "QUEUED", "IDLE-CORES", "RECLAIMED", "FREE", "GOAL", "DEFICIT");
	json_array_foreach(get(p, "nodes"), i, v) {
		json_t *h = json_object_get(v, "headroom");
		bool hr = json_is_object(h);

		printf("%-5lld %7lld %7lld %4lld %6lld %10.2f %10s  %-10s %-10s %-10s%s\n",
		       integer(v, "node"), integer(v, "workers"), integer(v, "allowed_workers"),
		       integer(v, "busy_workers"), integer(v, "queued_jobs"), num(v, "idle_cores"),
		       B(get(v, "reclaimed_bytes")), hr ? B(get(h, "free_bytes")) : "-",
		       hr ? B(get(h, "goal_bytes")) : "-", hr ? B(get(h, "deficit_bytes")) : "-",
		       hr && json_is_true(get(h, "refilling")) ? " refilling" : "");
	}

	printf("\nswap:    %s total, %s free", B(get(p, "swap.total_bytes")),
	       B(get(p, "swap.free_bytes")));
	if (json_is_integer(get(p, "swap.swapout_swappiness_cap")))
		printf(", swap-out budget caps swappiness at %lld",
		       integer(p, "swap.swapout_swappiness_cap"));
	putchar('\n');
	if (json_is_string(get(p, "swap.kubelet_node")))
		printf("  kubelet node (%s found): %s%lld configured device%s left off\n",
		       str(p, "swap.kubelet_node"),
		       json_is_true(get(p, "swap.allow_on_kubelet_node")) ?
		       "swapon allowed (swap.allow_on_kubelet_node); " : "no swapon; ",
		       integer(p, "swap.swapon_held"), integer(p, "swap.swapon_held") == 1 ? "" : "s");
	json_array_foreach(get(p, "swap.devices"), i, v)
		printf("  %-24s %-9s priority %-6lld %s used of %s\n", str(v, "path"), str(v, "type"),
		       integer(v, "priority"), B(get(v, "used_bytes")), B(get(v, "size_bytes")));
	if (!json_is_true(get(p, "zswap.available")))
		printf("zswap:   not available on this kernel\n");
	else
		printf("zswap:   %s (%s), pool %s, %.1f %% of its limit (max_pool_percent %lld, "
		       "accept_threshold_percent %lld); %lld inversions, %lld memory.zswap.max writes, "
		       "%lld shrinker switches; pacing x%.2f\n",
		       json_is_true(get(p, "zswap.enabled")) ? "enabled" : "disabled",
		       str(p, "zswap.compressor"), B(get(p, "zswap.pool_bytes")),
		       num(p, "zswap.pool_fill_pct"), integer(p, "zswap.max_pool_percent"),
		       integer(p, "zswap.accept_threshold_percent"), integer(p, "zswap.inversions"),
		       integer(p, "zswap.zswap_max_writes"), integer(p, "zswap.shrinker_switches"),
		       num(p, "zswap.pacing_step_factor"));
	printf("zram:    %zu swap devices, %s written back since start (%s in the current day)%s\n",
	       json_array_size(get(p, "zram.swap_devices")), B(get(p, "zram.written_back_bytes")),
	       B(get(p, "zram.day_written_back_bytes")),
	       json_is_true(get(p, "zram.round_running")) ? ", a writeback round is running" : "");
	if (integer(p, "tiers.tiers") >= 2) {
		printf("tiers:   %lld memory tiers, demotion %s; reclaimd demoted %s, freed %s; "
		       "%lld requests cut to the tier plan, %s of demotion held back, %lld cgroups "
		       "backing off\n", integer(p, "tiers.tiers"),
		       json_is_true(get(p, "tiers.demotion")) ? "on" : "off",
		       B(get(p, "tiers.reclaimd_demoted_bytes")), B(get(p, "tiers.reclaimd_freed_bytes")),
		       integer(p, "tiers.shaped_requests"), B(get(p, "tiers.held_back_bytes")),
		       integer(p, "tiers.cgroups_backing_off"));
		if (integer(p, "tiers.lower_full_requests") > 0 || json_is_true(get(p, "tiers.lower_full")))
			printf("         %s: %s of demotion withheld in %lld requests for want of room "
			       "above the lower tier's high watermark\n",
			       json_is_true(get(p, "tiers.lower_full")) ? "lower tier full now" :
			       "lower tier has room now", B(get(p, "tiers.room_held_bytes")),
			       integer(p, "tiers.lower_full_requests"));
		json_array_foreach(get(p, "tiers.nodes"), i, v) {
			printf("         node %lld: memory_tier%lld %s, %s used of %s, %s demoted from "
			       "it and %s promoted to it since boot", integer(v, "node"),
			       integer(v, "tier"), str(v, "role"), B(get(v, "mem_used_bytes")),
			       B(get(v, "mem_total_bytes")), B(get(v, "demoted_bytes")),
			       B(get(v, "promoted_bytes")));
			if (json_is_number(get(v, "room_bytes")))
				printf("; %s free above its high watermark (%s)", B(get(v, "room_bytes")),
				       B(get(v, "high_watermark_bytes")));
			putchar('\n');
		}
	} else {
		printf("tiers:   %lld memory tier(s): reclaim is not tier-aware\n",
		       integer(p, "tiers.tiers"));
	}
	printf("MGLRU:   aging %s, %lld lruvecs aged by %lld jobs\n",
	       json_is_true(get(p, "mglru.active")) ? "on" : "off", integer(p, "mglru.lruvecs_aged"),
	       integer(p, "mglru.aging_jobs"));
	printf("totals:  %lld managed cgroups (%lld known), %s reclaimed by %lld requests (%lld "
	       "dropped, %lld in flight, %lld evicted through lru_gen); headroom %s in %lld "
	       "requests (%lld last resort)\n", integer(p, "totals.managed_cgroups"),
	       integer(p, "totals.known_cgroups"), B(get(p, "totals.reclaimed_bytes")),
	       integer(p, "totals.jobs_submitted"), integer(p, "totals.jobs_dropped"),
	       integer(p, "totals.jobs_in_flight"), integer(p, "totals.lru_gen_evict_jobs"),
	       B(get(p, "totals.headroom_requested_bytes")), integer(p, "totals.headroom_requests"),
	       integer(p, "totals.headroom_last_resort_requests"));
	if (integer(p, "totals.headroom_node_reclaim.requests") > 0)
		printf("         headroom asked nodeN/reclaim for %s in %lld writes (%lld done, %lld "
		       "partial, %lld busy: another writer, %lld cancelled, %lld failed)\n",
		       B(get(p, "totals.headroom_node_reclaim.requested_bytes")),
		       integer(p, "totals.headroom_node_reclaim.requests"),
		       integer(p, "totals.headroom_node_reclaim.done"),
		       integer(p, "totals.headroom_node_reclaim.partial"),
		       integer(p, "totals.headroom_node_reclaim.busy"),
		       integer(p, "totals.headroom_node_reclaim.cancelled"),
		       integer(p, "totals.headroom_node_reclaim.failed"));
	print_memory_reclaim(get(p, "memory_reclaim"), str(p, "host.kernel"));
	print_features(get(p, "features"));
	printf("socket:  %s, %lld connected now, %lld calls, %lld bad requests, %lld denied, "
	       "%lld timed out, %lld idle ones dropped for new ones, %lld refused (too many "
	       "clients)\n", str(p, "socket.path"),
	       integer(p, "socket.clients"), integer(p, "socket.calls"),
	       integer(p, "socket.bad_requests"), integer(p, "socket.denied"),
	       integer(p, "socket.timeouts"), integer(p, "socket.evicted_idle"),
	       integer(p, "socket.refused_busy"));
}

static int cmd_status(void)
{
	json_t *p;
	int r = call("io.reclaimd.Status", NULL, &p);

	if (r)
		return r;
	if (opt.json)
		print_json(p, JSON_INDENT(2));
	else
		print_status(p);
	json_decref(p);
	return 0;
}

/* ---- cgroups ----------------------------------------------------------------------------- */

static const char *pct(json_t *v, char *buf, size_t size)
{
	if (!json_is_number(v))
		return "-";
	snprintf(buf, size, "%.3f", json_number_value(v));
	return buf;
}

static void print_cgroups(json_t *p)
{
	char rule[16], step[16], psi[16];
	json_t *v;
	size_t i;

	printf("%-5s %-6s %10s %10s %11s %5s %-13s %10s %7s %10s %10s %-10s %s\n", "RULE", "POLICY",
	       "CURRENT", "FLOOR", "RECLAIMABLE", "STEP", "DECISION", "REQUEST", "PSI%", "RECLAIMED",
	       "ZSWAP", "JOB", "CGROUP");
	json_array_foreach(get(p, "cgroups"), i, v) {
		json_t *job = json_object_get(v, "job");

		snprintf(rule, sizeof(rule), "#%lld", integer(v, "rule_index"));
		if (json_is_number(get(v, "step")))
			snprintf(step, sizeof(step), "%.3f", num(v, "step"));
		else
			strcpy(step, "-");
		printf("%-5s %-6s %10s %10s %11s %5s %-13s %10s %7s %10s %10s %-10s %s\n", rule,
		       str(v, "policy"), B(get(v, "current_bytes")), B(get(v, "floor_bytes")),
		       B(get(v, "reclaimable_bytes")), step, str(v, "decision"),
		       B(get(v, "request_bytes")), pct(get(v, "psi_some_pct"), psi, sizeof(psi)),
		       B(get(v, "reclaimed_total_bytes")), B(get(v, "zswap_bytes")),
		       json_is_object(job) ? B(get(job, "request_bytes")) : "-",
		       str(v, "cgroup"));
	}
	printf("%zu managed cgroups; PSI%% is memory PSI some over the last interval (%g s); "
	       "REQUEST is the last decision's, JOB what is in flight\n",
	       json_array_size(get(p, "cgroups")), num(p, "interval_s"));
}

static int cmd_cgroups(void)
{
	json_t *p;
	int r = call("io.reclaimd.Cgroups", NULL, &p);

	if (r)
		return r;
	if (opt.json)
		print_json(p, JSON_INDENT(2));
	else
		print_cgroups(p);
	json_decref(p);
	return 0;
}

/* ---- explain ----------------------------------------------------------------------------- */

static void print_explain(json_t *p)
{
	json_t *dec = get(p, "decision"), *in = get(p, "inputs"), *fl = get(p, "floor");
	json_t *law = get(p, "law"), *lim = get(p, "limits"), *cold = get(p, "cold_age");
	json_t *job = get(p, "job"), *tiers = get(p, "tiers");

	printf("%s\n", str(p, "cgroup"));
	printf("rule:      rules[%lld] \"%s\", policy %s\n           %s\n", integer(p, "rule.index"),
	       str(p, "rule.match"), str(p, "rule.policy"), str(p, "rule.why"));
	if (!json_is_object(dec)) {
		printf("decision:  none yet (a decision needs two samples, an interval apart)\n");
	} else {
		printf("decision:  %s, request %s, %.1f s ago (tick %lld)%s\n", str(dec, "reason"),
		       B(get(dec, "request_bytes")), num(dec, "ago_s"), integer(dec, "tick"),
		       json_is_true(get(dec, "dry_run")) ? ", dry run: not carried out" : "");
		printf("inputs:    memory.current %s, memory.min %s, memory.low %s, memory.high %s%s,\n"
		       "           anon %s, file %s, swap room %s\n",
		       B(get(in, "current_bytes")), B(get(in, "memory_min_bytes")),
		       B(get(in, "memory_low_bytes")),
		       json_is_null(get(in, "memory_high_bytes")) ? "max" : B(get(in, "memory_high_bytes")),
		       json_is_true(get(in, "at_high")) ? " (at it: the kernel reclaims)" : "",
		       B(get(in, "anon_bytes")), B(get(in, "file_bytes")), B(get(in, "swap_room_bytes")));
		printf("floor:     %s = max(min_bytes %s, memory.min %s, memory.low %s, unreclaimable %s):"
		       " %s applies\n"
		       "           unreclaimable = memory.current - (file + min(anon, swap room) - "
		       "children's protection %s) = %s - %s\n",
		       B(get(fl, "floor_bytes")), B(get(fl, "min_bytes")), B(get(fl, "memory_min_bytes")),
		       B(get(fl, "memory_low_bytes")), B(get(fl, "unreclaimable_bytes")),
		       str(fl, "applied"), B(get(fl, "children_protected_bytes")),
		       B(get(in, "current_bytes")), B(get(fl, "evictable_bytes")));
		printf("law:       p = memory PSI some %.3f %% over the interval (target %.3f %%); "
		       "io PSI some %.3f %% (target %.3f %%)\n",
		       num(law, "psi_some_pct"), num(law, "psi_some_target_pct"), num(law, "io_some_pct"),
		       num(law, "io_psi_some_target_pct"));
		printf("           step %.3f (probe_min %g, x%g after a calm interval, up to %g; next "
		       "%.3f)\n", num(law, "step"), num(law, "probe_min"), num(law, "probe_growth"),
		       num(law, "probe_max"), num(law, "next_step"));
		printf("           request = reclaimable %s x step %.3f x max(0, 1 - p/target) %.3f = %s"
		       " -> %s in pages: %s\n", B(get(law, "reclaimable_bytes")), num(law, "step"),
		       num(law, "pressure_factor"), B(get(law, "computed_bytes")),
		       B(get(law, "request_bytes")), str(law, "reason"));
		printf("limits:    pacing x%.3f", num(lim, "pacing_step_factor"));
		if (json_is_number(get(lim, "cold_cap_bytes")))
			printf(", MGLRU cold cap %s", B(get(lim, "cold_cap_bytes")));
		printf(", %s zswap%s -> %s: %s\n",
		       json_is_true(get(lim, "reaches_zswap")) ? "reaches" : "does not reach",
		       json_is_true(get(lim, "file_only")) ? ", page cache only (more than the pool's room)" : "",
		       B(get(lim, "request_bytes")), str(lim, "reason"));
		if (json_is_object(cold))
			printf("cold age:  %g s (was %g s, at most %g s); %.1f pages read back a minute "
			       "(target %g %% of memory.current a minute)\n", num(cold, "cold_age_s"),
			       num(cold, "previous_cold_age_s"), num(cold, "max_cold_age_s"),
			       num(cold, "pages_back_per_min"), num(cold, "refault_target_pct"));
		if (json_is_object(get(in, "pages_back"))) {
			json_t *pb = get(in, "pages_back");

			printf("back:      %.1f pages/s read back (%lld in %.1f s, %s): refaults "
			       "anon %lld file %lld, pgmajfault %lld, zswpin %lld, io.stat reads %lld "
			       "pages\n", num(pb, "pages_per_s"), integer(pb, "pages"),
			       num(pb, "interval_s"), str(pb, "from"), integer(pb, "refault_anon_pages"),
			       integer(pb, "refault_file_pages"), integer(pb, "pgmajfault"),
			       integer(pb, "zswpin_pages"), integer(pb, "io_read_pages"));
		}
	}
	if (json_is_object(tiers)) {
		printf("tiers:     tick %lld: of %s to evict, demote %s from the upper tiers, evict %s "
		       "on the lowest", integer(tiers, "tick"), B(get(tiers, "request_bytes")),
		       B(get(tiers, "demote_bytes")), B(get(tiers, "evict_bytes")));
		if (integer(tiers, "backoff_held_bytes") > 0)
			printf("; %s held back (promotions)", B(get(tiers, "backoff_held_bytes")));
		if (integer(tiers, "room_held_bytes") > 0)
			printf("; %s held back (no room below)", B(get(tiers, "room_held_bytes")));
		if (json_is_string(get(tiers, "reason")))
			printf(": %s", str(tiers, "reason"));
		putchar('\n');
	}
	if (json_is_object(job))
		printf("job:       in flight, %s asked%s\n", B(get(job, "request_bytes")),
		       json_is_true(get(job, "headroom")) ? " for headroom" : "");
	else
		printf("job:       none in flight\n");
}

static int cmd_explain(const char *cgroup)
{
	json_t *p;
	int r = call("io.reclaimd.Explain", json_pack("{s:s}", "cgroup", cgroup), &p);

	if (r)
		return r;
	if (opt.json)
		print_json(p, JSON_INDENT(2));
	else
		print_explain(p);
	json_decref(p);
	return 0;
}

/* ---- top --------------------------------------------------------------------------------- */

static volatile sig_atomic_t stop;
static struct termios saved_tty;
static bool tty_raw;

static void on_signal(int sig _unused_)
{
	stop = 1;
}

static void tty_restore(void)
{
	if (tty_raw)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
	tty_raw = false;
}

struct prev_row {
	char *cgroup;
	double reclaimed;
};

static struct prev_row *prev;
static size_t n_prev;

static double prev_reclaimed(const char *cgroup, double fallback)
{
	for (size_t i = 0; i < n_prev; i++)
		if (strcmp(prev[i].cgroup, cgroup) == 0)
			return prev[i].reclaimed;
	return fallback;
}

struct top_row {
	json_t *v;
	double rate;
};

static int cmp_top(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;
	double cx = num(x->v, "current_bytes"), cy = num(y->v, "current_bytes");

	if (x->rate != y->rate)
		return x->rate < y->rate ? 1 : -1;
	return cx < cy ? 1 : cx > cy ? -1 : 0;
}

static void print_top(json_t *st, json_t *cg, double elapsed, bool screen)
{
	json_t *rows = get(cg, "cgroups"), *v;
	size_t n = json_array_size(rows), i, shown;
	struct top_row *t = calloc(n ? n : 1, sizeof(*t));
	struct prev_row *next = calloc(n ? n : 1, sizeof(*next));
	char d1[32], psi[16];

	if (screen)
		fputs("\033[H\033[2J", stdout);
	printf("reclaimd %s, up %s: %lld managed cgroups, %s reclaimed, %lld jobs in flight, zswap "
	       "pool %.0f %% of its limit, tick %.1f ms late (max %.1f)\n", str(st, "version"),
	       dur(num(st, "uptime_s"), d1, sizeof(d1)), integer(st, "totals.managed_cgroups"),
	       B(get(st, "totals.reclaimed_bytes")), integer(st, "totals.jobs_in_flight"),
	       num(st, "zswap.pool_fill_pct"), num(st, "tick.late_last_us") / 1000,
	       num(st, "tick.late_max_us") / 1000);
	json_array_foreach(get(st, "nodes"), i, v)
		printf("node %lld: %lld/%lld workers, %lld busy, %lld queued%s%s\n", integer(v, "node"),
		       integer(v, "allowed_workers"), integer(v, "workers"), integer(v, "busy_workers"),
		       integer(v, "queued_jobs"),
		       json_is_object(get(v, "headroom")) ? ", free " : "",
		       json_is_object(get(v, "headroom")) ? B(get(v, "headroom.free_bytes")) : "");
	putchar('\n');
	json_array_foreach(rows, i, v) {
		double now = num(v, "reclaimed_total_bytes");

		t[i].v = v;
		t[i].rate = elapsed > 0 ? (now - prev_reclaimed(str(v, "cgroup"), now)) / elapsed : 0;
		if (next && (next[i].cgroup = strdup(str(v, "cgroup"))))
			next[i].reclaimed = now;
	}
	qsort(t, n, sizeof(*t), cmp_top);
	printf("%10s %10s %10s %7s %-13s %10s %10s %s\n", "CURRENT", "FLOOR", "RECLAIM/s", "PSI%",
	       "DECISION", "REQUEST", "RECLAIMED", "CGROUP");
	shown = screen ? 40 : n;
	for (i = 0; i < n && i < shown; i++) {
		char rate[24];

		fmt_bytes(t[i].rate, rate, sizeof(rate));
		printf("%10s %10s %10s %7s %-13s %10s %10s %s\n", B(get(t[i].v, "current_bytes")),
		       B(get(t[i].v, "floor_bytes")), rate, pct(get(t[i].v, "psi_some_pct"), psi,
		       sizeof(psi)), str(t[i].v, "decision"), B(get(t[i].v, "request_bytes")),
		       B(get(t[i].v, "reclaimed_total_bytes")), str(t[i].v, "cgroup"));
	}
	if (n > shown)
		printf("... %zu more\n", n - shown);
	fflush(stdout);
	for (size_t k = 0; k < n_prev; k++)
		free(prev[k].cgroup);
	free(prev);
	prev = next;
	n_prev = next ? n : 0;
	free(t);
}

/* Sleeps delay_s, or less when 'q' is typed or a signal comes. */
static void top_wait(void)
{
	double deadline = mono_s() + opt.delay_s;

	while (!stop) {
		double left = deadline - mono_s();
		struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
		char c;

		if (left <= 0)
			return;
		if (poll(&p, tty_raw ? 1 : 0, (int)ceil(left * 1000)) > 0 &&
		    read(STDIN_FILENO, &c, 1) == 1 && (c == 'q' || c == 'Q'))
			stop = 1;
	}
}

static int cmd_top(void)
{
	bool screen = !opt.json && isatty(STDOUT_FILENO);
	double last = 0;
	int r = 0;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (screen && isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved_tty) == 0) {
		struct termios raw = saved_tty;

		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		tty_raw = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
		atexit(tty_restore);
	}
	for (long it = 0; !stop && (opt.iterations == 0 || it < opt.iterations); it++) {
		json_t *st = NULL, *cg = NULL;
		double now;

		if (it > 0)
			top_wait();
		if (stop)
			break;
		if ((r = call("io.reclaimd.Status", NULL, &st)) ||
		    (r = call("io.reclaimd.Cgroups", NULL, &cg))) {
			json_decref(st);
			break;
		}
		now = mono_s();
		if (opt.json) {
			json_t *o = json_pack("{s:I,s:o,s:o}", "iteration", (json_int_t)it, "status", st,
					      "cgroups", cg);

			print_json(o, JSON_COMPACT);
			json_decref(o);
			fflush(stdout);
		} else {
			if (!screen && it > 0)
				putchar('\n');
			print_top(st, cg, last > 0 ? now - last : 0, screen);
			json_decref(st);
			json_decref(cg);
		}
		last = now;
	}
	tty_restore();
	for (size_t k = 0; k < n_prev; k++)
		free(prev[k].cgroup);
	free(prev);
	return r;
}

/* ---- reload ------------------------------------------------------------------------------ */

static int cmd_reload(void)
{
	json_t *p, *v;
	size_t i;
	int r = call("io.reclaimd.Reload", NULL, &p);

	if (r)
		return r;
	if (opt.json) {
		print_json(p, JSON_INDENT(2));
	} else {
		printf("configuration reloaded from %s (%lld rules)\n", str(p, "config"),
		       integer(p, "rules"));
		json_array_foreach(get(p, "restart_only"), i, v)
			printf("  %s changed: it takes effect only at restart\n",
			       json_is_string(v) ? esc(json_string_value(v)) : "-");
	}
	json_decref(p);
	return 0;
}

/* ---- main -------------------------------------------------------------------------------- */

static bool parse_seconds(const char *s, double min, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= min) || v > 86400)
		return false;
	*ret = v;
	return true;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "delay", required_argument, NULL, 'd' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	const char *cmd;
	char *end;
	int c;

	opt.socket = getenv("RECLAIMD_SOCKET") && *getenv("RECLAIMD_SOCKET") ?
		     getenv("RECLAIMD_SOCKET") : DEFAULT_SOCKET;
	while ((c = getopt_long(argc, argv, "s:jn:d:t:h", options, NULL)) >= 0) {
		switch (c) {
		case 's':
			opt.socket = optarg;
			break;
		case 'j':
			opt.json = true;
			break;
		case 'n':
			errno = 0;
			opt.iterations = strtol(optarg, &end, 10);
			if (errno || *end || opt.iterations < 1)
				return fail(EXIT_USAGE, "--iterations: '%s' is not a number >= 1", optarg);
			break;
		case 'd':
			if (!parse_seconds(optarg, 0.1, &opt.delay_s))
				return fail(EXIT_USAGE, "--delay: '%s' is not a number of seconds "
					    "(0.1..86400)", optarg);
			break;
		case 't':
			if (!parse_seconds(optarg, 0.001, &opt.timeout_s))
				return fail(EXIT_USAGE, "--timeout: '%s' is not a number of seconds "
					    "(0.001..86400)", optarg);
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("reclaimctl " RECLAIMD_VERSION " (status protocol %d)\n",
			       RECLAIMD_STATUS_PROTOCOL);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[optind++];
	if (strcmp(cmd, "explain") == 0) {
		if (argc - optind != 1)
			return fail(EXIT_USAGE, "explain takes one cgroup (a path relative to the "
				    "cgroup root)");
		return cmd_explain(argv[optind]);
	}
	if (optind < argc)
		return fail(EXIT_USAGE, "%s takes no argument ('%s')", cmd, argv[optind]);
	if (strcmp(cmd, "status") == 0)
		return cmd_status();
	if (strcmp(cmd, "cgroups") == 0)
		return cmd_cgroups();
	if (strcmp(cmd, "top") == 0)
		return cmd_top();
	if (strcmp(cmd, "reload") == 0)
		return cmd_reload();
	return fail(EXIT_USAGE, "unknown command '%s' (status, cgroups, explain, top, reload; "
		    "--help)", cmd);
}
