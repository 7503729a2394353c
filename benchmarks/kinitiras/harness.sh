# Sourced by compare.sh and ../kinitiras-load.sh with $engine set (v0.4.5, what the kinitiras webhook requires, or
# newest): builds the harness (cmd/harness) from kinitiras's unchanged source beside the checkout
# (../shared/conformance/kinitiras) into $harness, and exports KINITIRAS_CRDS, the folder of that engine's CRDs.
# The first build takes minutes (README.md); later ones seconds, from the Go build cache.
harness_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
case "$engine" in
  v0.4.5) pkg=pkg-v0.4.5 modfile=go.mod ;;
  newest) pkg=pkg modfile=go.newest.mod ;;
  *) echo "unknown engine: $engine (v0.4.5 or newest)" >&2; exit 2 ;;
esac
shared=$(cd "$harness_dir/../../../shared/conformance/kinitiras" && pwd)
export PATH=$PATH:/usr/local/go/bin KINITIRAS_CRDS=$shared/$pkg/charts/_crds/bases
harness=$(cd "$harness_dir/.." && pwd)/target/kinitiras-harness-$engine
(cd "$harness_dir" && nice -n 15 go build -modfile="$modfile" -o "$harness" ./cmd/harness)
