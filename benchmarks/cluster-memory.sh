#!/usr/bin/env bash
# Cluster-mode memory under load (results go to BENCHMARKS.md, "Cluster-mode memory").
#
#   benchmarks/cluster-memory.sh                      # 10, 1,000 and 10,000 ModRules
#   benchmarks/cluster-memory.sh --rules "10 1000"    # some rule counts (ascending)
#   RATE=1000 DURATION=30 WARMUP=15 benchmarks/cluster-memory.sh     # the defaults
#   REMOLD_SERVER_JAR=path/remold-server.jar benchmarks/cluster-memory.sh   # another build of the server
#   KEEP_HEAP_DUMP=/tmp/cm benchmarks/cluster-memory.sh --rules 10000      # keep /tmp/cm-10000.hprof to look into
#
# Starts its own control plane (e2e/control-plane.sh; state in REMOLD_E2E_STATE, default /tmp/remold-cluster-memory),
# creates 1,000 namespaces and 100 nodes (as a kubelet reports them: 50 images, conditions, addresses; no kubelet
# runs) and the ModRules of RuleMix, then for each rule count runs `serve --kubeconfig` with the recommended JVM
# flags and Native Memory Tracking, and sends /mutate the benchmark Deployment at RATE requests/s with LoadGenerator.
# At the end of the load it reads VmRSS, the heap and NMT's committed memory by category; after it, a heap dump
# (benchmarks/HeapParts.java) gives what each part of the server keeps alive. Last, the same server in folder mode
# with 1,000 rules under the same load, for comparison. One table is printed at the end (a server that ran out of
# memory gets "exited" in its column).
set -euo pipefail

RULE_COUNTS="10 1000 10000"
RATE=${RATE:-1000}
DURATION=${DURATION:-30}
WARMUP=${WARMUP:-15}
NAMESPACES=1000
NODES=100
while [ $# -gt 0 ]; do
  case "$1" in
    --rules) RULE_COUNTS=$2; shift 2 ;;
    -h|--help) sed -n 2,17p "$0"; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done

. "$(dirname "$0")/server.sh"
export REMOLD_E2E_STATE=${REMOLD_E2E_STATE:-/tmp/remold-cluster-memory}
trap 'stop_server; e2e/control-plane.sh stop; rm -rf "$WORK"' EXIT
e2e/control-plane.sh start
eval "$(e2e/control-plane.sh env)"

# The heap by part: each part is the classes whose instances hold it (disjoint lists; see HeapParts.java).
PARTS=(
  "cluster objects (informers, namespace and node manifests, rule sources)=io.kubernetes.client.informer.*,io.kubernetes.client.util.generic.dynamic.*,io.remold.server.kube.Manifests\$Kept,io.remold.server.kube.ClusterCache,io.remold.server.kube.RuleSource"
  "engine and rules=io.remold.engine.*,io.remold.jsonpath.*,io.remold.templating.*,io.remold.gatekeeper.*,io.remold.api.*"
  "rule snapshots, impact and reports=io.remold.rules.*,io.remold.server.existing.*,io.remold.server.reports.*"
  "Kubernetes client=io.kubernetes.client.openapi.*,io.kubernetes.client.extended.*,okhttp3.*,okio.*"
  "TLS and crypto=sun.security.*,javax.net.ssl.*,org.bouncycastle.*,java.security.*"
  "Helidon=io.helidon.*"
  "jar files (central directories)=java.util.zip.ZipFile\$Source"
)
NMT_CATEGORIES=("Java Heap" "Class" "Thread" "Code" "GC" "Compiler" "Internal" "Symbol" "Shared class space"
  "Arena Chunk" "Metaspace")

# objects KIND COUNT: a kubectl List of COUNT Namespaces (with RuleMix's shop, remold-system and team-N among them)
# or Nodes.
objects() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
kind, n = sys.argv[1], int(sys.argv[2])
ts = "2026-11-25T00:00:00Z"
def condition(kind, status, reason, message):
    return {"type": kind, "status": status, "lastHeartbeatTime": ts, "lastTransitionTime": ts,
            "reason": reason, "message": message}
