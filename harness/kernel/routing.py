"""MANET routing inside a node: batman-adv (built into the engine's kernel), babeld (Debian's
package) and 802.11s HWMP (mac80211's): the lines that start them and parsers of their tables.

Each parser turns what a tool prints into ``{destination: next hop}`` (MACs for the layer-2
protocols, IPs for babel; the network layer maps them to node names), so a route log is one
format whatever the protocol. Parsers are pure (unit-tested on captured output).

batman-adv: the radio joins the IBSS as usual and becomes a port of ``bat0`` (``ip link``'s
batadv type); the address moves to ``bat0``; the radio's MTU grows by batman-adv's header so
that ``bat0`` keeps 1500 bytes and no TCP segment is fragmented. The algorithm is the
kernel's default, B.A.T.M.A.N. IV (originator messages every second). Bridge loop
avoidance is off: no node bridges ``bat0`` to a LAN, so there is no loop to avoid, and with
it on ``bat0`` dropped every ARP request it was given (its ``tx_dropped`` counter grew, no
request reached the air) and not even one hop answered a ping (kernel 6.1, batman-adv 2022.3).
babeld: one daemon per node on the radio, defaults of babeld 1.12 (hello every 4 s on a
wireless interface), announcing the node's own address as a /32 route.
"""
from __future__ import annotations

import ipaddress
import json
import re
from pathlib import Path
from typing import Dict, List, Optional

from harness.kernel import cleanup, naming

#: batman-adv's mesh interface in every node (one per namespace: no run tag needed).
BATMAN_IF = "bat0"
#: 1500 + batman-adv's unicast and Ethernet headers (the value batman-adv's docs advise).
BATMAN_MTU = 1532
#: The name of babeld's run directories (``naming.daemon_dir_prefix``).
BABEL_DAEMON = "babeld"
#: babeld's routes carry this protocol number in the kernel (``ip route ... proto babel``).
BABEL_PROTO = "babel"

_MAC = r"[0-9a-f]{2}(?::[0-9a-f]{2}){5}"
_ORIGINATOR = re.compile(rf"^\s*(\*)?\s*({_MAC})\s+[\d.]+s\s+\(\s*[\d.]+\)\s+({_MAC})\s+\[",
                         re.IGNORECASE)


def batman_setup_lines(intf: str, mac: str) -> List[str]:
    """Before the radio joins: the MTU, and ``bat0`` with a fixed MAC (not a random one: runs
    of one seed stay identical) and the radio as its port."""
    return [f"ip link set {intf} mtu {BATMAN_MTU}",
            f"ip link add {BATMAN_IF} address {mac} type batadv",
            f"batctl meshif {BATMAN_IF} bridge_loop_avoidance 0",
            f"ip link set {intf} master {BATMAN_IF}"]


def batman_join_lines(ip: str) -> List[str]:
    """After the radio joined: ``bat0`` up with the station's address."""
    return [f"ip link set {BATMAN_IF} up", f"ip addr add {ip} dev {BATMAN_IF}"]


def parse_originators(text: str) -> Dict[str, str]:
    """``batctl meshif bat0 originators -H`` -> originator MAC -> next-hop MAC (the best
    route, marked ``*``; an originator without one has no entry)."""
    out: Dict[str, str] = {}
    for line in text.splitlines():
        m = _ORIGINATOR.match(line)
        if m and m.group(1):
            out[m.group(2).lower()] = m.group(3).lower()
    return out


def router_id(mac: str) -> str:
    """babel's 64-bit router id from the radio's MAC (EUI-64: ff:fe in the middle), fixed
    rather than drawn at random."""
    octets = mac.lower().split(":")
    return ":".join(octets[:3] + ["ff", "fe"] + octets[3:])


def babeld_args(run_dir: Path, intf: str, ip: str, mac: str) -> List[str]:
    """babeld in the foreground, its files in the node's run directory, announcing only the
    node's own address (as a /32) and taking nothing else from the kernel."""
    host = ipaddress.ip_interface(ip).ip
    return ["babeld", "-I", str(run_dir / "babeld.pid"), "-S", str(run_dir / "babel-state"),
            "-L", str(run_dir / "babeld.log"), "-C", f"router-id {router_id(mac)}",
            "-C", f"redistribute local ip {host}/32 allow",
            "-C", "redistribute local deny",
            "-C", "redistribute deny",
            intf]


def parse_ip_routes(text: str, proto: str = BABEL_PROTO) -> Dict[str, Optional[str]]:
    """``ip -j route show`` -> destination IP -> gateway IP (None: on the link) for the host
    routes (/32 or bare addresses) of protocol ``proto`` (ip leaves the protocol out of its
    output when it is a filter of the command, so the whole table is read)."""
    out: Dict[str, Optional[str]] = {}
    for route in json.loads(text or "[]"):
        dst = str(route.get("dst", ""))
        if route.get("protocol") != proto or (("/" in dst) and not dst.endswith("/32")):
            continue
        out[dst.split("/")[0]] = route.get("gateway")
    return out


def babel_dir(tag: str, node: str) -> Path:
    """The run directory of a node's babeld (claimed by this process)."""
    return cleanup.new_run_dir(naming.daemon_dir_prefix(tag, BABEL_DAEMON, node))


cleanup.register_run_dirs("babeld run directories",
                          lambda tag: naming.daemon_dir_pattern(tag, BABEL_DAEMON),
                          "babeld run directory")
