/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config.c - the JSON configuration: loading (jansson), the top level, freeing and printing.
 *
 * Every key is declared once, in the descriptor table of its section (the top level here; the
 * policy parameters, a rule, "swap", a swap device, "zswap", "metrics" and "status" in files of
 * their own, config_internal.h lists them): its name, its value type (the JSON types it takes,
 * how it is parsed, defaulted and shown), where it is stored (offsetof), its range and its
 * built-in default. One walker, cfg_parse_object() (walker.c), reads a JSON object against a
 * section: unknown keys get a hint or a "did you mean" from the same tables, values are type-
 * and range-checked, required keys are enforced. cfg_section_init() gives every key its default
 * (what "{}" loads, and policy_params_default()), and cfg_section_print() is config_print().
 *
 * A load decodes the whole document first (duplicate keys rejected, syntax errors carry line and
 * column from jansson), then builds a fresh struct config from it: the table defaults, then the
 * top-level keys in file order, then "defaults" overlaid on the built-in defaults, then each rule
 * overlaid on "defaults". Any unknown key, wrong type or out-of-range value stops the load with
 * -EINVAL and one line naming the file and the JSON path ("rules[1].probe_max"); the half-built
 * struct is freed, the caller's pointer is untouched. Nothing here logs.
 *
 * A file is opened through trusted_open() (trust.h): one that someone other than root could
 * change, or that sits where they could replace it, is refused with -EPERM before it is read,
 * unless the caller passes CONFIG_LOAD_UNSAFE_PATH (tests).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include "config/config_internal.h"
#include "reclaimd/topology.h"
#include "reclaimd/trust.h"

/* A configuration is a few KiB; anything past this is not one (and /dev/zero never ends). */
#define CONFIG_FILE_MAX_BYTES (1024 * 1024)

/* ---- top-level value types ------------------------------------------------------------------ */

/* log_level: a syslog level name (int). */
static const struct {
	const char *name;
	int level;
} log_levels[] = {
	{ "err", CFG_LOG_ERR },   { "warning", CFG_LOG_WARNING }, { "notice", CFG_LOG_NOTICE },
	{ "info", CFG_LOG_INFO }, { "debug", CFG_LOG_DEBUG },
};

static int parse_log_level(struct loader *l, const char *where, const struct key_desc *d,
			   const json_t *v, void *base)
{
	static const char valid[] = "err, warning, notice, info, debug";
	char vbuf[72], mean[96];

	for (size_t i = 0; i < ARRAY_SIZE(log_levels); i++)
		if (strcmp(json_string_value(v), log_levels[i].name) == 0) {
			*(int *)field_of(base, d) = log_levels[i].level;
			return 0;
		}
	return cfg_fail(l, where, "unknown level \"%s\"%s (valid: %s)",
			cfg_printable(json_string_value(v), vbuf),
			cfg_did_you_mean(json_string_value(v), valid, mean), valid);
}

static void print_log_level(FILE *out, const char *label, const struct key_desc *d,
			    const void *base)
{
	int level = *(const int *)cfield_of(base, d);
	const char *name = "?";

	for (size_t i = 0; i < ARRAY_SIZE(log_levels); i++)
		if (log_levels[i].level == level)
			name = log_levels[i].name;
	print_label(out, label);
	fprintf(out, "%s\n", name);
}

static const struct value_type t_log_level = {
	JT(JSON_STRING), "a string", AS_INT, parse_log_level, NULL, print_log_level,
};

/* headroom: "2%" (of each node's memory), a size (64M, bytes), or false (policy off). It sets
 * three fields of struct config; the default is a percentage (def.d). */
static int parse_headroom(struct loader *l, const char *where, const struct key_desc *d,
			  const json_t *v, void *base)
{
	struct config *c = base;
	char vbuf[72];
	double pct;

	if (json_is_false(v)) {
		c->headroom_enabled = false;
		return 0;
	}
	if (cfg_is_percent_string(v)) {
		/* 0 would keep no headroom, and the planner would refuse the goal: say so here. */
		if (!cfg_percent_parse(json_string_value(v), &pct) || !(pct > 0) || pct > 50)
			return cfg_fail(l, where, "\"%s\" is not a percentage above 0%% and at most 50%% "
					"(like \"2%%\"; false turns the policy off)",
					cfg_printable(json_string_value(v), vbuf));
		c->headroom_enabled = true;
		c->headroom_pct = pct;
		c->headroom_bytes = 0;
		return 0;
	}
	c->headroom_enabled = true;
	c->headroom_pct = 0;
	if (cfg_parse_size_value(l, where, d, v, &c->headroom_bytes) < 0)
		return -EINVAL;
	if (c->headroom_bytes == 0)
		return cfg_fail(l, where, "0 keeps no headroom: give a size above 0 (like \"64M\"), "
				"or false to turn the policy off");
	return 0;
}

