#!/bin/sh
# Sawt installer for air-gapped servers: install, upgrade (with automatic rollback), uninstall.
# Runs from an unpacked bundle (sawt-<version>-linux-x64/install.sh). POSIX sh, coreutils, and the
# system's own tools (useradd, runuser, systemctl, dpkg); never touches the network.
#
#   sudo ./install.sh                  install or upgrade
#   sudo ./install.sh --no-key         … without creating the first admin API key
#   sudo ./install.sh --uninstall      remove Sawt, keep /etc/sawt and /var/lib/sawt
#   sudo ./install.sh --uninstall --purge    … and remove them too
#   ./install.sh --root DIR            stage into DIR (see "Staging root" below)
#
# Layout: /opt/sawt/<version>/ (payload), /opt/sawt/current -> <version>, /usr/local/bin/sawt,
# /etc/sawt/sawt.toml (0640 root:sawt, never overwritten), /var/lib/sawt (0750 sawt:sawt: databases,
# models/), units in /etc/systemd/system. An upgrade stops the service, backs up the databases (the
# keys' sawt.db and the transcription jobs' jobs.db) to /var/lib/sawt/backup/, switches `current`
# atomically and starts the new version; if that one is not healthy within
# SAWT_INSTALL_HEALTH_TIMEOUT seconds (default 180) it switches back, restores the databases,
# restarts the old version and exits 3.
#
# Staging root (--root DIR): everything is written under DIR; no user is created, nothing is
# chowned (modes are still applied), no systemctl and no dpkg run (units are enabled by creating
# their .wants symlinks). The health check then starts the staged binary directly on free
# loopback ports with the staged config and data, so an upgrade is verified and rolled back just
# like a real one. Checks of this machine (architecture, GPU driver) still apply.
#
# Exit codes: 0 done, 1 error (the message says what was changed, usually nothing), 2 usage,
# 3 the new version was unhealthy and the previous one was restored.
set -eu
umask 022

PROG=install.sh
BUNDLE=$(cd "$(dirname "$0")" && pwd -P)
ROOT=""
ACTION=install
NO_KEY=0
PURGE=0
HEALTH_TIMEOUT=${SAWT_INSTALL_HEALTH_TIMEOUT:-180}
USER_NAME=sawt
STARTED=""
# The service's SQLite databases under the state directory: keys, then transcription jobs.
DATABASES="sawt.db jobs.db"

say() { printf '==> %s\n' "$*"; }
note() { printf '    %s\n' "$*"; }
warn() { printf '%s: warning: %s\n' "$PROG" "$*" >&2; }
die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }

usage() {
  sed -n '2,26s/^# \{0,1\}//p' "$0"
}

while [ $# -gt 0 ]; do
  case $1 in
    --root) [ $# -ge 2 ] || { usage >&2; exit 2; }; ROOT=$2; shift ;;
    --root=*) ROOT=${1#--root=} ;;
    --no-key) NO_KEY=1 ;;
    --uninstall) ACTION=uninstall ;;
    --purge) PURGE=1 ;;
    -h | --help) usage; exit 0 ;;
    *) printf '%s: unknown option %s\n\n' "$PROG" "$1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
if [ -n "$ROOT" ]; then
  mkdir -p "$ROOT"
  ROOT=$(cd "$ROOT" && pwd -P)
  [ "$ROOT" != / ] || ROOT=""
fi
[ "$PURGE" -eq 0 ] || [ "$ACTION" = uninstall ] || die "--purge only goes with --uninstall"
case $HEALTH_TIMEOUT in '' | *[!0-9]*) die "SAWT_INSTALL_HEALTH_TIMEOUT must be a number of seconds" ;; esac

OPT=$ROOT/opt/sawt
ETC=$ROOT/etc/sawt
CONF=$ETC/sawt.toml
STATE=$ROOT/var/lib/sawt
MODELS=$STATE/models
UNITS=$ROOT/etc/systemd/system
BIN=$ROOT/usr/local/bin/sawt
UNIT_FILES="sawt.service sawt-healthcheck.service sawt-healthcheck.timer"

