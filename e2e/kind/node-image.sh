#!/usr/bin/env bash
# Builds a kind node image for KUBERNETES_VERSION on a machine that reaches no image registry, the way kind assembles
# kindest/node (sigs.k8s.io/kind pkg/build/nodeimage): a base image with systemd, containerd, runc, crictl and the
# CNI plugins; the kube binaries copied into /usr/bin; every image kubeadm needs imported into containerd; committed.
#
#   e2e/kind/node-image.sh          build what is missing, print the node image's name
#   e2e/kind/node-image.sh kind     build the kind CLI only, print its path
#   e2e/kind/node-image.sh debian   import the Debian base only, print its name
#
# Every part comes from the Go module proxy, Debian's packages or this repository:
#   - Debian bookworm from debootstrap, imported into Docker (no base image is pulled)
#   - kubeadm, kubelet, kubectl and the control-plane and kube-proxy images from k8s.io/kubernetes
#   - etcd and CoreDNS at the versions kubeadm asks for; pause compiled from k8s.io/kubernetes' build/pause
#   - containerd, runc, crictl and the CNI plugins at the versions of kind's base image
#   - kind's own base-image files (entrypoint, systemd units, containerd config) from the sigs.k8s.io/kind module
# kindnetd is not served by the module proxy: the single node's pod network is the chain kindnetd itself writes
# (ptp, host-local, portmap) as a static CNI config, and clusters from this image set disableDefaultCNI.
#
# Go binaries are cached under ~/.cache/remold-e2e keyed by version; images are tagged with a hash of this recipe,
# so a warm run builds nothing. Environment: KUBERNETES_VERSION, REMOLD_E2E_CACHE.
set -euo pipefail
shopt -s inherit_errexit

KUBERNETES_VERSION="${KUBERNETES_VERSION:-v1.36.3}"
KIND_VERSION=v0.33.0
# The versions kind v0.33.0's base image builds (images/base/Dockerfile).
CONTAINERD_VERSION=v2.3.4
RUNC_VERSION=v1.4.3
CRICTL_VERSION=v1.36.0
CNI_PLUGINS_VERSION=v1.9.1
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${REMOLD_E2E_CACHE:-$HOME/.cache/remold-e2e}"
BIN="$CACHE/kind"
REPO=remold.local

log() { echo "node-image: $*" >&2; }
die() { log "$*"; exit 1; }

. "$HERE/../build-lib.sh"

KIND_BIN="$BIN/kind-$KIND_VERSION/kind"
KIND_MODULE="$(go env GOMODCACHE)/sigs.k8s.io/kind@$KIND_VERSION"
RECIPE="$(cat "$HERE/node-image.sh" "$HERE"/node/* | sha256sum | cut -c1-10)"
NODE_IMAGE="$REPO/kind-node:$KUBERNETES_VERSION-$RECIPE"

have_image() { docker image inspect "$1" >/dev/null 2>&1; }

build_kind() {
  go_install "$BIN/kind-$KIND_VERSION" -- "sigs.k8s.io/kind@$KIND_VERSION"
  [[ -d "$KIND_MODULE/images/base/files" ]] || (cd "$BIN" && go mod download "sigs.k8s.io/kind@$KIND_VERSION")
}

build_runtime() {
  go_install "$BIN/containerd-$CONTAINERD_VERSION" -tags "no_aufs no_zfs no_btrfs no_devmapper" -ldflags "-s -w" -- \
    "github.com/containerd/containerd/v2/cmd/containerd@$CONTAINERD_VERSION" \
    "github.com/containerd/containerd/v2/cmd/ctr@$CONTAINERD_VERSION" \
    "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2@$CONTAINERD_VERSION"
  # runc needs cgo for seccomp; linked statically, as its release binaries are.
  if [[ ! -d "$BIN/runc-$RUNC_VERSION" ]]; then
    [[ -f /usr/include/seccomp.h ]] || { apt-get update -qq && apt-get install -y -qq libseccomp-dev >/dev/null; }
    CGO_ENABLED=1 go_install "$BIN/runc-$RUNC_VERSION" -tags "seccomp netgo osusergo urfave_cli_no_docs" \
      -ldflags "-s -w -extldflags -static" -- "github.com/opencontainers/runc@$RUNC_VERSION"
  fi
  go_install "$BIN/crictl-$CRICTL_VERSION" -ldflags "-s -w" -- "sigs.k8s.io/cri-tools/cmd/crictl@$CRICTL_VERSION"
  go_install "$BIN/cni-plugins-$CNI_PLUGINS_VERSION" -ldflags "-s -w" -- \
    "github.com/containernetworking/plugins/plugins/ipam/host-local@$CNI_PLUGINS_VERSION" \
    "github.com/containernetworking/plugins/plugins/main/loopback@$CNI_PLUGINS_VERSION" \
    "github.com/containernetworking/plugins/plugins/main/ptp@$CNI_PLUGINS_VERSION" \
    "github.com/containernetworking/plugins/plugins/meta/portmap@$CNI_PLUGINS_VERSION"
}

