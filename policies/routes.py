"""Route metrics (``cwnd lock N``, ``window B``, ``quickack 1``) on per-destination host routes.

TCP reads these per destination from the route the socket uses, so each policy asks for a
metric on (node, peer) and this module installs one ``/32`` route per pair carrying every
metric asked for, keeping the next hop and device the node already uses (``ip route get``).
One ``ip route replace`` per pair matters: a second replace would drop the first's metrics.
"""
from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from harness.errors import HarnessError

if TYPE_CHECKING:
    from harness.kernel.netns import Node
    from harness.net import Network
    from policies import NodePair

#: Order in which metrics are written (iproute2 accepts any; a fixed order keeps logs stable).
METRIC_ORDER = ("cwnd", "window", "quickack", "advmss")


def parse_route_get(text: str) -> Tuple[Optional[str], str]:
    """``ip -o route get D`` -> (gateway or None, device)."""
    words = text.split()
    via = words[words.index("via") + 1] if "via" in words else None
    if "dev" not in words:
        raise HarnessError(f"ip route get printed no device: {text.strip()!r}")
    return via, words[words.index("dev") + 1]


def metric_args(metrics: Dict[str, str]) -> List[str]:
    """``{'cwnd': 'lock 2', 'quickack': '1'}`` -> ``['cwnd', 'lock', '2', 'quickack', '1']``."""
    unknown = set(metrics) - set(METRIC_ORDER)
    if unknown:
        raise HarnessError(f"route metric(s) {sorted(unknown)} unknown: allowed "
                           + ", ".join(METRIC_ORDER))
    out: List[str] = []
    for key in METRIC_ORDER:
        if key in metrics:
            out += [key, *str(metrics[key]).split()]
    return out


def route_replace_args(dst_ip: str, via: Optional[str], dev: str,
                       metrics: Dict[str, str]) -> List[str]:
    """The ``ip route replace`` command for one host route with its metrics (pure)."""
    args = ["ip", "route", "replace", f"{dst_ip}/32"]
    if via:
        args += ["via", via]
    return args + ["dev", dev] + metric_args(metrics)


def node_ip(net: Network, name: str, what: str) -> str:
    """The node's first IPv4 address; a node without one cannot be ``what`` (the error says)."""
    ip = net[name].ip
    if ip is None:
        raise HarnessError(f"{what}: node {name} has no IP address")
    return ip


def install(net: Network, route_metrics: Dict[NodePair, Dict[str, str]]) -> List[str]:
    """Install every requested host route; returns the commands (stored with the run)."""
    done: List[str] = []
    for (node_name, peer_name), metrics in route_metrics.items():
        node = net[node_name]
        peer_ip = node_ip(net, peer_name, f"route metrics on {node_name}")
        got = node.cmd(["ip", "-o", "route", "get", peer_ip]).stdout
        via, dev = parse_route_get(got)
        args = route_replace_args(peer_ip, via, dev, metrics)
        node.cmd(args)
        done.append(f"{node_name}: {shlex.join(args)}")
    return done


def show(node: Node, peer_ip: str) -> str:
    """The node's route to ``peer_ip`` as ``ip route`` lists it (to record what is in force)."""
    return node.cmd(["ip", "route", "show", f"{peer_ip}/32"], check=False).stdout.strip()
