/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rules.c - "rules" and their selectors: a rule's keys (match, policy, qos, level, runtime,
 * kubelet_managed_write), the checks of a rule, its printing, and the lookup of the rule that
 * matches a cgroup (config_match(), config_match_workload(), config_explain()).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"
#include "reclaimd/escape.h"
#include "reclaimd/policy.h"

/* A rule with "qos" or at the pod level matches kubelet-managed cgroups only (pods exist under
 * kubepods alone): zswap_max or zswap_writeback there would never be written unless the rule says
 * "kubelet_managed_write": true, so the rule is refused rather than silently half-applied.
 * A container-level rule without "qos" can also match Docker or Podman containers outside
 * Kubernetes: it is checked per cgroup at run time (rule_cgroup_write_allowed()). */
static int check_kubelet_writes(struct loader *l, const char *where, const struct rule *r)
{
	const struct policy_params *p = &r->params;
	const char *key, *sel = r->qos_mask ? "\"qos\"" : "\"level\": \"pod\"";
	char value[48], sub[64], pct[32];

	if (r->kubelet_managed_write || !(r->qos_mask || rule_level(r) == RULE_LEVEL_POD) ||
	    !rule_writes_cgroup_files(r))
		return 0;
	if (p->zswap_max.kind != ZSWAP_LIMIT_UNSET) {
		key = "zswap_max";
		if (p->zswap_max.kind == ZSWAP_LIMIT_PERCENT)
			snprintf(value, sizeof(value), "\"%s%%\"", cfg_double_text(p->zswap_max.pct, pct));
		else
			snprintf(value, sizeof(value), "%" PRIu64, p->zswap_max.bytes);
	} else {
		key = "zswap_writeback";
		snprintf(value, sizeof(value), "%s", p->zswap_writeback ? "true" : "false");
	}
	snprintf(sub, sizeof(sub), "%s.%s", where, key);
	return cfg_fail(l, sub, "%s (with \"defaults\" applied) would be written to kubelet-managed "
			"cgroups only (this rule's %s selects %s of kubepods), where the kubelet owns "
			"the memory control files; set \"kubelet_managed_write\": true in this rule to "
			"write it anyway, or \"%s\": null", value, sel,
			rule_level(r) == RULE_LEVEL_CONTAINER ? "containers in pods" : "pods", key);
}

static int check_rule(struct loader *l, const char *where, const void *base)
{
	const struct rule *r = base;
	int r2;

	/* A pod cgroup's path does not name its runtime: only containers can be selected by it. */
	if (r->runtime_mask && r->level != RULE_LEVEL_CONTAINER)
		return cfg_fail(l, where, "\"runtime\" selects containers: it needs \"level\": "
				"\"container\" (a pod's cgroup path does not name its runtime)");
	r2 = check_kubelet_writes(l, where, r);
	if (r2 < 0)
		return r2;
	return cfg_check_params(l, where, &r->params, true);
}

static int parse_match(struct loader *l, const char *where, const struct key_desc *d,
		       const json_t *v, void *base)
{
	char **match = field_of(base, d);
	const char *s = json_string_value(v);

	size_t start, len;

	switch (glob_pattern_check(s, &start, &len)) {
	case GLOB_PATTERN_ABSOLUTE:
		return cfg_fail(l, where, "must be relative to the cgroup root, without a leading '/'");
	case GLOB_PATTERN_EMPTY_COMPONENT:
		return cfg_fail(l, where, "has an empty path component (a trailing '/' or \"//\")");
	case GLOB_PATTERN_DOT_COMPONENT:
		return cfg_fail(l, where, "the component \"%.*s\" (at offset %zu) is not allowed: cgroup "
				"paths have no \".\" or \"..\" components", (int)len, s + start, start);
	case GLOB_PATTERN_OK:
		break;
	}
	if (strlen(s) >= PATH_MAX)
		return cfg_fail(l, where, "longer than PATH_MAX");
	*match = strdup(s);
	return *match ? 0 : cfg_fail_oom(l);
}

static const struct value_type t_match = {
	JT(JSON_STRING), "a string (a glob on the cgroup path)", AS_NONE, parse_match, NULL, NULL,
};

