#!/usr/bin/env bash
# A real kube-apiserver + etcd on loopback for Remold's end-to-end tests.
#
#   e2e/control-plane.sh build    build (or reuse) the pinned binaries under ~/.cache/remold-e2e
#   e2e/control-plane.sh start    build if needed, stop a previous cluster, fresh PKI and data, start etcd +
#                                 kube-apiserver, wait for /readyz; on failure stops what it started
#   e2e/control-plane.sh stop     stop both (the state dir with logs stays for post-mortem); safe to repeat
#   e2e/control-plane.sh status   print whether both processes are alive and the apiserver is ready
#   e2e/control-plane.sh env      print shell exports: KUBECONFIG, REMOLD_E2E_STATE, REMOLD_E2E_CA ...
#   e2e/control-plane.sh restart-apiserver   stop and start kube-apiserver only (fault scenarios)
#
# Environment: REMOLD_E2E_STATE (state dir, default e2e/target/control-plane), REMOLD_E2E_CACHE (binary cache,
# default ~/.cache/remold-e2e), KUBERNETES_VERSION, ETCD_VERSION.
#
# State dir layout: pki/ (ca, apiserver serving pair, admin client pair, service-account keys, a serving pair for the
# Remold server under test, a webhook client CA and the client pair the apiserver presents to every webhook),
# admission/ (AdmissionConfiguration and its kubeconfig), etcd/ (data), kubeconfig, ports.env, *.pid, *.log.
set -euo pipefail

KUBERNETES_VERSION="${KUBERNETES_VERSION:-v1.36.3}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
STATE="${REMOLD_E2E_STATE:-$HERE/target/control-plane}"
CACHE="${REMOLD_E2E_CACHE:-$HOME/.cache/remold-e2e}"
ETCD_BIN="$CACHE/etcd-$ETCD_VERSION/etcd"

log() { echo "control-plane: $*" >&2; }
die() { log "$*"; exit 1; }

. "$HERE/build-lib.sh"
APISERVER_BIN="$KUBERNETES_BIN/kube-apiserver"
KUBECTL_BIN="$KUBERNETES_BIN/kubectl"

