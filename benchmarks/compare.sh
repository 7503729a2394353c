#!/usr/bin/env bash
# Remold against Gatekeeper's mutation webhook: the same rules (ComparisonRules), the same AdmissionReview, the same
# load (load.sh --url, with each server's CPU time per request). Results go to BENCHMARKS.md.
#
#   benchmarks/compare.sh                    # 10, 100 and 1000 rules
#   benchmarks/compare.sh --rules "1000"
#
# Gatekeeper (GATEKEEPER_VERSION, default v3.23.1) is built from the Go module proxy into ~/.cache/remold-bench. It
# runs as a mutation webhook outside any cluster (--debug-use-fake-pod) and reads its mutators from a real
# kube-apiserver, the e2e control plane (e2e/control-plane.sh). KubeMod is not compared: the module proxy serves none
# of its versions here. Everything that listens runs in a private network namespace when `unshare -n` is allowed,
# because Gatekeeper's Prometheus exporter binds every interface.
set -euo pipefail

RULE_COUNTS="10 100 1000"
while [ $# -gt 0 ]; do
  case "$1" in
    --rules) RULE_COUNTS=$2; shift 2 ;;
    -h|--help) sed -n 2,12p "$0"; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done

HERE=$(cd "$(dirname "$0")" && pwd)
GATEKEEPER_VERSION=${GATEKEEPER_VERSION:-v3.23.1}
GK_DIR=${REMOLD_BENCH_CACHE:-$HOME/.cache/remold-bench}/gatekeeper-$GATEKEEPER_VERSION
if ! command -v go >/dev/null && [[ -x /usr/local/go/bin/go ]]; then PATH="/usr/local/go/bin:$PATH"; fi
log() { echo "compare: $*" >&2; }

# Everything that needs the network happens before entering the namespace: jars, Gatekeeper, the control plane's
# binaries, Debian tools.
if [ -z "${REMOLD_COMPARE_INSIDE:-}" ]; then
  . "$HERE/server.sh"   # builds the jars when missing; installs curl and python3
  need wrk openssl
  command -v ip >/dev/null || { apt-get update -qq && apt-get install -y -qq iproute2 >/dev/null; }
  "$HERE/../e2e/control-plane.sh" build
  if [ ! -x "$GK_DIR/manager" ]; then
    log "building Gatekeeper $GATEKEEPER_VERSION (a few minutes)"
    rm -rf "$GK_DIR/module" && mkdir -p "$GK_DIR/module"
    printf 'module remold.io/bench/gatekeeper\n\ngo 1.26\n\nrequire github.com/open-policy-agent/gatekeeper/v3 %s\n' \
      "$GATEKEEPER_VERSION" >"$GK_DIR/module/go.mod"
    (cd "$GK_DIR/module" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -o ../manager.tmp \
      github.com/open-policy-agent/gatekeeper/v3)
    source_dir=$(cd "$GK_DIR/module" && GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' github.com/open-policy-agent/gatekeeper/v3)
    rm -rf "$GK_DIR/crds" && cp -r "$source_dir/manifest_staging/charts/gatekeeper/crds" "$GK_DIR/crds"
    mv "$GK_DIR/manager.tmp" "$GK_DIR/manager"
  fi
  rm -rf "$WORK"; trap - EXIT   # server.sh's work folder: the run below makes its own
  if unshare -n true 2>/dev/null; then
    exec env REMOLD_COMPARE_INSIDE=netns unshare -n "$0" --rules "$RULE_COUNTS"
  fi
  log "unshare -n is not allowed here: running on the host's loopback"
  exec env REMOLD_COMPARE_INSIDE=host "$0" --rules "$RULE_COUNTS"
fi

[ "$REMOLD_COMPARE_INSIDE" = netns ] && ip link set lo up
. "$HERE/server.sh"
CP="$WORK/control-plane"
GK_PID=""
stop_all() {
  [ -n "$GK_PID" ] && { kill "$GK_PID" 2>/dev/null; wait "$GK_PID" 2>/dev/null || true; }
  GK_PID=""
  stop_server
  REMOLD_E2E_STATE="$CP" "$HERE/../e2e/control-plane.sh" stop || true
  rm -rf "$WORK"
}
trap stop_all EXIT

wait_until() { # wait_until SECONDS DESCRIPTION COMMAND...
  local limit=$1 what=$2 t0=$SECONDS
  shift 2
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS - t0 > limit)); then log "timed out waiting for $what"; tail -20 "$WORK/gatekeeper.log" >&2; exit 1; fi
    sleep 1
  done
}
# The benchmark review must come back with the two operations both systems are configured to make.
check_patch() {
  curl -ksS -H 'Content-Type: application/json' --data-binary @"$BODY" "$1" | python3 -c '
import base64, json, sys
response = json.load(sys.stdin)["response"]
patch = json.loads(base64.b64decode(response.get("patch", "")) or "[]")
assert response["allowed"] and sorted(op["op"] for op in patch) == ["add", "replace"], response
print("compare: " + sys.argv[1] + " answers " + json.dumps(patch), file=sys.stderr)' "$1"
}
enforced() {
  [ "$(kubectl get mutatorpodstatuses -n gatekeeper-system \
    -o jsonpath='{range .items[*]}{.status.enforced}{"\n"}{end}' | grep -c '^true$')" -ge "$1" ]
}