static int parse_policy(struct loader *l, const char *where, const struct key_desc *d,
			const json_t *v, void *base)
{
	const struct policy_desc *pd = policy_find(json_string_value(v));
	char valid[128] = "", vbuf[72], mean[96];
	size_t n = 0;

	if (pd) {
		*(const struct policy_desc **)field_of(base, d) = pd;
		return 0;
	}
	for (const char *const *name = policy_names(); *name && n < sizeof(valid); name++)
		n += (size_t)snprintf(valid + n, sizeof(valid) - n, "%s%s", n ? ", " : "", *name);
	return cfg_fail(l, where, "unknown policy \"%s\"%s (valid: %s)",
			cfg_printable(json_string_value(v), vbuf),
			cfg_did_you_mean(json_string_value(v), valid, mean), valid);
}

static int init_policy(const struct key_desc *d, void *base)
{
	const struct policy_desc **pd = field_of(base, d);

	*pd = policy_find(d->def.s);
	return *pd ? 0 : -ENOENT;
}

static const struct value_type t_policy = {
	JT(JSON_STRING), "a policy name", AS_NONE, parse_policy, init_policy, NULL,
};

/* Workload selectors (workload.h): "qos" and "runtime", arrays of names kept as bit masks, and
 * "level". The zeroed fields are their defaults (no selector). */
static int parse_name_set(struct loader *l, const char *where, const json_t *v, const char *what,
			  const char *valid, int (*from_name)(const char *), unsigned *ret)
{
	unsigned mask = 0;
	char vbuf[72], mean[96];

	if (json_array_size(v) == 0)
		return cfg_fail(l, where, "is empty (name at least one of %s, or leave the key out)", valid);
	for (size_t i = 0; i < json_array_size(v); i++) {
		const json_t *e = json_array_get(v, i);
		char sub[96];
		int x;

		snprintf(sub, sizeof(sub), "%s[%zu]", where, i);
		if (!json_is_string(e))
			return cfg_fail_type(l, sub, "a string", e);
		x = from_name(json_string_value(e));
		if (x < 0)
			return cfg_fail(l, sub, "\"%s\" is not a %s%s (valid: %s)",
					cfg_printable(json_string_value(e), vbuf), what,
					cfg_did_you_mean(json_string_value(e), valid, mean), valid);
		if (mask & (1u << x))
			return cfg_fail(l, sub, "\"%s\" is named twice", json_string_value(e));
		mask |= 1u << x;
	}
	*ret = mask;
	return 0;
}

#define QOS_NAMES     "guaranteed, burstable, besteffort"
#define RUNTIME_NAMES "containerd, crio, docker, podman"

static int parse_qos(struct loader *l, const char *where, const struct key_desc *d,
		     const json_t *v, void *base)
{
	return parse_name_set(l, where, v, "QoS class", QOS_NAMES, workload_qos_from_name,
			      field_of(base, d));
}

static int parse_runtime(struct loader *l, const char *where, const struct key_desc *d,
			 const json_t *v, void *base)
{
	return parse_name_set(l, where, v, "container runtime", RUNTIME_NAMES,
			      workload_runtime_from_name, field_of(base, d));
}

static int parse_level(struct loader *l, const char *where, const struct key_desc *d,
		       const json_t *v, void *base)
{
	const char *s = json_string_value(v);
	char vbuf[72], mean[96];

	if (strcmp(s, "pod") == 0)
		*(enum rule_level *)field_of(base, d) = RULE_LEVEL_POD;
	else if (strcmp(s, "container") == 0)
		*(enum rule_level *)field_of(base, d) = RULE_LEVEL_CONTAINER;
	else
		return cfg_fail(l, where, "\"%s\" is not a level%s (valid: pod, container)",
				cfg_printable(s, vbuf), cfg_did_you_mean(s, "pod, container", mean));
	return 0;
}

static const struct value_type t_qos = {
	JT(JSON_ARRAY), "an array of QoS classes (" QOS_NAMES ")", AS_NONE, parse_qos, NULL, NULL,
};
static const struct value_type t_runtime = {
	JT(JSON_ARRAY), "an array of container runtimes (" RUNTIME_NAMES ")", AS_NONE,
	parse_runtime, NULL, NULL,
};
static const struct value_type t_level = {
	JT(JSON_STRING), "\"pod\" or \"container\"", AS_NONE, parse_level, NULL, NULL,
};

enum rule_level rule_level(const struct rule *r)
{
	if (r->level != RULE_LEVEL_ANY)
		return r->level;
	return r->qos_mask ? RULE_LEVEL_POD : RULE_LEVEL_ANY;
}