build_etcd() {
  [[ -x "$ETCD_BIN" ]] && return 0
  local gomod="module remold.io/e2e/build-etcd

go 1.26

require go.etcd.io/etcd/server/v3 $ETCD_VERSION"
  log "building etcd $ETCD_VERSION"
  local t0=$SECONDS
  # go names the binary after the package path (server); the cache keeps the name etcd.
  build_in_module "$CACHE/build/etcd" "$gomod" "$CACHE/build/etcd/bin" "-s -w" go.etcd.io/etcd/server/v3
  mkdir -p "$(dirname "$ETCD_BIN")" && mv "$CACHE"/build/etcd/bin/* "$ETCD_BIN"
  log "etcd built in $((SECONDS - t0)) s"
}

# kubectl only when none is on PATH (the machine's may be older; the e2e scenarios need no newer one).
build_kubectl() {
  command -v kubectl >/dev/null || build_kubernetes kubectl
}

build() { build_etcd; build_kubernetes kube-apiserver; build_kubectl; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

pki() {
  local d="$STATE/pki"
  mkdir -p "$d"
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=remold-e2e-ca" \
    -keyout "$d/ca.key" -out "$d/ca.crt" 2>/dev/null
  issue apiserver "/CN=kube-apiserver" "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc
extendedKeyUsage=serverAuth"
  issue admin "/O=system:masters/CN=remold-e2e-admin" "extendedKeyUsage=clientAuth"
  issue webhook "/CN=remold-e2e-webhook" "subjectAltName=IP:127.0.0.1,DNS:localhost
extendedKeyUsage=serverAuth"
  openssl genrsa -out "$d/sa.key" 2048 2>/dev/null
  openssl rsa -in "$d/sa.key" -pubout -out "$d/sa.pub" 2>/dev/null
  # A CA of its own for webhook clients, so that a server trusting it trusts the apiserver's webhook calls and no
  # other certificate of this cluster (admin, apiserver serving pair).
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=remold-e2e-webhook-client-ca" \
    -keyout "$d/webhook-client-ca.key" -out "$d/webhook-client-ca.crt" 2>/dev/null
  issue webhook-client "/CN=kube-apiserver-webhook-client" "extendedKeyUsage=clientAuth" webhook-client-ca
}

# issue <name> <subject> <extensions> [<ca>]: a key pair signed by the e2e CA (or the named one)
issue() {
  local d="$STATE/pki" name="$1" subject="$2" ext="$3" ca="${4:-ca}"
  openssl req -newkey rsa:2048 -nodes -subj "$subject" -keyout "$d/$name.key" -out "$d/$name.csr" 2>/dev/null
  printf '%s\n' "$ext" >"$d/$name.ext"
  openssl x509 -req -in "$d/$name.csr" -CA "$d/$ca.crt" -CAkey "$d/$ca.key" -CAcreateserial -days 30 \
    -extfile "$d/$name.ext" -out "$d/$name.crt" 2>/dev/null
  rm -f "$d/$name.csr" "$d/$name.ext"
}

# The apiserver presents webhook-client.crt to every webhook ('*'). A webhook server that does not ask for a client
# certificate never sees it, so servers without mutual TLS are unaffected.
admission_config() {
  local a="$STATE/admission" d="$STATE/pki"
  mkdir -p "$a"
  cat >"$a/webhook-kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
users:
- name: '*'
  user:
    client-certificate: $d/webhook-client.crt
    client-key: $d/webhook-client.key
KUBECONFIG
  local plugin
  {
    echo "apiVersion: apiserver.config.k8s.io/v1"
    echo "kind: AdmissionConfiguration"
    echo "plugins:"
    for plugin in ValidatingAdmissionWebhook MutatingAdmissionWebhook; do
      cat <<PLUGIN
- name: $plugin
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    kubeConfigFile: $a/webhook-kubeconfig
PLUGIN
    done
  } >"$a/config.yaml"
}

kubeconfig() {
  local d="$STATE/pki"
  cat >"$STATE/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: remold-e2e
  cluster:
    server: https://127.0.0.1:$APISERVER_PORT
    certificate-authority-data: $(base64 -w0 "$d/ca.crt")
users:
- name: remold-e2e-admin
  user:
    client-certificate-data: $(base64 -w0 "$d/admin.crt")
    client-key-data: $(base64 -w0 "$d/admin.key")
contexts:
- name: remold-e2e
  context: {cluster: remold-e2e, user: remold-e2e-admin}
current-context: remold-e2e
KUBECONFIG
}

alive() { [[ -f "$STATE/$1.pid" ]] && kill -0 "$(cat "$STATE/$1.pid")" 2>/dev/null; }

# launch <name> <binary> <args...>: in its own session so that it outlives this script and Maven's exec plugin
launch() {
  local name="$1"; shift
  setsid "$@" >>"$STATE/$name.log" 2>&1 </dev/null &
  echo $! >"$STATE/$name.pid"
}

start_etcd() {
  launch etcd "$ETCD_BIN" --name=e2e --data-dir="$STATE/etcd" \
    --listen-client-urls="http://127.0.0.1:$ETCD_PORT" --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-advertise-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster="e2e=http://127.0.0.1:$ETCD_PEER_PORT" --unsafe-no-fsync --log-level=warn
  wait_for etcd 60 curl -sf "http://127.0.0.1:$ETCD_PORT/health"
}

start_apiserver() {
  local d="$STATE/pki"
  # ServiceAccount admission is off as in envtest: without a controller-manager no namespace has a default account.
  launch kube-apiserver "$APISERVER_BIN" --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$APISERVER_PORT" \
    --cert-dir="$d" --tls-cert-file="$d/apiserver.crt" --tls-private-key-file="$d/apiserver.key" \
    --client-ca-file="$d/ca.crt" --authorization-mode=Node,RBAC \
    --service-account-issuer="https://127.0.0.1:$APISERVER_PORT/" --service-account-key-file="$d/sa.pub" \
    --service-account-signing-key-file="$d/sa.key" --service-cluster-ip-range=10.0.0.0/24 \
    --allow-privileged=true --disable-admission-plugins=ServiceAccount --profiling=false \
    --admission-control-config-file="$STATE/admission/config.yaml"
  wait_for kube-apiserver 120 curl -sf --cacert "$d/ca.crt" --cert "$d/admin.crt" --key "$d/admin.key" \
    "https://127.0.0.1:$APISERVER_PORT/readyz"
  wait_for "the default namespace" 30 kubectl --kubeconfig "$STATE/kubeconfig" get namespace default
}

# wait_for <what> <seconds> <command...>: poll until the command succeeds; fail early if the process died
wait_for() {
  local what="$1" deadline=$((SECONDS + $2)); shift 2
  until "$@" >/dev/null 2>&1; do
    for p in etcd kube-apiserver; do
      if [[ -f "$STATE/$p.pid" ]] && ! alive "$p"; then
        tail -n 30 "$STATE/$p.log" >&2 || true
        die "$p exited while waiting for $what (log: $STATE/$p.log)"
      fi
    done
    ((SECONDS < deadline)) || { tail -n 30 "$STATE/kube-apiserver.log" >&2 2>/dev/null || true; die "timed out waiting for $what"; }
    sleep 0.5
  done
}

load_ports() {
  [[ -f "$STATE/ports.env" ]] || die "not started (no $STATE/ports.env)"
  # shellcheck source=/dev/null
  . "$STATE/ports.env"
}

# start always gives a fresh cluster: a previous one under the same state dir (an aborted run) is stopped first.
start() {
  build
  stop
  rm -rf "$STATE" && mkdir -p "$STATE"
  [[ -x "$KUBECTL_BIN" ]] && export PATH="$(dirname "$KUBECTL_BIN"):$PATH"
  ETCD_PORT=$(free_port); ETCD_PEER_PORT=$(free_port); APISERVER_PORT=$(free_port)
  printf 'ETCD_PORT=%s\nETCD_PEER_PORT=%s\nAPISERVER_PORT=%s\n' "$ETCD_PORT" "$ETCD_PEER_PORT" "$APISERVER_PORT" \
    >"$STATE/ports.env"
  # EXIT, not ERR: die() exits without raising ERR.
  trap 'log "start failed, stopping what it started"; stop' EXIT
  local t0=$SECONDS
  pki
  admission_config
  kubeconfig
  start_etcd
  start_apiserver
  trap - EXIT
  log "ready in $((SECONDS - t0)) s: export KUBECONFIG=$STATE/kubeconfig"
}

restart-apiserver() {
  load_ports
  stop_one kube-apiserver
  start_apiserver
}

stop_one() {
  local name="$1" pid i
  [[ -f "$STATE/$name.pid" ]] || return 0
  pid=$(cat "$STATE/$name.pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$STATE/$name.pid"
}

stop() {
  stop_one kube-apiserver
  stop_one etcd
}

status() {
  local ok=0 p
  for p in etcd kube-apiserver; do
    if alive "$p"; then echo "$p: running (pid $(cat "$STATE/$p.pid"))"; else echo "$p: stopped"; ok=1; fi
  done
  if ((ok == 0)); then
    load_ports
    local d="$STATE/pki"
    if curl -sf --cacert "$d/ca.crt" --cert "$d/admin.crt" --key "$d/admin.key" \
        "https://127.0.0.1:$APISERVER_PORT/readyz" >/dev/null; then
      echo "kube-apiserver: ready at https://127.0.0.1:$APISERVER_PORT"
    else
      echo "kube-apiserver: not ready"; ok=1
    fi
  fi
  return $ok
}

env() {
  load_ports
  local d="$STATE/pki"
  echo "export KUBECONFIG=$STATE/kubeconfig"
  echo "export REMOLD_E2E_STATE=$STATE"
  echo "export REMOLD_E2E_APISERVER=https://127.0.0.1:$APISERVER_PORT"
  echo "export REMOLD_E2E_CA=$d/ca.crt"
  echo "export REMOLD_E2E_WEBHOOK_CERT=$d/webhook.crt"
  echo "export REMOLD_E2E_WEBHOOK_KEY=$d/webhook.key"
  echo "export REMOLD_E2E_CLIENT_CA=$d/webhook-client-ca.crt"
  echo "export REMOLD_E2E_WEBHOOK_CLIENT_CERT=$d/webhook-client.crt"
  echo "export REMOLD_E2E_WEBHOOK_CLIENT_KEY=$d/webhook-client.key"
  [[ -x "$KUBECTL_BIN" ]] && echo "export PATH=$(dirname "$KUBECTL_BIN"):\$PATH"
  return 0
}

case "${1:-}" in
  build|start|stop|status|env|restart-apiserver) "$1" ;;
  *) echo "usage: $0 build|start|stop|status|env|restart-apiserver" >&2; exit 2 ;;
esac
