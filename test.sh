#!/usr/bin/env bash
# Builds every module and runs every test (unit and integration): ./test.sh [extra mvn args]
# e.g. ./test.sh -pl warden-cli -am    or    ./test.sh -Dtest='*LockIT'   (-Dtest selects unit
# tests (*Test, Surefire) and integration tests (*IT, Failsafe) alike; a subset runs on the server
# -Dwarden.server names, redis by default). The full run is a server matrix: warden-it's suites on
# Redis 7.0, then its contract, failover, fault and ACL suites on Valkey 8.0 (docs/deployments.md,
# "Supported servers"; -Dwarden.matrix.skip=true skips the Valkey leg).
# Model-based tests of the scripts for an hour per family:
#   ./test.sh -pl warden-it -am -Dtest=ModelIT -Dwarden.model.minutes=60
# Exits with Maven's status.
set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"

scripts/setup.sh

# -B and no colours for logs; --no-transfer-progress drops the download lines but keeps the
# build and the surefire summaries. -Prelease also stages what a release would publish
# (target/staging) and checks it in warden-bom, the last module (RELEASING.md): a few seconds
# on top of the jars the build makes anyway.
status=0
mvn -B --no-transfer-progress -Dstyle.color=never -Prelease verify "$@" || status=$?
exit "$status"
