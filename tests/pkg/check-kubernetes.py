#!/usr/bin/env python3
"""check-kubernetes.py DIR OUT - the structural half of tests/pkg/check-kubernetes.sh.

Parses every *.yaml in DIR (python3-yaml), asserts the fields the DaemonSet needs
(docs/kubernetes.md "Deploying"; ../shared/notes/kubernetes.md "Deploying as a
DaemonSet") and the NetworkPolicy that lets only the monitoring namespace reach its metrics
port, and writes what the shell half checks further into OUT, one KEY=VALUE a line:
the ConfigMap's reclaimd.json (CONFIG_FILE, written beside OUT), the image, the paths the
container uses, the memory limit in bytes. Prints "PASS name: ..." / "FAIL name: ..." lines;
exit status 0 when the files could be read at all (failures are in the lines).
"""
import glob
import json
import os
import sys

import yaml


def out(ok, name, msg):
    print(("PASS " if ok else "FAIL ") + name + ": " + msg)


# Kubernetes quantities as bytes or millicores (the suffixes the manifests use and a few more).
BIN = {"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40}
DEC = {"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}


def quantity(q):
    s = str(q)
    for suf, mul in BIN.items():
        if s.endswith(suf):
            return int(float(s[: -len(suf)]) * mul)
    if s.endswith("m"):
        return float(s[:-1]) / 1000
    for suf, mul in DEC.items():
        if s.endswith(suf):
            return int(float(s[: -len(suf)]) * mul)
    return float(s)


def networkpolicy(docs, ds, labels, port):
    """The metrics port is reachable from the monitoring namespace only (docs/limits.md): one
    NetworkPolicy in the DaemonSet's namespace selects its pods for Ingress, and each of its
    rules admits only pods of namespace "monitoring" (by the name label the API server sets),
    only on the metrics port, TCP. A policy without rules would block the scrapes too."""
    ns = ds["metadata"].get("namespace")
    pols = [x for x in docs if x["kind"] == "NetworkPolicy" and x["metadata"].get("namespace") == ns]
    mine = [x for x in pols if x.get("spec", {}).get("podSelector", {}).get("matchLabels") and
            all(labels.get(k) == v for k, v in x["spec"]["podSelector"]["matchLabels"].items()) and
            not x["spec"]["podSelector"].get("matchExpressions")]
    if len(mine) != 1:
        out(False, "networkpolicy", "%d NetworkPolicies in %s select the DaemonSet's pods %s, expected 1"
            % (len(mine), ns, labels))
        return
    pol = mine[0]
    spec = pol["spec"]
    out(pol["apiVersion"] == "networking.k8s.io/v1" and "Ingress" in spec.get("policyTypes", []),
        "networkpolicy-ingress", "%s %s, policyTypes %s" % (
            pol["apiVersion"], pol["metadata"]["name"], spec.get("policyTypes")))
    rules = spec.get("ingress", [])
    why = []
    if not rules:
        why.append("no ingress rule: Prometheus could not scrape either")
    for i, r in enumerate(rules):
        peers = r.get("from", [])
        if not peers:
            why.append("ingress[%d] has no 'from': every source" % i)
        for p in peers:
            nsel = p.get("namespaceSelector", {})
            if set(p) != {"namespaceSelector"} or nsel.get("matchExpressions") or \
                    nsel.get("matchLabels") != {"kubernetes.io/metadata.name": "monitoring"}:
                why.append("ingress[%d] admits %s, not namespace monitoring by name" % (i, p))
        ports = r.get("ports", [])
        if not ports or any(p.get("port") != port or p.get("protocol", "TCP") != "TCP" or "endPort" in p
                            for p in ports):
            why.append("ingress[%d] ports %s, not TCP %d alone" % (i, ports, port))
    out(not why, "networkpolicy-monitoring-only",
        "; ".join(why) if why else "%d rule(s): namespace monitoring, TCP %d" % (len(rules), port))


def main():
    d, outfile = sys.argv[1], sys.argv[2]
    files = sorted(glob.glob(os.path.join(d, "*.yaml")) + glob.glob(os.path.join(d, "*.yml")))
    docs = []
    for f in files:
        try:
            with open(f) as fh:
                got = [x for x in yaml.safe_load_all(fh) if x is not None]
        except yaml.YAMLError as e:
            out(False, "yaml-parses", "%s: %s" % (f, str(e).replace("\n", " ")))
            continue
        bad = [x for x in got if not isinstance(x, dict) or "kind" not in x or "apiVersion" not in x]
        if bad:
            out(False, "yaml-parses", "%s: a document without kind and apiVersion" % f)
            continue
        out(True, "yaml-parses", "%s: %s" % (f, ", ".join(x["kind"] for x in got)))
        docs += got
    if not files:
        out(False, "yaml-parses", "no *.yaml in " + d)
        return 0

    ds = [x for x in docs if x["kind"] == "DaemonSet"]
    cms = {x["metadata"]["name"]: x for x in docs if x["kind"] == "ConfigMap"}
    if len(ds) != 1:
        out(False, "daemonset", "%d DaemonSets in %s, expected 1" % (len(ds), d))
        return 0
    ds = ds[0]
    spec = ds["spec"]["template"]["spec"]
    ctrs = spec.get("containers", [])
    if len(ctrs) != 1:
        out(False, "daemonset", "%d containers, expected 1" % len(ctrs))
        return 0
    c = ctrs[0]
    vols = {v["name"]: v for v in spec.get("volumes", [])}
    mounts = {m["mountPath"]: m for m in c.get("volumeMounts", [])}
    kv = {}

    out(ds["apiVersion"] == "apps/v1", "daemonset-apiversion", "apiVersion %s" % ds["apiVersion"])
    sel = ds["spec"].get("selector", {}).get("matchLabels", {})
    labels = ds["spec"]["template"]["metadata"].get("labels", {})
    out(bool(sel) and all(labels.get(k) == v for k, v in sel.items()), "daemonset-selector",
        "selector %s, pod labels %s" % (sel, labels))

    # The host's cgroupfs, read-write.
    cg = [(m, vols.get(m["name"], {})) for m in mounts.values()
          if vols.get(m["name"], {}).get("hostPath", {}).get("path") == "/sys/fs/cgroup"]
    ok = len(cg) == 1 and not cg[0][0].get("readOnly", False) and \
        cg[0][1]["hostPath"].get("type") in ("Directory", None)
    out(ok, "hostpath-cgroup-rw", "hostPath /sys/fs/cgroup mounted %s at %s" % (
        "read-only" if cg and cg[0][0].get("readOnly") else "read-write",
        cg[0][0]["mountPath"] if cg else "nowhere"))
    if cg:
        kv["CGROUP_MOUNT"] = cg[0][0]["mountPath"]

    sc = c.get("securityContext", {})
    caps = sc.get("capabilities", {})
    ok = caps.get("drop") == ["ALL"] and sorted(caps.get("add", [])) == ["SYS_RESOURCE"] and \
        not sc.get("privileged", False) and sc.get("allowPrivilegeEscalation") is False
    out(ok, "capabilities", "drop %s, add %s, privileged %s, allowPrivilegeEscalation %s" % (
        caps.get("drop"), caps.get("add"), sc.get("privileged", False),
        sc.get("allowPrivilegeEscalation")))
    ok = not spec.get("hostPID", False) and not spec.get("hostNetwork", False) and \
        not any("hostPath" in v and v["hostPath"]["path"] != "/sys/fs/cgroup" for v in vols.values())
    out(ok, "no-other-host-access", "hostPID %s, hostNetwork %s, hostPaths %s" % (
        spec.get("hostPID", False), spec.get("hostNetwork", False),
        [v["hostPath"]["path"] for v in vols.values() if "hostPath" in v]))

    out(spec.get("priorityClassName") == "system-node-critical", "priority-class",
        "priorityClassName %s" % spec.get("priorityClassName"))
    tol = spec.get("tolerations", [])
    out(any(t.get("operator") == "Exists" and "key" not in t and "effect" not in t for t in tol),
        "tolerations-exists", "tolerations %s" % tol)

    res = c.get("resources", {})
    req, lim = res.get("requests", {}), res.get("limits", {})
    ok = all(k in req and k in lim and quantity(req[k]) == quantity(lim[k]) for k in ("cpu", "memory"))
    out(ok, "guaranteed-resources", "requests %s, limits %s" % (req, lim))
    if "memory" in lim:
        kv["MEMORY_LIMIT_BYTES"] = str(quantity(lim["memory"]))
    # A whole CPU would put the pod on exclusive CPUs under the static CPU manager policy.
    if "cpu" in lim:
        cpu = quantity(lim["cpu"])
        out(cpu != int(cpu), "fractional-cpu", "cpu %s (%s cores)" % (lim["cpu"], cpu))

    cmd = c.get("command", []) + c.get("args", [])
    ok = len(cmd) > 0 and "--log-stderr" in cmd and "--config" in cmd
    out(ok, "command", " ".join(cmd))
    # The ConfigMap's directory is 0777 on a read-only mount: the agent takes it only with
    # --trust-read-only-mounts (docs/operating.md "Safety"); the tests-only flag never.
    out("--trust-read-only-mounts" in cmd and "--allow-unsafe-paths" not in cmd, "command-safety",
        "--trust-read-only-mounts, no --allow-unsafe-paths")
    cfg = cmd[cmd.index("--config") + 1] if "--config" in cmd and cmd.index("--config") + 1 < len(cmd) else ""
    kv["BINARY"] = cmd[0] if cmd else ""
    kv["CONFIG_PATH"] = cfg
    probe = c.get("livenessProbe", {}).get("exec", {}).get("command", [])
    out(len(probe) > 0 and os.path.basename(probe[0]) == "reclaimctl" and "status" in probe,
        "liveness-probe", "exec %s" % " ".join(probe))
    kv["PROBE"] = probe[0] if probe else ""
    kv["IMAGE"] = c.get("image", "")
    out(c.get("imagePullPolicy") == "Never", "image-local", "image %s, imagePullPolicy %s" % (
        c.get("image"), c.get("imagePullPolicy")))

    # The ConfigMap: mounted at the config file's directory, holding the file.
    cmv = [(m, vols[m["name"]]) for m in mounts.values()
           if "configMap" in vols.get(m["name"], {})]
    cm = cms.get(cmv[0][1]["configMap"]["name"]) if cmv else None
    name = os.path.basename(cfg)
    ok = cm is not None and cmv[0][0]["mountPath"] == os.path.dirname(cfg) and name in cm.get("data", {})
    out(ok, "configmap-mounted", "ConfigMap %s at %s, --config %s" % (
        cmv[0][1]["configMap"]["name"] if cmv else None, cmv[0][0]["mountPath"] if cmv else None, cfg))
    if not ok:
        return 0
    out(cmv[0][0].get("readOnly") is True, "configmap-read-only",
        "mounted readOnly: %s (--trust-read-only-mounts relies on it)" % cmv[0][0].get("readOnly"))
    out(cm["metadata"].get("namespace") == ds["metadata"].get("namespace"), "configmap-namespace",
        "ConfigMap in %s, DaemonSet in %s" % (cm["metadata"].get("namespace"), ds["metadata"].get("namespace")))
    text = cm["data"][name]
    cfile = os.path.join(os.path.dirname(outfile), name)
    with open(cfile, "w") as fh:
        fh.write(text)
    kv["CONFIG_FILE"] = cfile
    try:
        j = json.loads(text)
    except ValueError as e:
        out(False, "config-json", str(e))
        return 0

    # Host concerns stay with the host service: no swap, no zswap management, no debugfs.
    z = j.get("zswap", {})
    zparams = [k for k in ("enabled", "compressor", "max_pool_percent", "accept_threshold_percent",
                           "shrinker_enabled") if k in z]
    ok = "swap" not in j and z.get("manage") is False and not zparams and j.get("mglru_aging") is False
    out(ok, "config-no-host-concerns", "swap section %s, zswap.manage %s, zswap parameters %s, "
        "mglru_aging %s" % ("present" if "swap" in j else "absent", z.get("manage"), zparams or "none",
                            j.get("mglru_aging")))
    ok = j.get("cgroup_root") == kv.get("CGROUP_MOUNT") and j.get("proc_root", "/proc") == "/proc" and \
        j.get("sys_root", "/sys") == "/sys"
    out(ok, "config-roots", "cgroup_root %s (host cgroupfs mounted at %s), proc_root %s, sys_root %s" % (
        j.get("cgroup_root"), kv.get("CGROUP_MOUNT"), j.get("proc_root", "/proc"), j.get("sys_root", "/sys")))
    rules = j.get("rules", [])
    ok = bool(rules) and all("qos" in r or "level" in r for r in rules if r.get("policy", "psi") != "none")
    out(ok, "config-pods-only", "%d rules, every reclaiming one selects pods or containers by qos/level" % len(rules))

    # The status socket in the emptyDir, the metrics port declared.
    sock = j.get("status", {}).get("socket", "/run/reclaimd/reclaimd.sock")
    sd = os.path.dirname(sock)
    ok = sd in mounts and "emptyDir" in vols.get(mounts[sd]["name"], {})
    out(ok, "status-socket-emptydir", "socket %s, %s mounted from %s" % (
        sock, sd, list(vols.get(mounts[sd]["name"], {}).keys()) if sd in mounts else "nothing"))
    listen = j.get("metrics", {}).get("listen")
    ann = ds["spec"]["template"]["metadata"].get("annotations", {})
    if listen:
        port = int(listen.rsplit(":", 1)[1])
        ports = [p.get("containerPort") for p in c.get("ports", [])]
        ok = port in ports and ann.get("prometheus.io/port") == str(port) and \
            not listen.startswith("127.") and not listen.startswith("[::1]")
        out(ok, "metrics-port", "listen %s, containerPorts %s, prometheus.io/port %s" % (
            listen, ports, ann.get("prometheus.io/port")))
        networkpolicy(docs, ds, labels, port)
    else:
        out(bool(j.get("metrics", {}).get("textfile")), "metrics-port", "no listen: a textfile instead")

    with open(outfile, "w") as fh:
        for k, v in kv.items():
            fh.write("%s=%s\n" % (k, v))
    return 0


if __name__ == "__main__":
    sys.exit(main())
