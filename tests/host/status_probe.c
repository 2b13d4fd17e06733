/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * status_probe.c - a misbehaving client of the status socket, for tests/host/status-socket.sh.
 * Each mode does one kind of abuse and prints "key=value" lines of what it saw; the script
 * asserts on them. Exit 0 when the mode ran (what it saw is for the script to judge), 1 on a
 * failure of the probe itself.
 *
 *   status_probe SOCKET call METHOD [PARAMS-JSON]   one call; prints the reply as JSON
 *   status_probe SOCKET garbage                     not JSON, then JSON that is not a call
 *   status_probe SOCKET huge                        1 MiB without a NUL
 *   status_probe SOCKET slow                        one byte every 0.5 s
 *   status_probe SOCKET noread                      200 pipelined Cgroups calls, never read
 *   status_probe SOCKET flood N SECONDS             N connections at once, held, never read;
 *                                                   meanwhile a Status call every 0.25 s
 *   status_probe SOCKET stale                       leaves a socket file nobody listens on
 *   status_probe SOCKET serve-once REPLY-JSON [cut] a fake daemon: answers one call with
 *                                                   REPLY-JSON (cut: without its NUL, as a
 *                                                   daemon that dies mid-reply), then removes
 *                                                   its socket
 *   status_probe SOCKET pipe N MSG...               the MSGs, each with its NUL, in one write;
 *                                                   reads until N replies came (5 s at most)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "obs/varlink.h"

static const char *sock_path;

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A connected socket (non-blocking when nb), or -errno. */
static int dial(bool nb)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | (nb ? SOCK_NONBLOCK : 0), 0);

	if (fd < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno != EINPROGRESS) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

static void send_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

/* Reads one NUL-terminated message within timeout_s into a malloc'ed string (NULL: EOF or
 * timeout; *ret_eof tells which). */
static char *read_msg(int fd, double timeout_s, bool *ret_eof)
{
	double deadline = mono_s() + timeout_s;
	size_t len = 0, size = 1 << 16;
	char *buf = malloc(size);

	*ret_eof = false;
	while (buf) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		double left = deadline - mono_s();
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) <= 0)
			break;
		if (len == size) {
			char *b = realloc(buf, size *= 2);

			if (!b)
				break;
			buf = b;
		}
		n = recv(fd, buf + len, size - len, MSG_DONTWAIT);
		if (n == 0) {
			*ret_eof = true;
			break;
		}
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			*ret_eof = true;
			break;
		}
		len += (size_t)n;
		if (memchr(buf, '\0', len))
			return buf;
	}
	free(buf);
	return NULL;
}

static const char *error_of(const char *msg, char *buf, size_t size)
{
	json_t *j = msg ? json_loads(msg, 0, NULL) : NULL;
	const char *e = json_string_value(json_object_get(j, "error"));

	snprintf(buf, size, "%s", e ? e : j ? "none" : "no-reply");
	json_decref(j);
	return buf;
}

/* Whether the server closes the connection within timeout_s (reading what comes). */
static bool closed_within(int fd, double timeout_s)
{
	double deadline = mono_s() + timeout_s;
	char buf[65536];

	while (mono_s() < deadline) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return true;
	}
	return false;
}

static int mode_call(const char *method, const char *params)
{
	char *text = NULL, *reply;
	json_t *req = json_pack("{s:s,s:o}", "method", method, "parameters",
				params ? json_loads(params, 0, NULL) : json_object());
	bool eof;
	int fd = dial(false);

	if (fd < 0 || !req || !(text = json_dumps(req, JSON_COMPACT)))
		return 1;
	send_all(fd, text, strlen(text) + 1);
	reply = read_msg(fd, 10, &eof);
	printf("%s\n", reply ? reply : "");
	free(reply);
	free(text);
	json_decref(req);
	close(fd);
	return reply ? 0 : 1;
}

static int mode_garbage(void)
{
	static const char *const inputs[] = {
		"this is not JSON",
		"[1, 2, 3]",
		"{\"method\": 42}",
		"{\"method\": \"io.reclaimd.Status\", \"parameters\": [], \"x\": 1}",
		"{\"method\": \"no-dot\"}",
		"{\"method\": \"io.reclaimd.Status\", \"method\": \"io.reclaimd.Status\"}",
		"\xff\xfe\x01\x02 binary",
	};
	char err[128];

	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		int fd = dial(false);
		bool eof;
		char *reply;

		if (fd < 0)
			return 1;
		send_all(fd, inputs[i], strlen(inputs[i]) + 1);
		reply = read_msg(fd, 5, &eof);
		printf("garbage%zu_error=%s\n", i, error_of(reply, err, sizeof(err)));
		printf("garbage%zu_closed=%d\n", i, closed_within(fd, 5));
		free(reply);
		close(fd);
	}
	return 0;
}

