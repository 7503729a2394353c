# Sourced by load.sh and startup.sh: the JDK, the jars, a work folder, and starting and stopping the server.
# REMOLD_SERVER_JAR selects another build of the server; REMOLD_JVM_FLAGS other JVM flags.
cd "$(dirname "$0")/.."
. scripts/java-home.sh
# The JVM flags we recommend for the server (also used by the installer's Deployment).
JVM_FLAGS=${REMOLD_JVM_FLAGS:--XX:+UseSerialGC -Xms64m -Xmx128m -XX:MaxNewSize=24m -Xss512k -XX:+UseCompactObjectHeaders -XX:TrimNativeHeapInterval=1000 -XX:+ExitOnOutOfMemoryError}
BODY=$(realpath "${BODY:-benchmarks/src/main/resources/io/remold/benchmarks/admission-review.json}")
SERVER_JAR=${REMOLD_SERVER_JAR:-server/target/remold-server.jar}

need() {
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$tool" >/dev/null; }
  done
}
need curl python3
if [ ! -f "$SERVER_JAR" ] || [ ! -f benchmarks/target/remold-benchmarks.jar ]; then
  ./mvnw -B -q -DskipTests -pl server,benchmarks -am package >&2
fi

WORK=$(mktemp -d)
PID=""
stop_server() {
  if [ -n "$PID" ]; then kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; fi
  PID=""
}
trap 'stop_server; rm -rf "$WORK"' EXIT

# logs_if_failed STATUS LOG...: when a script ends with STATUS other than 0, what each server said last, before the
# work folder goes.
logs_if_failed() {
  local status=$1 f
  shift
  [ "$status" -eq 0 ] && return 0
  for f in "$@"; do [ -f "$f" ] && { echo "$(basename "$0" .sh): $f:" >&2; tail -15 "$f" >&2; }; done
  return 0
}
rule_mix() { java -cp benchmarks/target/remold-benchmarks.jar io.remold.benchmarks.RuleMix "$1" "$2"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
rss_mib() { awk '/VmRSS/ {printf "%.0f", $2/1024}' "/proc/$PID/status"; }

# start_server RULES_DIR [JVM flags...]: sets PID, PORT, ADMIN_PORT (plain HTTP: /metrics) and READY_MS
# (milliseconds from start to /readyz = 200).
# SERVER_ARGS holds extra arguments for `serve` (e.g. --tls-cert and --tls-key).
start_server() {
  local rules=$1 t0 admin
  shift
  PORT=$(free_port)
  ADMIN_PORT=$(free_port)
  admin=(--admin-port "$ADMIN_PORT")
  # Builds before the admin listener (7b624bf and older) refuse the option: WITHOUT_ADMIN_PORT=1 leaves it out.
  if [ "${WITHOUT_ADMIN_PORT:-}" = 1 ]; then admin=(); fi
  t0=$(date +%s%3N)
  # shellcheck disable=SC2086
  java $JVM_FLAGS "$@" -jar "$SERVER_JAR" serve --rules "$rules" --host 127.0.0.1 --port "$PORT" \
    "${admin[@]}" ${SERVER_ARGS:-} \
    >"$WORK/server.log" 2>&1 &
  PID=$!
  until curl -ksf "https://127.0.0.1:$PORT/readyz" >/dev/null 2>&1; do
    if ! kill -0 "$PID" 2>/dev/null; then cat "$WORK/server.log" >&2; exit 1; fi
    sleep 0.01
  done
  READY_MS=$(( $(date +%s%3N) - t0 ))
}
