#!/usr/bin/env bash
# The CUE spike (issue 26): builds kinitiras's CUE evaluation (cuelang.org/go v0.4.3) as a native worker and as a
# wasip1 reactor, then measures both transports with CueSpike.java. Usage: benchmarks/cue-spike/run.sh [CALLS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${CUE_SPIKE_OUT:-$root/benchmarks/target/cue-spike}
mkdir -p "$out"
export PATH=$PATH:/usr/local/go/bin
. "$root/scripts/java-home.sh"
(cd "$here" && go build -o "$out/cueworker" . && GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o "$out/cue.wasm" .)
for artifact in runtime wasi compiler; do
  "$root/mvnw" -B -q dependency:get -Dartifact=com.dylibso.chicory:$artifact:1.5.3 >/dev/null
done
cp=$(ls ~/.m2/repository/com/dylibso/chicory/*/1.5.3/*.jar ~/.m2/repository/org/ow2/asm/*/9.9/*.jar | tr '\n' ':')
calls=${1:-200}
java -cp "$cp" "$here/CueSpike.java" worker "$out/cueworker" "$calls"
java -Xmx2g -cp "$cp" "$here/CueSpike.java" compiled "$out/cue.wasm" "$((calls / 10))"
java -Xmx2g -cp "$cp" "$here/CueSpike.java" interpreted "$out/cue.wasm" 3
