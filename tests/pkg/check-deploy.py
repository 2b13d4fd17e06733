#!/usr/bin/env python3
"""check-deploy.py - the Helm chart and the kustomize bases of deploy/ (tests/pkg/check-deploy.sh).

  - schema: every object of the kustomize bases and of the chart rendered with its defaults
    whose kind the Kubernetes API has (DaemonSet, ConfigMap, NetworkPolicy) is checked against
    the API's schema as python3-kubernetes (Debian) carries it: the generated model classes'
    field names and types (openapi_types, attribute_map; kubernetes.client, API 1.22), so an
    unknown field, a wrong type or a missing required field is an error naming its path;
  - the Prometheus Operator's objects (no schema offline): the fields their CRDs require and
    that they select the DaemonSet's pods and its port by name;
  - the chart: Chart.yaml (apiVersion v2, version and appVersion the tree's), every .Values
    path of the templates is in values.yaml and every value is used; rendered with its defaults
    it is the kustomize bases object for object (the monitoring ones with them turned on); with
    another image, pull policy and namespace, every container and object has them;
  - the kustomizations list exactly their directory's objects, their image name is the one the
    DaemonSet uses, and an overlay's resources exist.
The chart is rendered here (Helm is not in Debian 12): the templates may use only what
deploy/generate.py writes ({{ .Values.x }}, {{ .Release.Namespace }}, {{ "{{" }}, a whole-file
if/end, comments); anything else is an error.
Prints PASS/FAIL lines.
"""
import glob
import json
import os
import re
import sys

import yaml

try:
    import kubernetes.client as k8s
except ImportError:
    k8s = None

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEPLOY = os.path.join(TOP, "deploy")
CHART = os.path.join(DEPLOY, "helm", "reclaimd")
failures = 0


def out(ok, name, msg):
    global failures
    print("%s %s: %s" % ("PASS" if ok else "FAIL", name, msg))
    failures += not ok
    return ok


# ---- the chart, rendered -------------------------------------------------------------------
def lookup(values, path, where):
    v = values
    for part in path.split("."):
        if not isinstance(v, dict) or part not in v:
            raise ValueError("%s: .Values.%s is not in values.yaml" % (where, path))
        v = v[part]
    return v


def render(text, values, namespace, where):
    """The template's text with Helm's few actions this chart uses, else ValueError."""
    res = []
    pos = 0
    cond = []  # stack of booleans: is the text kept
    for m in re.finditer(r'\{\{(-?)\s*((?:"[^"]*"|[^"{}])*?)\s*(-?)\}\}', text):
        chunk = text[pos:m.start()]
        if m.group(1):
            chunk = chunk.rstrip(" \t\n")
        if all(cond):
            res.append(chunk)
        pos = m.end()
        if m.group(3):
            while pos < len(text) and text[pos] in " \t\n":
                pos += 1
        act = m.group(2)
        if act.startswith("/*") and act.endswith("*/"):
            continue
        mi = re.fullmatch(r"if \.Values\.([\w.]+)", act)
        if mi:
            cond.append(bool(lookup(values, mi.group(1), where)))
            continue
        if act == "end":
            if not cond:
                raise ValueError("%s: {{ end }} without if" % where)
            cond.pop()
            continue
        if act in ('"{{"', '"}}"'):
            val = act[1:-1]
        elif act == ".Release.Namespace":
            val = namespace
        else:
            mv = re.fullmatch(r"\.Values\.([\w.]+)", act)
            if not mv:
                raise ValueError("%s: a template action this check does not render: {{ %s }}"
                                 % (where, act))
            val = lookup(values, mv.group(1), where)
            if isinstance(val, (dict, list)):
                raise ValueError("%s: .Values.%s is not a scalar" % (where, mv.group(1)))
            val = str(val)
        if all(cond):
            res.append(val)
    if cond:
        raise ValueError("%s: an if without end" % where)
    res.append(text[pos:])
    return "".join(res)


def chart_docs(values, namespace):
    docs = {}
    for path in sorted(glob.glob(os.path.join(CHART, "templates", "*.yaml"))):
        with open(path) as f:
            text = render(f.read(), values, namespace, os.path.relpath(path, TOP))
        docs[os.path.basename(path)] = [d for d in yaml.safe_load_all(text) if d is not None]
    return docs


def merge(a, b):
    r = dict(a)
    for k, v in b.items():
        r[k] = merge(r[k], v) if isinstance(v, dict) and isinstance(r.get(k), dict) else v
    return r


