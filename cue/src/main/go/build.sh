#!/usr/bin/env bash
# Builds the CUE worker (a static binary) as OUT_DIR/cue-worker-GOOS-GOARCH, the cue jar's resource; run by the
# Maven build. Skipped while the binary is newer than every source here (Go's own cache serves the rest).
# Go: `go` on PATH, else /usr/local/go/bin/go. Usage: build.sh OUT_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out_dir=${1:?usage: build.sh OUT_DIR}
go=$(command -v go || echo /usr/local/go/bin/go)
if [ ! -x "$go" ]; then
  echo "build.sh: the CUE worker is built with Go 1.19 or newer, and there is none on PATH or at $go" >&2
  exit 1
fi
target="$out_dir/cue-worker-$("$go" env GOOS)-$("$go" env GOARCH)"
if [ -f "$target" ] && [ -z "$(find "$here" -newer "$target" -print -quit)" ]; then
  exit 0
fi
mkdir -p "$out_dir"
cd "$here"
CGO_ENABLED=0 "$go" build -buildvcs=false -trimpath -ldflags='-s -w' -o "$target.tmp" .
mv "$target.tmp" "$target"
touch "$target" # Go may copy a cached link, keeping its older time
