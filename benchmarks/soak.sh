#!/usr/bin/env bash
# Soak test (issue 16; results go to BENCHMARKS.md, section "Soak"): the Remold server in cluster mode against a real
# kube-apiserver + etcd of its own, under a fixed open-loop load on /mutate and /validate, while every second ModRules
# are created, changed and deleted and namespaces and nodes are created, relabelled and deleted.
#
#   benchmarks/soak.sh                          # 2 minutes at 1,000 requests/s
#   benchmarks/soak.sh --minutes 30 --rate 1000
#   benchmarks/soak.sh --minutes 5 --rate 500 --settle-ms 800 --rules 100   # other options go to the Soak class
#
# Passes (exit 0) when there was no 5xx and no transport error, every sampled answer (1 in 100) equals what the
# engine decides in-process for the rules, namespaces and nodes present at that moment, and the server's RSS after the
# warm-up grows by no more than --max-rss-slope MiB/min (default 1.0; least squares). See io.remold.benchmarks.Soak.
#
# Steps: e2e/control-plane.sh start under REMOLD_E2E_STATE (default /tmp/remold-soak-cp, so that it does not meet
# the e2e tests' cluster); the installer's out-of-cluster bundle (--webhook-url, --ca-file) applied with kubectl; the
# server as `java -jar remold-server.jar serve --kubeconfig ...` (a copy of the built jar) with the recommended JVM
# flags (server.sh) but the heap committed up front (below); kubectl proxy for the churn's API calls. Everything is stopped at the end; the server log is kept in the state dir.
set -euo pipefail

MINUTES=2
RATE=1000
SOAK_ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) MINUTES=$2; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    -h|--help) sed -n 2,17p "$0"; exit 0 ;;
    --*) SOAK_ARGS+=("$1" "$2"); shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done

# The heap is committed and touched at start (-Xms = -Xmx, AlwaysPreTouch): with the recommended -Xms64m the Serial
# GC grows the heap towards -Xmx128m for the first hour at this rate, and RSS follows; with the heap fixed, a rising
# RSS is a leak (BENCHMARKS.md, section 6). REMOLD_JVM_FLAGS still overrides.
: "${REMOLD_JVM_FLAGS:=-XX:+UseSerialGC -Xms128m -Xmx128m -XX:+AlwaysPreTouch -XX:MaxNewSize=24m -Xss512k -XX:+UseCompactObjectHeaders -XX:TrimNativeHeapInterval=1000 -XX:+ExitOnOutOfMemoryError}"
export REMOLD_JVM_FLAGS
. "$(dirname "$0")/server.sh"
need kubectl
[ -f installer/target/remold-installer.jar ] || ./mvnw -B -q -DskipTests -pl installer -am package >&2
export REMOLD_E2E_STATE=${REMOLD_E2E_STATE:-/tmp/remold-soak-cp}
PROXY_PID=""
cleanup() {
  [ -n "$PROXY_PID" ] && kill "$PROXY_PID" 2>/dev/null || true
  stop_server
  [ -f "$WORK/server.log" ] && cp "$WORK/server.log" "$REMOLD_E2E_STATE/remold-server.log"
  e2e/control-plane.sh stop
  rm -rf "$WORK"
}
trap cleanup EXIT

# Private copies of the jars: a build in this checkout during the run would otherwise change the classes under the
# running server (seen: NoClassDefFoundError answered as 500s) or the harness.
mkdir -p "$WORK/server"
cp -r "$SERVER_JAR" "$(dirname "$SERVER_JAR")/libs" "$WORK/server/"
cp benchmarks/target/remold-benchmarks.jar "$WORK/"

e2e/control-plane.sh start
eval "$(e2e/control-plane.sh env)"

PORT=$(free_port)
ADMIN_PORT=$(free_port)
java -jar installer/target/remold-installer.jar --webhook-url "https://127.0.0.1:$PORT" --ca-file "$REMOLD_E2E_CA" \
  >"$WORK/bundle.yaml"
kubectl apply -f "$WORK/bundle.yaml" >/dev/null
kubectl wait --for condition=established --timeout=60s crd/modrules.remold.io >/dev/null

# shellcheck disable=SC2086
java $JVM_FLAGS -jar "$WORK/server/$(basename "$SERVER_JAR")" serve --kubeconfig "$KUBECONFIG" --host 127.0.0.1 --port "$PORT" \
  --admin-port "$ADMIN_PORT" \
  --tls-cert "$REMOLD_E2E_WEBHOOK_CERT" --tls-key "$REMOLD_E2E_WEBHOOK_KEY" --log-format text >"$WORK/server.log" 2>&1 &
PID=$!
until curl -sf --cacert "$REMOLD_E2E_CA" "https://127.0.0.1:$PORT/readyz" >/dev/null 2>&1; do
  if ! kill -0 "$PID" 2>/dev/null; then cat "$WORK/server.log" >&2; exit 1; fi
  sleep 0.2
done

PROXY_PORT=$(free_port)
kubectl proxy --port "$PROXY_PORT" >"$WORK/proxy.log" 2>&1 &
PROXY_PID=$!
until curl -sf "http://127.0.0.1:$PROXY_PORT/readyz" >/dev/null 2>&1; do sleep 0.2; done

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1), server JVM flags: $JVM_FLAGS"
# The harness shares the cores with the server and the API server: a small serial-GC JVM, as for load.sh.
java -XX:+UseSerialGC -Xmx384m -cp "$WORK/remold-benchmarks.jar" io.remold.benchmarks.Soak \
  --webhook "https://127.0.0.1:$PORT" --admin "http://127.0.0.1:$ADMIN_PORT" --ca "$REMOLD_E2E_CA" --api "http://127.0.0.1:$PROXY_PORT" --pid "$PID" \
  --minutes "$MINUTES" --rate "$RATE" ${SOAK_ARGS[@]+"${SOAK_ARGS[@]}"}
