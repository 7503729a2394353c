# Sourced by compare.sh and differential.sh, with the caller's arguments: Gatekeeper beside Remold.
#
# Gatekeeper (GATEKEEPER_VERSION, default v3.23.1) is built from the Go module proxy into ~/.cache/remold-bench. It
# runs as a mutation webhook outside any cluster (--debug-use-fake-pod) and reads its mutators from a real
# kube-apiserver, the e2e control plane (e2e/control-plane.sh), in a state folder of its own under $WORK.
# Everything that needs the network happens first; then the caller runs again in a private network namespace when
# `unshare -n` is allowed (Gatekeeper's Prometheus exporter binds every interface), where this starts the control
# plane with Gatekeeper's CRDs and the namespace gatekeeper-system. Mutation annotations (--mutation-annotations)
# are off, Gatekeeper's default, as Remold writes none.
HERE=$(cd "$(dirname "$0")" && pwd)
GATEKEEPER_VERSION=${GATEKEEPER_VERSION:-v3.23.1}
GK_DIR=${REMOLD_BENCH_CACHE:-$HOME/.cache/remold-bench}/gatekeeper-$GATEKEEPER_VERSION
if ! command -v go >/dev/null && [[ -x /usr/local/go/bin/go ]]; then PATH="/usr/local/go/bin:$PATH"; fi
log() { echo "$(basename "$0" .sh): $*" >&2; }

if [ -z "${REMOLD_COMPARE_INSIDE:-}" ]; then
  . "$HERE/server.sh"   # builds the jars when missing; installs curl and python3
  need wrk openssl
  command -v ip >/dev/null || { apt-get update -qq && apt-get install -y -qq iproute2 >/dev/null; }
  "$HERE/../e2e/control-plane.sh" build
  if [ ! -x "$GK_DIR/manager" ]; then
    log "building Gatekeeper $GATEKEEPER_VERSION (a few minutes)"
    rm -rf "$GK_DIR/module" && mkdir -p "$GK_DIR/module"
    printf 'module remold.io/bench/gatekeeper\n\ngo 1.26\n\nrequire github.com/open-policy-agent/gatekeeper/v3 %s\n' \
      "$GATEKEEPER_VERSION" >"$GK_DIR/module/go.mod"
    (cd "$GK_DIR/module" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -o ../manager.tmp \
      github.com/open-policy-agent/gatekeeper/v3)
    source_dir=$(cd "$GK_DIR/module" && GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' github.com/open-policy-agent/gatekeeper/v3)
    rm -rf "$GK_DIR/crds" && cp -r "$source_dir/manifest_staging/charts/gatekeeper/crds" "$GK_DIR/crds"
    mv "$GK_DIR/manager.tmp" "$GK_DIR/manager"
  fi
  rm -rf "$WORK"; trap - EXIT   # server.sh's work folder: the run below makes its own
  if unshare -n true 2>/dev/null; then
    exec env REMOLD_COMPARE_INSIDE=netns unshare -n "$0" "$@"
  fi
  log "unshare -n is not allowed here: running on the host's loopback"
  exec env REMOLD_COMPARE_INSIDE=host "$0" "$@"
fi

[ "$REMOLD_COMPARE_INSIDE" = netns ] && ip link set lo up
. "$HERE/server.sh"
CP="$WORK/control-plane"
GK_PID=""
stop_gatekeeper() {
  [ -n "$GK_PID" ] && { kill "$GK_PID" 2>/dev/null; wait "$GK_PID" 2>/dev/null || true; }
  GK_PID=""
}
stop_all() {
  logs_if_failed $? "$WORK/gatekeeper.log" "$WORK/server.log"
  stop_gatekeeper
  stop_server
  REMOLD_E2E_STATE="$CP" "$HERE/../e2e/control-plane.sh" stop || true
  rm -rf "$WORK"
}
trap stop_all EXIT

wait_until() { # wait_until SECONDS DESCRIPTION COMMAND...
  local limit=$1 what=$2 t0=$SECONDS
  shift 2
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS - t0 > limit)); then log "timed out waiting for $what"; tail -20 "$WORK/gatekeeper.log" >&2; exit 1; fi
    sleep 1
  done
}
enforced() {
  [ "$(kubectl get mutatorpodstatuses -n gatekeeper-system \
    -o jsonpath='{range .items[*]}{.status.enforced}{"\n"}{end}' | grep -c '^true$')" -ge "$1" ]
}
# Namespaces the requests are in: Gatekeeper looks each up (the API server has default and kube-public already).
create_namespaces() {
  for namespace in "$@"; do
    kubectl get namespace "$namespace" >/dev/null 2>&1 || kubectl create namespace "$namespace" >/dev/null
  done
}
# replace_mutators FILE: the API server's mutators become those of FILE.
replace_mutators() {
  kubectl delete assign,assignmetadata,modifyset,assignimage,mutatorpodstatuses -A --all >/dev/null
  kubectl create -f "$1" >/dev/null
}
# start_gatekeeper COUNT: starts Gatekeeper's webhook and waits until COUNT mutators are enforced; sets GK_PID and
# GK_URL.
start_gatekeeper() {
  local port health
  port=$(free_port); health=$(free_port)
  "$GK_DIR/manager" --operation=mutation-webhook --host=127.0.0.1 --port="$port" \
    --cert-dir="$WORK/gatekeeper-certs" --disable-cert-rotation --enable-external-data=false --debug-use-fake-pod \
    --health-addr="127.0.0.1:$health" --metrics-addr="127.0.0.1:$(free_port)" --prometheus-port="$(free_port)" \
    --shutdown-delay=0 >"$WORK/gatekeeper.log" 2>&1 &
  GK_PID=$!
  GK_URL="https://127.0.0.1:$port/v1/mutate"
  wait_until 300 "Gatekeeper's /readyz" curl -sf "http://127.0.0.1:$health/readyz"
  wait_until 300 "$1 enforced mutators" enforced "$1"
}

REMOLD_E2E_STATE="$CP" "$HERE/../e2e/control-plane.sh" start
eval "$(REMOLD_E2E_STATE="$CP" "$HERE/../e2e/control-plane.sh" env)"
kubectl apply --server-side -f "$GK_DIR/crds/" >/dev/null
kubectl wait --for=condition=Established crd --all --timeout=60s >/dev/null
create_namespaces gatekeeper-system
mkdir -p "$WORK/gatekeeper-certs"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=127.0.0.1 \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$WORK/gatekeeper-certs/tls.key" \
  -out "$WORK/gatekeeper-certs/tls.crt" 2>/dev/null
