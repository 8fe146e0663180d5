#!/bin/sh
# Renders deploy/haproxy/haproxy.cfg.in into a working HAProxy configuration for N Sawt boxes.
# Usage: render.sh [options] NAME=HOST[:HTTP[:GRPC_ASR[:GRPC_TTS]]]... > /etc/haproxy/haproxy.cfg
#   --http-bind ADDR:PORT      REST/WebSocket door (default :8080)
#   --grpc-asr-bind ADDR:PORT  gRPC ASR door (default :9101)
#   --grpc-tts-bind ADDR:PORT  gRPC TTS door (default :9102)
#   --socket PATH              runtime API socket (default /run/haproxy/admin.sock)
#   --rpm-map FILE             per-key limits from `sawt keys export --haproxy-map` (default
#                              /etc/haproxy/sawt-rpm.map; must exist, may be empty)
#   --default-rpm N            limit of a key missing from the map (default 60, Sawt's auth.default_rpm)
#   --foreground               no chroot/user/daemon, logs on stdout (tests, containers)
# HOST is a name or an IPv4 address. Box ports default to Sawt's own, 8080, 9101 and 9102. Names:
# letters, digits, - and _ (they are HAProxy's server names, used by installer/rolling-upgrade.sh);
# a box's name must also be its jobs.box_id (lower case, no _) for its jobs' URLs to reach it.
set -eu

here=$(dirname "$0")
http_bind=":8080"
asr_bind=":9101"
tts_bind=":9102"
socket="/run/haproxy/admin.sock"
rpm_map="/etc/haproxy/sawt-rpm.map"
default_rpm=60
foreground=""

die() {
  echo "render.sh: $*" >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --http-bind) http_bind=${2:?--http-bind needs ADDR:PORT}; shift 2 ;;
    --grpc-asr-bind) asr_bind=${2:?--grpc-asr-bind needs ADDR:PORT}; shift 2 ;;
    --grpc-tts-bind) tts_bind=${2:?--grpc-tts-bind needs ADDR:PORT}; shift 2 ;;
    --socket) socket=${2:?--socket needs a PATH}; shift 2 ;;
    --rpm-map) rpm_map=${2:?--rpm-map needs a FILE}; shift 2 ;;
    --default-rpm) default_rpm=${2:?--default-rpm needs N}; shift 2 ;;
    --foreground) foreground=1; shift ;;
    -h|--help) sed -n '2,/^set -eu$/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    --*) die "unknown option $1" ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || die "name at least one box: NAME=HOST[:HTTP[:GRPC_ASR[:GRPC_TTS]]]"
case "$default_rpm" in ''|*[!0-9]*) die "--default-rpm must be a positive integer" ;; esac

SERVERS_HTTP=""
SERVERS_GRPC_ASR=""
SERVERS_GRPC_TTS=""
JOB_BACKENDS=""
nl='
'
for box in "$@"; do
  name=${box%%=*}
  spec=${box#*=}
  case "$name" in ''|*[!A-Za-z0-9_-]*) die "bad box name in $box" ;; esac
  [ "$spec" != "$box" ] || die "box $box needs NAME=HOST"
  IFS=: read -r host http asr tts <<SPEC
$spec
SPEC
  [ -n "$host" ] || die "box $box needs a host"
  http=${http:-8080}
  asr=${asr:-9101}
  tts=${tts:-9102}
  for port in "$http" "$asr" "$tts"; do
    case "$port" in ''|*[!0-9]*) die "bad port in $box" ;; esac
  done
  SERVERS_HTTP="$SERVERS_HTTP    server $name $host:$http$nl"
  # gRPC goes to the box over h2c; its health is still the HTTP port's /ready.
  SERVERS_GRPC_ASR="$SERVERS_GRPC_ASR    server $name $host:$asr proto h2 check port $http check-proto h1$nl"
  SERVERS_GRPC_TTS="$SERVERS_GRPC_TTS    server $name $host:$tts proto h2 check port $http check-proto h1$nl"
  # A box's jobs are routed by its name, which must be its jobs.box_id.
  JOB_BACKENDS="${JOB_BACKENDS}backend sawt_job_$name from sawt_boxes${nl}    option forwardfor${nl}    retry-on conn-failure${nl}    server $name $host:$http no-check${nl}${nl}"
done

if [ -n "$foreground" ]; then
  GLOBAL="    log stdout format raw local0"
else
  GLOBAL="    log /dev/log local0
    log /dev/log local1 notice
    chroot /var/lib/haproxy
    user haproxy
    group haproxy
    daemon"
fi

export SERVERS_HTTP SERVERS_GRPC_ASR SERVERS_GRPC_TTS JOB_BACKENDS GLOBAL
export HTTP_BIND="$http_bind" GRPC_ASR_BIND="$asr_bind" GRPC_TTS_BIND="$tts_bind"
export STATS_SOCKET="$socket" RPM_MAP="$rpm_map" DEFAULT_RPM="$default_rpm"
# Whole placeholder lines take a block (servers, global); inline ones take a value.
awk '
  /^@[A-Z_]+@$/ { name = substr($0, 2, length($0) - 2); printf "%s", ENVIRON[name]; if (name == "GLOBAL") print ""; next }
  {
    line = $0
    while (match(line, /@[A-Z_]+@/)) {
      name = substr(line, RSTART + 1, RLENGTH - 2)
      line = substr(line, 1, RSTART - 1) ENVIRON[name] substr(line, RSTART + RLENGTH)
    }
    print line
  }
' "$here/haproxy.cfg.in"
