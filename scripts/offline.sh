#!/usr/bin/env bash
# Runs a command with no network: in a network namespace of its own (`unshare -n`) whose only
# interface is loopback, brought up so the suites' local servers (tessera serve, the fake hub,
# the scripted provider, the drivers) still reach one another. Checked before the command
# runs: no route leaves the machine. The suites that use the local model run this way, so
# "it works with no network" is what they prove, not an assumption.
set -euo pipefail
if [ "$#" -eq 0 ]; then
  echo "usage: scripts/offline.sh COMMAND [ARG...]" >&2
  exit 2
fi
# As a user other than root, in a user namespace of its own too (`-r`), as unprivileged
# namespaces allow.
mapped=()
[ "$(id -u)" -eq 0 ] || mapped=(-r)
exec unshare "${mapped[@]}" -n -- sh -c '
  ip link set lo up || { echo "offline.sh: cannot bring loopback up" >&2; exit 2; }
  if ip route get 1.1.1.1 >/dev/null 2>&1; then
    echo "offline.sh: a route leaves the machine; not offline" >&2
    exit 2
  fi
  exec "$@"
' offline "$@"
