#!/bin/sh
# Rolling upgrade of Sawt boxes behind HAProxy (deploy/haproxy/), one box at a time, with no failed
# call: for each box
#   1. drain   HAProxy sends it nothing new (runtime API: set server BACKEND/BOX state drain)
#   2. wait    until HAProxy shows no request in flight on it (scur 0 in every backend)
#   3. upgrade runs the upgrade command for it (stops the box: SIGTERM = its own drain; installs;
#              starts it again)
#   4. health  waits until `sawt health --url URL` passes (its /ready answers 200)
#   5. enable  set server … state ready, and waits until HAProxy has it UP in every backend
#              (slowstart then gives it its share gradually)
# It stops at the first box that fails a step and leaves that box drained: never two boxes out.
#
# Usage: rolling-upgrade.sh --upgrade CMD [options] NAME=URL...
#   NAME=URL          the box's server name in haproxy.cfg and its HTTP base URL (http://10.0.0.11:8080)
#   --upgrade CMD     shell command run for each box with SAWT_BOX=NAME and SAWT_BOX_URL=URL set, e.g.
#                     'ssh "$SAWT_BOX" "cd /srv/sawt-1.3.0-linux-x64 && sudo ./install.sh --no-key"'
#   --socket PATH     HAProxy runtime API: a unix socket path, or HOST:PORT for a TCP stats socket
#                     (default /run/haproxy/admin.sock)
#   --backends "B…"   backends the boxes serve in (default: the three of deploy/haproxy/)
#   --sawt CMD        how to run the sawt CLI for the health check (default: sawt)
#   --drain-timeout S longest wait for in-flight requests to finish (default 120)
#   --ready-timeout S longest wait for the upgraded box to be ready and UP again (default 300)
# Needs socat (Debian package socat) to talk to the runtime API.
set -eu

socket="/run/haproxy/admin.sock"
backends="sawt_http_boxes sawt_grpc_asr_boxes sawt_grpc_tts_boxes"
upgrade=""
sawt="sawt"
drain_timeout=120
ready_timeout=300

say() { echo "rolling-upgrade: $*" >&2; }
die() {
  say "$*"
  exit 1
}
usage() {
  sed -n '2,/^set -eu$/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --upgrade) upgrade=${2:?--upgrade needs a command}; shift 2 ;;
    --socket) socket=${2:?--socket needs a path}; shift 2 ;;
    --backends) backends=${2:?--backends needs names}; shift 2 ;;
    --sawt) sawt=${2:?--sawt needs a command}; shift 2 ;;
    --drain-timeout) drain_timeout=${2:?--drain-timeout needs seconds}; shift 2 ;;
    --ready-timeout) ready_timeout=${2:?--ready-timeout needs seconds}; shift 2 ;;
    -h|--help) usage ;;
    --*) say "unknown option $1"; usage ;;
    *) break ;;
  esac
done
[ -n "$upgrade" ] || { say "--upgrade CMD is required"; usage; }
[ $# -gt 0 ] || { say "name at least one box as NAME=URL"; usage; }
command -v socat >/dev/null 2>&1 || die "socat is needed for the HAProxy runtime API (apt-get install socat)"
for n in "$drain_timeout" "$ready_timeout"; do
  case "$n" in ''|*[!0-9]*) die "timeouts are whole seconds" ;; esac
done

case "$socket" in
  /*|./*) address="UNIX-CONNECT:$socket" ;;
  *:*) address="TCP:$socket" ;;
  *) address="UNIX-CONNECT:$socket" ;;
esac

# One runtime API command; its answer on stdout.
api() {
  printf '%s\n' "$1" | socat -t 5 stdio "$address"
}

# Sets the box's administrative state in every backend.
set_state() {
  for be in $backends; do
    answer=$(api "set server $be/$1 state $2")
    [ -z "$answer" ] || die "HAProxy refused 'set server $be/$1 state $2': $answer"
  done
}

# Prints "<current sessions> <status>" of the box in one backend, from `show stat`.
server_stat() {
  api "show stat" | awk -F, -v be="$1" -v sv="$2" '
    NR == 1 { for (i = 1; i <= NF; i++) { name = $i; sub(/^# /, "", name); col[name] = i }; next }
    $1 == be && $2 == sv { print $col["scur"], $col["status"]; found = 1 }
    END { if (!found) print "missing missing" }'
}

# Waits (at most $2 seconds) until `check BOX` succeeds; 0 when it did.
wait_for() {
  deadline=$(($(date +%s) + $2))
  while ! "$1" "$3"; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

idle() {
  for be in $backends; do
    set -- "$1" "$(server_stat "$be" "$1")"
    case "$2" in missing*) die "no server $1 in backend $be" ;; "0 "*) ;; *) return 1 ;; esac
  done
}

healthy() {
  # shellcheck disable=SC2086 # --sawt may be a command with arguments (e.g. "bun src/main.ts")
  $sawt health --url "$box_url" --quiet --timeout 2000
}

up() {
  for be in $backends; do
    case "$(server_stat "$be" "$1")" in *" UP") ;; *) return 1 ;; esac
  done
}

for box in "$@"; do
  name=${box%%=*}
  box_url=${box#*=}
  if [ -z "$name" ] || [ "$box_url" = "$box" ]; then die "boxes are NAME=URL, got $box"; fi
  # Every box must be known and UP before a box is taken out: never two boxes out at once.
  for other in "$@"; do
    up "${other%%=*}" || die "box ${other%%=*} is not UP in HAProxy; not taking $name out"
  done

  say "$name: drain (HAProxy sends it nothing new)"
  set_state "$name" drain
  wait_for idle "$drain_timeout" "$name" || die "$name: requests still in flight after ${drain_timeout}s; left drained"

  say "$name: upgrade"
  SAWT_BOX=$name SAWT_BOX_URL=$box_url sh -c "$upgrade" || die "$name: upgrade command failed; left drained"

  say "$name: wait for /ready"
  wait_for healthy "$ready_timeout" "$name" || die "$name: not ready after ${ready_timeout}s; left drained"

  say "$name: enable"
  set_state "$name" ready
  wait_for up "$ready_timeout" "$name" || die "$name: HAProxy does not see it UP after ${ready_timeout}s"
  say "$name: done"
done
say "all $# boxes upgraded"