static int init_headroom(const struct key_desc *d, void *base)
{
	struct config *c = base;

	c->headroom_enabled = true;
	c->headroom_pct = d->def.d;
	c->headroom_bytes = 0;
	return 0;
}

static void print_headroom(FILE *out, const char *label, const struct key_desc *d,
			   const void *base)
{
	const struct config *c = base;

	(void)d;
	print_label(out, label);
	if (!c->headroom_enabled)
		fputs("false (policy off)\n", out);
	else if (c->headroom_bytes)
		cfg_print_size(out, c->headroom_bytes), fputs(" above each node's high watermark\n", out);
	else
		fprintf(out, "%g%% of each node's memory above its high watermark\n", c->headroom_pct);
}

static const struct value_type t_headroom = {
	JT(JSON_FALSE) | JT_SIZE, "a percentage like \"2%\", a size like \"64M\", or false",
	AS_NONE, parse_headroom, init_headroom, print_headroom,
};

/* ---- the table ----------------------------------------------------------------------------- */

/* The top level (struct config). "defaults" is parsed after the other keys and before "rules",
 * wherever they are in the file. */
#define CFG(f) offsetof(struct config, f)
static const struct key_desc top_keys[] = {
	{ "interval", &cfg_t_seconds, CFG(interval_us), .def.u = 6 * USEC_PER_SEC,
	  .min = 0.5, .max = 3600, .range = "0.5..3600 seconds", .unit = " s" },
	{ "log_level", &t_log_level, CFG(log_level), .def.i = CFG_LOG_INFO },
	{ "cgroup_root", &cfg_t_path_or_null, CFG(cgroup_root), .def.s = NULL,
	  .unset = "(auto: the cgroup-v2 mount, through libcgroup)" },
	{ "proc_root", &cfg_t_path, CFG(proc_root), .def.s = "/proc" },
	{ "sys_root", &cfg_t_path, CFG(sys_root), .def.s = "/sys" },
	{ "state_file", &cfg_t_path_or_null, CFG(state_file), .def.s = "/run/reclaimd/state.json",
	  .unset = "null (no state file)" },
	{ "mglru_aging", &cfg_t_bool, CFG(mglru_aging), .def.b = true },
	{ "max_workers_per_node", &cfg_t_unsigned, CFG(max_workers_per_node), .def.u = 0,
	  .umin = 1, .umax = CONFIG_MAX_WORKERS_PER_NODE,
	  .range = "1.." STR(CONFIG_MAX_WORKERS_PER_NODE) "; it must also not exceed a node's CPU count",
	  .unset = "(auto: min(4, the node's CPUs))" },
	{ "max_reclaim_rate_per_node", &cfg_t_size, CFG(max_reclaim_rate_per_node), .def.u = 0,
	  .umax = (uint64_t)1 << 50, .range = "0 (no limit) ..2^50 bytes per second",
	  .unset = "unlimited", .unit = "/s" },
	{ "headroom", &t_headroom, CFG(headroom_enabled), .def.d = 2.0,
	  .umax = (uint64_t)1 << 50, .range = "0..2^50 bytes" },
	{ "headroom_fallback", &cfg_t_bool, CFG(headroom_fallback), .def.b = true },
	{ "swap", &cfg_t_section, CFG(swap), .sub = &cfg_sec_swap },
	{ "zswap", &cfg_t_section, CFG(zswap), .sub = &cfg_sec_zswap },
	{ "metrics", &cfg_t_section, CFG(metrics), .sub = &cfg_sec_metrics },
	{ "status", &cfg_t_section, CFG(status), .sub = &cfg_sec_status },
	{ "defaults", &cfg_t_defaults, CFG(defaults), .sub = &cfg_sec_params, .late = true },
	{ "rules", &cfg_t_rules, CFG(rules), .late = true },
};

const struct section cfg_sec_top = {
	.expected = "an object", .prefix = "",
	.keys = top_keys, .n_keys = ARRAY_SIZE(top_keys), .hints = cfg_hints_not_params,
};

