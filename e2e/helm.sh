#!/usr/bin/env bash
# Builds the helm CLI from the Go module proxy, cached under ~/.cache/remold-e2e keyed by version (a warm run builds
# nothing), and prints its path. The e2e module's helm tests and the kind scenario call it.
# Environment: REMOLD_E2E_CACHE.
set -euo pipefail
shopt -s inherit_errexit

HELM_VERSION=v4.3.2
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${REMOLD_E2E_CACHE:-$HOME/.cache/remold-e2e}"
KUBERNETES_VERSION="${KUBERNETES_VERSION:-v1.36.3}"

log() { echo "helm: $*" >&2; }
die() { log "$*"; exit 1; }

. "$HERE/build-lib.sh"

# helm's own release build stamps the version the same way (internal/version); -s -w drops the symbol tables.
go_install "$CACHE/helm-$HELM_VERSION" -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=$HELM_VERSION" \
  -- "helm.sh/helm/v4/cmd/helm@$HELM_VERSION" >&2
echo "$CACHE/helm-$HELM_VERSION/helm"
