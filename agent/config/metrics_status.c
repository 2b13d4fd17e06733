/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics_status.c - the "metrics" (struct metrics_section) and "status" (struct status_section)
 * sections: their tables and value types, and metrics_parse_listen() (config.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "config/config_internal.h"

/* ---- "metrics" ----------------------------------------------------------------------------- */

/* textfile: an absolute path ending in ".prom" (node_exporter's textfile collector reads only
 * those), or null. Its directory is not checked here: it may appear later (warned at runtime). */
static int parse_textfile(struct loader *l, const char *where, const struct key_desc *d,
			  const json_t *v, void *base)
{
	const char *s = json_string_value(v);
	size_t n = s ? strlen(s) : 0;
	char vbuf[72];

	if (s && (n < 6 || strcmp(s + n - 5, ".prom") != 0 || s[n - 6] == '/'))
		return cfg_fail(l, where, "\"%s\" must name a file ending in \".prom\" (what "
				"node_exporter's textfile collector reads)", cfg_printable(s, vbuf));
	return cfg_parse_path(l, where, d, v, base);
}

static const struct value_type t_textfile = {
	JT(JSON_STRING) | JT(JSON_NULL), "an absolute path ending in \".prom\", or null", AS_NONE,
	parse_textfile, cfg_init_path, cfg_print_path,
};

int metrics_parse_listen(const char *s, struct sockaddr_storage *ret_addr, socklen_t *ret_len)
{
	struct sockaddr_storage ss = { 0 };
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon, *port_s;
	unsigned long port;
	size_t hlen;
	char *end;

	if (!s || !(colon = strrchr(s, ':')))
		return -EINVAL;
	port_s = colon + 1;
	hlen = (size_t)(colon - s);
	if (hlen == 0 || hlen >= sizeof(host) || !*port_s || *port_s < '0' || *port_s > '9')
		return -EINVAL;
	errno = 0;
	port = strtoul(port_s, &end, 10);
	if (errno || *end || port == 0 || port > 65535)
		return -EINVAL;
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	if (host[0] == '[') {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;

		if (hlen < 3 || host[hlen - 1] != ']')
			return -EINVAL;
		host[hlen - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &a6->sin6_addr) != 1)
			return -EINVAL;
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		*ret_len = sizeof(*a6);
	} else {
		struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;

		if (inet_pton(AF_INET, host, &a4->sin_addr) != 1)
			return -EINVAL;
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		*ret_len = sizeof(*a4);
	}
	*ret_addr = ss;
	return 0;
}

/* listen: "ADDR:PORT" (numeric IPv4, or [IPv6]), or null. */
static int parse_listen(struct loader *l, const char *where, const struct key_desc *d,
			const json_t *v, void *base)
{
	char **listen = field_of(base, d), *copy = NULL, vbuf[72];
	const char *s = json_string_value(v);
	struct sockaddr_storage ss;
	socklen_t len;

	(void)d;
	if (s && metrics_parse_listen(s, &ss, &len) < 0)
		return cfg_fail(l, where, "\"%s\" is not an address to listen on: expected "
				"\"IPV4:PORT\" or \"[IPV6]:PORT\" with a numeric address and a port "
				"1..65535, like \"127.0.0.1:9465\"", cfg_printable(s, vbuf));
	if (s && !(copy = strdup(s)))
		return cfg_fail_oom(l);
	free(*listen);
	*listen = copy;
	return 0;
}

static const struct value_type t_listen = {
	JT(JSON_STRING) | JT(JSON_NULL), "a string \"ADDR:PORT\", or null", AS_NONE, parse_listen,
	cfg_init_path, cfg_print_path,
};

/* ---- status ----------------------------------------------------------------------------- */

