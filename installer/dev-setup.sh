#!/bin/sh
# Development/CI bootstrap: installs what a fresh Debian machine with Node/npm lacks.
# - system packages: ffmpeg, libespeak-ng1, espeak-ng-data (apt-get, only when missing)
# - with --test, the independent tools the tests check Sawt against: chromium (renders /docs),
#   promtool (prometheus: validates /metrics), python3-grpcio (a C-core gRPC client),
#   systemd-analyze (systemd: verifies the units), socat (fake NOTIFY_SOCKET), shellcheck (installer)
# - bun (pinned in package.json, from the npm registry) and the locked dependencies.
# trustedDependencies in package.json lists only "bun": ffmpeg-static's download and
# onnxruntime-node's CUDA download never run (no outside network here, and none needed).
set -eu
cd "$(dirname "$0")/.."

need_apt=""
command -v ffmpeg >/dev/null 2>&1 || need_apt="$need_apt ffmpeg"
command -v ffprobe >/dev/null 2>&1 || need_apt="$need_apt ffmpeg"
ls /usr/lib/*/libespeak-ng.so.1 >/dev/null 2>&1 || need_apt="$need_apt libespeak-ng1"
[ -d /usr/lib/x86_64-linux-gnu/espeak-ng-data ] || [ -d /usr/lib/aarch64-linux-gnu/espeak-ng-data ] || [ -d /usr/share/espeak-ng-data ] || need_apt="$need_apt espeak-ng-data"
if [ "${1:-}" = "--test" ]; then
  command -v chromium >/dev/null 2>&1 || need_apt="$need_apt chromium"
  command -v promtool >/dev/null 2>&1 || need_apt="$need_apt prometheus"
  /usr/bin/python3 -c "import grpc, google.protobuf" >/dev/null 2>&1 || need_apt="$need_apt python3-grpcio python3-protobuf"
  command -v systemd-analyze >/dev/null 2>&1 || need_apt="$need_apt systemd"
  command -v socat >/dev/null 2>&1 || need_apt="$need_apt socat"
  command -v shellcheck >/dev/null 2>&1 || need_apt="$need_apt shellcheck"
fi
if [ -n "$need_apt" ]; then
  echo "sawt setup: installing system packages:$need_apt" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $need_apt >/dev/null
fi

BUN_VERSION=$(node -p "require('./package.json').devDependencies.bun")
if [ ! -x node_modules/.bin/bun ] || [ "$(node_modules/.bin/bun --version 2>/dev/null)" != "$BUN_VERSION" ] \
   || [ ! -f node_modules/.sawt-installed ] || [ bun.lock -nt node_modules/.sawt-installed ] || [ package.json -nt node_modules/.sawt-installed ]; then
  echo "sawt setup: installing bun $BUN_VERSION and dependencies" >&2
  npx -y "bun@$BUN_VERSION" install --frozen-lockfile >&2
  touch node_modules/.sawt-installed
fi
