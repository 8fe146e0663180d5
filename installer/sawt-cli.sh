#!/bin/sh
# /usr/local/bin/sawt on an appliance (installed as /opt/sawt/<version>/libexec/sawt-cli).
#
# Why a wrapper and not a bare symlink to the binary: an operator's shell has no SAWT_CONFIG, so
# `sudo sawt keys create …` would otherwise write a fresh ./data database instead of the service's;
# and a command run as root would leave root-owned files (SQLite -wal/-shm) in /var/lib/sawt that
# the service, running as `sawt`, could not open. So: read the same environment as sawt.service,
# default to /etc/sawt/sawt.toml, and run as the sawt user when called by root.
set -eu

current=/opt/sawt/current
for env_file in "$current/sawt.env" /etc/sawt/sawt.env; do
  if [ -r "$env_file" ]; then
    set -a
    # shellcheck disable=SC1090
    . "$env_file"
    set +a
  fi
done
SAWT_CONFIG=${SAWT_CONFIG:-/etc/sawt/sawt.toml}
export SAWT_CONFIG

if [ "$(id -u)" -eq 0 ] && id sawt >/dev/null 2>&1; then
  exec runuser -u sawt -- "$current/sawt" "$@"
fi
if [ ! -r "$SAWT_CONFIG" ] && [ -e "$SAWT_CONFIG" ]; then
  echo "sawt: $SAWT_CONFIG is readable only by root and the sawt group: run with sudo" >&2
  exit 1
fi
exec "$current/sawt" "$@"