/* "qos burstable,besteffort  level pod  runtime crio" after a rule's first line; "" without. */
static void print_selectors(FILE *out, const struct rule *r)
{
	const char *sep = "";

	if (rule_level(r) == RULE_LEVEL_ANY)
		return;
	if (r->qos_mask) {
		fputs("  qos ", out);
		for (int q = 0; q < _WORKLOAD_QOS_MAX; q++)
			if (r->qos_mask & (1u << q))
				fprintf(out, "%s%s", sep, workload_qos_name((enum workload_qos)q)), sep = ",";
	}
	fprintf(out, "  level %s", rule_level(r) == RULE_LEVEL_POD ? "pod" : "container");
	if (r->runtime_mask) {
		fputs("  runtime ", out);
		sep = "";
		for (int x = 0; x < _WORKLOAD_RUNTIME_MAX; x++)
			if (r->runtime_mask & (1u << x))
				fprintf(out, "%s%s", sep, workload_runtime_name((enum workload_runtime)x)),
					sep = ",";
	}
}

/* "rules": each one starts from "defaults" and its own keys' defaults (the policy). */
static int parse_rules(struct loader *l, const char *where, const struct key_desc *d,
		       const json_t *v, void *base)
{
	struct config *c = base;
	size_t n = json_array_size(v);

	int failed = 0;

	(void)d;
	c->rules = calloc(MAX(n, (size_t)1), sizeof(*c->rules));
	if (!c->rules)
		return cfg_fail_oom(l);
	for (size_t i = 0; i < n; i++) {
		struct rule *rule = &c->rules[c->n_rules++];
		char sub[48];
		int r;

		rule->params = c->defaults;
		if (cfg_section_init(&cfg_sec_rule, rule) < 0)
			return cfg_fail(l, where, "the default policy \"" DEFAULT_POLICY "\" is not in the "
					"registry");
		snprintf(sub, sizeof(sub), "%s[%zu]", where, i);
		r = cfg_parse_object(l, sub, &cfg_sec_rule, json_array_get(v, i), rule);
		if (r < 0) {
			failed = r;
			if (r != -EINVAL || !cfg_collecting(l))
				return r;
		}
	}
	return failed;
}

static void print_rules(FILE *out, const char *label, const struct key_desc *d, const void *base)
{
	const struct config *c = base;

	(void)d;
	for (size_t i = 0; i < c->n_rules; i++) {
		const struct rule *r = &c->rules[i];

		/* A match pattern may hold any byte: it reaches a terminal escaped (escape.h). */
		size_t n = ESCAPE_SIZE(strlen(r->match));
		char *esc = malloc(n);

		if (esc)
			str_escape(esc, n, r->match);
		fprintf(out, "\n%s[%zu]  match \"%s\"  policy %s", label, i,
			esc ? esc : "(out of memory)", r->policy->name);
		free(esc);
		print_selectors(out, r);
		if (r->kubelet_managed_write)
			fputs("  kubelet_managed_write", out);
		fputc('\n', out);
		cfg_section_print(out, &cfg_sec_params, &r->params);
	}
	if (c->n_rules == 0)
		fputs("\n(no rules: no cgroup is managed)\n", out);
	else
		fputs("\n(the first rule that matches decides; a cgroup matching none is not managed)\n",
		      out);
}

const struct value_type cfg_t_rules = {
	JT(JSON_ARRAY), "an array of rules", AS_NONE, parse_rules, NULL, print_rules,
};

/* A rule (struct rule): its own keys, and the policy parameters over "defaults". */
static const struct key_desc rule_keys[] = {
	{ "match", &t_match, offsetof(struct rule, match), .required = true },
	{ "policy", &t_policy, offsetof(struct rule, policy), .def.s = DEFAULT_POLICY },
	{ "qos", &t_qos, offsetof(struct rule, qos_mask), .def.u = 0 },
	{ "level", &t_level, offsetof(struct rule, level), .def.i = RULE_LEVEL_ANY },
	{ "runtime", &t_runtime, offsetof(struct rule, runtime_mask), .def.u = 0 },
	{ "kubelet_managed_write", &cfg_t_bool, offsetof(struct rule, kubelet_managed_write),
	  .def.b = false },
};

static const struct hint hints_rule[] = { { &cfg_sec_top, HINT_GLOBAL }, { NULL, NULL } };
const struct section cfg_sec_rule = {
	.expected = "an object", .keys = rule_keys, .n_keys = ARRAY_SIZE(rule_keys),
	.inherit = &cfg_sec_params, .inherit_offset = offsetof(struct rule, params),
	.hints = hints_rule, .check = check_rule,
	.missing = "missing \"match\" (a glob on the cgroup path, e.g. \"system.slice/*.service\")",
};

