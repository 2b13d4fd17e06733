/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * main.c - command line: parse options, load and validate the configuration, run the daemon.
 * Exit codes: 0 success, 1 runtime failure, 2 bad command line or configuration (a file someone
 * other than root could change, a cgroup root that is not a cgroup2 mount, included), 3 the
 * kernel has no PSI (daemon.h, DAEMON_EXIT_NO_PSI), 4 another reclaimd runs on the same state
 * file or status socket (DAEMON_EXIT_RUNNING).
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "reclaimd/features.h"
#include "reclaimd/cgroup.h"
#include "reclaimd/common.h"
#include "reclaimd/daemon.h"
#include "reclaimd/escape.h"
#include "reclaimd/swap.h"
#include "reclaimd/topology.h"
#include "reclaimd/log.h"
#include "reclaimd/reader.h"
#include "reclaimd/version.h"

#define DEFAULT_CONFIG "/etc/reclaimd/reclaimd.json"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: reclaimd [OPTIONS]\n"
		"PSI-driven proactive memory reclaim for cgroup-v2 workloads.\n\n"
		"Options:\n"
		"  -c, --config FILE     configuration (default " DEFAULT_CONFIG "), then the\n"
		"                        drop-ins reclaimd.d/*.json beside it, merged in name order\n"
		"      --check-config    validate the configuration, list the files read, print the\n"
		"                        effective policy of every rule and every error, exit 0\n"
		"                        (valid) or 2 (invalid)\n"
		"      --explain-path PATH  with --check-config: what reclaimd makes of the cgroup\n"
		"                        PATH (pod, container, QoS class, pod UID, runtime, id)\n"
		"                        and which rule matches it and why, instead of the rules\n"
		"  -n, --dry-run         decide and log, write nothing (no memory.reclaim, lru_gen,\n"
		"                        swap, zswap or zram change)\n"
		"      --once            sample, decide one interval later, reclaim, exit\n"
		"      --cgroup-root DIR  cgroup-v2 root (default: found through libcgroup)\n"
		"      --proc-root DIR   procfs root (default /proc; for tests)\n"
		"      --sys-root DIR    sysfs root (default /sys; for tests)\n"
		"      --workers N       reclaim worker threads per NUMA node (overrides\n"
		"                        max_workers_per_node; default min(4, the node's CPUs))\n"
		"      --log-stderr      log plain lines to stderr even under journald\n"
		"      --trust-read-only-mounts  count a directory on a read-only mount as one\n"
		"                        nobody can write (containers: a Kubernetes ConfigMap\n"
		"                        volume's directory is 0777 on a read-only mount)\n"
		"      --allow-unsafe-paths  tests only: read a configuration file that someone\n"
		"                        other than root could change, and take a --cgroup-root\n"
		"                        that is not a cgroup2 mount (a fixture tree)\n"
		"  -h, --help            this text\n"
		"      --version         print the version\n");
}

enum {
	OPT_CHECK_CONFIG = 0x100, OPT_ONCE, OPT_CGROUP_ROOT, OPT_PROC_ROOT, OPT_SYS_ROOT,
	OPT_WORKERS, OPT_LOG_STDERR, OPT_VERSION, OPT_EXPLAIN_PATH, OPT_ALLOW_UNSAFE_PATHS,
	OPT_TRUST_RO_MOUNTS,
};

/* A cgroup path as an operator pastes it: relative to the cgroup root, or absolute under it
 * (the configured root, else /sys/fs/cgroup), spelt the way discovery spells it: no leading or
 * trailing '/', no empty component ("a//b" is "a/b"). A "." or ".." component names no cgroup
 * directly (discovery never sees one): -EINVAL. A result longer than PATH_MAX - 1: -ENAMETOOLONG.
 * Writes into out (PATH_MAX bytes); 0 on success. */
static int relative_cgroup_path(const char *path, const char *root, char *out)
{
	const char *roots[] = { root, "/sys/fs/cgroup" };
	size_t len = 0;

	for (size_t i = 0; i < 2; i++) {
		size_t n = roots[i] ? strlen(roots[i]) : 0;

		while (n > 1 && roots[i][n - 1] == '/')
			n--;
		if (n && strncmp(path, roots[i], n) == 0 && (path[n] == '/' || path[n] == '\0')) {
			path += n;
			break;
		}
	}
	while (*path) {
		size_t n;

		while (*path == '/')
			path++;
		n = strcspn(path, "/");
		if (n == 0)
			break;
		if ((n == 1 && path[0] == '.') || (n == 2 && path[0] == '.' && path[1] == '.'))
			return -EINVAL;
		if (len + (len > 0) + n >= PATH_MAX)
			return -ENAMETOOLONG;
		if (len > 0)
			out[len++] = '/';
		memcpy(out + len, path, n);
		len += n;
		path += n;
	}
	out[len] = '\0';
	return 0;
}