staged() { [ -n "$ROOT" ]; }

# ---------------------------------------------------------------- helpers

# toml_get FILE SECTION KEY: the raw value of an active `key = value` line in [section] (quotes
# stripped), empty when the key is absent or commented out. Enough for the settings read here.
toml_get() {
  [ -r "$1" ] || return 0
  awk -v want="$2" -v key="$3" '
    /^[ \t]*\[/ { line = $0; sub(/#.*/, "", line); gsub(/[ \t\[\]]/, "", line); section = line; next }
    section == want && $0 ~ "^[ \t]*" key "[ \t]*=" {
      value = $0; sub(/^[^=]*=[ \t]*/, "", value); sub(/[ \t]*#.*$/, "", value); gsub(/"/, "", value)
      print value; exit
    }' "$1"
}

# The config the new version will run with: the existing one, else the bundle's template.
effective_conf() {
  if [ -e "$CONF" ]; then printf '%s\n' "$CONF"; else printf '%s\n' "$BUNDLE/sawt.toml.example"; fi
}

# chown only on a real install; a staging root keeps the invoking user's ownership.
own() {
  staged || chown "$@"
}

# Runs a sawt command against the installed config and data as the service user (real install)
# or as the invoking user with the staged paths (--root).
sawt_as_service() {
  bin=$1
  shift
  if staged; then
    # The service's UMask=0027, so staged files get the modes a real install gives them.
    (umask 027 && SAWT_CONFIG=$CONF SAWT_DATA_DIR=$STATE SAWT_MODELS_DIR=$MODELS SAWT_LOG_LEVEL=warn "$bin" "$@")
  else
    runuser -u "$USER_NAME" -- env SAWT_CONFIG="$CONF" SAWT_LOG_LEVEL=warn "$bin" "$@"
  fi
}

free_kb() {
  dir=$1
  while [ ! -e "$dir" ]; do dir=$(dirname "$dir"); done
  df -Pk "$dir" | awk 'NR == 2 { print $4 }'
}

installed_version() {
  if [ -L "$OPT/current" ]; then readlink "$OPT/current"; fi
}

# switch_current VERSION: atomic, relative symlink (valid inside a staging root too).
switch_current() {
  ln -sfn "$1" "$OPT/current.new"
  mv -T "$OPT/current.new" "$OPT/current"
}

lock() {
  if staged; then
    LOCK=${TMPDIR:-/tmp}/sawt-install-$(printf '%s' "$ROOT" | cksum | cut -d' ' -f1).lock
  else
    mkdir -p /run/lock
    LOCK=/run/lock/sawt-install.lock
  fi
  mkdir "$LOCK" 2>/dev/null || die "another install.sh is running (lock $LOCK; remove it if that is not true)"
  trap 'rmdir "$LOCK" 2>/dev/null || true' EXIT
  trap 'exit 130' INT TERM
}

# ---------------------------------------------------------------- checks (change nothing)

verify_bundle() {
  say "verifying the bundle in $BUNDLE"
  for f in VERSION SHA256SUMS manifest.json sawt sawt.toml.example install.sh; do
    [ -f "$BUNDLE/$f" ] || die "not a complete Sawt bundle: $f is missing from $BUNDLE; nothing was changed"
  done
  if ! failed=$(cd "$BUNDLE" && sha256sum --check --strict --quiet SHA256SUMS 2>&1); then
    printf '%s\n' "$failed" | sed 's/^/    /' >&2
    die "bundle checksum mismatch (files above): the bundle is corrupted or was modified; copy it again and compare its .tar.gz against the published .sha256. Nothing was changed"
  fi
  listed=$(sed 's/^[0-9a-f]\{64\} [ *]//' "$BUNDLE/SHA256SUMS" | LC_ALL=C sort)
  present=$(cd "$BUNDLE" && find . -type f ! -path ./SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort)
  if [ "$listed" != "$present" ]; then
    extra=$(printf '%s\n' "$present" | while IFS= read -r f; do printf '%s\n' "$listed" | grep -qxF "$f" || printf '%s ' "$f"; done)
    die "the bundle holds files that SHA256SUMS does not list: ${extra:-?}; nothing was changed"
  fi
  VERSION=$(cat "$BUNDLE/VERSION")
  case $VERSION in '' | current | *[!0-9A-Za-z.+~-]*) die "invalid VERSION in the bundle: '$VERSION'" ;; esac
  note "sawt $VERSION, every file matches SHA256SUMS"
}

check_machine() {
  if ! staged && [ "$(id -u)" -ne 0 ]; then
    die "must run as root: sudo $0 (or stage into a directory with --root DIR)"
  fi
  arch=$(uname -m)
  [ "$arch" = x86_64 ] || die "this bundle is for x86_64 (linux-x64); this machine is $arch"
  [ "$(uname -s)" = Linux ] || die "this bundle is for Linux"
  if ! staged; then
    if ! command -v systemctl >/dev/null 2>&1 || [ ! -d /run/systemd/system ]; then
      die "systemd is not running on this machine; Sawt installs as a systemd service"
    fi
    command -v useradd >/dev/null 2>&1 || die "useradd is missing (Debian package passwd)"
    command -v runuser >/dev/null 2>&1 || die "runuser is missing (Debian package util-linux)"
  fi

  conf=$(effective_conf)
  provider=$(toml_get "$conf" runtime provider)
  if [ "$provider" = cuda ]; then
    if [ ! -e /dev/nvidia0 ] && ! command -v nvidia-smi >/dev/null 2>&1; then
      die "runtime.provider = \"cuda\" in $conf, but no NVIDIA driver is present (no /dev/nvidia0, no nvidia-smi): install the NVIDIA driver, or set provider = \"auto\" (CUDA when available) or \"cpu\"; nothing was changed"
    fi
    if [ ! -f "$BUNDLE/lib/libonnxruntime_providers_cuda.so" ]; then
      die "runtime.provider = \"cuda\" in $conf, but this bundle carries no CUDA provider libraries (see \"omitted\" in manifest.json): rebuild the bundle with them, or set provider = \"auto\" or \"cpu\"; nothing was changed"
    fi
  fi

  need_kb=$(($(du -sk "$BUNDLE" | cut -f1) + 65536))
  have_kb=$(free_kb "$OPT")
  [ "$have_kb" -ge "$need_kb" ] || die "not enough disk space for $OPT: $((have_kb / 1024)) MB free, $((need_kb / 1024)) MB needed; nothing was changed"
  state_kb=65536
  if [ -d "$BUNDLE/models" ]; then state_kb=$((state_kb + $(du -sk "$BUNDLE/models" | cut -f1))); fi
  for db in $DATABASES; do
    if [ -f "$STATE/$db" ]; then state_kb=$((state_kb + $(du -sk "$STATE/$db" | cut -f1))); fi
  done
  have_kb=$(free_kb "$STATE")
  [ "$have_kb" -ge "$state_kb" ] || die "not enough disk space for $STATE: $((have_kb / 1024)) MB free, $((state_kb / 1024)) MB needed; nothing was changed"

  if ! staged && ! systemctl is-active --quiet sawt.service; then check_ports "$conf"; fi
}

check_ports() {
  if ! command -v ss >/dev/null 2>&1; then
    note "cannot check whether the ports are free (no ss; Debian package iproute2)"
    return 0
  fi
  for setting in http_port:8080 grpc_asr_port:9101 grpc_tts_port:9102; do
    key=${setting%%:*}
    port=$(toml_get "$1" server "$key")
    port=${port:-${setting#*:}}
    [ "$port" != 0 ] || continue
    if [ -n "$(ss -Hltn "sport = :$port" 2>/dev/null)" ]; then
      die "port $port (server.$key) is already in use: see \`ss -ltnp 'sport = :$port'\`; stop that service or change server.$key in $CONF; nothing was changed"
    fi
  done
}

# ---------------------------------------------------------------- install steps

install_debs() {
  staged && return 0
  [ -d "$BUNDLE/debs" ] || return 0
  if ! command -v dpkg >/dev/null 2>&1; then
    ls /usr/lib/*/libespeak-ng.so.1 /usr/lib/libespeak-ng.so.1 >/dev/null 2>&1 ||
      warn "not a Debian system: install espeak-ng (libespeak-ng1, espeak-ng-data) with this system's package manager"
    return 0
  fi
  missing=""
  names=""
  for deb in "$BUNDLE"/debs/*.deb; do
    [ -f "$deb" ] || continue
    pkg=$(dpkg-deb --field "$deb" Package)
    if [ "$(dpkg-query --show --showformat='${db:Status-Status}' "$pkg" 2>/dev/null || true)" != installed ]; then
      missing="$missing $deb"
      names="$names $pkg"
    fi
  done
  [ -n "$missing" ] || return 0
  say "installing Debian packages from the bundle (offline):$names"
  # shellcheck disable=SC2086 # one word per .deb path (the bundle's names have no spaces)
  dpkg --install $missing >/dev/null || die "dpkg --install failed (the bundle's .deb files are for Debian 12 bookworm); packages may be half-configured: see dpkg --audit"
}

create_user() {
  staged && return 0
  if id "$USER_NAME" >/dev/null 2>&1; then return 0; fi
  say "creating system user $USER_NAME"
  nologin=/usr/sbin/nologin
  [ -x "$nologin" ] || nologin=/sbin/nologin
  [ -x "$nologin" ] || nologin=/bin/false
  useradd --system --user-group --home-dir /var/lib/sawt --no-create-home --shell "$nologin" --comment "Sawt speech service" "$USER_NAME"
}

# make_dir MODE OWNER PATH: create or correct.
make_dir() {
  [ -d "$3" ] || mkdir -p "$3"
  chmod "$1" "$3"
  own "$2" "$3"
}

install_payload() {
  target=$OPT/$VERSION
  if [ -d "$target" ]; then
    if cmp -s "$target/BUNDLE.SHA256SUMS" "$BUNDLE/SHA256SUMS" && (cd "$target" && sha256sum --check --strict --quiet SHA256SUMS >/dev/null 2>&1); then
      return 0
    fi
    cmp -s "$target/BUNDLE.SHA256SUMS" "$BUNDLE/SHA256SUMS" ||
      die "a different build of sawt $VERSION is already installed in $target; uninstall it or install a bundle with another version"
    note "the installed copy of $VERSION is damaged; reinstalling it"
    rm -rf "$target.damaged"
    mv -T "$target" "$target.damaged"
  fi
  say "installing sawt $VERSION into /opt/sawt/$VERSION"
  rm -rf "$target.partial"
  mkdir -p "$target.partial"
  (cd "$BUNDLE" && find . -type d) | while IFS= read -r d; do
    case $d in ./models | ./models/* | ./debs | ./debs/*) ;; *) mkdir -p "$target.partial/$d" ;; esac
  done
  grep -v -e '  models/' -e '  debs/' "$BUNDLE/SHA256SUMS" | sed 's/^[0-9a-f]\{64\}  //' | while IFS= read -r f; do
    cp "$BUNDLE/$f" "$target.partial/$f"
  done
  grep -v -e '  models/' -e '  debs/' "$BUNDLE/SHA256SUMS" >"$target.partial/SHA256SUMS"
  cp "$BUNDLE/SHA256SUMS" "$target.partial/BUNDLE.SHA256SUMS"
  find "$target.partial" -type d -exec chmod 0755 {} +
  find "$target.partial" -type f -exec chmod 0644 {} +
  for exe in sawt ffmpeg install.sh libexec/sawt-healthcheck libexec/sawt-cli; do
    [ ! -f "$target.partial/$exe" ] || chmod 0755 "$target.partial/$exe"
  done
  own -R root:root "$target.partial"
  (cd "$target.partial" && sha256sum --check --strict --quiet SHA256SUMS) || die "the copy in $target.partial does not match SHA256SUMS (disk full or failing?)"
  mv -T "$target.partial" "$target"
  rm -rf "$target.damaged"
}

install_models() {
  [ -d "$BUNDLE/models" ] || return 0
  for pack in "$BUNDLE"/models/*/; do
    [ -d "$pack" ] || continue
    name=$(basename "$pack")
    if [ -e "$MODELS/$name" ]; then
      note "model pack $name already in $MODELS: kept as it is"
      continue
    fi
    say "copying model pack $name into $MODELS"
    rm -rf "$MODELS/$name.partial"
    cp -R "$pack" "$MODELS/$name.partial"
    find "$MODELS/$name.partial" -type d -exec chmod 0750 {} +
    find "$MODELS/$name.partial" -type f -exec chmod 0640 {} +
    own -R "root:$USER_NAME" "$MODELS/$name.partial"
    mv -T "$MODELS/$name.partial" "$MODELS/$name"
  done
}

install_config() {
  if [ ! -e "$CONF" ]; then
    say "writing $CONF from the template (every setting documented inside)"
    cp "$BUNDLE/sawt.toml.example" "$CONF.new"
    chmod 0640 "$CONF.new"
    own "root:$USER_NAME" "$CONF.new"
    mv -T "$CONF.new" "$CONF"
  fi
  if ! cmp -s "$BUNDLE/sawt.toml.example" "$ETC/sawt.toml.example"; then
    cp "$BUNDLE/sawt.toml.example" "$ETC/sawt.toml.example.new"
    chmod 0640 "$ETC/sawt.toml.example.new"
    own "root:$USER_NAME" "$ETC/sawt.toml.example.new"
    mv -T "$ETC/sawt.toml.example.new" "$ETC/sawt.toml.example"
    note "$ETC/sawt.toml.example is this release's template (diff it against sawt.toml for new settings)"
  fi
}

# install_units DIR: copies the units from DIR when they differ; sets UNITS_CHANGED.
install_units() {
  UNITS_CHANGED=0
  mkdir -p "$UNITS"
  for unit in $UNIT_FILES; do
    if ! cmp -s "$1/$unit" "$UNITS/$unit"; then
      cp "$1/$unit" "$UNITS/$unit.new"
      chmod 0644 "$UNITS/$unit.new"
      mv -T "$UNITS/$unit.new" "$UNITS/$unit"
      UNITS_CHANGED=1
    fi
  done
  if staged; then
    for pair in multi-user.target.wants:sawt.service timers.target.wants:sawt-healthcheck.timer; do
      wants=$UNITS/${pair%%:*}
      mkdir -p "$wants"
      [ "$(readlink "$wants/${pair#*:}" 2>/dev/null)" = "/etc/systemd/system/${pair#*:}" ] ||
        ln -sfn "/etc/systemd/system/${pair#*:}" "$wants/${pair#*:}"
    done
  else
    [ "$UNITS_CHANGED" -eq 0 ] || systemctl daemon-reload
    systemctl enable --quiet sawt.service sawt-healthcheck.timer
  fi
}

install_cli_link() {
  mkdir -p "$(dirname "$BIN")"
  [ "$(readlink "$BIN" 2>/dev/null)" = /opt/sawt/current/libexec/sawt-cli ] || ln -sfn /opt/sawt/current/libexec/sawt-cli "$BIN"
}

# ---------------------------------------------------------------- database backup

# Both databases: a new version migrates each when it starts, and the old one refuses a schema newer
# than it knows, so a rollback needs both as they were. Each with its WAL and shared-memory files.
database_files() {
  for db in $DATABASES; do printf '%s %s-wal %s-shm ' "$db" "$db" "$db"; done
}

backup_database() {
  BACKUP=""
  found=""
  for db in $DATABASES; do [ ! -f "$STATE/$db" ] || found=1; done
  [ -n "$found" ] || return 0
  BACKUP=$STATE/backup/pre-$VERSION
  say "backing up the databases to $BACKUP"
  make_dir 0750 "$USER_NAME:$USER_NAME" "$STATE/backup"
  rm -rf "$BACKUP"
  mkdir -m 0750 "$BACKUP"
  for f in $(database_files); do
    [ ! -f "$STATE/$f" ] || cp -p "$STATE/$f" "$BACKUP/"
  done
  own -R "$USER_NAME:$USER_NAME" "$BACKUP"
}

# What the failed version left of either database goes; the backup comes back as it was (a
# database the old version never had is not left behind for it to refuse).
restore_database() {
  [ -n "$BACKUP" ] || return 0
  for f in $(database_files); do rm -f "$STATE/$f"; done
  for f in "$BACKUP"/*; do cp -p "$f" "$STATE/"; done
  note "databases restored from $BACKUP"
}

# ---------------------------------------------------------------- health

# The service's own last log lines since start_service (not systemd's messages about it).
service_log() {
  journalctl -u sawt.service --identifier=sawt --since "@$STARTED" -o cat --no-pager 2>/dev/null | tail -n 5 | tr '\n' ' '

}

# Real install: `sawt health` against the service, until healthy, the unit gives up or time runs out.
wait_service_healthy() {
  waited=0
  restarts_before=$(systemctl show --property=NRestarts --value sawt.service)
  while [ "$waited" -lt "$HEALTH_TIMEOUT" ]; do
    health_status=0
    health_out=$(SAWT_CONFIG=$CONF "$OPT/current/sawt" health --timeout 2000 2>&1 >/dev/null) || health_status=$?
    if [ "$health_status" -eq 0 ]; then return 0; fi
    # 2: an engine reports failed; it will not recover by waiting, so stop now with its reason.
    if [ "$health_status" -eq 2 ]; then
      REASON=$(printf '%s' "$health_out" | tr '\n' ' ')
      return 1
    fi
    state=$(systemctl is-active sawt.service || true)
    case $state in
      failed | inactive)
        REASON="sawt.service is $state; its last log lines: $(service_log)"
        return 1
        ;;
    esac
    if [ "$(systemctl show --property=NRestarts --value sawt.service)" != "$restarts_before" ]; then
      REASON="sawt.service exited and systemd is restarting it; its last log lines: $(service_log)"
      return 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
  REASON="not healthy after ${HEALTH_TIMEOUT}s: $(SAWT_CONFIG=$CONF "$OPT/current/sawt" health --timeout 2000 2>&1 | tr '\n' ' ')"
  return 1
}

# start_service: starts sawt.service without waiting for READY=1 (wait_service_healthy bounds it).
start_service() {
  STARTED=$(date +%s.%N)
  systemctl reset-failed sawt.service 2>/dev/null || true
  systemctl start --no-block sawt.service
}

# Staging root: start BIN serve on free loopback ports with the staged config and data, wait for
# `sawt health`, stop it again (SIGTERM, as systemd would).
staged_health() {
  bin=$1
  work=$(mktemp -d "${TMPDIR:-/tmp}/sawt-install-health.XXXXXX")
  # Created here: the background child opens its redirections only once it runs, and the loop
  # below may read them first on a loaded machine.
  : >"$work/out"
  : >"$work/err"
  umask 027 # as the unit's UMask: the database it creates gets the mode a real install gives it
  SAWT_CONFIG=$CONF SAWT_DATA_DIR=$STATE SAWT_MODELS_DIR=$MODELS SAWT_HOST=127.0.0.1 \
    SAWT_HTTP_PORT=0 SAWT_GRPC_ASR_PORT=0 SAWT_GRPC_TTS_PORT=0 \
    "$bin" serve >"$work/out" 2>"$work/err" </dev/null &
  pid=$!
  umask 022
  ok=1
  port=""
  failed_now=""
  waited=0
  while [ "$waited" -lt $((HEALTH_TIMEOUT * 5)) ]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      status=0
      wait "$pid" || status=$?
      REASON="$bin serve exited with status $status: $(tail -n 5 "$work/err" | tr '\n' ' ')"
      rm -rf "$work"
      return 1
    fi
    if [ -z "$port" ]; then
      port=$(sed -n 's/.*"msg":"listening","http":\([0-9]*\).*/\1/p' "$work/out" | head -n 1)
    fi
    if [ -n "$port" ]; then
      health_status=0
      health_out=$("$bin" health --timeout 2000 --url "http://127.0.0.1:$port" </dev/null 2>&1 >/dev/null) || health_status=$?
      if [ "$health_status" -eq 0 ]; then
        ok=0
        break
      fi
      # 2: an engine reports failed (e.g. libespeak-ng missing): waiting longer cannot help.
      if [ "$health_status" -eq 2 ]; then
        failed_now=$(printf '%s' "$health_out" | tr '\n' ' ')
        break
      fi
    fi
    sleep 0.2
    waited=$((waited + 1))
  done
  if [ "$ok" -ne 0 ]; then
    if [ -n "$failed_now" ]; then REASON=$failed_now; else REASON="not healthy after ${HEALTH_TIMEOUT}s: $(tail -n 5 "$work/err" | tr '\n' ' ')"; fi
  fi
  kill -TERM "$pid" 2>/dev/null || true
  waited=0
  while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt 225 ]; do sleep 0.2; waited=$((waited + 1)); done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -rf "$work"
  return "$ok"
}

# ---------------------------------------------------------------- install / upgrade

admin_key() {
  [ "$NO_KEY" -eq 0 ] || return 0
  keys=$(sawt_as_service "$OPT/current/sawt" keys list --json) || die "could not list API keys: see the message above"
  [ "$keys" = "[]" ] || return 0
  say "creating the first admin API key (shown only once; store it now)"
  key=$(sawt_as_service "$OPT/current/sawt" keys create --name admin --admin 2>/dev/null) || die "could not create the admin API key"
  printf '\n    admin API key: %s\n\n' "$key"
}

rollback() {
  failed_reason=$1
  warn "sawt $VERSION is not healthy: $failed_reason"
  say "rolling back to sawt $FROM"
  staged || systemctl stop sawt.service || true
  switch_current "$FROM"
  install_units "$OPT/$FROM/systemd"
  restore_database
  if staged; then
    if staged_health "$OPT/$FROM/sawt"; then old="sawt $FROM is running and healthy"; else old="sawt $FROM is not healthy either: $REASON"; fi
  else
    start_service
    if wait_service_healthy; then old="sawt $FROM is running and healthy"; else old="sawt $FROM is not healthy either: $REASON"; fi
  fi
  printf '%s: rolled back: sawt %s failed its health check (%s); %s. The failed version stays in %s for inspection.\n' \
    "$PROG" "$VERSION" "$failed_reason" "$old" "$OPT/$VERSION" >&2
  exit 3
}

prune_versions() {
  for dir in "$OPT"/*/; do
    name=$(basename "$dir")
    case $name in "$VERSION" | "$FROM" | current) continue ;; esac
    [ -f "$dir/BUNDLE.SHA256SUMS" ] || continue
    note "removing old version $name (keeping $VERSION and ${FROM:-nothing else})"
    rm -rf "$dir"
  done
}

do_install() {
  verify_bundle
  check_machine
  lock
  FROM=$(installed_version)
  if [ "$FROM" = "$VERSION" ]; then say "sawt $VERSION is the installed version; checking the installation"; fi
  if [ -n "$FROM" ] && [ "$FROM" != "$VERSION" ]; then say "upgrading sawt $FROM to $VERSION"; fi

  install_debs
  create_user
  make_dir 0755 root:root "$OPT"
  make_dir 0750 "root:$USER_NAME" "$ETC"
  make_dir 0750 "$USER_NAME:$USER_NAME" "$STATE"
  make_dir 0750 "root:$USER_NAME" "$MODELS"
  install_payload
  install_models
  install_config
  install_cli_link

  if [ "$FROM" = "$VERSION" ]; then
    install_units "$OPT/$VERSION/systemd"
    if ! staged && ! systemctl is-active --quiet sawt.service; then
      say "starting sawt.service"
      start_service
      wait_service_healthy || die "sawt $VERSION is not healthy: $REASON"
    fi
    staged || systemctl start sawt-healthcheck.timer
    admin_key
    say "sawt $VERSION is installed; nothing else to do"
    return 0
  fi

  if [ -n "$FROM" ]; then
    staged || { say "stopping sawt $FROM"; systemctl stop sawt.service; }
    backup_database
  fi
  install_units "$OPT/$VERSION/systemd"
  switch_current "$VERSION"
  say "starting sawt $VERSION and waiting for its health check (up to ${HEALTH_TIMEOUT}s)"
  REASON=""
  if staged; then
    healthy=0
    staged_health "$OPT/$VERSION/sawt" || healthy=1
  else
    start_service
    healthy=0
    wait_service_healthy || healthy=1
  fi
  if [ "$healthy" -ne 0 ]; then
    [ -z "$FROM" ] || rollback "$REASON"
    die "sawt $VERSION is installed but not healthy: $REASON. Fix the cause (sudo sawt doctor; journalctl -u sawt) and run $PROG again"
  fi
  note "healthy"
  staged || systemctl start sawt-healthcheck.timer
  prune_versions
  admin_key
  if [ -n "$FROM" ]; then
    say "upgraded sawt $FROM to $VERSION (config, keys and data kept; databases backed up in $BACKUP)"
  else
    say "installed sawt $VERSION"
  fi
  note "config: /etc/sawt/sawt.toml    data: /var/lib/sawt    logs: journalctl -u sawt"
  note "check: sudo sawt doctor        status: systemctl status sawt"
}

# ---------------------------------------------------------------- uninstall

do_uninstall() {
  if ! staged && [ "$(id -u)" -ne 0 ]; then die "must run as root: sudo $0 --uninstall"; fi
  lock
  say "uninstalling sawt"
  if ! staged && command -v systemctl >/dev/null 2>&1; then
    systemctl disable --now --quiet sawt-healthcheck.timer sawt.service 2>/dev/null || true
    systemctl stop sawt-healthcheck.service 2>/dev/null || true
  fi
  rm -f "$UNITS/multi-user.target.wants/sawt.service" "$UNITS/timers.target.wants/sawt-healthcheck.timer"
  for unit in $UNIT_FILES; do rm -f "$UNITS/$unit"; done
  if ! staged && command -v systemctl >/dev/null 2>&1; then
    systemctl daemon-reload
    systemctl reset-failed sawt.service sawt-healthcheck.service 2>/dev/null || true
  fi
  case $(readlink "$BIN" 2>/dev/null || true) in /opt/sawt/*) rm -f "$BIN" ;; esac
  rm -rf "$OPT"
  if [ "$PURGE" -eq 1 ]; then
    rm -rf "$ETC" "$STATE" "$ROOT/var/cache/sawt"
    say "removed Sawt with its configuration and data (API keys, cloned voices, models)"
    if ! staged && id "$USER_NAME" >/dev/null 2>&1; then note "the system user $USER_NAME is kept (userdel $USER_NAME removes it)"; fi
  else
    say "removed Sawt; kept /etc/sawt (config) and /var/lib/sawt (database, models): $0 --uninstall --purge removes them"
  fi
}

case $ACTION in
  install) do_install ;;
  uninstall) do_uninstall ;;
esac