static int config_build(struct loader *l, const json_t *root, const char *path, struct config **ret)
{
	_cleanup_(config_freep) struct config *c = NULL;
	int r;

	if (!json_is_object(root))
		return cfg_fail(l, NULL, "the top level must be an object, not %s", cfg_type_str(root));
	c = calloc(1, sizeof(*c));
	if (!c)
		return cfg_fail_oom(l);
	c->path = path ? strdup(path) : NULL;
	if ((path && !c->path) || cfg_section_init(&cfg_sec_top, c) < 0)
		return cfg_fail_oom(l);
	r = cfg_parse_object(l, NULL, &cfg_sec_top, root, c);
	if (r < 0)
		return r;
	*ret = c;
	c = NULL;
	return 0;
}

/* ---- entry points -------------------------------------------------------------------------- */

/* What jansson found wrong at its line and column, in words that quote nothing of the file.
 * jansson's text is "<what was wrong or expected> near '<token>'", with the token copied from
 * the file, or "... near end of file"; the token is left out. A few of its messages quote the
 * file in their first part too ("invalid Unicode escape '\\uZZZZ'", "control character 0x1b"):
 * those get words of their own. Returns buf. */
static const char *syntax_error_text(const json_error_t *jerr, char *buf, size_t size)
{
	static const char *const own[][2] = {
		{ "invalid Unicode", "invalid \\u escape in a string (expected \\u and 4 hex digits of a "
				     "valid code point)" },
		{ "control character", "a control character in a string (expected it escaped, like "
				       "\\n or \\u001b)" },
		{ "unable to decode byte", "not UTF-8 (expected the file in UTF-8)" },
		{ "invalid token", "invalid token (expected a string, a number, true, false, null, an "
				   "object or an array)" },
		{ "unexpected token", "unexpected token (expected a string, a number, true, false, "
				      "null, an object or an array)" },
	};
	const char *near = strstr(jerr->text, " near ");
	size_t n = near ? (size_t)(near - jerr->text) : strlen(jerr->text);

	for (size_t i = 0; i < ARRAY_SIZE(own); i++)
		if (strncmp(jerr->text, own[i][0], strlen(own[i][0])) == 0) {
			snprintf(buf, size, "%s", own[i][1]);
			return buf;
		}
	if (near && strcmp(near, " near end of file") == 0)
		n = strlen(jerr->text);
	snprintf(buf, size, "%.*s", (int)n, jerr->text);
	return buf;
}

/* Decodes buf[0..len) as the document of `name` (duplicate keys refused); 0, or -EINVAL with
 * "NAME:LINE:COLUMN: what" in err. */
int cfg_decode(const char *buf, size_t len, const char *name, json_t **ret,
	       struct config_error *err)
{
	char what[JSON_ERROR_TEXT_LENGTH + 128];
	json_error_t jerr;
	json_t *root;

	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		syntax_error_text(&jerr, what, sizeof(what));
		if (jerr.line > 0) {
			err->line = jerr.line;
			err->column = jerr.column;
			snprintf(err->text, sizeof(err->text), "%s:%d:%d: %s", name, jerr.line,
				 jerr.column, what);
		} else {
			snprintf(err->text, sizeof(err->text), "%s: %s", name, what);
		}
		return -EINVAL;
	}
	*ret = root;
	return 0;
}

int cfg_build(const json_t *root, const char *name, const char *path, const char *text,
	      size_t text_len, struct config **ret, struct config_error *err)
{
	struct loader l = { .name = name, .err = err, .text = text, .text_len = text_len };
	int r = config_build(&l, root, path, ret);

	if (r == -EINVAL)
		cfg_errors_finish(err);
	return r;
}

static int load_buffer(const char *buf, size_t len, const char *path, struct config **ret,
		       struct config_error *err)
{
	struct config_error local = { .n_errors = 0 };
	const char *name = path ? path : "<string>";
	json_t *root;
	int r;

	if (!err)
		err = &local;
	r = cfg_decode(buf, len, name, &root, err);
	if (r < 0)
		return r;
	r = cfg_build(root, name, path, buf, len, ret, err);
	json_decref(root);
	return r;
}

static void error_reset(struct config_error *err)
{
	if (err)
		*err = (struct config_error){ .text = "" };
}

/* One line into err->text (a path near PATH_MAX is cut at its end). */
_printf_(2, 3) static void error_set(struct config_error *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err->text, sizeof(err->text), fmt, ap);
	va_end(ap);
}

int config_load_string(const char *json, struct config **ret, struct config_error *err)
{
	error_reset(err);
	if (!json || !ret)
		return -EINVAL;
	return load_buffer(json, strlen(json), NULL, ret, err);
}

int config_load_buffer(const char *buf, size_t len, struct config **ret, struct config_error *err)
{
	error_reset(err);
	if ((!buf && len > 0) || !ret)
		return -EINVAL;
	return load_buffer(buf ? buf : "", len, NULL, ret, err);
}

