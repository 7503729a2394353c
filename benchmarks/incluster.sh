#!/usr/bin/env bash
# Remold against Kyverno inside a kind cluster, as users feel admission: Pod creates through the API server at fixed
# rates, open loop, with no webhook (baseline), then with Remold installed from its bundle, then with Kyverno
# installed from its chart, one at a time, each with the same three mutations (add a label, inject a sidecar,
# rewrite an image registry) and one validation (incluster/rules/). Prints one Markdown table; BENCHMARKS.md,
# "In the cluster: Remold against Kyverno", says how to read it.
#
#   benchmarks/incluster.sh                                  # rates 0 10 25 50/s, 30 s each, baseline remold kyverno
#   benchmarks/incluster.sh --rates "10 25 50" --rounds 2    # the run in BENCHMARKS.md (rate 0: an idle window,
#                                                            # whose CPU the table subtracts per create)
#   benchmarks/incluster.sh --rates "10 25" --seconds 20 --order "baseline kyverno remold"
#   benchmarks/incluster.sh --keep                           # leave the cluster up afterwards
#   benchmarks/incluster.sh --warmup 60                      # after each install, 60 s unmeasured at the top rate
#                                                            # (a young JVM's JIT out of the measured windows)
#
# Kyverno v1.19.1 is built here from its Go module (binaries cached by version under ~/.cache/remold-e2e), its
# images from those binaries (no registry is reachable), and its chart installed with its defaults: the only
# changes are the chart's three remote subcharts, which cannot be fetched (kyverno-api and openreports come from
# their Go modules, which kyverno's go.mod pins; reports-server, off by default, is dropped).
# Remold's image is built by e2e/kind/cluster.sh (cached by a hash of the sources that go into it), its bundle by
# the installer jar with its defaults. The cluster is kind's, named remold-bench (never CI's remold-kind), with
# e2e/kind's node image. Docker must be running (../shared/tools/docker-up). Not part of ./run-tests.
set -euo pipefail
shopt -s inherit_errexit

RATES="0 10 25 50"
SECONDS_PER_RATE=30
ORDER="baseline remold kyverno"
ROUNDS=1
KEEP=0
WARMUP=0
while [ $# -gt 0 ]; do
  case "$1" in
    --rates) RATES=$2; shift 2 ;;
    --seconds) SECONDS_PER_RATE=$2; shift 2 ;;
    --order) ORDER=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --warmup) WARMUP=$2; shift 2 ;;
    -h|--help) sed -n 2,22p "$0"; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
CLUSTER=remold-bench
OUT="$REPO/benchmarks/target/incluster"
CACHE="${REMOLD_E2E_CACHE:-$HOME/.cache/remold-e2e}"
KYVERNO_VERSION=v1.19.1
KYV="$CACHE/kyverno-$KYVERNO_VERSION"
NODE="$CLUSTER-control-plane"
# The node the Pods are bound to: a Node object with no kubelet, so the API server admits them through the webhooks
# and nothing schedules or runs them (2 cores cannot run hundreds of pods a second).
FAKE_NODE=bench-node
export PATH="/usr/local/go/bin:$PATH"
export KUBECONFIG="$OUT/kind/kubeconfig"

log() { echo "incluster: $(date -u +%T) $*" >&2; }
die() { log "$*"; exit 1; }
k() { kubectl "$@"; }
# until_ok SECONDS WHAT CMD...: retries CMD every 2 s until it succeeds or SECONDS pass.
until_ok() {
  local limit=$1 what=$2 t0=$SECONDS; shift 2
  until "$@" >/dev/null 2>&1; do
    ((SECONDS - t0 < limit)) || die "$what: not within $limit s"
    sleep 2
  done
}

cluster() { REMOLD_KIND_NAME=$CLUSTER REMOLD_KIND_STATE="$OUT/kind" "$REPO/e2e/kind/cluster.sh" "$@"; }

# ---- Kyverno: binaries, images, chart ----

KYVERNO_IMAGES="kyverno:kyverno kyvernopre:kyverno-init background-controller:background-controller
  cleanup-controller:cleanup-controller reports-controller:reports-controller"

