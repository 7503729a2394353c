#!/usr/bin/env bash
# What caching referenced objects costs (results go to BENCHMARKS.md, "References: memory").
#
#   benchmarks/reference-memory.sh                 # 10,000 ConfigMaps of ~1 KB in 100 namespaces
#   CONFIGMAPS=1000 benchmarks/reference-memory.sh
#
# Starts its own control plane (e2e/control-plane.sh; state in REMOLD_E2E_STATE, default /tmp/remold-reference-memory),
# creates the ConfigMaps, and runs `serve --kubeconfig --allow-references configmaps` with the recommended JVM flags.
# Measures VmRSS and the live heap (after a full GC) with no rule, then after a ModRule that references ConfigMaps
# has made the server cache all of them (an informer for the kind), once /mutate answers with the referenced value.
set -euo pipefail

CONFIGMAPS=${CONFIGMAPS:-10000}
NAMESPACES=100

. "$(dirname "$0")/server.sh"
export REMOLD_E2E_STATE=${REMOLD_E2E_STATE:-/tmp/remold-reference-memory}
trap 'stop_server; e2e/control-plane.sh stop; rm -rf "$WORK"' EXIT
e2e/control-plane.sh start
eval "$(e2e/control-plane.sh env)"
kubectl apply -f api/src/main/resources/io/remold/api/crd/modrules.remold.io.yaml >/dev/null
kubectl wait --for=condition=Established crd/modrules.remold.io >/dev/null

# Namespaces team-0..team-99 and CONFIGMAPS ConfigMaps team-I in them, each with five ~200-byte values.
python3 - "$CONFIGMAPS" "$NAMESPACES" "$WORK" <<'PY'
import json, sys
count, spaces, work = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
json.dump({"apiVersion": "v1", "kind": "List", "items": [
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"team-{n}"}} for n in range(spaces)]},
    open(f"{work}/namespaces.json", "w"))
for chunk in range(0, count, 1000):
    json.dump({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "ConfigMap",
         "metadata": {"name": f"team-{i}", "namespace": f"team-{i % spaces}", "labels": {"team": f"team-{i}"}},
         "data": {f"key{k}": f"value {i} {k} " + "x" * 180 for k in range(5)} | {"costCentre": f"cc-{i}"}}
        for i in range(chunk, min(chunk + 1000, count))]}, open(f"{work}/configmaps-{chunk}.json", "w"))
review = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
    "uid": "1", "kind": {"group": "", "version": "v1", "kind": "Pod"},
    "resource": {"group": "", "version": "v1", "resource": "pods"}, "namespace": "team-7", "operation": "CREATE",
    "userInfo": {"username": "bench"}, "object": {"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "namespace": "team-7", "labels": {"team": "team-7"}},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}
json.dump(review, open(f"{work}/review.json", "w"))
PY
kubectl create -f "$WORK/namespaces.json" >/dev/null
t0=$(date +%s)
for f in "$WORK"/configmaps-*.json; do kubectl create -f "$f" >/dev/null; done
echo "created $CONFIGMAPS ConfigMaps in $(( $(date +%s) - t0 )) s" >&2

PORT=$(free_port)
# shellcheck disable=SC2086
java $JVM_FLAGS -jar "$SERVER_JAR" serve --kubeconfig "$KUBECONFIG" --allow-references configmaps \
  --host 127.0.0.1 --port "$PORT" --admin-port 0 --tls-cert "$REMOLD_E2E_WEBHOOK_CERT" --tls-key "$REMOLD_E2E_WEBHOOK_KEY" \
  --log-format text >"$WORK/server.log" 2>&1 &
PID=$!
until curl -sf --cacert "$REMOLD_E2E_CA" "https://127.0.0.1:$PORT/readyz" >/dev/null; do
  kill -0 "$PID" 2>/dev/null || { tail -n 20 "$WORK/server.log" >&2; exit 1; }
  sleep 0.2
done
mutate() { curl -sf --cacert "$REMOLD_E2E_CA" -H 'Content-Type: application/json' --data-binary @"$WORK/review.json" \
  "https://127.0.0.1:$PORT/mutate"; }
live_mib() { jcmd "$PID" GC.class_histogram | awk '/^Total/ {printf "%.1f", $3 / 1048576}'; }
sleep 5
for i in $(seq 200); do mutate >/dev/null; done
echo "configmaps=$CONFIGMAPS rule=none rss=$(rss_mib)MiB live_heap=$(live_mib)MiB"

# A rule in each team namespace would be as good: one referencing rule makes the server cache the kind.
kubectl apply -f - >/dev/null <<'YAML'
apiVersion: remold.io/v1beta1
kind: ModRule
metadata: {name: cost-centre, namespace: team-7}
spec:
  type: Patch
  references:
  - {name: settings, apiVersion: v1, kind: ConfigMap, objectName: '{{ Target.metadata.labels.team }}', onMissing: skip}
  match:
  - {select: '$.kind', matchValue: Pod}
  patch:
  - {op: add, path: /metadata/labels/cost-centre, value: '{{ References.settings.data.costCentre }}'}
YAML
t0=$(date +%s%3N)
# The patch is base64 JSON: cc-7 appears once the cache has listed every ConfigMap.
until mutate | python3 -c 'import base64, json, sys; r = json.load(sys.stdin)["response"]
sys.exit(0 if "cc-7" in base64.b64decode(r.get("patch", "")).decode() else 1)'; do
  kill -0 "$PID" 2>/dev/null || { tail -n 20 "$WORK/server.log" >&2; exit 1; }
  sleep 0.2
done
echo "configmaps=$CONFIGMAPS cache listed and answering after $(( $(date +%s%3N) - t0 )) ms" >&2
for i in $(seq 200); do mutate >/dev/null; done
echo "configmaps=$CONFIGMAPS rule=referencing rss=$(rss_mib)MiB live_heap=$(live_mib)MiB"
# Where the live heap goes: the largest classes after a full GC.
jcmd "$PID" GC.class_histogram | awk 'NR > 3 && NR <= 17 {printf "  %8.1f MiB %10d  %s\n", $3 / 1048576, $2, $4}'