REMOLD_E2E_STATE="$CP" "$HERE/../e2e/control-plane.sh" start
eval "$(REMOLD_E2E_STATE="$CP" "$HERE/../e2e/control-plane.sh" env)"
kubectl apply --server-side -f "$GK_DIR/crds/" >/dev/null
kubectl wait --for=condition=Established crd --all --timeout=60s >/dev/null
kubectl create namespace gatekeeper-system >/dev/null
kubectl create namespace shop >/dev/null   # Gatekeeper looks the request's namespace up
mkdir -p "$WORK/gatekeeper-certs"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=127.0.0.1 \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$WORK/gatekeeper-certs/tls.key" \
  -out "$WORK/gatekeeper-certs/tls.crt" 2>/dev/null

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores, Gatekeeper $GATEKEEPER_VERSION, network: $REMOLD_COMPARE_INSIDE"
for count in $RULE_COUNTS; do
  java -cp benchmarks/target/remold-benchmarks.jar io.remold.benchmarks.ComparisonRules "$count" "$WORK/rules-$count"

  kubectl delete assign,assignmetadata,mutatorpodstatuses -A --all >/dev/null
  kubectl create -f "$WORK/rules-$count/gatekeeper.yaml" >/dev/null
  port=$(free_port); health=$(free_port)
  "$GK_DIR/manager" --operation=mutation-webhook --host=127.0.0.1 --port="$port" \
    --cert-dir="$WORK/gatekeeper-certs" --disable-cert-rotation --enable-external-data=false --debug-use-fake-pod \
    --health-addr="127.0.0.1:$health" --metrics-addr="127.0.0.1:$(free_port)" --prometheus-port="$(free_port)" \
    --shutdown-delay=0 >"$WORK/gatekeeper.log" 2>&1 &
  GK_PID=$!
  wait_until 300 "Gatekeeper's /readyz" curl -sf "http://127.0.0.1:$health/readyz"
  wait_until 300 "$count enforced mutators" enforced "$count"
  url="https://127.0.0.1:$port/v1/mutate"
  check_patch "$url"
  echo "rules=$count gatekeeper: $("$HERE/load.sh" --url "$url" --pid "$GK_PID" 2>&1 | tr '\n' ' ')"
  kill "$GK_PID"; wait "$GK_PID" 2>/dev/null || true
  GK_PID=""

  start_server "$WORK/rules-$count/remold"
  url="https://127.0.0.1:$PORT/mutate"
  check_patch "$url"
  echo "rules=$count remold: $("$HERE/load.sh" --url "$url" --pid "$PID" 2>&1 | tr '\n' ' ')"
  stop_server
done
