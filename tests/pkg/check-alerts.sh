#!/usr/bin/env bash
# check-alerts.sh - the alerts of config/kubernetes/monitoring/reclaimd-prometheusrule.yaml:
#   - deploy/ is what deploy/generate.py writes from config/kubernetes/ (not stale);
#   - `promtool check rules` accepts deploy/prometheus/reclaimd-rules.yaml (the rule's groups);
#   - `promtool test rules tests/pkg/reclaimd-rules.test.yaml` passes: each alert fires, with
#     its labels and annotations, where its condition holds past its "for", and not elsewhere;
#   - the unit tests can fail: the same tests on a copy of the rules with each alert's "for"
#     doubled fail.
# Needs promtool (Debian: prometheus, tests/packages.txt). Run from the repository root (make
# check-unit). Ends with "check-alerts: N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/../.." || exit 1
TEST_NAME=check-alerts
. tests/lib.sh
RULES=deploy/prometheus/reclaimd-rules.yaml
TESTS=tests/pkg/reclaimd-rules.test.yaml

if out=$(python3 deploy/generate.py --check 2>&1); then
	pass "generated: deploy/ matches config/kubernetes/ (deploy/generate.py --check)"
else
	fail "generated: $out"
fi
if ! command -v promtool >/dev/null; then
	fail "promtool: not installed (make deps: prometheus)"
	summary
fi
if out=$(promtool check rules "$RULES" 2>&1); then
	pass "check-rules: $RULES: $(printf '%s\n' "$out" | sed -n 's/.*SUCCESS: //p')"
else
	fail "check-rules: $(printf '%s\n' "$out" | tail -n 5 | tr '\n' ' ')"
fi
if out=$(promtool test rules "$TESTS" 2>&1); then
	n=$(grep -c 'alertname:' "$TESTS")
	pass "test-rules: $TESTS: $n alert evaluations as expected"
else
	fail "test-rules: $(printf '%s\n' "$out" | head -n 20 | tr '\n' ' ')"
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/check-alerts.XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/deploy/prometheus" "$T/tests/pkg"
cp "$TESTS" "$T/tests/pkg/"
for a in $(sed -n 's/^ *- alert: //p' "$RULES"); do
	python3 - "$RULES" "$a" >"$T/$RULES" <<-'PY'
	import sys, yaml
	doc = yaml.safe_load(open(sys.argv[1]))
	for g in doc["groups"]:
	    for r in g["rules"]:
	        if r.get("alert") == sys.argv[2]:
	            m = int(r["for"].rstrip("m"))
	            r["for"] = "%dm" % (2 * m)
	print(yaml.safe_dump(doc))
	PY
	# Failed as a unit test (FAILED: naming the alert), not on a broken copy.
	out=$(promtool test rules "$T/$TESTS" 2>&1)
	if printf '%s\n' "$out" | grep -q "alertname: $a,"; then
		pass "tests-can-fail: the tests fail on $a with its \"for\" doubled"
	else
		fail "tests-can-fail: the tests do not fail on $a with its \"for\" doubled: $(printf '%s\n' "$out" | tail -n 3 | tr '\n' ' ')"
	fi
done
summary
