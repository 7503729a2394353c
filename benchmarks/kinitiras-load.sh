#!/usr/bin/env bash
# Remold against kinitiras's own webhook on the same policies, the same AdmissionReview and the same load (issue 26).
# Run it as `benchmarks/compare.sh --family kinitiras`, which comes here:
#
#   benchmarks/compare.sh --family kinitiras                          # plaintext, template, cue; 1 and 10 policies
#   benchmarks/compare.sh --family kinitiras --forms cue --rules 10   # one form, one policy count
#   DURATION=3 WARMUP=3 benchmarks/compare.sh --family kinitiras      # a smoke run
#
# kinitiras is the harness's `serve` mode (kinitiras/cmd/harness/serve.go): its webhook's handlers, listers and
# controller-runtime webhook server, built from the unchanged source, with the policies read from files instead of
# an API server, and GOMAXPROCS the machine's cores (CPUS, kinitiras's own setting). Remold is `serve --rules` on
# the same files. For each form and count (KinitirasPolicies: every policy selects the benchmark Pod), the script
# first requires both to make the same, changed, Pod of kinitiras-review.json (Differential same), then loads
# /mutate with load.sh --url --pid, interleaved: kinitiras, Remold, kinitiras, Remold. Both servers stay up for the
# four runs; only the loaded one works. DURATION and WARMUP (seconds) are load.sh's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
POLICY_COUNTS="1 10"
FORMS="plaintext template cue"
while [ $# -gt 0 ]; do
  case "$1" in
    --rules) POLICY_COUNTS=$2; shift 2 ;;
    --forms) FORMS=$2; shift 2 ;;
    --family) [ "$2" = kinitiras ] || { echo "$0 compares the kinitiras family only" >&2; exit 2; }; shift 2 ;;
    -h|--help) sed -n 2,15p "$0"; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done

export BODY=$here/src/main/resources/io/remold/benchmarks/kinitiras-review.json
. "$here/server.sh"   # the repository's root; builds the jars when missing; WORK, start_server, free_port
need openssl
engine=v0.4.5
. "$here/kinitiras/harness.sh"

KIN_PID=""
stop_kinitiras() {
  [ -n "$KIN_PID" ] && { kill "$KIN_PID" 2>/dev/null; wait "$KIN_PID" 2>/dev/null || true; }
  KIN_PID=""
}
stop_all() {
  logs_if_failed $? "$WORK/kinitiras.log" "$WORK/server.log"
  stop_kinitiras
  stop_server
  rm -rf "$WORK"
}
trap stop_all EXIT

mkdir -p "$WORK/kinitiras-certs"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=127.0.0.1 \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$WORK/kinitiras-certs/tls.key" \
  -out "$WORK/kinitiras-certs/tls.crt" 2>/dev/null

# start_kinitiras DIR: kinitiras's webhook with the policies of DIR; sets KIN_PID and KIN_URL.
start_kinitiras() {
  local port
  port=$(free_port)
  CPUS=$(nproc) "$harness" serve --policies "$1" --port "$port" --cert-dir "$WORK/kinitiras-certs" \
    >"$WORK/kinitiras.log" 2>&1 &
  KIN_PID=$!
  KIN_URL="https://127.0.0.1:$port/mutate"
  until curl -ksf "https://127.0.0.1:$port/readyz" >/dev/null 2>&1; do
    if ! kill -0 "$KIN_PID" 2>/dev/null; then cat "$WORK/kinitiras.log" >&2; exit 1; fi
    sleep 0.1
  done
}
# answer NAME URL: the webhook's answer to the benchmark review, kept as $WORK/answer-NAME.json.
answer() {
  curl -ksS -H 'Content-Type: application/json' --data-binary @"$BODY" "$2" >"$WORK/answer-$1.json"
}
# load NAME URL PID: one load.sh run, on one line.
load() {
  echo "form=$form policies=$count $1: $(benchmarks/load.sh --url "$2" --body "$BODY" --pid "$3" 2>&1 | tr '\n' ' ')"
}

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores, kinitiras webhook with k-cloud-labs/pkg $engine" \
  "(GOMAXPROCS $(nproc)), $(java -version 2>&1 | head -1), warm-up ${WARMUP:-10} s, load ${DURATION:-20} s"
for form in $FORMS; do
  for count in $POLICY_COUNTS; do
    policies="$WORK/policies-$form-$count"
    java -cp benchmarks/target/remold-benchmarks.jar io.remold.benchmarks.KinitirasPolicies "$form" "$count" \
      "$policies/policies.yaml"
    start_kinitiras "$policies"
    start_server "$policies"
    remold_url="https://127.0.0.1:$PORT/mutate"
    answer kinitiras "$KIN_URL"
    answer remold "$remold_url"
    java -cp benchmarks/target/remold-benchmarks.jar io.remold.benchmarks.Differential same "$BODY" \
      "$WORK/answer-kinitiras.json" "$WORK/answer-remold.json" >&2
    for round in 1 2; do
      load "kinitiras (round $round)" "$KIN_URL" "$KIN_PID"
      load "remold (round $round)" "$remold_url" "$PID"
    done
    stop_kinitiras
    stop_server
  done
done