def leaves(d, prefix=""):
    for k, v in d.items():
        if isinstance(v, dict):
            yield from leaves(v, prefix + k + ".")
        else:
            yield prefix + k


# ---- the API schema (python3-kubernetes' models) --------------------------------------------
def check_type(obj, typ, path, errs):
    if typ in ("object",):
        return
    if typ == "str" or typ == "datetime":
        if not isinstance(obj, str):
            errs.append("%s: %r is not a string" % (path, obj))
        return
    if typ == "int":
        if not isinstance(obj, int) or isinstance(obj, bool):
            errs.append("%s: %r is not an integer" % (path, obj))
        return
    if typ == "bool":
        if not isinstance(obj, bool):
            errs.append("%s: %r is not a boolean" % (path, obj))
        return
    if typ == "float":
        if not isinstance(obj, (int, float)) or isinstance(obj, bool):
            errs.append("%s: %r is not a number" % (path, obj))
        return
    m = re.fullmatch(r"list\[(.*)\]", typ)
    if m:
        if not isinstance(obj, list):
            errs.append("%s: not a list" % path)
            return
        for i, x in enumerate(obj):
            check_type(x, m.group(1), "%s[%d]" % (path, i), errs)
        return
    m = re.fullmatch(r"dict\(str, (.*)\)", typ)
    if m:
        if not isinstance(obj, dict):
            errs.append("%s: not a map" % path)
            return
        for k, x in obj.items():
            check_type(x, m.group(1), "%s.%s" % (path, k), errs)
        return
    cls = getattr(k8s, typ, None)
    if cls is None:
        errs.append("%s: no model %s in kubernetes.client" % (path, typ))
        return
    if not isinstance(obj, dict):
        errs.append("%s: %r is not an object (%s)" % (path, obj, typ))
        return
    by_key = {v: k for k, v in cls.attribute_map.items()}
    kwargs = {}
    for key, val in obj.items():
        attr = by_key.get(key)
        if attr is None:
            errs.append("%s.%s: no such field in %s" % (path, key, typ))
            continue
        check_type(val, cls.openapi_types[attr], "%s.%s" % (path, key), errs)
        kwargs[attr] = val
    # The model's setters refuse a required field left out and a value outside an enum.
    try:
        cls(**kwargs)
    except ValueError as e:
        errs.append("%s (%s): %s" % (path, typ, e))


def schema_check(doc, where):
    api, kind = doc.get("apiVersion", ""), doc.get("kind", "")
    typ = api.split("/")[-1].capitalize() + kind
    if getattr(k8s, typ, None) is None:
        return None
    errs = []
    check_type(doc, typ, kind, errs)
    return out(not errs, "schema %s %s" % (where, kind),
               "; ".join(errs) if errs else "valid %s (%s, python3-kubernetes %s models)"
               % (typ, api, k8s.__version__ if hasattr(k8s, "__version__") else "?"))


# ---- the Prometheus Operator's objects ------------------------------------------------------
def crd_check(docs, where):
    ds = [d for d in docs if d["kind"] == "DaemonSet"]
    pod_labels = ds[0]["spec"]["template"]["metadata"]["labels"] if ds else None
    ports = ({p["name"] for c in ds[0]["spec"]["template"]["spec"]["containers"]
              for p in c.get("ports", [])} if ds else set())
    ns = ds[0]["metadata"]["namespace"] if ds else None
    for d in docs:
        if d["kind"] == "PodMonitor":
            s = d["spec"]
            sel = s["selector"]["matchLabels"]
            eps = s["podMetricsEndpoints"]
            errs = []
            if pod_labels is not None and not all(pod_labels.get(k) == v for k, v in sel.items()):
                errs.append("selector %s does not select the DaemonSet's pods %s" % (sel, pod_labels))
            if ns and s.get("namespaceSelector", {}).get("matchNames") != [ns]:
                errs.append("namespaceSelector is not [%s]" % ns)
            for e in eps:
                if e.get("port") not in ports:
                    errs.append("port %r is not a container port of the DaemonSet %s"
                                % (e.get("port"), sorted(ports)))
            if s.get("jobLabel") not in (pod_labels or {}):
                errs.append("jobLabel %r is not a pod label" % s.get("jobLabel"))
            out(not errs, "crd %s PodMonitor" % where,
                "; ".join(errs) or "selects the DaemonSet's pods, port %s" % eps[0]["port"])
        elif d["kind"] == "PrometheusRule":
            errs = []
            n = 0
            for g in d["spec"]["groups"]:
                for r in g["rules"]:
                    n += 1
                    for k in ("alert", "expr", "for"):
                        if not isinstance(r.get(k), str):
                            errs.append("%s: no %s" % (r.get("alert"), k))
                    if "severity" not in r.get("labels", {}) or "summary" not in r.get(
                            "annotations", {}):
                        errs.append("%s: no severity label or summary" % r.get("alert"))
            out(not errs and n > 0, "crd %s PrometheusRule" % where,
                "; ".join(errs) or "%d alerts with expr, for, severity, summary" % n)


