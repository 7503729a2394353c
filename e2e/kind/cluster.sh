#!/usr/bin/env bash
# A kind cluster for the in-cluster scenarios, and Remold's image built and loaded into it as a user would.
#
#   e2e/kind/cluster.sh up             create the cluster ($REMOLD_KIND_NAME, default "remold-kind"), anew (REMOLD_KIND_REUSE=1: keep a healthy one)
#   e2e/kind/cluster.sh image TAG      docker build the repository's Dockerfile as remold.local/remold:TAG, kind load it
#   e2e/kind/cluster.sh env            print exports: KUBECONFIG, REMOLD_KIND_CLUSTER, REMOLD_KIND_BIN
#   e2e/kind/cluster.sh down           delete the cluster
#
# Where Docker Hub answers, the node is kind's public kindest/node and the image's bases are the Dockerfile's
# defaults; where no registry is reachable (this project's machines), e2e/kind/node-image.sh builds the node image
# and remold-bases() below builds the bases from Debian and the local JDK. Both paths run the same scenarios.
# Docker must be running (CI: ../shared/tools/docker-up). Environment: KUBERNETES_VERSION, REMOLD_KIND_STATE,
# REMOLD_KIND_NAME (the cluster's name, default remold-kind; benchmarks/incluster.sh uses its own).
set -euo pipefail
shopt -s inherit_errexit

KUBERNETES_VERSION="${KUBERNETES_VERSION:-v1.36.3}"
NAME="${REMOLD_KIND_NAME:-remold-kind}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$HERE/../.." && pwd)"
STATE="${REMOLD_KIND_STATE:-$HERE/../target/kind}"
CACHE="${REMOLD_E2E_CACHE:-$HOME/.cache/remold-e2e}"

log() { echo "kind-cluster: $*" >&2; }
die() { log "$*"; exit 1; }

command -v docker >/dev/null && docker info >/dev/null 2>&1 \
  || die "no Docker daemon: start one (on this project's machines: ../shared/tools/docker-up)"
KIND="$("$HERE/node-image.sh" kind)"

# The public images answer a pull, or no registry is reachable at all (a refusal comes back at once).
registry_reachable() { docker pull -q "kindest/node:$KUBERNETES_VERSION" >/dev/null 2>&1; }

node_image() {
  if registry_reachable; then echo "kindest/node:$KUBERNETES_VERSION"; else "$HERE/node-image.sh"; fi
}