/* ---- lookup ------------------------------------------------------------------------------- */

/* Whether the rule's selectors take the workload; `why` says why not (or what matched). */
static bool rule_selects(const struct rule *r, const struct workload *w, const char **why)
{
	enum rule_level level = rule_level(r);

	switch (level) {
	case RULE_LEVEL_ANY:
		*why = "no selectors: the glob decides";
		return true;
	case RULE_LEVEL_POD:
		if (w->kind != WORKLOAD_POD) {
			*why = "level pod, and this is not a pod cgroup";
			return false;
		}
		break;
	case RULE_LEVEL_CONTAINER:
		if (w->kind != WORKLOAD_CONTAINER) {
			*why = w->kind == WORKLOAD_CONTAINER_INNER ?
				"crun's inner cgroup: level container selects its scope, the container" :
				"level container, and this is not a container cgroup";
			return false;
		}
		break;
	}
	if (r->qos_mask && !(r->qos_mask & (1u << w->qos))) {
		*why = w->qos == WORKLOAD_QOS_NONE ? "qos is given, and this is not in a pod"
						   : "its QoS class is not selected";
		return false;
	}
	if (r->runtime_mask && !(r->runtime_mask & (1u << w->runtime))) {
		*why = "its runtime is not selected";
		return false;
	}
	*why = level == RULE_LEVEL_POD ? "a pod of a selected QoS class"
				       : "a container of a selected QoS class and runtime";
	return true;
}

/* config_match_workload(), saying why for each rule when `out` is not NULL. */
static const struct rule *match_rules(const struct config *c, const char *relpath,
				      const struct workload *w, FILE *out)
{
	struct workload pod = { .kind = WORKLOAD_POD };
	char pod_path[PATH_MAX];
	bool in_pod = false;
	const char *why;

	if (!c || !relpath || !w)
		return NULL;
	if (workload_never_target(w)) {
		if (out)
			fprintf(out, "  never a target (%s): no rule can match it\n",
				workload_kind_name(w->kind));
		return NULL;
	}
	/* Inside a pod: the pod itself, for the pod-level rules that take it as a whole. */
	if (w->kind != WORKLOAD_POD && w->pod_path_len && w->pod_path_len < sizeof(pod_path)) {
		memcpy(pod_path, relpath, w->pod_path_len);
		pod_path[w->pod_path_len] = '\0';
		pod.qos = w->qos;
		pod.driver = w->driver;
		pod.pod_path_len = w->pod_path_len;
		memcpy(pod.pod_uid, w->pod_uid, sizeof(pod.pod_uid));
		in_pod = true;
	}
	for (size_t i = 0; i < c->n_rules; i++) {
		const struct rule *r = &c->rules[i];

		if (!glob_match(r->match, relpath)) {
			if (out)
				fprintf(out, "  rules[%zu] \"%s\": the glob does not match\n", i, r->match);
		} else if (rule_selects(r, w, &why)) {
			if (out)
				fprintf(out, "  rules[%zu] \"%s\": matches (%s)\n", i, r->match, why);
			return r;
		} else if (out) {
			fprintf(out, "  rules[%zu] \"%s\": the glob matches, the selectors do not (%s)\n",
				i, r->match, why);
		}
		if (in_pod && rule_level(r) == RULE_LEVEL_POD && glob_match(r->match, pod_path) &&
		    rule_selects(r, &pod, &why)) {
			if (out)
				fprintf(out, "  rules[%zu] \"%s\" takes its pod %s at the pod level: "
					"nothing inside the pod matches a rule\n", i, r->match, pod_path);
			return NULL;
		}
	}
	if (out)
		fputs("  no rule matches\n", out);
	return NULL;
}

bool rule_writes_cgroup_files(const struct rule *r)
{
	return r->params.zswap_max.kind != ZSWAP_LIMIT_UNSET ||
	       r->params.zswap_writeback != TRISTATE_UNSET;
}

bool rule_cgroup_write_allowed(const struct rule *r, const struct workload *w)
{
	return r->kubelet_managed_write || !workload_kubelet_managed(w);
}

const struct rule *config_match_workload(const struct config *c, const char *relpath,
					 const struct workload *w)
{
	return match_rules(c, relpath, w, NULL);
}

const struct rule *config_match(const struct config *c, const char *relpath)
{
	struct workload w;

	if (!c || !relpath)
		return NULL;
	workload_recognise(relpath, &w);
	return match_rules(c, relpath, &w, NULL);
}

