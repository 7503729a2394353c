#!/usr/bin/env bash
# The server's memory and latency with one script rule (a ClusterJsAdmission adding a label to Deployments), with
# GraalJS in interpreter mode (the default) and with its optimizing runtime (REMOLD_SCRIPT_COMPILER=1: Graal's
# compiler through JVMCI, docs/scripts.md). For each mode: RSS once ready, then RATE /mutate requests/s for DURATION seconds
# (RATE, default 200/s; DURATION, default 60 s) through the project's LoadGenerator, and the RSS and peak RSS (VmHWM) after. BENCHMARKS.md,
# "Script rules in the engine (GraalJS)".
set -euo pipefail
. "$(dirname "$0")/server.sh"
RATE=${RATE:-200}
DURATION=${DURATION:-60}
mkdir -p "$WORK/rules"
cat >"$WORK/rules/label.yaml" <<'RULE'
apiVersion: momiji.com/v1
kind: ClusterJsAdmission
metadata: {name: label}
spec:
  kinds: [deployments]
  js: |
    function jsa_mutate(op, obj) {
      obj.metadata.labels = obj.metadata.labels || {};
      obj.metadata.labels['scripted'] = 'yes';
      return { Allowed: true, Result: obj };
    }
RULE
hwm_mib() { awk '/VmHWM/ {printf "%.0f", $2/1024}' "/proc/$PID/status"; }
measure() {
  local label=$1; shift
  start_server "$WORK/rules" "$@"
  local ready_rss
  ready_rss=$(rss_mib)
  java -cp benchmarks/target/remold-benchmarks.jar io.remold.benchmarks.LoadGenerator --insecure \
    --url "https://127.0.0.1:$PORT/mutate" --body "$BODY" --rate "$RATE" --duration "$DURATION" \
    --warmup 5 --connections 4 >"$WORK/load.txt" 2>&1 || { cat "$WORK/load.txt" >&2; exit 1; }
  echo "$label: $(grep -m1 'script rules run' "$WORK/server.log" | sed 's/.*script rules/script rules/')"
  echo "  RSS ready ${ready_rss} MiB, after load $(rss_mib) MiB, peak $(hwm_mib) MiB"
  sed 's/^/  /' "$WORK/load.txt" | tail -6
  stop_server
}
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores (load $(cut -d' ' -f1-3 /proc/loadavg)), $(java -version 2>&1 | head -1), flags: $JVM_FLAGS, $RATE requests/s for $DURATION s"
measure "interpreter"
measure "optimizing runtime" -XX:+UnlockExperimentalVMOptions -XX:+EnableJVMCI \
  --upgrade-module-path=server/target/graal-compiler
