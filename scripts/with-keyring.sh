#!/usr/bin/env bash
# Runs a command with a real, unlocked Secret Service: a private D-Bus session
# (dbus-run-session) with gnome-keyring-daemon serving org.freedesktop.secrets, its login
# keyring unlocked with an empty password. The keyrings live in a temporary folder, so the
# person's own keyring is never read or written; the daemon is ended by its pid afterwards.
#
#   scripts/with-keyring.sh cargo test -p tessera-providers --test all -- keyring::
#
# The command sees TESSERA_KEYRING_SESSION=1, which tells the keyring tests that a failure to
# reach the Secret Service is a broken set-up, not a reason to skip.
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: $0 <command> [args…]" >&2
  exit 2
fi
for tool in dbus-run-session dbus-send gnome-keyring-daemon; do
  if ! command -v "$tool" >/dev/null; then
    echo "with-keyring: '$tool' is missing (scripts/install-deps.sh installs dbus and gnome-keyring)" >&2
    exit 2
  fi
done

# First pass: re-run this script inside a fresh session bus.
if [ -z "${TESSERA_KEYRING_BUS:-}" ]; then
  exec env TESSERA_KEYRING_BUS=1 dbus-run-session -- "$0" "$@"
fi
unset TESSERA_KEYRING_BUS

tmp="$(mktemp -d "${TMPDIR:-/tmp}/tessera-keyring.XXXXXX")"
daemon_pid=""
cleanup() {
  if [ -n "$daemon_pid" ]; then kill "$daemon_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -m 700 "$tmp/data" "$tmp/run"

# One newline on stdin is the empty password: with nothing at all on stdin the daemon does not
# create or unlock the login keyring and would later ask a prompter that cannot be shown.
# The daemon forks; what it prints (GNOME_KEYRING_CONTROL=…) is exported for the command.
out="$(echo | XDG_DATA_HOME="$tmp/data" XDG_RUNTIME_DIR="$tmp/run" \
  gnome-keyring-daemon --unlock --components=secrets)"
while IFS= read -r line; do
  case "$line" in
    [A-Z]*=*) export "${line?}" ;;
  esac
done <<<"$out"

bus_call() {
  dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus "$@"
}
# The daemon claims org.freedesktop.secrets as it starts; give it a moment (up to ~5 s).
for _ in $(seq 50); do
  if bus_call org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null |
    grep -q "boolean true"; then
    daemon_pid="$(bus_call org.freedesktop.DBus.GetConnectionUnixProcessID \
      string:org.freedesktop.secrets | awk '/uint32/ {print $2}')"
    break
  fi
  sleep 0.1
done
if [ -z "$daemon_pid" ]; then
  echo "with-keyring: gnome-keyring-daemon did not appear on the session bus" >&2
  exit 1
fi

export TESSERA_KEYRING_SESSION=1
set +e
"$@"
status=$?
set -e
exit "$status"