/* A warning for each rule that can never apply because an earlier one takes every cgroup it
 * could match (config_shadow_warning()): on stderr for --check-config, else to the log. */
static void warn_shadowed_rules(const struct config *c, bool check_only)
{
	for (size_t i = 0; i < c->n_rules; i++) {
		_cleanup_(freep) char *text = NULL;

		if (config_shadow_warning(c, i, &text) <= 0)
			continue;
		if (check_only) {
			/* The text quotes the rules' match patterns, which may hold any byte. */
			_cleanup_(freep) char *esc = malloc(ESCAPE_SIZE(strlen(text)));

			if (esc)
				str_escape(esc, ESCAPE_SIZE(strlen(text)), text);
			fprintf(stderr, "reclaimd: warning: %s\n", esc ? esc : "(out of memory)");
		} else
			log_warning("%s", text);
	}
}

/* --check-config: the kernel features of this host (features.h), probed without writing. */
static void print_features(const struct daemon_options *o, const struct config *c)
{
	_cleanup_(freep) char *found = NULL;
	const char *root = o->cgroup_root ? o->cgroup_root : c->cgroup_root;
	struct feature_table t;
	int fd = -1, r = 0;

	if (!root && (r = cgroup_root_find(&found)) == 0)
		root = found;
	if (root)
		fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	features_probe(&(struct features_probe_roots){
			.proc_root = o->proc_root ? o->proc_root : c->proc_root,
			.sys_root = o->sys_root ? o->sys_root : c->sys_root,
			.cgroup_root_fd = fd, .may_write = false }, &t);
	if (fd >= 0)
		close(fd);
	putchar('\n');
	features_print(&t, stdout);
	/* The file is valid either way (it may be checked on a build host); the agent itself would
	 * refuse to start here (setup_roots()), so say so on stderr. */
	if (r == -EMEDIUMTYPE)
		fputs("reclaimd: warning: on this host the memory controller is on a cgroup-v1 "
		      "hierarchy: the agent would not start here (it needs cgroup v2: boot with "
		      "systemd.unified_cgroup_hierarchy=1)\n", stderr);
	else if (r < 0)
		fputs("reclaimd: warning: no cgroup-v2 hierarchy with the memory controller found on "
		      "this host: the agent would not start here without --cgroup-root\n", stderr);
}

/* --check-config's swap check: each configured entry through swap_entries_resolve() against
 * <proc_root>/swaps (all taken as inactive when it cannot be read); an entry the agent would
 * skip is printed as an error naming it. Returns 0, or -EINVAL after printing, -ENOMEM. */
