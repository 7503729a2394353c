#!/usr/bin/env bash
# Admission under a faulty external data provider (results go to BENCHMARKS.md, "External data (issue 17)").
#
#   benchmarks/external.sh                   # RULES=1000 ROUNDS=1 DURATION=15 WARMUP=5 CONNECTIONS=16 RATE=2500
#   STATES="none slow" benchmarks/external.sh   # some of the states
#
# Runs `serve --rules DIR` with the RuleMix (RULES rules) in four states, a fresh server each, ROUNDS times in turn:
#   none     the plain mix: the matching rule rewrites docker.io images with regexReplaceAll (no external call);
#   healthy  the matching rule asks the Provider registry-mirror instead (RuleMix external), which answers;
#   down     the same Provider URL pointing at a loopback port nothing listens on (connection refused);
#   slow     the Provider answers after 5 s, past its 1 s timeout.
# The Provider (failurePolicy Ignore, cacheTTL 5m, timeout 1s) is a LoopbackProvider process. For each state:
# /mutate saturation with wrk (throughput, p50, p99, server CPU per request, errors), then RATE requests/s with the
# LoadGenerator (open loop: every request held back by a provider wait counts), the provider's POSTs over both,
# and the server's remold_external_* counters.
set -euo pipefail

RULES=${RULES:-1000}
ROUNDS=${ROUNDS:-1}
DURATION=${DURATION:-15}
WARMUP=${WARMUP:-5}
CONNECTIONS=${CONNECTIONS:-16}
STATES=${STATES:-none healthy down slow}
RATE=${RATE:-2500}

. "$(dirname "$0")/server.sh"
. benchmarks/load-tools.sh

PROVIDER_PID=""
trap 'stop_server; [ -n "$PROVIDER_PID" ] && kill "$PROVIDER_PID" 2>/dev/null; rm -rf "$WORK"' EXIT
java -XX:+UseSerialGC -Xmx64m -cp benchmarks/target/remold-benchmarks.jar io.remold.benchmarks.LoopbackProvider \
  "$WORK/providers" >"$WORK/provider.log" 2>&1 &
PROVIDER_PID=$!
until grep -q '^ready' "$WORK/provider.log" 2>/dev/null; do
  if ! kill -0 "$PROVIDER_PID" 2>/dev/null; then cat "$WORK/provider.log" >&2; exit 1; fi
  sleep 0.1
done

rule_mix "$RULES" "$WORK/plain"
java -cp benchmarks/target/remold-benchmarks.jar io.remold.benchmarks.RuleMix "$RULES" "$WORK/external" external
provider_posts() { grep -c '^post' "$WORK/provider.log" || true; }

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(nproc) cores, $(java -version 2>&1 | head -1), rules=$RULES," \
  "warm-up ${WARMUP}s, measured ${DURATION}s, JVM flags: $JVM_FLAGS"
for round in $(seq "$ROUNDS"); do
  for state in $STATES; do
    rules="$WORK/run-$state"
    rm -rf "$rules" && mkdir -p "$rules"
    if [ "$state" = none ]; then
      cp "$WORK/plain/rules.yaml" "$rules/"
    else
      cp "$WORK/external/rules.yaml" "$rules/"
      cp "$WORK/providers/$state.yaml" "$rules/provider.yaml"
    fi
    posts0=$(provider_posts)
    start_server "$rules"
    line=$(saturate "https://127.0.0.1:$PORT/mutate" "$PID" 2>&1 >/dev/null)
    rate=$(fixed_rate "https://127.0.0.1:$PORT/mutate" "$RATE" || true)
    counters=$(curl -sf "http://127.0.0.1:$ADMIN_PORT/metrics" | awk '/^remold_external_[a-z_]+\{/ {
      sub(/remold_external_/, ""); sub(/_total\{provider="registry-mirror"\}/, ""); printf "%s=%s ", $1, $2 }')
    posts=$(( $(provider_posts) - posts0 ))
    echo "round=$round state=$state ${line#saturation }"
    echo "round=$round state=$state ${rate#url=*/mutate }"
    echo "round=$round state=$state provider_posts=$posts server_counters: ${counters:-none}"
    if [ "$state" = healthy ] && [[ "$counters" != "calls=1 "* ]]; then
      echo "warning: the server did not call the healthy provider exactly once (see $WORK/server.log)" >&2
    fi
    stop_server
  done
done