static int mode_huge(void)
{
	size_t len = 1 << 20;
	char *big = malloc(len), err[128], *reply;
	int fd = dial(true);
	size_t off = 0;
	bool eof;

	if (!big || fd < 0)
		return 1;
	memset(big, 'x', len);
	/* Write what the server takes; it stops reading at its limit and replies. */
	for (double end = mono_s() + 2; off < len && mono_s() < end;) {
		ssize_t n = send(fd, big + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0)
			off += (size_t)n;
		else if (n < 0 && errno != EAGAIN)
			break;
		else
			usleep(1000);
	}
	reply = read_msg(fd, 5, &eof);
	printf("huge_sent_bytes=%zu\nhuge_error=%s\nhuge_closed=%d\n", off,
	       error_of(reply, err, sizeof(err)), reply ? closed_within(fd, 5) : eof);
	free(reply);
	free(big);
	close(fd);
	return 0;
}

static int mode_slow(void)
{
	const char *req = "{\"method\":\"io.reclaimd.Status\"}";
	double start = mono_s();
	int fd = dial(false);
	size_t i;

	if (fd < 0)
		return 1;
	for (i = 0; i < strlen(req); i++) {
		if (send(fd, req + i, 1, MSG_NOSIGNAL) != 1)
			break;
		if (closed_within(fd, 0.5))
			break;
	}
	printf("slow_bytes_sent=%zu\nslow_closed_after_s=%.2f\n", i, mono_s() - start);
	close(fd);
	return 0;
}

static int mode_noread(void)
{
	const char *req = "{\"method\":\"io.reclaimd.Cgroups\"}";
	size_t one = strlen(req) + 1, n = 200;
	char *buf = malloc(one * n);
	double start = mono_s();
	int fd = dial(true);
	size_t off = 0;
	bool closed = false;

	/* A flood may fill the listen backlog at the same time (EAGAIN): try again. */
	while (fd == -EAGAIN && mono_s() - start < 5) {
		usleep(10000);
		fd = dial(true);
	}
	if (!buf || fd < 0) {
		printf("noread_error=%s\n", fd < 0 ? strerror(-fd) : "out of memory");
		return 1;
	}
	start = mono_s();
	for (size_t i = 0; i < n; i++)
		memcpy(buf + i * one, req, one);
	/* Send them all (as far as the socket takes them), never read: wait for the server to
	 * give up on us. */
	while (mono_s() - start < 10) {
		struct pollfd p = { .fd = fd, .events = POLLRDHUP };
		if (off < one * n) {
			ssize_t k = send(fd, buf + off, one * n - off, MSG_NOSIGNAL | MSG_DONTWAIT);

			if (k > 0)
				off += (size_t)k;
			else if (k < 0 && errno != EAGAIN) {
				closed = true;
				break;
			}
		}
		if (poll(&p, 1, 50) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR))) {
			closed = true;
			break;
		}
	}
	printf("noread_sent_bytes=%zu\nnoread_closed=%d\nnoread_closed_after_s=%.2f\n", off, closed,
	       mono_s() - start);
	free(buf);
	close(fd);
	return 0;
}

