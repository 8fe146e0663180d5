#!/bin/sh
# Renders deploy/kamailio/kamailio.cfg.in into a working Kamailio configuration for N Sawt boxes
# (their MRCPv2 door's SIP port) and writes the dispatcher list the configuration reads.
# Usage: render.sh [options] NAME=HOST[:SIP_PORT]... > /etc/kamailio/kamailio.cfg
#   --listen ADDR:PORT     the IVRs' SIP door, UDP and TCP (default 0.0.0.0:8060)
#   --list FILE            where the dispatcher list is written and read from (default
#                          /etc/kamailio/dispatcher.list)
#   --ctl SOCKET           kamcmd's control socket (default unix:/run/kamailio/kamailio_ctl)
#   --ping-interval S      seconds between OPTIONS probes of each box (default 1)
#   --transport udp|tcp    how Kamailio reaches the boxes (default udp)
#   --foreground           log to stderr instead of syslog (tests, containers)
# HOST is a name or an IPv4 address; SIP_PORT defaults to Sawt's mrcp.sip_port, 8060. Names:
# letters, digits, - and _ (written beside each box in the list, for the operator).
set -eu

here=$(dirname "$0")
listen="0.0.0.0:8060"
list="/etc/kamailio/dispatcher.list"
ctl="unix:/run/kamailio/kamailio_ctl"
ping_interval=1
transport="udp"
foreground=""

die() {
  echo "render.sh: $*" >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --listen) listen=${2:?--listen needs ADDR:PORT}; shift 2 ;;
    --list) list=${2:?--list needs a FILE}; shift 2 ;;
    --ctl) ctl=${2:?--ctl needs a SOCKET}; shift 2 ;;
    --ping-interval) ping_interval=${2:?--ping-interval needs S}; shift 2 ;;
    --transport) transport=${2:?--transport needs udp or tcp}; shift 2 ;;
    --foreground) foreground=1; shift ;;
    -h|--help) sed -n '2,/^set -eu$/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    --*) die "unknown option $1" ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || die "name at least one box: NAME=HOST[:SIP_PORT]"
case "$ping_interval" in ''|0|*[!0-9]*) die "--ping-interval must be a positive integer" ;; esac
case "$transport" in udp|tcp) ;; *) die "--transport must be udp or tcp" ;; esac
case "$listen" in *:*) ;; *) die "--listen needs ADDR:PORT" ;; esac
listen_port=${listen##*:}
listen_addr=${listen%:*}
case "$listen_port" in ''|*[!0-9]*) die "bad port in --listen $listen" ;; esac
case "$list" in /*) ;; *) die "--list needs an absolute path (Kamailio reads it from its own directory)" ;; esac

uri_params=""
[ "$transport" = udp ] || uri_params=";transport=$transport"
DISPATCHER="# Sawt boxes (group 1), written by deploy/kamailio/render.sh.
# setid destination flags(8 = probed with OPTIONS) priority attributes"
nl='
'
for box in "$@"; do
  name=${box%%=*}
  spec=${box#*=}
  case "$name" in ''|*[!A-Za-z0-9_-]*) die "bad box name in $box" ;; esac
  [ "$spec" != "$box" ] || die "box $box needs NAME=HOST"
  IFS=: read -r host sip extra <<SPEC
$spec
SPEC
  [ -n "$host" ] || die "box $box needs a host"
  [ -z "$extra" ] || die "box $box: NAME=HOST[:SIP_PORT] only"
  case "$host" in *[!A-Za-z0-9.-]*) die "bad host in $box" ;; esac
  sip=${sip:-8060}
  case "$sip" in ''|*[!0-9]*) die "bad port in $box" ;; esac
  DISPATCHER="$DISPATCHER${nl}1 sip:$host:$sip$uri_params 8 0 name=$name"
done

if [ -n "$foreground" ]; then
  LOG="log_stderror=yes
debug=2"
else
  LOG="log_stderror=no
log_facility=LOG_LOCAL0
debug=2"
fi
LISTEN="listen=udp:$listen_addr:$listen_port
listen=tcp:$listen_addr:$listen_port"

mkdir -p "$(dirname "$list")"
printf '%s\n' "$DISPATCHER" > "$list"

export LOG LISTEN
export CTL_SOCKET="$ctl" LIST_FILE="$list" PING_INTERVAL="$ping_interval"
# Whole placeholder lines take a block (log, listen); inline ones take a value.
awk '
  /^@[A-Z_]+@$/ { print ENVIRON[substr($0, 2, length($0) - 2)]; next }
  {
    line = $0
    while (match(line, /@[A-Z_]+@/)) {
      name = substr(line, RSTART + 1, RLENGTH - 2)
      line = substr(line, 1, RSTART - 1) ENVIRON[name] substr(line, RSTART + RLENGTH)
    }
    print line
  }
' "$here/kamailio.cfg.in"