/* status.socket: an absolute path that fits sockaddr_un's sun_path, or null (no socket). */
static int parse_socket_path(struct loader *l, const char *where, const struct key_desc *d,
			     const json_t *v, void *base)
{
	const char *s = json_string_value(v);

	if (s && strlen(s) >= sizeof(((struct sockaddr_un *)NULL)->sun_path))
		return cfg_fail(l, where, "longer than a socket path may be (%zu bytes)",
				sizeof(((struct sockaddr_un *)NULL)->sun_path) - 1);
	return cfg_parse_path(l, where, d, v, base);
}

static const struct value_type t_socket_path = {
	JT(JSON_STRING) | JT(JSON_NULL), "an absolute path or null", AS_NONE, parse_socket_path,
	cfg_init_path, cfg_print_path,
};

/* status.read_group: the name of a group that exists on this host (its gid is kept next to the
 * name, in read_gid), or null. */
static int parse_group(struct loader *l, const char *where, const struct key_desc *d,
		       const json_t *v, void *base)
{
	struct status_section *st = base;
	char **name = field_of(base, d), *copy = NULL, vbuf[72], buf[4096];
	const char *s = json_string_value(v);
	struct group gr, *found = NULL;

	if (s) {
		int r = getgrnam_r(s, &gr, buf, sizeof(buf), &found);

		if (r != 0 || !found)
			return cfg_fail(l, where, "group \"%s\" %s", cfg_printable(s, vbuf),
					r && r != ENOENT ? strerror(r) : "does not exist on this host");
		if (!(copy = strdup(s)))
			return cfg_fail_oom(l);
		st->read_gid = (unsigned)found->gr_gid;
	}
	free(*name);
	*name = copy;
	return 0;
}

static void print_group(FILE *out, const char *label, const struct key_desc *d, const void *base)
{
	const struct status_section *st = base;
	const char *name = *(char *const *)cfield_of(base, d);

	print_label(out, label);
	if (name)
		fprintf(out, "%s (gid %u)\n", name, st->read_gid);
	else
		fprintf(out, "%s\n", d->unset);
}

static const struct value_type t_group = {
	JT(JSON_STRING) | JT(JSON_NULL), "a group name or null", AS_NONE, parse_group, cfg_init_path,
	print_group,
};

/* ---- the tables ---------------------------------------------------------------------------- */

/* "metrics" (struct metrics_section). */
#define MT(f) offsetof(struct metrics_section, f)
static const struct key_desc metrics_keys[] = {
	{ "textfile", &t_textfile, MT(textfile), .def.s = NULL,
	  .unset = "none (no textfile written)" },
	{ "listen", &t_listen, MT(listen), .def.s = NULL, .unset = "none (no HTTP server)" },
	{ "per_cgroup", &cfg_t_bool, MT(per_cgroup), .def.b = false },
	{ "max_cgroup_series", &cfg_t_unsigned, MT(max_cgroup_series), .def.u = 100,
	  .umin = 1, .umax = 100000, .range = "1..100000" },
	{ "per_pod", &cfg_t_bool, MT(per_pod), .def.b = false },
	{ "max_pod_series", &cfg_t_unsigned, MT(max_pod_series), .def.u = 100,
	  .umin = 1, .umax = 100000, .range = "1..100000" },
};

const struct section cfg_sec_metrics = {
	.expected = "an object", .prefix = "metrics.",
	.keys = metrics_keys, .n_keys = ARRAY_SIZE(metrics_keys), .hints = cfg_hints_not_params,
};

/* "status" (struct status_section). */
#define ST(f) offsetof(struct status_section, f)
static const struct key_desc status_keys[] = {
	{ "socket", &t_socket_path, ST(socket), .def.s = "/run/reclaimd/reclaimd.sock",
	  .unset = "null (no status socket)" },
	{ "read_group", &t_group, ST(read_group), .def.s = NULL,
	  .unset = "null (root only)" },
};

const struct section cfg_sec_status = {
	.expected = "an object", .prefix = "status.",
	.keys = status_keys, .n_keys = ARRAY_SIZE(status_keys), .hints = cfg_hints_not_params,
};

