# Sourced by e2e/control-plane.sh and e2e/kind/node-image.sh: builds the pinned Go programs the tests need from
# the Go module proxy, cached under $CACHE keyed by version, so a warm run builds nothing.
# Needs: CACHE, KUBERNETES_VERSION, and log/die functions.

# Every k8s.io staging module that k8s.io/kubernetes requires at v0.0.0 (its own go.mod replaces them with ./staging,
# which a dependency's go.mod cannot do for us).
STAGING_MODULES=(api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider cluster-bootstrap
  code-generator component-base component-helpers controller-manager cri-api cri-client cri-streaming csi-translation-lib
  dynamic-resource-allocation endpointslice externaljwt kms kube-aggregator kube-controller-manager kube-proxy
  kube-scheduler kubectl kubelet metrics mount-utils pod-security-admission sample-apiserver sample-cli-plugin
  sample-controller streaming)

# The Go toolchain's usual place, for shells (CI) whose PATH lacks it.
if ! command -v go >/dev/null && [[ -x /usr/local/go/bin/go ]]; then PATH="/usr/local/go/bin:$PATH"; fi

KUBERNETES_BIN="$CACHE/kubernetes-$KUBERNETES_VERSION"

# build_in_module <dir> <go.mod body> <output dir> <ldflags> <package...>: a throwaway main module, because
# `go install pkg@v` refuses modules with replace directives. Several packages build in one go, sharing the compile.
build_in_module() {
  local dir="$1" gomod="$2" out="$3" ldflags="$4"; shift 4
  mkdir -p "$dir" "$out"
  printf '%s\n' "$gomod" >"$dir/go.mod"
  rm -rf "$dir/out.tmp" && mkdir -p "$dir/out.tmp"
  # -mod=mod lets go build add the go.sum lines of exactly the packages it compiles (no tidy across all platforms).
  (cd "$dir" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "$ldflags" -o out.tmp/ "$@") \
    || die "go build of $* failed (module in $dir)"
  mv "$dir"/out.tmp/* "$out"/
}

# build_kubernetes <command...>: kube-apiserver, kubelet, kubectl ... of KUBERNETES_VERSION into $KUBERNETES_BIN,
# only those missing. One module for all, so a second command costs its own packages and a link.
build_kubernetes() {
  local missing=() c
  for c in "$@"; do [[ -x "$KUBERNETES_BIN/$c" ]] || missing+=("k8s.io/kubernetes/cmd/$c"); done
  ((${#missing[@]} > 0)) || return 0
  local minor="${KUBERNETES_VERSION#v1.}"; minor="${minor%%.*}"
  local staging="v0.${KUBERNETES_VERSION#v1.}" replaces="" m
  for m in "${STAGING_MODULES[@]}"; do replaces+=$'\n'"  k8s.io/$m => k8s.io/$m $staging"; done
  local gomod="module remold.io/e2e/build-kubernetes

go 1.26

require k8s.io/kubernetes $KUBERNETES_VERSION

replace ($replaces
)"
  local x="" pkgpath
  for pkgpath in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    x+=" -X $pkgpath.gitVersion=$KUBERNETES_VERSION -X $pkgpath.gitMajor=1 -X $pkgpath.gitMinor=$minor"
    x+=" -X $pkgpath.gitTreeState=clean -X $pkgpath.buildDate=1970-01-01T00:00:00Z"
  done
  log "building ${missing[*]##*/} $KUBERNETES_VERSION (cold caches: about 4 min for all seven on 2 idle cores)"
  local t0=$SECONDS
  build_in_module "$CACHE/build/kubernetes" "$gomod" "$KUBERNETES_BIN" "-s -w$x" "${missing[@]}"
  log "built in $((SECONDS - t0)) s"
}

# go_install <output dir> <go flag...> -- <package@version...>: programs whose modules need no replace directives.
# CGO_ENABLED comes from the caller's environment (0 unless set).
go_install() {
  local out="$1"; shift
  local flags=()
  while [[ "$1" != "--" ]]; do flags+=("$1"); shift; done
  shift
  [[ -d "$out" ]] && return 0
  log "building $*"
  local t0=$SECONDS
  rm -rf "$out.tmp" && mkdir -p "$out.tmp"
  GOBIN="$out.tmp" CGO_ENABLED="${CGO_ENABLED:-0}" go install -trimpath "${flags[@]}" "$@" || die "go install $* failed"
  mv "$out.tmp" "$out"
  log "built in $((SECONDS - t0)) s"
}
