#!/usr/bin/env bash
# Builds every module and runs every test (unit and integration): ./test.sh [extra mvn args]
# e.g. ./test.sh -pl warden-cli -am    or    ./test.sh -Dtest='*LockIT'   (-Dtest selects unit
# tests (*Test, Surefire) and integration tests (*IT, Failsafe) alike)
# Model-based tests of the scripts for an hour per family:
#   ./test.sh -pl warden-it -am -Dtest=ModelIT -Dwarden.model.minutes=60
# Exits with Maven's status.
set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"

scripts/setup.sh

# -B and no colours for logs; --no-transfer-progress drops the download lines but keeps the
# build and the surefire summaries.
status=0
mvn -B --no-transfer-progress -Dstyle.color=never verify "$@" || status=$?
exit "$status"