/* Whether rules giving pd leave their cgroups unmanaged (policy "none": policy.h excludes). */
static bool policy_is_none(const struct policy_desc *pd)
{
	return pd->excludes;
}

void config_explain(const struct config *c, const char *relpath, FILE *out)
{
	const struct rule *r;
	struct workload w;

	workload_recognise(relpath, &w);
	fprintf(out, "path           %s\n", relpath[0] ? relpath : "(the root cgroup)");
	fprintf(out, "kind           %s\n", w.kind == WORKLOAD_OTHER ? "other (not a pod or container)"
							: workload_kind_name(w.kind));
	if (w.driver != WORKLOAD_DRIVER_NONE)
		fprintf(out, "kubelet driver %s\n", w.driver == WORKLOAD_DRIVER_SYSTEMD ? "systemd"
										 : "cgroupfs");
	if (w.qos != WORKLOAD_QOS_NONE)
		fprintf(out, "qos            %s\n", workload_qos_name(w.qos));
	if (w.pod_uid[0])
		fprintf(out, "pod_uid        %s\n", w.pod_uid);
	if (w.runtime != WORKLOAD_RUNTIME_NONE)
		fprintf(out, "runtime        %s%s\n", workload_runtime_name(w.runtime),
			w.runtime == WORKLOAD_RUNTIME_UNKNOWN ?
			" (cgroupfs driver: containerd or cri-dockerd)" : "");
	if (w.container_id[0])
		fprintf(out, "container_id   %s\n", w.container_id);
	fputs("rules (the first that matches decides):\n", out);
	r = match_rules(c, relpath, &w, out);
	if (r)
		fprintf(out, "result         rules[%zu], policy %s\n", (size_t)(r - c->rules),
			r->policy->name);
	else
		fputs("result         no rule: not managed\n", out);
	if (r && !policy_is_none(r->policy))
		fputs("               (managed when it has the memory controller and no descendant "
		      "matches a rule)\n", out);
	if (workload_kubelet_managed(&w)) {
		fputs("kubelet        managed: reclaimd writes memory.reclaim (and lru_gen commands) "
		      "only", out);
		if (r && rule_writes_cgroup_files(r) && !policy_is_none(r->policy))
			fprintf(out, rule_cgroup_write_allowed(r, &w) ?
				"; rules[%zu] has \"kubelet_managed_write\": true, so its zswap_max/"
				"zswap_writeback and the fair-share memory.zswap.max are written too\n" :
				"; rules[%zu]'s zswap_max/zswap_writeback are not applied here (set "
				"\"kubelet_managed_write\": true to allow)\n", (size_t)(r - c->rules));
		else if (r && r->kubelet_managed_write)
			fputs("; the fair-share memory.zswap.max may be lowered (kubelet_managed_write)\n",
			      out);
		else
			fputc('\n', out);
	}
}

/* ---- shadowed rules ------------------------------------------------------------------------- */

/* Whether glob `outer` matches every path glob `inner` can match, by their text: "**" covers
 * everything; a glob covers itself; P followed by the component "**" covers "P" and every
 * "P/..." (the same text P matches the same first components). Anything else is not decided
 * here (false). */
static bool glob_covers(const char *outer, const char *inner)
{
	size_t n = strlen(outer);

	if (strcmp(outer, "**") == 0 || strcmp(outer, inner) == 0)
		return true;
	if (n < 3 || strcmp(outer + n - 3, "/**") != 0)
		return false;
	n -= 3;
	return strncmp(inner, outer, n) == 0 && (inner[n] == '\0' || inner[n] == '/');
}

/* Whether rule `a` selects every workload rule `b` selects: `a` has no selectors, or the same. */
static bool selectors_cover(const struct rule *a, const struct rule *b)
{
	if (!a->qos_mask && !a->runtime_mask && a->level == RULE_LEVEL_ANY)
		return true;
	return a->qos_mask == b->qos_mask && a->runtime_mask == b->runtime_mask &&
	       rule_level(a) == rule_level(b);
}

ssize_t config_rule_shadowed_by(const struct config *c, size_t i)
{
	if (i >= c->n_rules)
		return -1;
	for (size_t j = 0; j < i; j++)
		if (glob_covers(c->rules[j].match, c->rules[i].match) &&
		    selectors_cover(&c->rules[j], &c->rules[i]))
			return (ssize_t)j;
	return -1;
}
