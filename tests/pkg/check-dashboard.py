#!/usr/bin/env python3
"""check-dashboard.py [--demo] DASHBOARD PROMETHEUS_URL - every query of a Grafana dashboard
returns data.

Run by tests/pkg/check-dashboard.sh, which starts the agent and Prometheus. Waits (at most 60 s)
for at least 3 scrapes of job "reclaimd", then evaluates each panel's each target through
/api/v1/query with $cluster and $node as Grafana's "All" (".*"); a target passes when Prometheus
answers "success" with at least one series. The template variables' label_values(QUERY, LABEL)
are asked of /api/v1/label/LABEL/values. Prints PASS/FAIL lines and, for each query, its
series and their values (the data docs/kubernetes.md shows).

--demo: for tests/vm/demo.sh, whose Prometheus scraped the agent of make demo's "with" phase
(cluster "demo", node "demo-vm") and whose agent has stopped: every query is evaluated at the
last scrape that found the agent up (within the last hour; at least 3 up), and the values checked
are those of a reclaiming host (memory reclaimed > 0, agent CPU > 0). The demo's VM runs no
Kubernetes pods, so the agent writes no reclaimd_qos_* series and the QoS-class panels are
skipped. Values are printed in the panel's unit (bytes: MiB, Bps: MiB/s).
"""
import json
import re
import sys
import time
import urllib.parse
import urllib.request

VARS = {"$cluster": ".*", "$node": ".*"}


def get(url, path, params):
    q = urllib.parse.urlencode(params, doseq=True)
    with urllib.request.urlopen("%s%s?%s" % (url, path, q), timeout=10) as r:
        return json.load(r)


def subst(expr):
    for k, v in VARS.items():
        expr = expr.replace(k, v)
    return expr


AT = {}  # {"time": T} in --demo: every query at the last scrape with the agent up


def query(url, expr):
    return get(url, "/api/v1/query", dict({"query": expr}, **AT))


def out(ok, name, msg):
    print("%s %s: %s" % ("PASS" if ok else "FAIL", name, msg))
    if not ok:
        FAILED.append(name)
    return ok


def fmt(value, unit, rate=False):
    """A value in the panel's unit: bytes as MiB, Bps as MiB/s, s (a rate of CPU seconds) as
    cores, anything else with 3 significant digits, and "/s" when rate (the query is a rate())."""
    v = float(value)
    if unit == "bytes":
        return "%.1f MiB" % (v / 1048576)
    if unit == "Bps":
        return "%.3f MiB/s" % (v / 1048576)
    if unit == "s":
        return "%.3g cores" % v
    return "%.3g%s" % (v, "/s" if rate else "")


def legend(target, metric):
    """The series' name as Grafana draws it: the target's legendFormat with {{label}} filled."""
    fmt_ = target.get("legendFormat")
    if not fmt_:
        return "{%s}" % ",".join("%s=%s" % kv for kv in sorted(metric.items()))
    return re.sub(r"\{\{ *(\w+) *\}\}", lambda m: metric.get(m.group(1), ""), fmt_)


def show(result, unit=None, target=None):
    """The series, largest value first (at most 6), as "legend value"."""
    parts = []
    ranked = sorted(result, key=lambda s: -float(s["value"][1]))
    for s in ranked[:6]:
        rate = "rate(" in (target or {}).get("expr", "")
        parts.append("%s: %s" % (legend(target or {}, s["metric"]), fmt(s["value"][1], unit, rate)))
    more = " (+%d more)" % (len(result) - 6) if len(result) > 6 else ""
    return "; ".join(parts) + more


def last_up(url):
    """The time of the last scrape in the past hour that found the agent up, and how many did."""
    r = get(url, "/api/v1/query", {"query": 'up{job="reclaimd"}[1h]'})
    res = r.get("data", {}).get("result", [])
    ups = [float(t) for s in res for t, v in s["values"] if v == "1"]
    return (max(ups) if ups else None), len(ups)


def panels(dash, url, no_pods=False):
    """Every target of every panel: PASS with its series when it returns data. Returns
    {(title, refId): result}. no_pods: a host that runs no Kubernetes pods, where the agent
    writes no reclaimd_qos_* series (metrics_collect.c): those queries are left out (SKIP)."""
    values = {}
    ids = set()
    for p in dash["panels"]:
        if p["id"] in ids:
            out(False, "panel-ids", "panel id %d twice" % p["id"])
        ids.add(p["id"])
        if not p.get("targets"):
            out(False, "panel-query", "panel %r has no target" % p["title"])
        targets = p.get("targets", [])
        for t in targets:
            # The refId only where a panel has more than one query.
            name = "panel-query %s%s" % (p["title"], "/" + t["refId"] if len(targets) > 1 else "")
            expr = subst(t["expr"])
            if "$" in expr:
                out(False, name, "a variable the test does not know in %s" % expr)
                continue
            try:
                r = query(url, expr)
            except OSError as e:
                out(False, name, "%s: %s" % (expr, e))
                continue
            res = r.get("data", {}).get("result", [])
            if no_pods and r.get("status") == "success" and not res and "reclaimd_qos_" in expr:
                print("SKIP %s: no series (no Kubernetes pods on this host, so no QoS classes)"
                      % name)
                continue
            if r.get("status") != "success" or not res:
                out(False, name, "%s: %s, %d series" % (expr, r.get("status"), len(res)))
                continue
            values[(p["title"], t["refId"])] = res
            unit = p.get("fieldConfig", {}).get("defaults", {}).get("unit")
            out(True, name, "%d series: %s" % (len(res), show(res, unit, t)))
    return values