kyverno_build() {
  mkdir -p "$KYV/bin"
  if [ ! -d "$KYV/src" ]; then
    local dir
    dir="$(go mod download -json "github.com/kyverno/kyverno@$KYVERNO_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
    [ -n "$dir" ] || die "go mod download of github.com/kyverno/kyverno@$KYVERNO_VERSION gave no folder"
    cp -r "$dir" "$KYV/src.tmp" && chmod -R u+w "$KYV/src.tmp" && mv "$KYV/src.tmp" "$KYV/src"
  fi
  local binary
  for binary in kyverno kyverno-init background-controller cleanup-controller reports-controller readiness-checker; do
    [ -x "$KYV/bin/$binary" ] && continue
    log "building Kyverno's $binary (go build in $KYV/src: its go.mod has a replace)"
    (cd "$KYV/src" && CGO_ENABLED=0 nice -n 15 go build -trimpath -o "$KYV/bin/$binary.tmp" \
      -ldflags "-s -w -X github.com/kyverno/kyverno/pkg/version.BuildVersion=$KYVERNO_VERSION" "./cmd/$binary")
    mv "$KYV/bin/$binary.tmp" "$KYV/bin/$binary"
  done
}

# kyverno_image REF BINARY: the static binary on an empty base with this machine's CA bundle, as ko builds
# Kyverno's own (entrypoint /ko-app/NAME).
kyverno_image() {
  local ref=$1 binary=$2
  docker image inspect "$ref" >/dev/null 2>&1 && return
  log "building $ref"
  local ctx; ctx="$(mktemp -d)"
  cp "$KYV/bin/$binary" "$ctx/app"
  cp /etc/ssl/certs/ca-certificates.crt "$ctx/ca-certificates.crt"
  mkdir -m 1777 "$ctx/tmp"
  printf '%s\n' 'FROM scratch' 'COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt' 'COPY tmp /tmp' \
    "COPY app /ko-app/$binary" 'USER 65532:65532' "ENTRYPOINT [\"/ko-app/$binary\"]" >"$ctx/Dockerfile"
  DOCKER_BUILDKIT=0 docker build -q -t "$ref" "$ctx" >/dev/null 2>"$ctx.log" || { cat "$ctx.log"; die "docker build of $ref"; }
  rm -rf "$ctx" "$ctx.log"
}

# Every image the chart's defaults name (helm template | grep image:), the readiness checker for its pre-delete hooks;
# kyverno-cli is only its post-upgrade hook's, which an install never runs.
kyverno_images() {
  local pair
  for pair in $KYVERNO_IMAGES; do
    kyverno_image "reg.kyverno.io/kyverno/${pair%%:*}:$KYVERNO_VERSION" "${pair#*:}"
  done
  kyverno_image "ghcr.io/kyverno/readiness-checker:$KYVERNO_VERSION" readiness-checker
}