/* The whole file, in one buffer; -errno when it cannot be read, -EFBIG past the limit. */
static int read_fd(int fd, char **ret_buf, size_t *ret_len)
{
	_cleanup_(freep) char *buf = NULL;
	size_t len = 0, size = 0;

	for (;;) {
		ssize_t n;

		if (len == size) {
			char *bigger;

			if (size > CONFIG_FILE_MAX_BYTES)
				return -EFBIG;
			size = size ? size * 2 : 4096;
			bigger = realloc(buf, size);
			if (!bigger)
				return -ENOMEM;
			buf = bigger;
		}
		n = read(fd, buf + len, size - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > CONFIG_FILE_MAX_BYTES)
		return -EFBIG;
	*ret_buf = buf;
	*ret_len = len;
	buf = NULL;
	return 0;
}

/* A regular file, opened without any check of who can change it. */
static int open_unchecked(const char *path)
{
	struct stat st;
	int fd;

	/* O_NONBLOCK: a FIFO put in place of the file must not block the main loop in open(). */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EBADFD;
	}
	return fd;
}

int cfg_read_file(const char *path, unsigned flags, char **ret_buf, size_t *ret_len,
		  struct config_error *err)
{
	_cleanup_(closep) int fd = -1;
	struct trust_refusal *why = NULL;
	int r;

	if (flags & CONFIG_LOAD_UNSAFE_PATH) {
		fd = open_unchecked(path);
	} else {
		why = malloc(sizeof(*why)); /* PATH_MAX and more: not on the loop's stack */
		if (!why)
			return -ENOMEM;
		fd = trusted_open(path, flags & CONFIG_LOAD_TRUST_RO_MOUNTS ? TRUST_READ_ONLY_MOUNTS : 0,
				  why);
		if (fd == -EPERM)
			error_set(err, "%s: refused: %s %s (owner uid %u, mode %04o); only root may be "
				  "able to change the configuration file and the directories on its path",
				  path, why->path, trust_verdict_to_string(why->why), why->uid,
				  why->mode & 07777);
		free(why);
		if (fd == -EPERM)
			return -EPERM;
	}
	r = fd < 0 ? fd : read_fd(fd, ret_buf, ret_len);
	if (r < 0) {
		error_set(err, "%s: cannot read: %s", path,
			  r == -EBADFD ? "not a regular file" : strerror(-r));
		return r == -EBADFD ? -EINVAL : r;
	}
	return 0;
}

int config_load_file(const char *path, unsigned flags, struct config **ret,
		     struct config_error *err)
{
	struct config_error local = { .n_errors = 0 };

	error_reset(err);
	if (!path || !ret)
		return -EINVAL;
	return cfg_load_with_dropins(path, flags, ret, err ? err : &local);
}

void config_free(struct config *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->swap.n_devices; i++)
		free(c->swap.devices[i].path);
	free(c->swap.devices);
	for (size_t i = 0; i < c->n_rules; i++)
		free(c->rules[i].match);
	free(c->rules);
	free(c->path);
	free(c->cgroup_root);
	free(c->proc_root);
	free(c->sys_root);
	free(c->state_file);
	free(c->metrics.textfile);
	free(c->metrics.listen);
	free(c->status.socket);
	free(c->status.read_group);
	for (size_t i = 0; i < c->n_files; i++)
		free(c->files[i]);
	free(c->files);
	free(c);
}

/* ---- printing ------------------------------------------------------------------------------ */

void config_print(const struct config *c, FILE *out)
{
	fprintf(out, "# effective configuration%s%s\n", c->path ? " of " : "", c->path ? c->path : "");
	for (size_t i = 0; i < c->n_files; i++)
		fprintf(out, "# read %zu: %s\n", i + 1, c->files[i]);
	cfg_section_print(out, &cfg_sec_top, c);
}

int config_check_topology(const struct config *c, const struct numa_topology *t,
			  struct config_error *err)
{
	if (!c->max_workers_per_node)
		return 0;
	for (unsigned i = 0; i < t->n_nodes; i++) {
		const struct numa_node_info *n = &t->node[i];

		if (!n->present || n->n_cpus == 0 || c->max_workers_per_node <= n->n_cpus)
			continue;
		snprintf(err->text, sizeof(err->text),
			 "%s: max_workers_per_node: %u is more than node %d's %u CPUs (workers are "
			 "pinned to their node's CPUs; remove the key for min(4, CPUs) per node)",
			 c->path ? c->path : "(config)", c->max_workers_per_node, n->id, n->n_cpus);
		err->line = err->column = 0;
		return -EINVAL;
	}
	return 0;
}