def namespace(i, name):
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name,
            "labels": {"team": name, "env": "prod" if i % 3 else "dev", "cost-center": f"cc-{i % 40}"},
            "annotations": {"owner": f"{name}@example.com"}}}
def node(i):
    name, instance = f"node-{i:03d}", f"i-0{i:016x}"
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name,
        "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
                   "beta.kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64",
                   "node.kubernetes.io/instance-type": "m5.xlarge", "topology.kubernetes.io/region": "eu-west-1",
                   "topology.kubernetes.io/zone": "eu-west-1" + "abc"[i % 3], "node-role.kubernetes.io/worker": "",
                   "pool": f"pool-{i % 4}"},
        "annotations": {"node.alpha.kubernetes.io/ttl": "0",
                        "volumes.kubernetes.io/controller-managed-attach-detach": "true",
                        "csi.volume.kubernetes.io/nodeid": json.dumps({"ebs.csi.aws.com": instance})}},
      "spec": {"podCIDR": f"10.{i // 256}.{i % 256}.0/24", "podCIDRs": [f"10.{i // 256}.{i % 256}.0/24"],
               "providerID": f"aws:///eu-west-1a/{instance}"},
      "status": {
        "capacity": {"cpu": "4", "memory": "16073348Ki", "pods": "110", "ephemeral-storage": "104845292Ki",
                     "hugepages-2Mi": "0", "hugepages-1Gi": "0"},
        "allocatable": {"cpu": "3920m", "memory": "15056516Ki", "pods": "110", "ephemeral-storage": "95551679124",
                        "hugepages-2Mi": "0", "hugepages-1Gi": "0"},
        "conditions": [condition("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
                       condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                       condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                       condition("Ready", "True", "KubeletReady", "kubelet is posting ready status")],
        "addresses": [{"type": "InternalIP", "address": f"10.1.{i // 256}.{i % 256}"},
                      {"type": "Hostname", "address": name},
                      {"type": "InternalDNS", "address": f"{name}.eu-west-1.compute.internal"}],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        "nodeInfo": {"machineID": f"{i:032x}", "systemUUID": f"ec2{i:05x}-0000-0000-0000-000000000000",
                     "bootID": f"{i:08x}-0000-0000-0000-000000000000", "kernelVersion": "6.1.0-28-cloud-amd64",
                     "osImage": "Debian GNU/Linux 12 (bookworm)", "containerRuntimeVersion": "containerd://2.1.4",
                     "kubeletVersion": "v1.36.3", "kubeProxyVersion": "", "operatingSystem": "linux",
                     "architecture": "amd64"},
        # A kubelet reports at most 50 images, each by digest and by tag.
        "images": [{"names": [f"registry.example.com/team-{j % 50}/app-{j}@sha256:{i * 97 + j:064x}",
                              f"registry.example.com/team-{j % 50}/app-{j}:v1.{j}.0"],
                    "sizeBytes": 10_000_000 + j * 123_457} for j in range(50)]}}
if kind == "namespaces":
    names = ["shop", "remold-system"] + [f"team-{i}" for i in range(50)]
    names += [f"load-{i}" for i in range(n - len(names))]
    items = [namespace(i, name) for i, name in enumerate(names)]
else:
    items = [node(i) for i in range(n)]
json.dump({"apiVersion": "v1", "kind": "List", "items": items}, sys.stdout)
EOF
}

# rules FROM TO: RuleMix's rules FROM..TO-1 (rule i is the same whatever the total), as one YAML stream.
rules() {
  rule_mix "$2" "$WORK/mix"
  python3 - "$1" "$WORK/mix/rules.yaml" <<'EOF'
import sys
print("---\n".join(open(sys.argv[2]).read().split("---\n")[int(sys.argv[1]):]), end="")
EOF
}