def load_dir(d):
    docs = []
    for path in sorted(glob.glob(os.path.join(d, "*.yaml"))):
        if os.path.basename(path) == "kustomization.yaml":
            continue
        with open(path) as f:
            docs += [x for x in yaml.safe_load_all(f) if x is not None]
    return docs


def main():
    if k8s is None:
        out(False, "schema", "no python3-kubernetes (make deps)")
    with open(os.path.join(TOP, "include", "reclaimd", "version.h")) as f:
        version = re.search(r'RECLAIMD_VERSION "([^"]+)"', f.read()).group(1)
    with open(os.path.join(CHART, "Chart.yaml")) as f:
        chart = yaml.safe_load(f)
    with open(os.path.join(CHART, "values.yaml")) as f:
        defaults = yaml.safe_load(f)
    ok = (chart.get("apiVersion") == "v2" and chart.get("name") == "reclaimd" and
          chart.get("version") == version and str(chart.get("appVersion")) == version and
          chart.get("type") == "application")
    out(ok, "chart-yaml", "apiVersion %s, name %s, version %s, appVersion %s (tree: %s)" % (
        chart.get("apiVersion"), chart.get("name"), chart.get("version"),
        chart.get("appVersion"), version))

    used = set()
    for path in glob.glob(os.path.join(CHART, "templates", "*.yaml")):
        with open(path) as f:
            used |= set(re.findall(r"\.Values\.([\w.]+)", f.read()))
    unused = sorted(set(leaves(defaults)) - used)
    out(not unused, "chart-values", "unused values: %s" % unused if unused else
        "%d values, all used: %s" % (len(used), ", ".join(sorted(used))))

    bases = {}
    for name in ("base", "monitoring"):
        d = os.path.join(DEPLOY, "kustomize", name)
        with open(os.path.join(d, "kustomization.yaml")) as f:
            kust = yaml.safe_load(f)
        files = sorted(os.path.basename(p) for p in glob.glob(os.path.join(d, "*.yaml"))
                       if not p.endswith("/kustomization.yaml"))
        listed = sorted(kust.get("resources", []))
        out(listed == files, "kustomization %s" % name,
            "resources %s, files %s" % (listed, files))
        for g in kust.get("configMapGenerator", []):
            missing = [x for x in g.get("files", []) if not os.path.exists(os.path.join(d, x))]
            out(not missing, "kustomization %s configMapGenerator" % name,
                "%s from %s%s" % (g["name"], g.get("files"), " missing %s" % missing if missing else ""))
        bases[name] = load_dir(d)
    ds = [x for x in bases["base"] if x["kind"] == "DaemonSet"][0]
    spec = ds["spec"]["template"]["spec"]
    images = {c["image"] for c in spec["containers"] + spec.get("initContainers", [])}
    kust = yaml.safe_load(open(os.path.join(DEPLOY, "kustomize", "base", "kustomization.yaml")))
    names = {i["name"] for i in kust.get("images", [])}
    out(names == {i.rpartition(":")[0] for i in images}, "kustomization images",
        "images: %s; the DaemonSet's: %s" % (sorted(names), sorted(images)))
    for ov in sorted(glob.glob(os.path.join(DEPLOY, "kustomize", "overlays", "*"))):
        k = yaml.safe_load(open(os.path.join(ov, "kustomization.yaml")))
        bad = [r for r in k.get("resources", []) if not os.path.isdir(os.path.join(ov, r))]
        inames = {i["name"] for i in k.get("images", [])}
        out(not bad and inames <= names, "overlay %s" % os.path.basename(ov),
            "resources %s%s, images %s" % (k.get("resources"), " missing %s" % bad if bad else "",
                                          sorted(inames)))

    for name, docs in bases.items():
        for doc in docs:
            if k8s is not None:
                schema_check(doc, "kustomize/" + name)
        crd_check(docs + (bases["base"] if name == "monitoring" else []), "kustomize/" + name)

    ns = ds["metadata"]["namespace"]
    try:
        rendered = chart_docs(defaults, ns)
        on = chart_docs(merge(defaults, {"monitoring": {"podMonitor": True,
                                                        "prometheusRule": True,
                                                        "dashboard": True}}), ns)
        other = chart_docs(merge(defaults, {
            "image": {"repository": "registry.example.net/ops/reclaimd", "tag": "9.9.9",
                      "pullPolicy": "IfNotPresent"},
            "monitoring": {"podMonitor": True, "prometheusRule": True, "dashboard": True}}),
            "reclaim")
    except ValueError as e:
        out(False, "chart-render", str(e))
        return
    flat = [d for f in sorted(rendered) for d in rendered[f]]
    out(not rendered["reclaimd-podmonitor.yaml"] and not rendered["reclaimd-prometheusrule.yaml"]
        and not rendered["reclaimd-dashboard.yaml"], "chart-defaults", "monitoring objects off by default: %s" % ", ".join(
            "%s %s" % (d["kind"], d["metadata"]["name"]) for d in flat))
    key = lambda d: (d["kind"], d["metadata"]["name"])
    same = sorted(flat, key=key) == sorted(bases["base"], key=key)
    out(same, "chart-equals-kustomize base", "%d objects rendered with the defaults %s the base's"
        % (len(flat), "are" if same else "differ from"))
    mon = [d for f in ("reclaimd-podmonitor.yaml", "reclaimd-prometheusrule.yaml") for d in on[f]]
    same = sorted(mon, key=key) == sorted(
        [d for d in bases["monitoring"] if d["kind"] != "ConfigMap"], key=key)
    out(same, "chart-equals-kustomize monitoring",
        "PodMonitor and PrometheusRule turned on %s the monitoring base's" % (
            "are" if same else "differ from"))
    # The dashboard's ConfigMap: what the monitoring base's configMapGenerator makes.
    mk = yaml.safe_load(open(os.path.join(DEPLOY, "kustomize", "monitoring", "kustomization.yaml")))
    gen = mk["configMapGenerator"][0]
    with open(os.path.join(DEPLOY, "kustomize", "monitoring", gen["files"][0])) as f:
        dash = json.load(f)
    cms = on["reclaimd-dashboard.yaml"]
    cm = cms[0] if len(cms) == 1 else {}
    ok = (cm.get("kind") == "ConfigMap" and cm["metadata"]["name"] == gen["name"] and
          cm["metadata"].get("namespace") == mk.get("namespace") and
          cm["metadata"].get("labels") == gen["options"]["labels"] and
          list(cm.get("data", {})) == gen["files"] and
          json.loads(cm["data"][gen["files"][0]]) == dash)
    out(ok, "chart-equals-kustomize dashboard", "ConfigMap %s (labels %s) %s the configMapGenerator's, "
        "%d panels" % (gen["name"], gen["options"]["labels"], "is" if ok else "differs from",
                       len(dash.get("panels", []))))
    for doc in flat + cms:
        if k8s is not None:
            schema_check(doc, "helm")

    all_other = [d for f in sorted(other) for d in other[f]]
    errs = []
    for d in all_other:
        if d["metadata"].get("namespace") != "reclaim":
            errs.append("%s namespace %s" % (d["kind"], d["metadata"].get("namespace")))
        if d["kind"] == "DaemonSet":
            sp = d["spec"]["template"]["spec"]
            for c in sp["containers"] + sp.get("initContainers", []):
                if (c["image"], c["imagePullPolicy"]) != (
                        "registry.example.net/ops/reclaimd:9.9.9", "IfNotPresent"):
                    errs.append("container %s: %s %s" % (c["name"], c["image"],
                                                         c["imagePullPolicy"]))
        if d["kind"] == "PodMonitor" and d["spec"]["namespaceSelector"]["matchNames"] != ["reclaim"]:
            errs.append("PodMonitor namespaceSelector %s" % d["spec"]["namespaceSelector"])
    out(not errs and len(all_other) == len(flat) + 3, "chart-values-applied",
        "; ".join(errs) or "image registry.example.net/ops/reclaimd:9.9.9, IfNotPresent and "
        "namespace reclaim in all %d objects" % len(all_other))
    crd_check(all_other, "helm (values set)")


if __name__ == "__main__":
    main()
    sys.exit(1 if failures else 0)
