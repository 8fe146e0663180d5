#!/bin/sh
# Not CI: proves the appliance on a real systemd. Debootstraps a minimal Debian 12 into a folder
# (cached), boots it with `systemd-nspawn --boot` (private network: as air-gapped as it gets), and
# inside it, as an operator would: unpacks the bundle, runs install.sh, then shows the service
# active and healthy, `kill -9` of the main process → restarted by systemd, a frozen process
# (SIGSTOP) → killed by the watchdog and restarted, the health check timer at work, and an
# upgrade whose new build is broken → rolled back. Its output is recorded in docs/appliance-nspawn.md.
#
#   sudo sh installer/try-in-nspawn.sh [dist/sawt-<version>-linux-x64.tar.gz]
#
# Needs: debootstrap, systemd-container (systemd-nspawn), util-linux (script, nsenter), a Debian
# mirror for the first debootstrap (SAWT_NSPAWN_MIRROR, default http://deb.debian.org/debian).
# Work folder: SAWT_NSPAWN_DIR (default /var/tmp/sawt-nspawn); base/ is kept for the next run.
set -eu

cd "$(dirname "$0")/.."
version=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' package.json | head -n 1)
tarball=${1:-dist/sawt-$version-linux-x64.tar.gz}
work=${SAWT_NSPAWN_DIR:-/var/tmp/sawt-nspawn}
mirror=${SAWT_NSPAWN_MIRROR:-http://deb.debian.org/debian}
base=$work/base
machine=$work/machine

step() { printf '\n### %s\n' "$*"; }
fail() { printf 'try-in-nspawn: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || fail "run as root (debootstrap and systemd-nspawn need it)"
for tool in debootstrap systemd-nspawn script nsenter; do
  command -v "$tool" >/dev/null 2>&1 || fail "$tool is missing: apt-get install debootstrap systemd-container util-linux"
done
[ -f "$tarball" ] || fail "no bundle at $tarball: run bun run bundle first"
mkdir -p "$work"

if [ ! -x "$base/lib/systemd/systemd" ]; then
  step "debootstrap Debian 12 (minbase + systemd) into $base"
  rm -rf "$base"
  debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus bookworm "$base" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    fail "debootstrap failed: see $work/debootstrap.log"
fi

step "fresh machine from the cached base; bundle copied in (no network inside)"
rm -rf "$machine"
cp -a "$base" "$machine"
cp "$tarball" "$machine/root/"
# A second build of the same bundle whose binary cannot start, to show the rollback.
broken_dir=$work/broken
rm -rf "$broken_dir"
mkdir -p "$broken_dir"
tar -xzf "$tarball" -C "$broken_dir"
bundle_name=$(basename "$tarball" .tar.gz)
broken=$broken_dir/$bundle_name
printf '%s\n' "$version-broken" >"$broken/VERSION"
printf '#!/bin/sh\necho "sawt (broken build): cannot start" >&2\nexit 1\n' >"$broken/sawt"
(cd "$broken" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum >../SHA256SUMS.new)
mv "$broken_dir/SHA256SUMS.new" "$broken/SHA256SUMS"
cp -a "$broken" "$machine/root/sawt-broken"

step "boot it: systemd-nspawn --boot --private-network"
console=$work/console.log
script -qfec "systemd-nspawn --quiet --directory=$machine --boot --register=no --keep-unit --private-network --machine=sawt-try" /dev/null >"$console" 2>&1 &
nspawn_job=$!
leader=""
for _ in $(seq 1 60); do
  leader=$(ps -eo pid=,ppid=,comm= | awk '$3 == "systemd-nspawn" { n[$1] = 1 } $3 == "systemd" { s[$2] = $1 } END { for (p in n) if (p in s) print s[p] }' | head -n 1)
  [ -z "$leader" ] || break
  sleep 1
done
[ -n "$leader" ] || fail "the container did not start; console: $(tail -n 20 "$console")"
inside() { nsenter --target "$leader" --all -- env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb "$@"; }
cleanup() {
  inside systemctl poweroff >/dev/null 2>&1 || true
  sleep 3
  kill "$nspawn_job" 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 1 60); do
  state=$(inside systemctl is-system-running 2>/dev/null || true)
  case $state in running | degraded) break ;; esac
  sleep 1
done
echo "container systemd: $state ($(inside systemctl --version | head -n 1))"

step "operator: unpack and install (as root, offline)"
inside sh -c "cd /root && tar -xzf $bundle_name.tar.gz && ./$bundle_name/install.sh" | tee "$work/install.out"
key=$(sed -n 's/.*admin API key: \(sawt_[A-Za-z0-9_-]*\).*/\1/p' "$work/install.out")
rm -f "$work/install.out"

step "systemctl status sawt"
inside systemctl status sawt.service --no-pager --lines=0 || true
step "sawt health; sawt doctor"
inside sawt health
inside sawt doctor || true
step "speak through the installed service (no curl in a minimal Debian: bash's /dev/tcp)"
body='{"input":"مرحبا بكم في خدمة العملاء","voice":"Yara","response_format":"wav"}'
length=$(printf '%s' "$body" | wc -c)
# shellcheck disable=SC2016 # expanded by the bash inside the container
inside bash -c 'exec 3<>/dev/tcp/127.0.0.1/8080
  printf "POST /v1/tts/audio/speech HTTP/1.1\r\nHost: localhost\r\nX-API-Key: %s\r\nContent-Type: application/json\r\nContent-Length: %s\r\nConnection: close\r\n\r\n%s" "$1" "$2" "$3" >&3
  cat <&3 >/tmp/speech.http
  sed -n "1p; /^[Xx]-[Tt][Tt][Ss]-/p; /^[Cc]ontent-[Tt]ype/p" /tmp/speech.http | tr -d "\r"
  echo "response: $(wc -c </tmp/speech.http) bytes, RIFF/WAVE body: $(grep -c -a "WAVEfmt" /tmp/speech.http)"' speak "$key" "$length" "$body"

step "sawt keys list (as root: the CLI switches to the sawt user and the production config)"
inside sawt keys list
inside ls -l /var/lib/sawt

step "onnxruntime inside the unit's sandbox: sawt doctor run with every sawt.service setting"
probe=$machine/etc/systemd/system/sawt-sandbox-probe.service
sed -e 's/^Type=notify/Type=oneshot/' -e '/^NotifyAccess=/d' -e '/^WatchdogSec=/d' -e '/^Restart/d' \
  -e 's|^ExecStart=.*|ExecStart=/opt/sawt/current/sawt doctor|' -e '/^\[Install\]/,$d' \
  "$machine/etc/systemd/system/sawt.service" >"$probe"
inside systemctl daemon-reload
inside systemctl start sawt-sandbox-probe.service 2>/dev/null || echo "(doctor exits 1 when a check fails: here ffmpeg, which this bundle does not carry)"
inside journalctl -u sawt-sandbox-probe.service -o cat --no-pager --identifier=sawt | grep -v telemetry
echo "onnxruntime written to the unit's CacheDirectory: $(inside find /var/cache/sawt -name 'libonnxruntime*' -printf '%p %u:%g %m\n')"
rm "$probe"
inside systemctl daemon-reload

wait_restarted() {
  before=$1
  for _ in $(seq 1 150); do
    now=$(inside systemctl show --property=NRestarts --value sawt.service)
    if [ "$now" != "$before" ] && inside sawt health >/dev/null 2>&1; then
      echo "NRestarts $before -> $now; active: $(inside systemctl is-active sawt.service); health: $(inside sawt health)"
      return 0
    fi
    sleep 1
  done
  echo "not restarted within 150 s"
  return 1
}

step "kill -9 the main process: systemd restarts it (Restart=on-failure)"
pid=$(inside systemctl show --property=MainPID --value sawt.service)
restarts=$(inside systemctl show --property=NRestarts --value sawt.service)
echo "MainPID $pid, NRestarts $restarts"
inside sh -c "kill -9 $pid"
wait_restarted "$restarts"

step "SIGSTOP the main process: no WATCHDOG=1 for 30 s, systemd kills and restarts it"
pid=$(inside systemctl show --property=MainPID --value sawt.service)
restarts=$(inside systemctl show --property=NRestarts --value sawt.service)
echo "MainPID $pid, NRestarts $restarts"
inside sh -c "kill -STOP $pid"
wait_restarted "$restarts"
inside journalctl -u sawt.service --no-pager -o cat | grep -i -E 'watchdog|killed|Scheduled restart' | tail -n 4

step "health check: runs every 30 s; 3 failed checks in a row restart sawt.service"
inside systemctl list-timers sawt-healthcheck.timer --no-pager
inside systemctl start sawt-healthcheck.service || true
echo "a healthy check: $(inside systemctl show --property=Result --value sawt-healthcheck.service)"
# Make the checks fail as they would against a hung service: point them at a closed port.
mkdir -p "$machine/etc/systemd/system/sawt-healthcheck.service.d"
printf '[Service]\nEnvironment=SAWT_HTTP_PORT=9\n' >"$machine/etc/systemd/system/sawt-healthcheck.service.d/unreachable.conf"
inside systemctl daemon-reload
pid=$(inside systemctl show --property=MainPID --value sawt.service)
for _ in 1 2 3; do inside systemctl start sawt-healthcheck.service 2>/dev/null || true; done
inside journalctl -u sawt-healthcheck.service --no-pager -o cat --identifier=sawt-healthcheck | tail -n 3
rm -r "$machine/etc/systemd/system/sawt-healthcheck.service.d"
inside systemctl daemon-reload
# A restart asked for by the health check is a stop and a start: the main PID changes.
for _ in $(seq 1 60); do
  now=$(inside systemctl show --property=MainPID --value sawt.service)
  if [ "$now" != "$pid" ] && [ "$now" != 0 ] && inside sawt health >/dev/null 2>&1; then break; fi
  sleep 1
done
echo "MainPID $pid -> $now; health: $(inside sawt health)"

step "upgrade to a broken build: rolled back"
inside sh -c "cd /root/sawt-broken && ./install.sh" && echo "unexpected: exit 0" || echo "install.sh exit status: $?"
echo "current -> $(inside readlink /opt/sawt/current); $(inside sawt health)"

step "uninstall (data kept)"
inside /opt/sawt/current/install.sh --uninstall
inside ls /etc/sawt /var/lib/sawt
step "done"
