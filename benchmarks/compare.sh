#!/usr/bin/env bash
# Remold against Gatekeeper's mutation webhook, or kinitiras's webhook: the same rules, the same AdmissionReview, the
# same load (load.sh --url, with each server's CPU time per request). Results go to BENCHMARKS.md.
#
#   benchmarks/compare.sh                      # 10, 100 and 1000 rules
#   benchmarks/compare.sh --rules "1000"
#   benchmarks/compare.sh --family gatekeeper  # Gatekeeper's mutators (GatekeeperMix) unchanged on both servers
#   benchmarks/compare.sh --family kinitiras   # kinitiras's policies on kinitiras's webhook built from source
#                                              # (kinitiras-load.sh: --rules are policy counts, default "1 10";
#                                              # --forms "plaintext template cue")
#
# --family modrules (the default) gives Remold ModRules and Gatekeeper the equivalent mutators (ComparisonRules);
# --family gatekeeper gives both the same mutator manifests: Gatekeeper reads them from the API server, Remold from
# its --rules folder. Either way the script first checks that both make the same object of the benchmark review.
# Gatekeeper and the control plane: see gatekeeper.sh. KubeMod is not compared: the module proxy serves none of
# its versions here.
set -euo pipefail

ARGS=("$@")
RULE_COUNTS="10 100 1000"
FAMILY=modrules
while [ $# -gt 0 ]; do
  case "$1" in
    --rules) RULE_COUNTS=$2; shift 2 ;;
    --family) FAMILY=$2; shift 2 ;;
    --forms)
      [[ " ${ARGS[*]} " == *" --family kinitiras "* ]] || { echo "--forms is for --family kinitiras" >&2; exit 2; }
      shift 2 ;;
    -h|--help) sed -n 2,16p "$0"; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
case "$FAMILY" in
  modrules|gatekeeper) ;;
  kinitiras) exec "$(dirname "$0")/kinitiras-load.sh" "${ARGS[@]}" ;;   # no API server: a script of its own
  *) echo "unknown family: $FAMILY" >&2; exit 2 ;;
esac

. "$(dirname "$0")/gatekeeper.sh" "${ARGS[@]}"
create_namespaces shop

# answer NAME URL: the webhook's answer to the benchmark review, kept as $WORK/answer-NAME.json.
answer() {
  curl -ksS -H 'Content-Type: application/json' --data-binary @"$BODY" "$2" >"$WORK/answer-$1.json"
}
# Both webhooks must make the same object of the benchmark review, and change it.
same_answers() {
  java -cp benchmarks/target/remold-benchmarks.jar io.remold.benchmarks.Differential same "$BODY" \
    "$WORK/answer-gatekeeper.json" "$WORK/answer-remold.json" >&2
}

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores, Gatekeeper $GATEKEEPER_VERSION, network: $REMOLD_COMPARE_INSIDE, family: $FAMILY"
for count in $RULE_COUNTS; do
  rules="$WORK/rules-$count"
  if [ "$FAMILY" = gatekeeper ]; then
    java -cp benchmarks/target/remold-benchmarks.jar io.remold.benchmarks.GatekeeperMix "$count" "$rules/remold/mutators.yaml"
    replace_mutators "$rules/remold/mutators.yaml"
  else
    java -cp benchmarks/target/remold-benchmarks.jar io.remold.benchmarks.ComparisonRules "$count" "$rules"
    replace_mutators "$rules/gatekeeper.yaml"
  fi

  start_gatekeeper "$count"
  answer gatekeeper "$GK_URL"
  echo "rules=$count gatekeeper: $("$HERE/load.sh" --url "$GK_URL" --pid "$GK_PID" 2>&1 | tr '\n' ' ')"
  stop_gatekeeper

  start_server "$rules/remold"
  url="https://127.0.0.1:$PORT/mutate"
  answer remold "$url"
  same_answers
  echo "rules=$count remold: $("$HERE/load.sh" --url "$url" --pid "$PID" 2>&1 | tr '\n' ' ')"
  stop_server
done