# required_image <name>: the reference `kubeadm config images list` gives for a component (etcd, coredns, pause ...)
required_image() { "$KUBERNETES_BIN/kubeadm" config images list --kubernetes-version "$KUBERNETES_VERSION" 2>/dev/null | grep "/$1:"; }

build_addons() {
  local etcd coredns pause
  etcd="$(required_image etcd)"; etcd="${etcd##*:}"; etcd="v${etcd%-*}"
  coredns="$(required_image coredns)"; coredns="${coredns##*:}"
  pause="$(required_image pause)"; pause="${pause##*:}"
  local gomod="module remold.io/e2e/build-etcd

go 1.26

require go.etcd.io/etcd/server/v3 $etcd"
  if [[ ! -x "$BIN/etcd-$etcd/etcd" ]]; then
    log "building etcd $etcd"
    build_in_module "$CACHE/build/etcd-$etcd" "$gomod" "$CACHE/build/etcd-$etcd/bin" "-s -w" go.etcd.io/etcd/server/v3
    mkdir -p "$BIN/etcd-$etcd" && mv "$CACHE/build/etcd-$etcd"/bin/* "$BIN/etcd-$etcd/etcd"
  fi
  go_install "$BIN/coredns-$coredns" -ldflags "-s -w" -- "github.com/coredns/coredns@$coredns"
  if [[ ! -x "$BIN/pause-$pause/pause" ]]; then
    local src
    src="$(go env GOMODCACHE)/k8s.io/kubernetes@$KUBERNETES_VERSION/build/pause/linux/pause.c"
    [[ -f "$src" ]] || die "$src is missing (the k8s.io/kubernetes module is downloaded by the kube build)"
    mkdir -p "$BIN/pause-$pause"
    gcc -Os -Wall -Werror -static -DVERSION="v$pause-remold" -o "$BIN/pause-$pause/pause" "$src"
  fi
}

debian_image() {
  local image="$REPO/debian:bookworm"
  have_image "$image" && { echo "$image"; return; }
  command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null; }
  local root="$CACHE/build/debian-bookworm"
  rm -rf "$root"
  log "debootstrap bookworm"
  debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$CACHE/build/debootstrap.log" 2>&1 \
    || die "debootstrap failed: $CACHE/build/debootstrap.log"
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  tar -C "$root" -c . | docker import - "$image" >/dev/null
  rm -rf "$root"
  echo "$image"
}

# binary_image <reference> <entrypoint> <file...>: an image of static binaries only, under /usr/local/bin.
binary_image() {
  local ref="$1" entrypoint="$2"; shift 2
  local ctx; ctx="$(mktemp -d)"
  mkdir -p "$ctx/usr/local/bin" "$ctx/tmp" && chmod 1777 "$ctx/tmp"
  cp "$@" "$ctx/usr/local/bin/"
  tar -C "$ctx" -c . | docker import --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
    --change "ENTRYPOINT $entrypoint" - "$ref" >/dev/null
  rm -rf "$ctx"
}

# The images kubeadm and containerd pull at start, saved as archives for `ctr images import`.
component_images() {
  local out="$CACHE/build/node-images-$KUBERNETES_VERSION-$RECIPE" debian="$1"
  [[ -f "$out/done" ]] && { echo "$out"; return; }
  rm -rf "$out" && mkdir -p "$out"
  local etcd coredns pause name
  etcd="$(required_image etcd)"; coredns="$(required_image coredns)"; pause="$(required_image pause)"
  for name in kube-apiserver kube-controller-manager kube-scheduler; do
    binary_image "registry.k8s.io/$name:$KUBERNETES_VERSION" "[\"/usr/local/bin/$name\"]" "$KUBERNETES_BIN/$name"
    docker save "registry.k8s.io/$name:$KUBERNETES_VERSION" -o "$out/$name.tar"
  done
  local v="${etcd##*:}"; v="v${v%-*}"
  binary_image "$etcd" '["/usr/local/bin/etcd"]' "$BIN/etcd-$v/etcd"
  docker save "$etcd" -o "$out/etcd.tar"
  binary_image "$coredns" '["/usr/local/bin/coredns"]' "$BIN/coredns-${coredns##*:}/coredns"
  docker save "$coredns" -o "$out/coredns.tar"
  # containerd's sandbox image (kind's config.toml) may name another pause tag than kubeadm: both are this pause.
  local sandbox
  sandbox="$(sed -n 's/^ *sandbox_image *= *"\(.*\)"/\1/p' "$KIND_MODULE/images/base/files/etc/containerd/config.toml")"
  binary_image "$pause" '["/usr/local/bin/pause"]' "$BIN/pause-${pause##*:}/pause"
  docker tag "$pause" "$sandbox"
  docker save "$pause" "$sandbox" -o "$out/pause.tar"
  # kube-proxy programs iptables, so its image is Debian with iptables and conntrack, as the official one is.
  local ctx; ctx="$(mktemp -d)"
  cp "$KUBERNETES_BIN/kube-proxy" "$ctx/"
  printf '%s\n' "FROM $debian" \
    'RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends iptables conntrack ipset kmod >/dev/null && rm -rf /var/lib/apt/lists/*' \
    'COPY kube-proxy /usr/local/bin/kube-proxy' >"$ctx/Dockerfile"
  DOCKER_BUILDKIT=0 docker build -q -t "registry.k8s.io/kube-proxy:$KUBERNETES_VERSION" "$ctx" >/dev/null
  rm -rf "$ctx"
  docker save "registry.k8s.io/kube-proxy:$KUBERNETES_VERSION" -o "$out/kube-proxy.tar"
  touch "$out/done"
  echo "$out"
}

# The base image: kind's base-image files and packages on our Debian, with binaries built here.
base_image() {
  local debian="$1" image="$REPO/kind-base:$RECIPE"
  have_image "$image" && { echo "$image"; return; }
  local ctx; ctx="$(mktemp -d)"
  cp -r "$KIND_MODULE/images/base/files" "$ctx/files"
  chmod -R u+w "$ctx/files"
  find "$ctx/files" -type f -exec chmod 0644 {} + && find "$ctx/files" -type d -exec chmod 0755 {} +
  chmod 0755 "$ctx"/files/usr/local/bin/* "$ctx"/files/kind/bin/*
  mkdir -p "$ctx/bin/cni"
  cp "$BIN/containerd-$CONTAINERD_VERSION"/* "$BIN/runc-$RUNC_VERSION/runc" "$BIN/crictl-$CRICTL_VERSION/crictl" "$ctx/bin/"
  cp "$BIN/cni-plugins-$CNI_PLUGINS_VERSION"/* "$ctx/bin/cni/"
  cp "$HERE"/node/* "$ctx/"
  sed "s|@DEBIAN@|$debian|" "$HERE/node/Dockerfile" >"$ctx/Dockerfile"
  log "building $image"
  DOCKER_BUILDKIT=0 docker build -q -t "$image" "$ctx" >/dev/null || die "docker build of $image failed"
  rm -rf "$ctx"
  echo "$image"
}

# As kind's nodeimage builder: kube binaries into /usr/bin, /kind/version, images imported into containerd (pinned,
# not unpacked), then docker commit with kind's entrypoint.
node_image() {
  local base="$1" images="$2" id="remold-kind-build-$$"
  docker rm -f "$id" >/dev/null 2>&1 || true
  docker run -d --name "$id" --entrypoint=sleep --security-opt seccomp=unconfined "$base" infinity >/dev/null
  trap 'docker rm -f "$id" >/dev/null 2>&1 || true' EXIT
  local b
  for b in kubeadm kubelet kubectl; do docker cp "$KUBERNETES_BIN/$b" "$id:/usr/bin/$b"; done
  docker exec "$id" sh -c "chown root:root /usr/bin/kubeadm /usr/bin/kubelet /usr/bin/kubectl && chmod 0755 /usr/bin/kube* && echo $KUBERNETES_VERSION >/kind/version"
  docker exec -d "$id" sh -c 'containerd >/tmp/containerd.log 2>&1'
  local i
  for i in $(seq 60); do docker exec "$id" ctr info >/dev/null 2>&1 && break; sleep 0.5; done
  local tar
  for tar in "$images"/*.tar; do
    docker exec -i "$id" ctr --namespace=k8s.io images import --label=io.cri-containerd.pinned=pinned \
      --all-platforms --no-unpack --digests - <"$tar" >/dev/null || die "ctr import of $tar failed"
  done
  docker exec "$id" ctr --namespace=k8s.io images list -q >&2
  docker exec "$id" pkill containerd || true
  for i in $(seq 60); do docker exec "$id" pgrep containerd >/dev/null 2>&1 || break; sleep 0.5; done
  docker commit --change 'ENTRYPOINT [ "/usr/local/bin/entrypoint", "/sbin/init" ]' \
    --change 'ENV HTTP_PROXY="" HTTPS_PROXY="" NO_PROXY=""' "$id" "$NODE_IMAGE" >/dev/null
  docker rm -f "$id" >/dev/null
  trap - EXIT
}

case "${1:-}" in
  kind) build_kind; echo "$KIND_BIN" ;;
  debian) debian_image ;;
  "")
    if ! have_image "$NODE_IMAGE"; then
      t0=$SECONDS
      build_kind
      build_kubernetes kubeadm kubelet kubectl kube-apiserver kube-controller-manager kube-scheduler kube-proxy
      build_runtime
      build_addons
      debian="$(debian_image)"
      images="$(component_images "$debian")"
      base="$(base_image "$debian")"
      log "assembling $NODE_IMAGE"
      node_image "$base" "$images"
      log "$NODE_IMAGE built in $((SECONDS - t0)) s"
    fi
    echo "$NODE_IMAGE"
    ;;
  *) echo "usage: $0 [kind|debian]" >&2; exit 2 ;;
esac
