# Sourced after server.sh by load.sh and external.sh: the load on one URL, CONNECTIONS keep-alive connections POSTing
# BODY, WARMUP then DURATION seconds. saturate: wrk (Debian package, installed if missing), closed loop; wrk adds
# samples for requests a slow response held back (its coordinated-omission correction), so its percentiles are those
# of an open loop at the measured rate. fixed_rate: the project's LoadGenerator, open loop at a given rate.
need wrk

cat >"$WORK/post.lua" <<EOF
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = assert(io.open("$BODY", "rb"))
wrk.body = f:read("*a")
f:close()
EOF

# CPU time (user + system, in clock ticks) a process and its children have used so far, the children's whether live
# or ended (Remold's CUE workers run cuelang.org/go in processes of their own).
cpu_ticks() {
  local pid ticks total=0
  for pid in "$1" $(pgrep -P "$1"); do
    ticks=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$pid/stat" 2>/dev/null) || ticks=0   # 0: it has just ended
    total=$((total + ticks))
  done
  echo "$total"
}
# The part of it in the JIT compiler's threads (those alive now): a server still warming up spends much of its CPU
# compiling, which a short run counts per request.
jit_ticks() { awk '{n += $14 + $15} END {print n + 0}' $(grep -l '^C[12] CompilerThre' /proc/"$1"/task/*/comm | sed 's/comm$/stat/'); }

# Saturation throughput (requests/s) and wrk's latency percentiles for one URL; with a server PID ($2), also the
# server's CPU time per request (its child processes' included), which does not depend on how much of the two cores
# the load generator takes.
saturate() {
  local url=$1 pid=${2:-} out ticks0=0 ticks1=0 jit0=0 jit1=0 cpu=""
  # A 10 s timeout, not wrk's 2 s: a slow webhook's answers count (kinitiras with 10 template policies on a busy
  # machine), rather than its work being dropped.
  wrk -t1 -c"$CONNECTIONS" -d"${WARMUP}s" --timeout 10s -s "$WORK/post.lua" "$url" >/dev/null
  [ -n "$pid" ] && ticks0=$(cpu_ticks "$pid") && jit0=$(jit_ticks "$pid")
  out=$(wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --timeout 10s --latency -s "$WORK/post.lua" "$url")
  [ -n "$pid" ] && ticks1=$(cpu_ticks "$pid") && jit1=$(jit_ticks "$pid")
  local rps errors p50 p99 requests
  rps=$(awk '/Requests\/sec/ {printf "%.0f", $2}' <<<"$out")
  requests=$(awk '/requests in/ {print $1}' <<<"$out")
  errors=$(awk '/Non-2xx|Socket errors/ {print}' <<<"$out" | tr '\n' ' ')
  p50=$(awk '$1=="50%" {print $2}' <<<"$out")
  p99=$(awk '$1=="99%" {print $2}' <<<"$out")
  if [ -n "$pid" ] && [ "${requests:-0}" -gt 0 ]; then
    cpu=" server_cpu=$(awk -v t=$((ticks1 - ticks0)) -v hz="$(getconf CLK_TCK)" -v n="$requests" \
      'BEGIN {printf "%.1f", t / hz * 1e6 / n}')us/request"
    cpu+=" of_which_jit=$(awk -v t=$((jit1 - jit0)) -v hz="$(getconf CLK_TCK)" -v n="$requests" \
      'BEGIN {printf "%.1f", t / hz * 1e6 / n}')us/request"
  fi
  echo "saturation url=$url connections=$CONNECTIONS throughput=${rps}/s p50=$p50 p99=$p99$cpu ${errors:+errors: $errors}" >&2
  echo "$rps"
}

fixed_rate() {
  # The generator shares the cores with the server: a small serial-GC JVM keeps its own pauses out of the tail.
  java -XX:+UseSerialGC -Xmx256m -cp benchmarks/target/remold-benchmarks.jar io.remold.benchmarks.LoadGenerator \
    --url "$1" --body "$BODY" \
    --rate "$2" --duration "$DURATION" --warmup "$WARMUP" --connections "$CONNECTIONS" --insecure
}
