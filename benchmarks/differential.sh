#!/usr/bin/env bash
# The differential test against Gatekeeper (issue 15): both webhooks get the same mutators (GatekeeperMix's varied
# ten: Assign with keyed lists, globs, a typed key, pathTests and fromMetadata; AssignMetadata; ModifySet merge and
# prune; AssignImage), Gatekeeper from the API server and Remold from a folder (`serve --rules`), and the same COUNT
# AdmissionReviews generated from SEED (GeneratedReviews: Pods and Deployments, CREATE and UPDATE). Each answer's JSON
# Patch is applied to the review's object and the two results must be equal. Every difference is printed with the
# seed and the review's index (regenerate it with the same --seed and a --count beyond the index); the script then
# exits 1.
#
#   benchmarks/differential.sh                        # seed 1, 300 reviews
#   benchmarks/differential.sh --seed 7 --count 1000
#
# Not part of ./run-tests: it needs Gatekeeper's build (a few minutes the first time; see gatekeeper.sh).
set -euo pipefail

ARGS=("$@")
SEED=1
COUNT=300
while [ $# -gt 0 ]; do
  case "$1" in
    --seed) SEED=$2; shift 2 ;;
    --count) COUNT=$2; shift 2 ;;
    -h|--help) sed -n 2,13p "$0"; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done

. "$(dirname "$0")/gatekeeper.sh" "${ARGS[@]}"
differential() { java -cp benchmarks/target/remold-benchmarks.jar io.remold.benchmarks.Differential "$@"; }

differential write "$WORK/differential"
mapfile -t namespaces <"$WORK/differential/namespaces"
create_namespaces "${namespaces[@]}"
replace_mutators "$WORK/differential/rules/mutators.yaml"
start_gatekeeper "$(grep -c '^kind:' "$WORK/differential/rules/mutators.yaml")"
start_server "$WORK/differential/rules"
differential run "$SEED" "$COUNT" "$GK_URL" "https://127.0.0.1:$PORT/mutate"