kyverno_chart() {
  [ -f "$KYV/chart/.ready" ] && return
  rm -rf "$KYV/chart" && cp -r "$KYV/src/charts/kyverno" "$KYV/chart" && chmod -R u+w "$KYV/chart"
  local module dir
  for module in github.com/kyverno/api github.com/openreports/reports-api; do
    dir="$(cd "$KYV/src" && go list -m -f '{{.Dir}}' "$module")"
    [ -d "$dir" ] || (cd "$KYV/src" && go mod download "$module")
    dir="$(cd "$KYV/src" && go list -m -f '{{.Dir}}' "$module")"
    cp -r "$dir"/charts/* "$KYV/chart/charts/"
  done
  chmod -R u+w "$KYV/chart"
  python3 - "$KYV/chart/Chart.yaml" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path).read()
# reports-server: a remote subchart, off by default (reportsServer.enabled: false).
text = re.sub(r"  - name: reports-server\n(    .*\n)+", "", text)
open(path, "w").write(text)
PY
  rm -f "$KYV/chart/Chart.lock"
  touch "$KYV/chart/.ready"
}

# ---- Remold: image and bundle ----

remold_image() {
  # The hash of what goes into the image (not the benchmarks, docs or e2e): a second run loads the built image.
  REMOLD_TAG="bench-$( (cd "$REPO" && git ls-files -s -- . ':!benchmarks' ':!docs' ':!e2e' ':!*.md' \
    && git diff HEAD -- . ':!benchmarks' ':!docs' ':!e2e' ':!*.md') | sha256sum | cut -c1-10)"
  if docker image inspect "remold.local/remold:$REMOLD_TAG" >/dev/null 2>&1; then
    "$(cat "$OUT/kind/kind-bin")" load docker-image "remold.local/remold:$REMOLD_TAG" --name "$CLUSTER" >/dev/null
  else
    cluster image "$REMOLD_TAG"
  fi
}

installer_jar() {
  log "building the installer jar"
  (cd "$REPO" && . scripts/java-home.sh && nice -n 15 ./mvnw -B -q -DskipTests -pl installer -am package)
}

# ---- the contenders: install, rules, probe, uninstall ----

install_baseline() { :; }
uninstall_baseline() { :; }

install_remold() {
  (cd "$REPO" && . scripts/java-home.sh && java -jar installer/target/remold-installer.jar \
    --image remold.local/remold --tag "$REMOLD_TAG" --image-pull-policy Never) >"$OUT/remold-bundle.yaml"
  k apply -f "$OUT/remold-bundle.yaml" >/dev/null
  k -n remold-system wait --for=condition=complete job -l app.kubernetes.io/part-of=remold --timeout=180s >/dev/null
  k -n remold-system rollout status deployment/remold-server --timeout=180s >/dev/null
  # ModRules are validated by the server's webhook (failurePolicy Fail): accepted once a replica serves.
  until_ok 240 "Remold's ModRules accepted" k apply -f "$HERE/incluster/rules/remold.yaml"
  k -n remold-system wait --for=condition=Ready modrule --all --timeout=120s >/dev/null
}

uninstall_remold() {
  k delete -f "$HERE/incluster/rules/remold.yaml" --ignore-not-found >/dev/null
  k delete -f "$OUT/remold-bundle.yaml" --ignore-not-found --wait=true --timeout=300s >/dev/null
}

install_kyverno() {
  "$HELM" install kyverno "$KYV/chart" -n kyverno --create-namespace --wait --timeout 10m >/dev/null
  until_ok 240 "Kyverno's policies accepted" k apply -f "$HERE/incluster/rules/kyverno.yaml"
  k wait --for=condition=Ready clusterpolicy --all --timeout=180s >/dev/null
}

uninstall_kyverno() {
  k delete -f "$HERE/incluster/rules/kyverno.yaml" --ignore-not-found --wait=true >/dev/null
  "$HELM" uninstall kyverno -n kyverno --wait --timeout 5m >/dev/null
  k delete namespace kyverno --ignore-not-found --wait=true --timeout=300s >/dev/null
}

# What the contender's rules make of one Pod, and whether the validation refuses a :latest image. The webhooks of
# Kyverno appear a few seconds after its policies are Ready: the probe waits for the first mutated Pod.
probe() {
  local contender=$1 ns=bench-probe want got i=0
  k create namespace $ns >/dev/null
  until_ok 60 "ServiceAccount default in $ns" k -n $ns get serviceaccount default
  want="true new-registry.example/team/app:1.0 new-registry.example/sidecar:1.0"
  [ "$contender" != baseline ] || want=" old-registry.example/team/app:1.0"
  while :; do
    i=$((i + 1))
    got="$(pod_manifest "probe-$i" old-registry.example/team/app:1.0 | k -n $ns create -f - \
      -o jsonpath='{.metadata.labels.bench-mutated} {.spec.containers[*].image}')"
    [ "$got" = "$want" ] && break
    ((i < 60)) || die "$contender: the probe Pod came back as '$got', not '$want'"
    sleep 2
  done
  local refused=no
  pod_manifest probe-latest old-registry.example/team/app:latest | k -n $ns create -f - >/dev/null 2>&1 || refused=yes
  [ "$contender" = baseline ] && [ $refused = yes ] && die "baseline: a :latest Pod was refused with no webhook"
  [ "$contender" != baseline ] && [ $refused = no ] && die "$contender: a :latest Pod was admitted"
  log "$contender: probe Pod '$got', :latest refused: $refused"
  drop_namespace $ns
}

pod_manifest() {
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"},"spec":{"nodeName":"%s",%s' "$1" "$FAKE_NODE" \
    "\"automountServiceAccountToken\":false,\"containers\":[{\"name\":\"app\",\"image\":\"$2\"}]}}"
}

# Pods on a node with no kubelet never finish terminating: they are deleted at once, then their namespace.
drop_namespace() {
  k -n "$1" delete pods --all --force --grace-period=0 --wait=false >/dev/null 2>&1 || true
  k delete namespace "$1" --wait=true --timeout=300s >/dev/null
}

# throttling NAMESPACE PREFIX: the CFS counters (cpu.stat: usage_usec, nr_periods, nr_throttled, throttled_usec)
# of each pod whose name starts with PREFIX, read from its cgroup on the kind node: what a CPU limit's quota did,
# which the kubelet's averages cannot show.
throttling() {
  local ns=$1 prefix=$2 name uid
  [ -n "$ns" ] || return 0
  k -n "$ns" get pods -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.uid}{"\n"}{end}' |
    while read -r name uid; do
      [[ "$name" == "$prefix"* ]] || continue
      printf '%s ' "$name"
      docker exec "$NODE" sh -c "cat \"\$(find /sys/fs/cgroup -maxdepth 6 -type d \( -name '*pod$uid*' -o \
        -name '*pod${uid//-/_}*' \) | head -n1)/cpu.stat\"" | tr '\n' ' '
      echo
    done
}

# warm_up CONTENDER: WARMUP seconds of creates at the highest rate, not measured, in a namespace of their own.
warm_up() {
  local top=0 rate ns="bench-warmup-$1"
  for rate in $RATES; do (( ${rate%.*} > top )) && top=${rate%.*}; done
  [ "$WARMUP" -gt 0 ] && [ "$top" -gt 0 ] || return 0
  k create namespace "$ns" >/dev/null
  until_ok 60 "ServiceAccount default in $ns" k -n "$ns" get serviceaccount default
  log "$1: warming up, $top creates/s for $WARMUP s (not measured)"
  "$TOOL" load -server "$SERVER" -ca "$OUT/ca.pem" -cert "$OUT/client.pem" -key "$OUT/client-key.pem" \
    -namespace "$ns" -kind pod -node "$FAKE_NODE" -rate "$top" -duration "${WARMUP}s" -expect "" >/dev/null
  drop_namespace "$ns"
}

# ---- one measured run ----

measure() {
  local contender=$1 rate=$2 round=$3 dir ns controller_ns="" admission_pods="" expect=""
  dir="$OUT/runs/$STAMP/$contender-$rate-$round"
  ns="bench-$contender-${rate//./-}-$round"
  mkdir -p "$dir"
  case $contender in
    remold) controller_ns=remold-system admission_pods=remold-server ;;
    kyverno) controller_ns=kyverno admission_pods=kyverno-admission-controller ;;
  esac
  [ "$contender" = baseline ] || expect='"bench-mutated":"true",new-registry.example/team/app:1.0,new-registry.example/sidecar:1.0'
  printf '{"contender":"%s","rate":%s,"round":%s,"namespace":"%s","admissionPods":"%s"}\n' \
    "$contender" "$rate" "$round" "$controller_ns" "$admission_pods" >"$dir/meta.json"
  k create namespace "$ns" >/dev/null
  until_ok 60 "ServiceAccount default in $ns" k -n "$ns" get serviceaccount default
  # Idle before and after: the kubelet's CPU counters lag by its housekeeping interval (about 10 s), so the
  # readings are taken with the controllers at rest and the interval holds all the work the load caused,
  # asynchronous work (Kyverno's reports) included.
  sleep 15
  k get --raw /metrics >"$dir/metrics-before.txt"
  k get --raw "/api/v1/nodes/$NODE/proxy/stats/summary" >"$dir/summary-before.json"
  throttling "$controller_ns" "$admission_pods" >"$dir/throttling-before.txt"
  log "$contender: $rate creates/s for $SECONDS_PER_RATE s in $ns"
  "$TOOL" load -server "$SERVER" -ca "$OUT/ca.pem" -cert "$OUT/client.pem" -key "$OUT/client-key.pem" \
    -namespace "$ns" -kind pod -node "$FAKE_NODE" -rate "$rate" -duration "${SECONDS_PER_RATE}s" \
    -expect "$expect" >"$dir/load.json"
  sleep 20
  k get --raw /metrics >"$dir/metrics-after.txt"
  k get --raw "/api/v1/nodes/$NODE/proxy/stats/summary" >"$dir/summary-after.json"
  throttling "$controller_ns" "$admission_pods" >"$dir/throttling-after.txt"
  [ ! -s "$dir/throttling-after.txt" ] || log "$contender: cpu.stat before: $(cat "$dir/throttling-before.txt"); after: $(cat "$dir/throttling-after.txt")"
  "$TOOL" webhooks "$dir/metrics-before.txt" "$dir/metrics-after.txt" pods >"$dir/webhooks.json"
  # shellcheck disable=SC2086
  "$TOOL" usage "$dir/summary-before.json" "$dir/summary-after.json" kube-system $controller_ns >"$dir/usage.json"
  log "$contender: $(cat "$dir/load.json")"
  drop_namespace "$ns"
}

# ---- main ----

[ "$CLUSTER" != remold-kind ] || die "never CI's cluster"
docker info >/dev/null 2>&1 || die "no Docker daemon: start one (on this project's machines: ../shared/tools/docker-up)"
mkdir -p "$OUT"
STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
HELM="$(bash "$REPO/e2e/helm.sh")"
TOOL="$OUT/incluster"
(cd "$HERE/incluster" && nice -n 15 go build -o "$TOOL" .)

t0=$SECONDS
kyverno_build
kyverno_chart
kyverno_images
installer_jar
log "builds done in $((SECONDS - t0)) s"

cleanup() { [ "$KEEP" = 1 ] || cluster down >/dev/null 2>&1 || true; }
trap cleanup EXIT
cluster up
remold_image
for pair in $KYVERNO_IMAGES "readiness-checker:readiness-checker"; do
  ref="reg.kyverno.io/kyverno/${pair%%:*}:$KYVERNO_VERSION"
  [ "${pair%%:*}" = readiness-checker ] && ref="ghcr.io/kyverno/readiness-checker:$KYVERNO_VERSION"
  "$(cat "$OUT/kind/kind-bin")" load docker-image "$ref" --name "$CLUSTER" >/dev/null
done

SERVER="$(k config view --raw --minify -o jsonpath='{.clusters[0].cluster.server}')"
k config view --raw --minify -o jsonpath='{.clusters[0].cluster.certificate-authority-data}' | base64 -d >"$OUT/ca.pem"
k config view --raw --minify -o jsonpath='{.users[0].user.client-certificate-data}' | base64 -d >"$OUT/client.pem"
k config view --raw --minify -o jsonpath='{.users[0].user.client-key-data}' | base64 -d >"$OUT/client-key.pem"
printf '{"apiVersion":"v1","kind":"Node","metadata":{"name":"%s"}}' "$FAKE_NODE" | k apply -f - >/dev/null

for round in $(seq "$ROUNDS"); do
  for contender in $ORDER; do
    log "installing $contender (round $round)"
    "install_$contender"
    probe "$contender"
    warm_up "$contender"
    for rate in $RATES; do measure "$contender" "$rate" "$round"; done
    log "uninstalling $contender"
    "uninstall_$contender"
  done
done

echo
echo "In-cluster admission, $STAMP, kind $CLUSTER (one node), Pod creates bound to a node with no kubelet;" \
  "rates $RATES/s, $SECONDS_PER_RATE s each, order: $ORDER, rounds: $ROUNDS; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
"$TOOL" report "$OUT/runs/$STAMP"/*
