"""Names of everything a run creates, so that ``harness clean`` can find them again.

Every kernel object a run makes carries the prefix ``hx-`` and the run's tag:

  run tag       4 hex digits, random per run            ``3fa9``
  namespace     ``hx-<tag>-<node>``                      ``hx-3fa9-sta1``
  radio (wiphy) ``hx-<tag>-<node>-<n>``                  ``hx-3fa9-sta1-0``
  OVS bridge    ``hx<tag><name>`` (IFNAMSIZ: 15 chars)   ``hx3fa9s1``
  daemon files  ``hx-<tag>-<daemon>-<node>-XXXXXXXX``     ``/tmp/hx-3fa9-ovs-sw1-k2j4x0aa``
  IBSS/mesh id  ``hx-<tag>``                             ``hx-3fa9``
  SSID of an AP ``hx-<tag>-<node>``                      ``hx-3fa9-ap1``
  IBSS BSSID    ``02:68:78:ff:ff:<first tag byte>``      ``02:68:78:ff:ff:3f``
  radio MAC     ``02:68:78:<node 16 bit>:<radio>``       ``02:68:78:00:01:00``
  interfaces    ``wlan<n>`` per radio, ``eth<n>`` per veth, inside the node's namespace
  process argv  ``HARNESS_RUN=<tag>`` in the environment of every process a run starts

Nothing outside this module builds or parses these names.
"""
from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Optional, Sequence

from harness.errors import HarnessError

PREFIX = "hx-"
#: Environment variable set in every process the harness starts (found by ``clean``).
RUN_ENV = "HARNESS_RUN"
#: Node names: short, so namespace/radio names stay readable and interface-safe.
NODE_NAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,14}$")
TAG_RE = re.compile(r"^[0-9a-f]{4}$")
_NS_RE = re.compile(r"^hx-(?P<tag>[0-9a-f]{4})-(?P<node>[a-z][a-z0-9_]{0,14})$")
_RADIO_RE = re.compile(r"^hx-(?P<tag>[0-9a-f]{4})-(?P<node>[a-z][a-z0-9_]{0,14})-(?P<n>\d+)$")


def new_tag() -> str:
    """A fresh run tag: 4 random hex digits (collisions only matter for concurrent runs)."""
    return secrets.token_hex(2)


def check_tag(tag: str) -> str:
    if not TAG_RE.match(tag):
        raise HarnessError(f"run tag {tag!r} is invalid: expected 4 lowercase hex digits")
    return tag


def check_node_name(name: str) -> str:
    """Node names become parts of namespace and radio names: keep them simple."""
    if not isinstance(name, str) or not NODE_NAME_RE.match(name):
        raise HarnessError(
            f"node name {name!r} is invalid: expected 1-15 characters [a-z0-9_], "
            "starting with a letter (e.g. 'sta1')")
    return name


def netns_name(tag: str, node: str) -> str:
    return f"{PREFIX}{tag}-{node}"


def radio_name(tag: str, node: str, n: int) -> str:
    return f"{PREFIX}{tag}-{node}-{n}"


def ovs_bridge_prefix(tag: str) -> str:
    """What every OVS bridge of run ``tag`` starts with."""
    return f"hx{tag}"


def ovs_bridge_name(tag: str, name: str) -> str:
    """OVS bridges are interfaces: at most 15 characters."""
    full = ovs_bridge_prefix(tag) + name
    if len(full) > 15:
        raise HarnessError(f"bridge name {name!r} too long: 'hx'+tag+name must fit 15 characters")
    return full


def daemon_dir_prefix(tag: str, daemon: str, node: str) -> str:
    """Where a node's daemon (``ovs``, ``hostapd``, ...) keeps its files: a temporary directory
    whose name starts with this (``cleanup.new_run_dir``)."""
    return f"{PREFIX}{tag}-{daemon}-{node}-"


def daemon_dir_pattern(tag: Optional[str], daemon: str) -> str:
    """Glob of the daemon directories of run ``tag`` (of every run if None)."""
    return f"{PREFIX}{tag or '[0-9a-f]' * 4}-{daemon}-*"


def ap_ssid(tag: str, node: str) -> str:
    """The SSID an access point of run ``tag`` announces unless its topology names one."""
    return f"{PREFIX}{tag}-{node}"


def radio_mac(node_index: int, radio_index: int) -> str:
    """Deterministic, locally administered MAC: ``02:68:78`` ("hx") + node (16 bit) + radio.

    Same topology, same MACs: the medium's seeded draws depend only on the topology.
    """
    if not (0 <= node_index < 65536 and 0 <= radio_index < 256):
        raise HarnessError(f"node index {node_index} / radio index {radio_index} out of range "
                           "(node < 65536, radio < 256)")
    return "02:68:78:%02x:%02x:%02x" % (node_index >> 8, node_index & 0xFF, radio_index)


def wlan_name(radio_index: int) -> str:
    """Interface of a node's ``radio_index``-th radio inside its namespace: wlan0, wlan1, ..."""
    return f"wlan{radio_index}"


def eth_name(existing: Sequence[str]) -> str:
    """The next wired (veth) interface of a node whose interfaces are ``existing``: eth0, ..."""
    return f"eth{sum(1 for i in existing if i.startswith('eth'))}"


def network_ssid(tag: str) -> str:
    """The IBSS / mesh id every wireless node of run ``tag`` joins."""
    return f"{PREFIX}{tag}"


def network_bssid(tag: str) -> str:
    """The fixed IBSS BSSID of run ``tag``, locally administered like ``radio_mac`` (fixed, so
    the cell does not split while stations start one by one)."""
    return "02:68:78:ff:ff:%02x" % int(check_tag(tag)[:2], 16)


@dataclass(frozen=True)
class ParsedName:
    """A harness object name taken apart."""

    tag: str
    node: str
    radio: Optional[int] = None


def parse_netns(name: str) -> Optional[ParsedName]:
    m = _NS_RE.match(name)
    return ParsedName(m["tag"], m["node"]) if m else None


def parse_radio(name: str) -> Optional[ParsedName]:
    m = _RADIO_RE.match(name)
    return ParsedName(m["tag"], m["node"], int(m["n"])) if m else None


def is_harness_bridge(name: str) -> bool:
    return re.match(r"^hx[0-9a-f]{4}", name) is not None
