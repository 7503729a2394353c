#!/usr/bin/env bash
# Fuzzes every fuzz target (the *FuzzTest classes of api, json, jsonpath, templating, engine, gatekeeper and server) with
# Jazzer, each for N seconds in a JVM of its own (Maven profile fuzz). A finding fails the run; its input is written
# beside the target's seeds (src/test/resources/<package>/<Class>Inputs/<method>/crash-*), where every normal test
# run replays it. ./run-tests runs the same profile with a short bound; see docs/fuzzing.md.
#   scripts/fuzz.sh                          every target, 60 s each
#   scripts/fuzz.sh --seconds 600            every target, 10 minutes each
#   scripts/fuzz.sh --target RuleFuzzTest    one target (a class name or pattern, as surefire's -Dtest)
# Further arguments go to Maven (for example -o).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/java-home.sh

seconds=60
target='*FuzzTest'
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --target) target=$2; shift 2 ;;
    *) break ;;
  esac
done
# -Dtest also limits the ordinary test execution to the fuzz targets' seeds, so only fuzzing takes time.
exec ./mvnw -B test -Pfuzz -Dfuzz.seconds="$seconds" -pl api,json,jsonpath,templating,engine,gatekeeper,server -am \
  -Dtest="$target" -Dsurefire.failIfNoSpecifiedTests=false "$@"
