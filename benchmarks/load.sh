#!/usr/bin/env bash
# Server load and footprint benchmark (results go to BENCHMARKS.md).
#
#   benchmarks/load.sh                       # Remold with 100 and 1000 rules: ready time, RSS, saturation, fixed rate
#   benchmarks/load.sh --rules "1000"        # one rule count
#   benchmarks/load.sh --url https://host:port/mutate [--body FILE] [--pid PID]   # any webhook (KubeMod, Gatekeeper...),
#                                            # same load; with --pid, also the CPU that process spends per request
#   REMOLD_SERVER_JAR=path/remold-server.jar benchmarks/load.sh   # another build of the server
#   benchmarks/load.sh --shadow              # also: the same rules plus a Shadow copy of each (docs/modes.md), at
#                                            # the same fixed rates: what Shadow rules cost admission latency
#   REMOLD_SHADOW_CPU_SHARE=1 benchmarks/load.sh --shadow   # any server key from the environment: here the Shadow
#                                            # evaluations' CPU share (default 0.25; skipped ones: dropped cpu=)
#
# Saturation uses wrk (Debian package, installed if missing) with a Lua script that POSTs an AdmissionReview; the fixed
# rate runs use the project's LoadGenerator (open loop, latency corrected for coordinated omission). /noop is a
# handler in the same server that reads the body and answers a constant AdmissionReview: the ceiling of the harness.
set -euo pipefail

RULE_COUNTS="100 1000"
DURATION=${DURATION:-20}
WARMUP=${WARMUP:-10}
CONNECTIONS=${CONNECTIONS:-16}
URL=""
PID_ARG=""
SHADOW=""

while [ $# -gt 0 ]; do
  case "$1" in
    --rules) RULE_COUNTS=$2; shift 2 ;;
    --url) URL=$2; shift 2 ;;
    --body) BODY=$(realpath "$2"); shift 2 ;;
    --pid) PID_ARG=$2; shift 2 ;;
    --duration) DURATION=$2; shift 2 ;;
    --shadow) SHADOW=1; shift ;;
    -h|--help) sed -n 2,14p "$0"; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done

. "$(dirname "$0")/server.sh"
. benchmarks/load-tools.sh

if [ -n "$URL" ]; then
  rps=$(saturate "$URL" "$PID_ARG")
  fixed_rate "$URL" $((rps > 1 ? rps / 2 : 1))   # rate 0 would be the generator's saturation mode
  exit 0
fi

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores, $(java -version 2>&1 | head -1), JVM flags: $JVM_FLAGS"
for count in $RULE_COUNTS; do
  rules="$WORK/rules-$count"
  rule_mix "$count" "$rules"
  start_server "$rules"
  sleep 2
  echo "rules=$count ready=${READY_MS}ms rss_idle=$(rss_mib)MiB"
  base="https://127.0.0.1:$PORT"
  noop=$(saturate "$base/noop" "$PID")
  mutate=$(saturate "$base/mutate" "$PID")
  validate=$(saturate "$base/validate" "$PID")
  echo "rules=$count rss_after_load=$(rss_mib)MiB"
  echo "rules=$count saturation noop=${noop}/s mutate=${mutate}/s ($((100 * mutate / noop))% of noop) validate=${validate}/s"
  for endpoint in mutate validate; do
    rate=$(( ${!endpoint} / 2 ))
    echo "rules=$count $endpoint at half saturation: $(fixed_rate "$base/$endpoint" "$rate")"
  done
  # The same fixed rate on /noop: the latency floor of this harness on this machine.
  echo "rules=$count noop at mutate's half saturation: $(fixed_rate "$base/noop" $((mutate / 2)))"
  echo "rules=$count mutate at 2500/s: $(fixed_rate "$base/mutate" 2500)"
  echo "rules=$count noop at 2500/s: $(fixed_rate "$base/noop" 2500)"
  echo "rules=$count rss_under_load=$(rss_mib)MiB"
  stop_server
  if [ -n "$SHADOW" ]; then
    # Every rule twice: as it is, and renamed in mode Shadow (evaluated after each answer on the shadow worker).
    shadowed="$WORK/rules-$count-shadow"
    mkdir -p "$shadowed"
    cp "$rules/rules.yaml" "$shadowed/rules.yaml"
    sed -e 's/^  name: \(.*\)$/  name: \1-shadow/' -e 's/^spec:$/spec:\n  mode: Shadow/' "$rules/rules.yaml" \
      > "$shadowed/shadow.yaml"
    start_server "$shadowed"
    sleep 2
    base="https://127.0.0.1:$PORT"
    for endpoint in mutate validate; do
      rate=$(( ${!endpoint} / 2 ))
      echo "rules=$count+$count shadow $endpoint at half saturation: $(fixed_rate "$base/$endpoint" "$rate")"
    done
    echo "rules=$count+$count shadow mutate at 2500/s: $(fixed_rate "$base/mutate" 2500)"
    echo "rules=$count+$count shadow dropped: $(curl -s "http://127.0.0.1:$ADMIN_PORT/metrics" \
      | sed -n 's/^remold_shadow_dropped_total{reason="\(.*\)"} /\1=/p' | paste -sd' ')"
    stop_server
  fi
done
