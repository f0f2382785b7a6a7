#!/usr/bin/env bash
# Install what the harness needs on a Debian/Ubuntu host, as root:
#  - what the UML engine needs: the tools that build its kernel (flex, bison, bc, xz, patch,
#    ccache) and every program a run starts, since a UML guest runs the host's programs
#    (iw, iperf3, ping, hostapd, Open vSwitch ...);
#  - gcc + libnl-genl-3 (mediumd), python3-venv;
#  - the project itself, editable, into .venv (Debian's python refuses system-wide pip);
#  - with --dev, also the lint and type-check tools of requirements-dev.txt (CI passes it).
# Safe to run again; it only adds what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
DEV=0
for arg in "$@"; do
  case "$arg" in
    --dev) DEV=1 ;;
    *) echo "install-host-deps: unknown argument $arg (allowed: --dev)" >&2; exit 2 ;;
  esac
done

APT_PACKAGES=(python3 python3-venv python3-pip iproute2 iw iperf3 kmod gcc make pkg-config
              libnl-genl-3-dev libnl-3-dev ca-certificates
              flex bison bc xz-utils patch ccache apt-utils
              iputils-ping nftables ethtool tcpdump hostapd wpasupplicant openvswitch-switch
              wireless-regdb psmisc procps util-linux batctl babeld)

if [ "$(id -u)" -ne 0 ]; then
  echo "install-host-deps: run as root (apt-get and namespaces need it)" >&2
  exit 2
fi
if ! command -v apt-get >/dev/null; then
  echo "install-host-deps: no apt-get: install by hand: ${APT_PACKAGES[*]}" >&2
  exit 2
fi
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-host-deps: apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

PY=${HARNESS_PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "install-host-deps: creating .venv with $($PY --version)"
  $PY -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
.venv/bin/python -m pip install -q -e .
if [ "$DEV" -eq 1 ]; then
  echo "install-host-deps: dev tools (requirements-dev.txt)"
  .venv/bin/python -m pip install -q -r requirements-dev.txt
fi
touch .venv/.harness-installed
echo "install-host-deps: ready (.venv/bin/harness)"
