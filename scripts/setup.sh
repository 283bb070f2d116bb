#!/usr/bin/env bash
# Makes sure the tools Warden builds and tests with are installed: java (>= 17, with javac), mvn
# redis-server, redis-sentinel and redis-cli. Installs what is missing with apt-get (one `apt-get update` at most), using
# sudo when not root. Idempotent; never starts a server.
#
# Usage: scripts/setup.sh [-q|--quiet]    (--quiet: print only what it installs, and errors)
set -euo pipefail

quiet=false
case "${1:-}" in
  -q | --quiet) quiet=true ;;
  "") ;;
  *) echo "usage: $0 [-q|--quiet]" >&2; exit 2 ;;
esac

say() { echo "setup: $*"; }
found() { $quiet || say "$*"; }
die() { echo "setup: $*" >&2; exit 1; }

# Prints the major version of the java on the PATH, or nothing.
java_major() {
  command -v java >/dev/null 2>&1 || return 0
  { java -version 2>&1 || true; } |
    sed -n 's/.*version "\([0-9][0-9]*\).*/\1/p' | sed -n '1s/^1$/8/p;1s/^\([0-9]*\)$/\1/p' | head -n 1
}

missing_packages=()
major="$(java_major)"
if [[ -n "$major" && "$major" -ge 17 ]] && command -v javac >/dev/null 2>&1; then
  found "java: found Java $major at $(command -v java)"
else
  missing_packages+=(openjdk-17-jdk-headless)
fi
if command -v mvn >/dev/null 2>&1; then
  found "mvn: found at $(command -v mvn)"
else
  missing_packages+=(maven)
fi
if command -v redis-server >/dev/null 2>&1; then
  found "redis-server: found at $(command -v redis-server)"
else
  missing_packages+=(redis-server)
fi

if command -v redis-sentinel >/dev/null 2>&1; then
  found "redis-sentinel: found at $(command -v redis-sentinel)"
else
  missing_packages+=(redis-sentinel) # RedisSentinels' sentinel processes
fi

if command -v redis-cli >/dev/null 2>&1; then
  found "redis-cli: found at $(command -v redis-cli)"
elif [[ ! " ${missing_packages[*]} " == *" redis-server "* ]]; then
  missing_packages+=(redis-tools) # the testkit's readiness probe; redis-server brings it
fi

if ((${#missing_packages[@]} == 0)); then
  exit 0
fi

command -v apt-get >/dev/null 2>&1 ||
  die "missing ${missing_packages[*]} and no apt-get to install them; install them by hand"
if [[ "$(id -u)" -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  die "missing ${missing_packages[*]}; not root and no sudo to install them"
fi

log="$(mktemp "${TMPDIR:-/tmp}/warden-setup.XXXXXX")"
trap 'rm -f "$log"' EXIT
run_logged() {
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    die "failed: $*"
  fi
}

say "apt-get update (to install ${missing_packages[*]})"
run_logged "${as_root[@]}" apt-get update
run_logged "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "${missing_packages[@]}"
for package in "${missing_packages[@]}"; do
  say "$package: installed"
done
# redis-server's package may start a system service; that is the package's doing, not ours.

major="$(java_major)"
if [[ -z "$major" || "$major" -lt 17 ]] || ! command -v javac >/dev/null 2>&1; then
  die "java on the PATH is still ${major:-missing} (need 17+ with javac); select Java 17 with: ${as_root[*]} update-alternatives --config java"
fi
