#!/bin/sh
# Runs a command in a network namespace that has only loopback (issue 39, the air gap): the
# README's claim that nothing is downloaded at run time and no byte leaves the box is proven by
# running the test suite where nothing but 127.0.0.1 and ::1 exists, after the install step
# fetched what the tests need. `npm test` and `.ci/run` run the suite through it.
#
#   sh test/offline.sh COMMAND [ARG...]
#
# As root (CI): `unshare -n` (a new network namespace) and `ip link set lo up` in it. Otherwise a
# user namespace maps the caller to root inside, which can make a network namespace too
# (`unshare -r -n`; the tests then see root's file permissions, as they do under CI). Where
# neither works the command is not run: SAWT_TEST_NETNS=0 runs it in the ordinary namespace
# instead, on purpose. Inside, SAWT_TEST_OFFLINE=1 tells test/tooling/airgap.test.ts to check it.
set -eu
[ "$#" -gt 0 ] || { echo "usage: sh test/offline.sh COMMAND [ARG...]" >&2; exit 2; }
if [ "${SAWT_TEST_NETNS:-1}" = 0 ]; then
  echo "offline.sh: SAWT_TEST_NETNS=0: running in the ordinary network namespace" >&2
  exec "$@"
fi
command -v unshare >/dev/null 2>&1 || { echo "offline.sh: unshare (util-linux) is missing" >&2; exit 1; }
command -v ip >/dev/null 2>&1 || { echo "offline.sh: ip (iproute2) is missing: installer/dev-setup.sh --test installs it" >&2; exit 1; }
inside='ip link set lo up && SAWT_TEST_OFFLINE=1 exec "$@"'
if [ "$(id -u)" -eq 0 ] && unshare -n true 2>/dev/null; then
  exec unshare -n -- sh -c "$inside" sh "$@"
fi
if unshare -r -n true 2>/dev/null; then
  exec unshare -r -n -- sh -c "$inside" sh "$@"
fi
echo "offline.sh: cannot make a network namespace here (needs root, or unprivileged user namespaces);" >&2
echo "offline.sh: SAWT_TEST_NETNS=0 runs the command without one" >&2
exit 1