static int mode_flood(int n, double seconds)
{
	int *fds = calloc((size_t)n, sizeof(int));
	int ok = 0, failed = 0, calls = 0, answered = 0, first_err = 0, total;
	double start, worst = 0, sum = 0;

	if (!fds)
		return 1;
	start = mono_s();
	for (int i = 0; i < n; i++) {
		fds[i] = dial(true);
		if (fds[i] >= 0) {
			ok++;
		} else {
			failed++;
			if (!first_err)
				first_err = -fds[i];
		}
	}
	printf("flood_connect_s=%.3f\nflood_connected=%d\nflood_failed=%d\nflood_first_error=%s\n",
	       mono_s() - start, ok, failed, first_err ? strerror(first_err) : "none");
	total = ok;
	while (mono_s() - start < seconds) {
		const char *req = "{\"method\":\"io.reclaimd.Status\"}";
		double t0 = mono_s(), dt;
		int fd = dial(false);
		char *reply = NULL;
		bool eof;

		calls++;
		if (fd >= 0) {
			send_all(fd, req, strlen(req) + 1);
			reply = read_msg(fd, 5, &eof);
			close(fd);
		}
		dt = mono_s() - t0;
		if (reply && !strstr(reply, "\"error\"")) {
			answered++;
			sum += dt;
			worst = dt > worst ? dt : worst;
		}
		free(reply);
		/* Connections the listen backlog refused (EAGAIN) are tried again: the flood
		 * keeps 1000 connections coming while the Status calls go on. */
		for (double until = mono_s() + 0.25; mono_s() < until;) {
			for (int i = 0; i < n; i++)
				if (fds[i] < 0 && (fds[i] = dial(true)) >= 0)
					total++;
			usleep(10000);
		}
	}
	printf("flood_connected_total=%d\nflood_status_calls=%d\nflood_status_answered=%d\n"
	       "flood_status_max_ms=%.1f\nflood_status_mean_ms=%.1f\n", total, calls, answered,
	       worst * 1000,
	       answered ? sum / answered * 1000 : 0);
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	return 0;
}

static int bind_path(int *ret)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	unlink(sock_path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 4) < 0)
		return 1;
	*ret = fd;
	return 0;
}

static int mode_stale(void)
{
	int fd;

	if (bind_path(&fd))
		return 1;
	close(fd); /* the file stays: a stale socket */
	return 0;
}

static int mode_serve_once(const char *reply, bool cut)
{
	int fd, c;
	char *req;
	bool eof;

	if (bind_path(&fd))
		return 1;
	printf("ready\n");
	fflush(stdout);
	c = accept(fd, NULL, NULL);
	if (c < 0)
		return 1;
	req = read_msg(c, 10, &eof);
	send_all(c, reply, strlen(reply) + !cut);
	free(req);
	close(c);
	close(fd);
	unlink(sock_path);
	return 0;
}

static int mode_pipe(int want, int n_msgs, char **msgs)
{
	double t0 = mono_s();
	char *all = NULL, err[128];
	size_t len = 0;
	int fd = dial(false), got = 0;
	bool eof = false;

	if (fd < 0)
		return 1;
	for (int i = 0; i < n_msgs; i++) {
		size_t n = strlen(msgs[i]) + 1;
		char *b = realloc(all, len + n);

		if (!b)
			return 1;
		all = b;
		memcpy(all + len, msgs[i], n);
		len += n;
	}
	send_all(fd, all, len);
	while (got < want && !eof) {
		char *reply = read_msg(fd, 5 - (mono_s() - t0), &eof);

		if (!reply)
			break;
		/* One reply per read_msg(): what else that read got is lost, so N is small. */
		printf("pipe%d_error=%s\n", got++, error_of(reply, err, sizeof(err)));
		free(reply);
	}
	printf("pipe_replies=%d\npipe_ms=%.0f\n", got, (mono_s() - t0) * 1000);
	free(all);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: status_probe SOCKET MODE [ARGS]\n");
		return 1;
	}
	sock_path = argv[1];
	if (strcmp(argv[2], "call") == 0 && argc >= 4)
		return mode_call(argv[3], argc > 4 ? argv[4] : NULL);
	if (strcmp(argv[2], "garbage") == 0)
		return mode_garbage();
	if (strcmp(argv[2], "huge") == 0)
		return mode_huge();
	if (strcmp(argv[2], "slow") == 0)
		return mode_slow();
	if (strcmp(argv[2], "noread") == 0)
		return mode_noread();
	if (strcmp(argv[2], "flood") == 0 && argc == 5)
		return mode_flood(atoi(argv[3]), atof(argv[4]));
	if (strcmp(argv[2], "stale") == 0)
		return mode_stale();
	if (strcmp(argv[2], "serve-once") == 0 && (argc == 4 || argc == 5))
		return mode_serve_once(argv[3], argc == 5 && strcmp(argv[4], "cut") == 0);
	if (strcmp(argv[2], "pipe") == 0 && argc >= 5)
		return mode_pipe(atoi(argv[3]), argc - 4, argv + 4);
	fprintf(stderr, "status_probe: unknown mode %s\n", argv[2]);
	return 1;
}
