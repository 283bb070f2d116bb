#!/usr/bin/env bash
# Makes sure the tools Warden builds and tests with are installed: java (>= 17, with javac), mvn,
# redis-server, redis-sentinel and redis-cli (Redis 7.0, the suite's first server),
# valkey-server, valkey-sentinel and valkey-cli (Valkey 8.0, the second server of the matrix: see
# docs/deployments.md, "Supported servers"), and for the documentation site (warden-docs's DocsSiteIT) mkdocs
# and a headless Chromium (chromium-headless-shell, or chromium). On Debian bookworm Valkey comes from bookworm-backports: the suite is
# added to apt's sources (a deb822 file beside the others, with the mirror and key of the existing
# bookworm entry) when no source names it yet. Installs what is missing with apt-get (one `apt-get
# update` at most), using sudo when not root. Idempotent; never starts a server.
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

# The documentation site: MkDocs builds it (mkdocs.yml), a headless Chromium opens every page
if command -v mkdocs >/dev/null 2>&1; then
  found "mkdocs: found at $(command -v mkdocs)"
else
  missing_packages+=(mkdocs)
fi
if command -v chromium-headless-shell >/dev/null 2>&1; then
  found "chromium-headless-shell: found at $(command -v chromium-headless-shell)"
elif command -v chromium >/dev/null 2>&1; then
  found "chromium: found at $(command -v chromium)"
else
  missing_packages+=(chromium-headless-shell)
fi

# Valkey: the matrix's second server (`-Dwarden.server=valkey`, the Failsafe execution valkey-matrix)
missing_valkey=()
for tool in valkey-server valkey-sentinel valkey-cli; do
  if command -v "$tool" >/dev/null 2>&1; then
    found "$tool: found at $(command -v "$tool")"
  else
    case "$tool" in
      valkey-cli) missing_valkey+=(valkey-tools) ;;
      *) missing_valkey+=("$tool") ;;
    esac
  fi
done

if ((${#missing_packages[@]} == 0 && ${#missing_valkey[@]} == 0)); then
  exit 0
fi

all_missing=("${missing_packages[@]}" "${missing_valkey[@]}")
command -v apt-get >/dev/null 2>&1 ||
  die "missing ${all_missing[*]} and no apt-get to install them; install them by hand"
if [[ "$(id -u)" -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  die "missing ${all_missing[*]}; not root and no sudo to install them"
fi

log="$(mktemp "${TMPDIR:-/tmp}/warden-setup.XXXXXX")"
trap 'rm -f "$log"' EXIT
run_logged() {
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    die "failed: $*"
  fi
}

# The Debian codename (bookworm, trixie, ...), or nothing off Debian.
codename="$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")"
valkey_suite=()
sources=(/etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources)

# Prints "URI<TAB>Signed-By" of the first source entry for the suite "$1": deb822 stanzas
# (Types/URIs/Suites/Signed-By) and one-line entries ("deb [signed-by=...] URI suite ...").
source_of_suite() {
  local suite="$1" file
  for file in "${sources[@]}"; do
    [[ -f "$file" ]] || continue
    if [[ "$file" == *.sources ]]; then
      awk -v suite="$suite" '
        function flush() { if (has && uri != "") { print uri "\t" key; found = 1; exit } has = 0; uri = ""; key = "" }
        /^[[:space:]]*$/ { flush(); next }
        /^[[:space:]]*#/ { next }
        tolower($1) == "uris:" { uri = $2 }
        tolower($1) == "signed-by:" { key = $2 }
        tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == suite) has = 1 }
        END { if (!found) flush() }' "$file"
    else
      awk -v suite="$suite" '
        $1 == "deb" {
          key = ""; i = 2
          if ($2 ~ /^\[/) { while (i <= NF) { if ($i ~ /signed-by=/) { key = $i; sub(/.*signed-by=/, "", key); sub(/\]$/, "", key) } if ($i ~ /\]$/) { i++; break } i++ } }
          if ($(i + 1) == suite) { print $i "\t" key; exit }
        }' "$file"
    fi
  done | head -n 1
}

if ((${#missing_valkey[@]} > 0)) && [[ "$codename" == "bookworm" ]]; then
  # Valkey is in bookworm-backports only (Debian 13 has it in main)
  valkey_suite=(-t bookworm-backports)
  if [[ -z "$(source_of_suite bookworm-backports)" ]]; then
    entry="$(source_of_suite bookworm)"
    [[ -n "$entry" ]] || die "no apt source names bookworm: cannot add bookworm-backports for Valkey"
    mirror="${entry%%$'\t'*}"
    key="${entry#*$'\t'}"
    target=/etc/apt/sources.list.d/bookworm-backports.sources
    say "adding bookworm-backports ($mirror) to apt's sources: $target"
    {
      echo "Types: deb"
      echo "URIs: $mirror"
      echo "Suites: bookworm-backports"
      echo "Components: main"
      [[ -z "$key" ]] || echo "Signed-By: $key"
    } | run_logged "${as_root[@]}" tee "$target"
  fi
fi

say "apt-get update (to install ${all_missing[*]})"
run_logged "${as_root[@]}" apt-get update
if ((${#missing_packages[@]} > 0)); then
  run_logged "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing_packages[@]}"
fi
if ((${#missing_valkey[@]} > 0)); then
  run_logged "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${valkey_suite[@]}" "${missing_valkey[@]}"
fi
for package in "${all_missing[@]}"; do
  say "$package: installed"
done
# redis-server's and valkey-server's packages may start a system service; that is the package's
# doing, not ours.

major="$(java_major)"
if [[ -z "$major" || "$major" -lt 17 ]] || ! command -v javac >/dev/null 2>&1; then
  die "java on the PATH is still ${major:-missing} (need 17+ with javac); select Java 17 with: ${as_root[*]} update-alternatives --config java"
fi
