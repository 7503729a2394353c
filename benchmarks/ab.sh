#!/usr/bin/env bash
# Interleaved A/B of two server builds on the same rules: saturation of /mutate and /validate (wrk, as load.sh),
# base then this build, ROUNDS times, so that the machine's drift falls on both alike.
#
#   benchmarks/ab.sh BASE_JAR [--rules N] [--rounds R]
#
# BASE_JAR is another build's remold-server.jar (its libs/ beside it), e.g. one built from an older commit with
# `git worktree add /tmp/base COMMIT && (cd /tmp/base && ./mvnw -B -q -DskipTests -pl server -am package)`.
# The base is started without --admin-port (builds before the admin listener do not know it).
set -euo pipefail
BASE_JAR=$(realpath "${1:?usage: benchmarks/ab.sh BASE_JAR [--rules N] [--rounds R]}")
shift
RULES=1000
ROUNDS=2
while [ $# -gt 0 ]; do
  case "$1" in
    --rules) RULES=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
DURATION=${DURATION:-15}
# 40 s: after 8 s the server was still compiling, which counted as CPU per request (BENCHMARKS.md, "The cause of
# /mutate's extra CPU, and the fix"); saturate's of_which_jit shows what is left of it.
WARMUP=${WARMUP:-40}
CONNECTIONS=${CONNECTIONS:-16}
. "$(dirname "$0")/server.sh"
. benchmarks/load-tools.sh
rule_mix "$RULES" "$WORK/rules" >/dev/null

for round in $(seq "$ROUNDS"); do
  for build in base this; do
    if [ "$build" = base ]; then SERVER_JAR=$BASE_JAR WITHOUT_ADMIN_PORT=1 start_server "$WORK/rules"
    else start_server "$WORK/rules"; fi
    for endpoint in mutate validate; do
      echo "round=$round build=$build rules=$RULES endpoint=/$endpoint" >&2
      saturate "https://127.0.0.1:$PORT/$endpoint" "$PID" >/dev/null
    done
    stop_server
  done
done
