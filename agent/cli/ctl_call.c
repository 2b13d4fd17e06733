/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ctl_call.c - reclaimctl's one call to the status socket (ctl.h): connect, send the request,
 * read one NUL-terminated reply, each bounded by --timeout; the reply's error mapped to an exit
 * code.
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
#include <langinfo.h>
#include <locale.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>
#include <jansson.h>
#include <libsmartcols/libsmartcols.h>
#include "obs/varlink.h"
#include "reclaimd/escape.h"
#include "reclaimd/version.h"

#include "cli/ctl.h"

/* ---- the call ---------------------------------------------------------------------------- */

double mono_s(void)
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
const char *param(json_t *p, const char *key)
{
	const char *s = json_string_value(json_object_get(p, key));

	return s ? s : "-";
}

/* A call whose error replies become messages and exit codes; *ret_params its parameters. */
int call(const char *method, json_t *params, json_t **ret_params)
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
			r = fail(EXIT_NO_CGROUP, "no cgroup \"%s\" (%s); explain takes a path relative to the "
				 "cgroup root (e.g. system.slice/foo.service), an absolute path below it, "
				 "a pod UID or a container id", param(p, "cgroup"),
				 json_is_string(json_object_get(p, "reason")) ? param(p, "reason") :
				 "no such path below the cgroup root");
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

