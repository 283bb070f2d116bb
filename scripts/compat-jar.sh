#!/usr/bin/env bash
# Builds the warden-core jar of an earlier commit (a release's) for MixedVersionIT, which runs it
# beside this build's client on one lock: ./scripts/compat-jar.sh <commit> <version>
# writes warden-it/src/test/compat/warden-core-<version>-<short commit>.jar. Point
# MixedVersionIT.PREVIOUS at it and delete the jar it replaces (RELEASING.md, step 5).
set -euo pipefail
commit=${1:?usage: scripts/compat-jar.sh <commit> <version>}
version=${2:?usage: scripts/compat-jar.sh <commit> <version>}
root=$(cd "$(dirname "$0")/.." && pwd)
short=$(git -C "$root" rev-parse --short=7 "$commit")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git -C "$root" archive "$commit" | tar -x -C "$work"
(cd "$work" && mvn -B -q package -pl warden-core -am -DskipTests -Dspotless.check.skip=true)
jar=$(ls "$work"/warden-core/target/warden-core-*.jar | grep -v -e sources -e javadoc | head -n 1)
cp "$jar" "$root/warden-it/src/test/compat/warden-core-$version-$short.jar"
echo "warden-it/src/test/compat/warden-core-$version-$short.jar"
