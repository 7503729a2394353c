#!/usr/bin/env bash
# Startup footprint: time from process start to /readyz = 200 and idle RSS, for the server jar with 1000 rules,
# with the recommended JVM flags, with and without a JDK 25 AOT cache (JEP 483/514) trained on one run, and with
# the self-signed certificate generated at start (the default out of a cluster) or read from files (as in the
# cluster, where the certgen job writes them).
#
#   benchmarks/startup.sh [RUNS]      # default 5 runs per configuration; prints the median
set -euo pipefail
. "$(dirname "$0")/server.sh"
RUNS=${1:-5}
rule_mix 1000 "$WORK/rules"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

measure() {
  local label=$1; shift
  local times=() rss=()
  for _ in $(seq "$RUNS"); do
    start_server "$WORK/rules" "$@"
    times+=("$READY_MS")
    sleep 1
    rss+=("$(rss_mib)")
    stop_server
  done
  echo "$label: ready median $(printf '%s\n' "${times[@]}" | median) ms (runs: ${times[*]}),"\
    "idle RSS median $(printf '%s\n' "${rss[@]}" | median) MiB"
}

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores, $(java -version 2>&1 | head -1), 1000 rules, flags: $JVM_FLAGS"
measure "default flags, self-signed certificate"
SERVER_ARGS="--generated-cert-dir $WORK/tls" start_server "$WORK/rules"
stop_server
CERT_FILES="--tls-cert $WORK/tls/tls.crt --tls-key $WORK/tls/tls.key"
SERVER_ARGS=$CERT_FILES measure "default flags, certificate files"
# Training run: exercise the endpoints so the AOT cache holds the classes of the request path.
start_server "$WORK/rules" -XX:AOTCacheOutput="$WORK/remold.aot"
for path in mutate validate; do
  for _ in $(seq 200); do
    curl -ks -o /dev/null -H 'Content-Type: application/json' --data-binary "@$BODY" "https://127.0.0.1:$PORT/$path"
  done
done
stop_server
measure "with AOT cache, self-signed certificate" -XX:AOTCache="$WORK/remold.aot"
SERVER_ARGS=$CERT_FILES measure "with AOT cache, certificate files" -XX:AOTCache="$WORK/remold.aot"