def variables(dash, url, want):
    """The template variables (Grafana's label_values(QUERY, LABEL)) must offer want's values."""
    for v in dash["templating"]["list"]:
        if v["type"] != "query":
            continue
        q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
        m = re.fullmatch(r"label_values\((.*), *(\w+)\)", q)
        if not m:
            out(False, "variable " + v["name"], "not label_values(QUERY, LABEL): %s" % q)
            continue
        params = {"match[]": subst(m.group(1))}
        if AT:
            params.update(start=AT["time"] - 300, end=AT["time"])
        r = get(url, "/api/v1/label/%s/values" % m.group(2), params)
        got = r.get("data", [])
        out(want.get(v["name"]) in got, "variable " + v["name"],
            "%s -> %s" % (q, got))


FAILED = []


def agents_up(values, cluster):
    """Checks that the "Agents up" panel counts 1 agent in cluster; returns first(title, ref),
    the first series' value of a panel's target, or None."""
    def first(title, ref="A"):
        res = values.get((title, ref))
        return float(res[0]["value"][1]) if res else None

    up = first("Agents up, by cluster")
    out(up == 1.0, "value agents-up", "sum(up) of cluster %s is %s (1 agent)" % (cluster, up))
    return first


def main():
    args = sys.argv[1:]
    demo = bool(args) and args[0] == "--demo"
    if demo:
        args = args[1:]
    dash_file, url = args[0], args[1].rstrip("/")
    with open(dash_file) as f:
        dash = json.load(f)
    if demo:
        demo_main(dash, url)
        return

    # At least 3 scrapes of the agent, all up.
    deadline = time.time() + 60
    n = 0
    while time.time() < deadline:
        try:
            r = query(url, 'count_over_time(up{job="reclaimd"}[5m])')["data"]["result"]
            n = int(r[0]["value"][1]) if r else 0
            u = query(url, 'min_over_time(up{job="reclaimd"}[5m])')["data"]["result"]
            if n >= 3 and u and u[0]["value"][1] == "1":
                break
        except OSError:
            pass
        time.sleep(0.5)
    else:
        out(False, "scrapes", "Prometheus at %s did not scrape reclaimd up 3 times in 60 s (%d)"
            % (url, n))
        return
    out(True, "scrapes", "%d scrapes of job reclaimd, all up" % n)

    values = panels(dash, url)
    variables(dash, url, {"cluster": "test", "node": "node-a"})
    first = agents_up(values, "test")

    # Values that say the data is the agent's.
    mem = values.get(("Pods' memory by QoS class", "A"), [])
    classes = sorted(s["metric"].get("qos", "") for s in mem if float(s["value"][1]) > 0)
    # "none": the cgroups that are not pods (work.slice's).
    out(classes == ["besteffort", "burstable", "guaranteed", "none"], "value qos-memory",
        "QoS classes with memory.current > 0: %s" % classes)
    dec = first("PSI: decisions held back by memory PSI, by rule", "B")
    out(dec is not None and dec > 0, "value decisions", "decisions a second of a rule: %s" % dec)
    # A dry run on a small tree may use less CPU in the window than the kernel's 10 ms tick
    # resolves: the rate may be 0, but it must be there and not negative.
    cpu = first("Agent CPU (cores), by node")
    out(cpu is not None and cpu >= 0, "value agent-cpu", "CPU cores the agent used: %s" % cpu)


def demo_main(dash, url):
    try:
        t, n = last_up(url)
    except (OSError, ValueError) as e:
        out(False, "scrapes", "no answer from Prometheus at %s: %s" % (url, e))
        return
    if t is None or n < 3:
        out(False, "scrapes", "Prometheus at %s found the agent up %d times in the last hour"
            " (3 wanted)" % (url, n))
        return
    AT["time"] = t
    out(True, "scrapes", "%d scrapes found the agent up; the panels at the last, %s"
        % (n, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))))
    values = panels(dash, url, no_pods=True)
    variables(dash, url, {"cluster": "demo", "node": "demo-vm"})
    first = agents_up(values, "demo")
    rec = first("Memory reclaimed by cluster")
    out(rec is not None and rec > 0, "value reclaimed",
        "memory reclaimed over the last 5 min: %s MiB/s" % (rec if rec is None else
                                                            "%.3f" % (rec / 1048576)))
    total = query(url, 'sum(reclaimd_reclaimed_bytes_total{job="reclaimd"})')["data"]["result"]
    if total:
        # The last scrape can come before the agent's last jobs finished (a 2 s scrape, a
        # 6 s tick), so this may be a few MiB short of the demo's table.
        out(True, "value reclaimed-total", "reclaimd_reclaimed_bytes_total at the last "
            "scrape: %.1f MiB" % (float(total[0]["value"][1]) / 1048576))
    cpu = first("Agent CPU (cores), by node")
    out(cpu is not None and cpu > 0, "value agent-cpu", "CPU cores the agent used: %s"
        % (cpu if cpu is None else "%.3g" % cpu))


if __name__ == "__main__":
    try:
        main()
    except (OSError, ValueError, KeyError) as e:
        out(False, "prometheus", "unexpected answer: %s: %s" % (type(e).__name__, e))
    sys.exit(1 if FAILED else 0)