static int check_swap_entries(const struct config *config, const char *proc_root)
{
	const struct swap_section *cfg = &config->swap;
	struct swap_entry *ent;
	struct swap_entry_io *io;
	struct swaps *sw;
	char *buf, path[PATH_MAX];
	size_t len;
	int r = 0;

	if (cfg->n_devices == 0)
		return 0;
	ent = calloc(cfg->n_devices, sizeof(*ent));
	io = calloc(cfg->n_devices, sizeof(*io));
	sw = calloc(1, sizeof(*sw));
	buf = malloc(256 * 1024);
	if (!ent || !io || !sw || !buf) {
		r = -ENOMEM;
		goto out;
	}
	snprintf(path, sizeof(path), "%s/swaps", proc_root);
	if (read_at(AT_FDCWD, path, buf, 256 * 1024, &len) < 0 || swaps_parse(buf, len, sw) < 0)
		sw->n = 0;
	swap_entries_resolve(cfg->devices, cfg->n_devices, sw, ent, io);
	for (size_t i = 0; i < cfg->n_devices && r == 0; i++) {
		char why[PATH_MAX + 64];

		if (ent[i].verdict == SWAP_ENTRY_KEEP)
			continue;
		swap_entry_reason(cfg->devices, ent, io, i, why, sizeof(why));
		fprintf(stderr, "reclaimd: %s: swap.devices[%zu].path: %s\n",
			config->path ? config->path : "(config)", i, why);
		r = -EINVAL;
	}
out:
	free(ent);
	free(io);
	free(sw);
	free(buf);
	return r;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, OPT_CHECK_CONFIG },
		{ "explain-path", required_argument, NULL, OPT_EXPLAIN_PATH },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "cgroup-root", required_argument, NULL, OPT_CGROUP_ROOT },
		{ "proc-root", required_argument, NULL, OPT_PROC_ROOT },
		{ "sys-root", required_argument, NULL, OPT_SYS_ROOT },
		{ "workers", required_argument, NULL, OPT_WORKERS },
		{ "log-stderr", no_argument, NULL, OPT_LOG_STDERR },
		{ "allow-unsafe-paths", no_argument, NULL, OPT_ALLOW_UNSAFE_PATHS },
		{ "trust-read-only-mounts", no_argument, NULL, OPT_TRUST_RO_MOUNTS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ 0 },
	};
	struct daemon_options o = { .config_path = DEFAULT_CONFIG };
	struct config_error err = { 0 };
	struct config *config = NULL;
	bool check_only = false;
	const char *explain_path = NULL;
	char *end;
	unsigned long n;
	int c, r;

	while ((c = getopt_long(argc, argv, "c:nh", options, NULL)) >= 0) {
		switch (c) {
		case 'c':
			o.config_path = optarg;
			break;
		case OPT_CHECK_CONFIG:
			check_only = true;
			break;
		case OPT_EXPLAIN_PATH:
			explain_path = optarg;
			break;
		case 'n':
			o.dry_run = true;
			break;
		case OPT_ONCE:
			o.once = true;
			break;
		case OPT_CGROUP_ROOT:
			o.cgroup_root = optarg;
			break;
		case OPT_PROC_ROOT:
			o.proc_root = optarg;
			break;
		case OPT_SYS_ROOT:
			o.sys_root = optarg;
			break;
		case OPT_WORKERS:
			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (errno || *end || n == 0 || n > 256) {
				fprintf(stderr, "reclaimd: --workers: '%s' is not a number in 1..256\n", optarg);
				return 2;
			}
			o.workers = (unsigned)n;
			break;
		case OPT_LOG_STDERR:
			log_use_stderr(true);
			break;
		case OPT_ALLOW_UNSAFE_PATHS:
			o.allow_unsafe_paths = true;
			break;
		case OPT_TRUST_RO_MOUNTS:
			o.trust_read_only_mounts = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case OPT_VERSION:
			printf("reclaimd " RECLAIMD_VERSION "\n");
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (explain_path && !check_only) {
		fprintf(stderr, "reclaimd: --explain-path goes with --check-config\n");
		return 2;
	}
	if (optind < argc) {
		fprintf(stderr, "reclaimd: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}

	r = config_load_file(o.config_path, daemon_config_flags(&o), &config, &err);
	if (r < 0) {
		/* One line naming file, position or key (--check-config: one per error, up to
		 * CONFIG_ERRORS_MAX); nothing has been touched yet. */
		/* On the terminal always (the operator is looking there), and to the journal. */
		if (check_only && err.n_errors > 1)
			for (unsigned i = 0; i < err.n_errors; i++)
				fprintf(stderr, "reclaimd: %s\n", err.all[i]);
		else
			fprintf(stderr, "reclaimd: %s\n", err.text);
		if (!check_only && log_to_journal())
			log_event(LOG_ERR, MSGID_CONFIG_REJECTED, NULL, "%s", err.text);
		return 2;
	}
	warn_shadowed_rules(config, check_only);
	if (check_only) {
		struct numa_topology *topo = malloc(sizeof(*topo));

		/* What depends on this host (CPUs per node) is checked here too. */
		if (topo && topology_read(topo) == 0 && config_check_topology(config, topo, &err) < 0) {
			fprintf(stderr, "reclaimd: %s\n", err.text);
			free(topo);
			config_free(config);
			return 2;
		}
		free(topo);
		/* The swap entries, by the rule the agent applies (swap_entries_verdict()): one
		 * that the agent would skip is an error here, with the same reason. */
		if (check_swap_entries(config, o.proc_root ? o.proc_root : config->proc_root) < 0) {
			config_free(config);
			return 2;
		}
		if (explain_path) {
			static char rel[PATH_MAX];

			r = relative_cgroup_path(explain_path, o.cgroup_root ? o.cgroup_root
					: config->cgroup_root, rel);
			if (r < 0) {
				fprintf(stderr, "reclaimd: --explain-path: %s\n", r == -EINVAL ?
					"a \".\" or \"..\" component names no cgroup (give the path "
					"as the cgroup tree spells it)" : "the path is too long");
				config_free(config);
				return 2;
			}
			config_explain(config, rel, stdout);
			config_free(config);
			return 0;
		}
		config_print(config, stdout);
		print_features(&o, config);
		/* The command line wins over the file: say so, or the print above misleads. */
		if (o.cgroup_root || o.proc_root || o.sys_root || o.workers || o.dry_run) {
			fputs("\ncommand-line overrides (they replace the values above):\n", stdout);
			if (o.cgroup_root)
				printf("  cgroup_root              %s (--cgroup-root)\n", o.cgroup_root);
			if (o.proc_root)
				printf("  proc_root                %s (--proc-root)\n", o.proc_root);
			if (o.sys_root)
				printf("  sys_root                 %s (--sys-root)\n", o.sys_root);
			if (o.workers)
				printf("  max_workers_per_node     %u (--workers)\n", o.workers);
			if (o.dry_run)
				puts("  dry run: nothing is written (--dry-run)");
		}
		config_free(config);
		return 0;
	}
	return daemon_run(&o, config);
}
