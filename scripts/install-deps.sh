#!/usr/bin/env bash
# Installs what building and testing Tessera needs on Debian/Ubuntu, skipping what is already
# there: system packages (apt, with sudo when not root), tauri-driver (cargo), npm packages
# (npm ci, from the committed lockfiles). Safe to run again.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WHAT="${1:-all}" # all | build (no test-only packages)

BUILD_PACKAGES=(
  build-essential pkg-config curl file
  libwebkit2gtk-4.1-dev libgtk-3-dev libsoup-3.0-dev libayatana-appindicator3-dev
  librsvg2-dev libxdo-dev libssl-dev
  libdbus-1-dev
  cmake libclang-dev
)
TEST_PACKAGES=(
  xvfb xauth x11-xserver-utils x11-apps openbox webkit2gtk-driver chromium dbus dbus-x11 gnome-keyring libsecret-tools openssl
  fonts-wqy-microhei locales
  iproute2 util-linux
  xdotool xclip python3-gi gir1.2-gtk-3.0
)

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing_packages() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

if ! command -v dpkg-query >/dev/null; then
  echo "install-deps: this script knows Debian/Ubuntu (apt); install the packages listed in it by hand" >&2
  exit 1
fi

packages=("${BUILD_PACKAGES[@]}")
[ "$WHAT" = "all" ] && packages+=("${TEST_PACKAGES[@]}")
mapfile -t need < <(missing_packages "${packages[@]}")
if [ "${#need[@]}" -gt 0 ]; then
  say "installing system packages: ${need[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}"
fi

# WebKitGTK takes navigator.language from the C locale, which falls back to English when the
# locale is not generated: the desktop suite runs the app under en_US and zh_CN.
ensure_locales() {
  local want=(en_US.UTF-8 zh_CN.UTF-8) have missing=()
  have="$(locale -a 2>/dev/null | tr 'A-Z' 'a-z')"
  for l in "${want[@]}"; do
    grep -qx "$(echo "$l" | tr 'A-Z' 'a-z' | sed 's/utf-8/utf8/')" <<<"$have" || missing+=("$l")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  say "generating locales: ${missing[*]}"
  for l in "${missing[@]}"; do
    as_root sed -i -E "s/^# *(${l} UTF-8)/\\1/" /etc/locale.gen
    grep -q "^${l} UTF-8" /etc/locale.gen || echo "${l} UTF-8" | as_root tee -a /etc/locale.gen >/dev/null
  done
  as_root locale-gen >/dev/null
}
[ "$WHAT" = "all" ] && ensure_locales

for tool in cargo node npm; do
  if ! command -v "$tool" >/dev/null; then
    echo "install-deps: '$tool' is not on PATH; install Rust (rustup) and Node.js 20+ first" >&2
    exit 1
  fi
done

if [ "$WHAT" = "all" ] && ! command -v tauri-driver >/dev/null; then
  say "installing tauri-driver 2.1.0 (cargo install, a minute or two)"
  cargo install tauri-driver --version 2.1.0 --locked --quiet
fi

# npm ci only when the lockfile changed since the last install.
npm_ci() {
  local dir="$1" stamp="$1/node_modules/.tessera-lock"
  if [ ! -f "$stamp" ] || ! cmp -s "$dir/package-lock.json" "$stamp"; then
    say "npm ci in ${dir#"$ROOT"/}"
    # The registry reachable here lacks some other platforms' optional binaries (the Tauri
    # CLI's darwin/win32 builds), which `npm ci` insists on; `npm install` with the committed
    # lockfile installs the same pinned versions and skips what this platform does not need.
    (cd "$dir" && { npm ci --no-audit --no-fund --loglevel=error 2>/dev/null ||
      npm install --no-audit --no-fund --no-save --loglevel=error; })
    cp "$dir/package-lock.json" "$stamp"
  fi
}
npm_ci "$ROOT"
npm_ci "$ROOT/ui"
# Real MCP servers for the MCP suites (pinned; never fetched at test time).
npm_ci "$ROOT/tests/mcp-servers"