kubectl apply -f api/src/main/resources/io/remold/api/crd/modrules.remold.io.yaml >/dev/null
kubectl wait --for=condition=Established crd/modrules.remold.io >/dev/null
objects namespaces "$NAMESPACES" >"$WORK/namespaces.json"
objects nodes "$NODES" >"$WORK/nodes.json"
kubectl create -f "$WORK/namespaces.json" >/dev/null
kubectl create -f "$WORK/nodes.json" >/dev/null

metric() { curl -sf "http://127.0.0.1:$ADMIN_PORT/metrics" | awk -v m="$1" '$1 == m {print $2}'; }
# nmt CATEGORY: committed MiB of one NMT category in $WORK/nmt.txt
# ("Total" for the sum).
nmt() {
  awk -v c="$1" '{ line = $0; sub(/^- */, "", line) }
    index(line, c " (reserved=") == 1 || index(line, c ": reserved=") == 1 {
      match(line, /committed=[0-9]+/); printf "%.1f", substr(line, RSTART + 10, RLENGTH - 10) / 1024 }' "$WORK/nmt.txt"
}

# measure COLUMN RULES: waits until the server ($PID, $PORT) holds RULES rules, loads it and appends its figures
# to the table under COLUMN; a server that exits (out of memory) gets that in its column.
measure() {
  local column=$1 count=$2 log=$WORK/server-$1.log t0 ready_ms written rss rss_max=0 rss_idle rss_load heap live
  t0=$(date +%s%3N)
  until [ "$(metric remold_rules 2>/dev/null || true)" = "$count" ] \
      && curl -sf --cacert "$REMOLD_E2E_CA" "https://127.0.0.1:$PORT/readyz" >/dev/null; do
    if ! kill -0 "$PID" 2>/dev/null; then
      tail -n 5 "$log" >&2
      echo "rules=$column exited=$(grep -q OutOfMemoryError "$log" && echo OutOfMemoryError || echo yes)" | tee -a "$TABLE"
      PID=""
      return
    fi
    sleep 0.2
  done
  ready_ms=$(( $(date +%s%3N) - t0 ))
  # The leader writes each new rule's Ready condition: measured once that has ended.
  written=-1
  until [ "$written" = "$(grep -c 'status of' "$log" || true)" ]; do
    written=$(grep -c 'status of' "$log" || true); sleep 3
  done
  rss_idle=$(rss_mib)
  java -XX:+UseSerialGC -Xmx256m -cp benchmarks/target/remold-benchmarks.jar io.remold.benchmarks.LoadGenerator \
    --url "https://127.0.0.1:$PORT/mutate" --body "$BODY" --rate "$RATE" --duration "$DURATION" \
    --warmup "$WARMUP" --connections 16 --ca "$REMOLD_E2E_CA" >"$WORK/load.txt" &
  local load=$!
  for _ in $(seq $((WARMUP + DURATION - 2))); do
    sleep 1
    rss=$(rss_mib); [ "$rss" -gt "$rss_max" ] && rss_max=$rss
  done
  # At the end of the load: heap use and NMT by category.
  jcmd "$PID" VM.native_memory summary >"$WORK/nmt.txt"
  heap=$(jcmd "$PID" GC.heap_info | awk '/total/ {gsub(/K,?/, ""); total += $3; used += $5}
    END {printf "%.1f %.1f", used / 1024, total / 1024}')
  rss_load=$(rss_mib)
  wait "$load"
  echo "rules=$column load: $(cat "$WORK/load.txt")"
  live=$(jcmd "$PID" GC.class_histogram | awk '/^Total/ {printf "%.1f", $3 / 1048576}')
  jcmd "$PID" GC.heap_dump "$WORK/heap.hprof" >/dev/null
  local parts
  parts=$(java -Xmx2g benchmarks/HeapParts.java "$WORK/heap.hprof" "${PARTS[@]}")
  if [ -n "${KEEP_HEAP_DUMP:-}" ]; then mv "$WORK/heap.hprof" "$KEEP_HEAP_DUMP-$column.hprof"; else rm -f "$WORK/heap.hprof"; fi
  {
    echo "rules=$column ready=${ready_ms}ms rss_idle=${rss_idle}MiB rss_end_of_load=${rss_load}MiB rss_max_under_load=${rss_max}MiB"
    echo "rules=$column heap_used=${heap% *}MiB heap_committed=${heap#* }MiB live_after_full_gc=${live}MiB"
    echo "rules=$column nmt total=$(nmt Total)MiB"
    for c in "${NMT_CATEGORIES[@]}"; do echo "rules=$column nmt ${c// /_}=$(nmt "$c")MiB"; done
    sed "s/^/rules=$column heap /" <<<"$parts"
  } | tee -a "$TABLE"
  stop_server
}

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores, $(java -version 2>&1 | head -1), JVM flags: $JVM_FLAGS"
echo "# $NAMESPACES namespaces, $NODES nodes; /mutate at $RATE/s for ${WARMUP}+${DURATION} s"
TABLE="$WORK/table"
created=0
for count in $RULE_COUNTS; do
  if [ "$count" -gt "$created" ]; then
    rules "$created" "$count" >"$WORK/rules.yaml"
    kubectl create -f "$WORK/rules.yaml" >/dev/null
    created=$count
  fi
  PORT=$(free_port)
  ADMIN_PORT=$(free_port)
  # shellcheck disable=SC2086
  java $JVM_FLAGS -XX:NativeMemoryTracking=summary -jar "$SERVER_JAR" serve --kubeconfig "$KUBECONFIG" \
    --host 127.0.0.1 --port "$PORT" --admin-port "$ADMIN_PORT" --tls-cert "$REMOLD_E2E_WEBHOOK_CERT" --tls-key "$REMOLD_E2E_WEBHOOK_KEY" \
    --log-format text >"$WORK/server-$count.log" 2>&1 &
  PID=$!
  measure "$count" "$count"
done
# The same server in folder mode with RuleMix's 1,000 rules and the same certificate: what cluster mode adds.
rule_mix 1000 "$WORK/folder"
PORT=$(free_port)
ADMIN_PORT=$(free_port)
# shellcheck disable=SC2086
java $JVM_FLAGS -XX:NativeMemoryTracking=summary -jar "$SERVER_JAR" serve --rules "$WORK/folder" \
  --host 127.0.0.1 --port "$PORT" --admin-port "$ADMIN_PORT" --tls-cert "$REMOLD_E2E_WEBHOOK_CERT" --tls-key "$REMOLD_E2E_WEBHOOK_KEY" \
  --log-format text >"$WORK/server-folder.log" 2>&1 &
PID=$!
measure folder 1000

# One table: a row per measure, a column per rule count.
echo
python3 - "$TABLE" $RULE_COUNTS folder <<'EOF'
import re, sys
rows, columns = {}, sys.argv[2:]
for line in open(sys.argv[1]):
    column, rest = re.match(r"rules=(\S+) (.*)", line.strip()).groups()
    prefix = next((p for p in ("nmt ", "heap rest ", "heap ") if rest.startswith(p)), "")
    for key, value in re.findall(r"(\S+)=(\S+)", rest[len(prefix):]):
        rows.setdefault(prefix + key.replace("_", " "), {})[column] = value
names = {"folder": "folder mode, 1,000 rules"}
print("| measure | " + " | ".join(names.get(c) or f"{int(c):,} rules" for c in columns) + " |")
print("|---|" + "---:|" * len(columns))
for key, values in rows.items():
    print(f"| {key} | " + " | ".join(values.get(c, "") for c in columns) + " |")
EOF
