#!/usr/bin/env bash
# Builds one commit twice, in two fresh directories, and compares the jars (and the server's SBOM) byte for byte:
# the build is reproducible when every checksum matches (project.build.outputTimestamp in the root pom).
#   scripts/check-reproducible.sh [COMMIT]      (default HEAD; extra Maven flags in MAVEN_FLAGS)
# Not offline (-o): the SBOM goal needs online mode and Maven skips it offline.
# Exit codes: 0 identical, 1 a file differs, 2 a build failed.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/java-home.sh
commit=${1:-HEAD}
artifacts=(server/target/remold-server.jar server/target/remold-server.cdx.json cli/target/remold-cli.jar
           installer/target/remold-installer.jar certgen/target/remold-certgen.jar
           playground/target/remold-playground.jar)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for build in a b; do
  mkdir -p "$work/$build"
  git archive "$commit" | tar -x -C "$work/$build"
  echo "building $commit in $work/$build" >&2
  # shellcheck disable=SC2086
  (cd "$work/$build" && nice -n 15 ./mvnw -B -q ${MAVEN_FLAGS:-} -DskipTests -pl server,cli,installer,certgen -am package) \
    || { echo "build $build failed" >&2; exit 2; }
done
status=0
for artifact in "${artifacts[@]}"; do
  if [ ! -f "$work/a/$artifact" ] || [ ! -f "$work/b/$artifact" ]; then
    echo "MISSING   $artifact"
    status=1
    continue
  fi
  a=$(sha256sum "$work/a/$artifact" | cut -d' ' -f1)
  b=$(sha256sum "$work/b/$artifact" | cut -d' ' -f1)
  if [ "$a" = "$b" ]; then
    echo "same      $a  $artifact"
  else
    echo "DIFFERENT $a $b  $artifact"
    status=1
  fi
done
exit $status