cluster_config() {
  # Kubelets since 1.35 refuse cgroup v1 hosts unless told otherwise; on cgroup v2 the setting changes nothing.
  cat <<'YAML'
kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
kubeadmConfigPatches:
- |
  kind: KubeletConfiguration
  failCgroupV1: false
YAML
  # The locally built node has no kindnetd: its CNI config is baked in (see node-image.sh).
  [[ "$1" == kindest/* ]] || printf 'networking:\n  disableDefaultCNI: true\n'
}

healthy() {
  "$KIND" get clusters 2>/dev/null | grep -qx "$NAME" \
    && kubectl --kubeconfig "$STATE/kubeconfig" get --raw /readyz >/dev/null 2>&1
}

up() {
  mkdir -p "$STATE"
  echo "$KIND" >"$STATE/kind-bin"
  if [[ "${REMOLD_KIND_REUSE:-0}" == 1 ]] && healthy; then log "cluster $NAME is up"; return; fi
  "$KIND" delete cluster --name "$NAME" >/dev/null 2>&1 || true
  local image; image="$(node_image)"
  cluster_config "$image" >"$STATE/kind-config.yaml"
  log "creating cluster $NAME from $image"
  local t0=$SECONDS
  "$KIND" create cluster --name "$NAME" --image "$image" --config "$STATE/kind-config.yaml" \
    --kubeconfig "$STATE/kubeconfig" --wait 180s
  log "cluster $NAME ready in $((SECONDS - t0)) s"
}

# remold_bases: a JDK image for the Dockerfile's build stage and a JRE image for its runtime, both on the Debian
# that node-image.sh imports, with Temurin 25 from this machine (the JRE made by jlink) and this machine's own CA
# certificates (its egress may re-sign TLS: the build stage's Maven wrapper, Maven and Go fetch over HTTPS), and Go
# (go_image). The tags carry a hash of the JDK and the certificates. Prints the build arguments; nothing where
# registries answer.
remold_bases() {
  if registry_reachable; then return; fi
  local debian jdk
  debian="$("$HERE/node-image.sh" debian)"
  jdk="$(ls -d /usr/lib/jvm/temurin-25* 2>/dev/null | head -n1)"
  [[ -n "$jdk" ]] || die "no Temurin 25 under /usr/lib/jvm for the image's JDK and JRE"
  local version key
  version="$("$jdk/bin/java" -version 2>&1 | sed -n 's/.* version "\([^"]*\)".*/\1/p')"
  key="$( (declare -f remold_bases; echo "$debian $jdk"; cat /usr/local/share/ca-certificates/*.crt \
    "$jdk/lib/security/cacerts" 2>/dev/null) | sha256sum | cut -c1-10)"
  local build="remold.local/temurin:$version-jdk-$key" runtime="remold.local/temurin:$version-jre-$key"
  if ! docker image inspect "$build" "$runtime" >/dev/null 2>&1; then
    log "building $build and $runtime from $jdk"
    local ctx; ctx="$(mktemp -d)"
    mkdir -p "$ctx/certs"
    cp /usr/local/share/ca-certificates/*.crt "$ctx/certs/" 2>/dev/null || true
    cp -a "$jdk" "$ctx/jdk"
    # The machine's JDK may link its trust store to the system's (Debian does): the image gets the file itself.
    cp --remove-destination -L "$jdk/lib/security/cacerts" "$ctx/jdk/lib/security/cacerts"
    # The modules of a JRE; this JDK has no jmods, so jlink links from its run-time image and needs them named.
    # jdk.internal.vm.ci: JVMCI, for script rules at compiled speed (opt-in, docs/scripts.md).
    "$jdk/bin/jlink" --add-modules "java.se,jdk.unsupported,jdk.management,jdk.crypto.cryptoki,jdk.crypto.ec,$(
      )jdk.zipfs,jdk.naming.dns,jdk.jfr,jdk.localedata,jdk.net,jdk.httpserver,jdk.internal.vm.ci" \
      --strip-debug --no-man-pages --no-header-files --output "$ctx/jre" >/dev/null
    cp --remove-destination -L "$jdk/lib/security/cacerts" "$ctx/jre/lib/security/cacerts"
    printf '%s\n' "FROM $debian AS base" \
      'RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ca-certificates curl wget >/dev/null && rm -rf /var/lib/apt/lists/*' \
      'COPY certs/ /usr/local/share/ca-certificates/' 'RUN update-ca-certificates >/dev/null' \
      'ENV JAVA_HOME=/opt/java/openjdk PATH=/opt/java/openjdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      'FROM base AS jdk' 'COPY jdk/ /opt/java/openjdk/' \
      'FROM base AS jre' 'COPY jre/ /opt/java/openjdk/' >"$ctx/Dockerfile"
    DOCKER_BUILDKIT=0 docker build -q --target jdk -t "$build" "$ctx" >/dev/null
    DOCKER_BUILDKIT=0 docker build -q --target jre -t "$runtime" "$ctx" >/dev/null
    rm -rf "$ctx"
  fi
  local go_arg; go_arg="$(go_image)"
  echo "--build-arg BUILD_IMAGE=$build --build-arg RUNTIME_IMAGE=$runtime $go_arg"
}

# go_image: the Dockerfile's GO_IMAGE (the toolchain the Maven build makes the CUE worker with) from this machine's
# /usr/local/go, tagged with its version. Prints the build argument.
go_image() {
  local go=/usr/local/go
  [[ -x "$go/bin/go" ]] || die "no Go at $go for the image's build stage (it builds the CUE worker)"
  local tag; tag="remold.local/go:$("$go/bin/go" env GOVERSION)"
  if ! docker image inspect "$tag" >/dev/null 2>&1; then
    log "building $tag from $go"
    printf '%s\n' 'FROM scratch' 'COPY . /usr/local/go/' | DOCKER_BUILDKIT=0 docker build -q -t "$tag" -f - "$go" >/dev/null
  fi
  echo "--build-arg GO_IMAGE=$tag"
}

image() {
  local tag="${1:?usage: $0 image TAG}" ref="remold.local/remold:$1" args
  args="$(remold_bases)"
  log "docker build -t $ref $args ."
  local t0=$SECONDS
  # shellcheck disable=SC2086
  docker build -q -t "$ref" $args "$REPO_DIR" >/dev/null || die "docker build of $ref failed"
  log "built $ref in $((SECONDS - t0)) s; kind load docker-image $ref"
  "$KIND" load docker-image "$ref" --name "$NAME" >/dev/null
}

case "${1:-}" in
  up) up ;;
  image) image "${2:-}" ;;
  env)
    echo "export KUBECONFIG=$STATE/kubeconfig"
    echo "export REMOLD_KIND_CLUSTER=$NAME"
    echo "export REMOLD_KIND_BIN=$KIND"
    ;;
  down) "$KIND" delete cluster --name "$NAME" ;;
  *) echo "usage: $0 up|image TAG|env|down" >&2; exit 2 ;;
esac
