#!/usr/bin/env bash
# check-deploy.sh - the Kubernetes delivery of deploy/ (docs/kubernetes.md):
#   - deploy/ is what deploy/generate.py writes from config/kubernetes/ (not stale);
#   - check-deploy.py: the objects against the Kubernetes API schema of python3-kubernetes'
#     models, the Prometheus Operator's objects structurally, the Helm chart rendered with its
#     defaults equal to the kustomize bases and with other values applied everywhere, the
#     kustomizations' lists and images;
#   - config/kubernetes/Dockerfile builds FROM debian:bookworm-slim, installs reclaimd.deb with
#     apt (its Depends) and ends in the ENTRYPOINT and CMD of the Containerfile `make image`
#     uses. It is not built here: no registry is reachable where the tests run.
# Needs python3-yaml and python3-kubernetes (tests/packages.txt). Run from the repository root
# (make check-unit). Ends with "check-deploy: N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/../.." || exit 1
TEST_NAME=check-deploy
. tests/lib.sh

# A python3 with Debian's modules (python3-yaml, python3-kubernetes): the first one on PATH may
# be another installation.
PY=
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null && "$p" -c 'import yaml, kubernetes.client' 2>/dev/null; then
		PY=$p
		break
	fi
done
[ -n "$PY" ] || { fail "python: no python3 with yaml and kubernetes (make deps)"; summary; }

if out=$("$PY" deploy/generate.py --check 2>&1); then
	pass "generated: deploy/ matches config/kubernetes/ (deploy/generate.py --check)"
else
	fail "generated: $out"
fi
while IFS= read -r line; do
	case $line in
	"PASS "*) pass "${line#PASS }" ;;
	"FAIL "*) fail "${line#FAIL }" ;;
	*) fail "check-deploy.py: $line" ;;
	esac
done < <("$PY" tests/pkg/check-deploy.py 2>&1)

# The two build files: the same entry point; the Dockerfile from Debian's slim image and the .deb.
DF=config/kubernetes/Dockerfile CF=config/kubernetes/Containerfile
last() { sed -n "s/^$1 //p" "$2" | tail -n 1; }
if [ "$(last ENTRYPOINT "$DF")" = "$(last ENTRYPOINT "$CF")" ] && [ -n "$(last ENTRYPOINT "$DF")" ] &&
	[ "$(last CMD "$DF")" = "$(last CMD "$CF")" ]; then
	pass "dockerfile-entrypoint: $(last ENTRYPOINT "$DF") $(last CMD "$DF"), as the Containerfile's"
else
	fail "dockerfile-entrypoint: $DF ends in '$(last ENTRYPOINT "$DF") $(last CMD "$DF")', $CF in '$(last ENTRYPOINT "$CF") $(last CMD "$CF")'"
fi
if [ "$(grep -c '^FROM ' "$DF")" -eq 1 ] && grep -q '^FROM debian:bookworm-slim$' "$DF" &&
	grep -q '^COPY reclaimd.deb /tmp/reclaimd.deb$' "$DF" &&
	grep -q 'apt-get install -y --no-install-recommends /tmp/reclaimd.deb' "$DF"; then
	pass "dockerfile-from-deb: FROM debian:bookworm-slim, apt installs reclaimd.deb"
else
	fail "dockerfile-from-deb: $DF is not FROM debian:bookworm-slim installing reclaimd.deb with apt"
fi
summary
