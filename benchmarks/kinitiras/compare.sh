#!/usr/bin/env bash
# kinitiras's own engine as the reference for Remold's kinitiras family (issue 26). Builds the Go harness
# (cmd/harness) from kinitiras's unchanged source beside the checkout (../shared/conformance/kinitiras), then:
#
#   benchmarks/kinitiras/compare.sh --seed 1 --cases 300   # generated cases -> OUT/cases.jsonl, OUT/expected.jsonl
#   benchmarks/kinitiras/compare.sh --corpus               # rewrites the expected part of the committed case files
#                                                          # (kinitiras/src/test/resources/{conformance,examples})
#                                                          # and the committed differential sets (seed 1, 300 cases,
#                                                          # one per engine)
#
# --out DIR (default benchmarks/target/kinitiras) is where the generated set goes. --engine newest runs the newest
# github.com/k-cloud-labs/pkg instead of v0.4.5 (what the kinitiras webhook requires), and its generated cases
# have origin overriders too; the default is v0.4.5.
# The formats are in kinitiras/src/test/resources/conformance/README.md. Needs Go (/usr/local/go/bin) and the module proxy the first time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
seed=1 cases=300 out=$root/benchmarks/target/kinitiras corpus=false engine=v0.4.5
while [ $# -gt 0 ]; do
  case "$1" in
    --seed) seed=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --corpus) corpus=true; shift ;;
    --engine) engine=$2; shift 2 ;;
    -h|--help) sed -n 2,13p "$0"; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
generate=()
if [ "$engine" = newest ]; then generate=(--origin); fi
mkdir -p "$out"
. "$here/harness.sh"

if $corpus; then
  # The Go tests of v0.4.5, the examples and the differential set run on v0.4.5; the newest-only tests on the
  # newest pkg (this script again, with --engine newest).
  resources=$root/kinitiras/src/test/resources
  if [ "$engine" = newest ]; then
    "$harness" corpus "$resources/conformance/newest"
    differential=$resources/conformance/differential-newest
  else
    "$harness" corpus "$resources/conformance/v0.4.5" "$resources/examples"
    differential=$resources/conformance/differential
  fi
  mkdir -p "$differential"
  "$harness" generate --seed 1 --cases 300 "${generate[@]}" >"$differential/cases.jsonl"
  "$harness" <"$differential/cases.jsonl" >"$differential/expected.jsonl"
  if [ "$engine" = v0.4.5 ]; then exec "$0" --corpus --engine newest; fi
  exit 0
fi
"$harness" generate --seed "$seed" --cases "$cases" "${generate[@]}" >"$out/cases.jsonl"
"$harness" <"$out/cases.jsonl" >"$out/expected.jsonl"
echo "$(wc -l <"$out/expected.jsonl") cases: $out/cases.jsonl, kinitiras's answers: $out/expected.jsonl" >&2
