"""MANET routing on a running network: the stations that run a protocol, what each node's
routing says now (destination node -> next-hop node), the wait for convergence, and the
route log of a run.

``Topology.set_routing`` picks the protocol. ``batman-adv`` and ``babel`` stations are node
classes of their own (below); ``hwmp`` stations are mesh points that peer as they meet
(``harness.net.nodes.MeshPoint``). Tables are read with the protocol's own tool (``batctl``,
``ip route``, ``iw mpath``: one process per node and reading) and mapped to node names, so a
route log reads the same whatever the protocol: ``{"t", "node", "dst", "via"}``, ``via`` None
when the route is gone, ``t`` seconds since the log began (the flows' start, which is also
when nodes start moving: one time axis with the trajectories).
"""
from __future__ import annotations

import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Tuple

from harness.errors import HarnessError
from harness.kernel import mesh, netns
from harness.kernel import routing as proto
from harness.net.nodes import Radio, Station, register_node_class

if TYPE_CHECKING:
    from harness.net.network import Network

#: A node's routes: destination node -> next-hop node.
Table = Dict[str, str]
#: How long the routes a run needs may take to appear (guest seconds): babel's first
#: updates follow its hellos (every 4 s), batman-adv's originator messages flood each second.
CONVERGE_TIMEOUT = 60.0
#: Seconds between readings of every node's table for the route log.
LOG_INTERVAL = 1.0


def batman_mac(radio_mac: str) -> str:
    """``bat0``'s MAC: the radio's with the first octet 06 (still locally administered
    unicast), fixed so reruns are identical."""
    return "06" + radio_mac[2:]


@register_node_class
class BatmanStation(Station):
    """An IBSS station whose radio is a port of batman-adv's ``bat0``, which holds the
    address and routes at layer 2 (``harness.kernel.routing``)."""

    kind = "batman_station"

    def setup_lines(self, net: Network) -> List[str]:
        return [line for r in self.radios for line in proto.batman_setup_lines(r.intf, batman_mac(r.mac))]

    def address_lines(self, radio: Radio) -> List[str]:
        assert self.station.ip is not None  # add_station assigns one
        return proto.batman_join_lines(self.station.ip)


@register_node_class
class BabelStation(Station):
    """An IBSS station running babeld on its radio (started once every node has joined)."""

    kind = "babel_station"

    def connect(self, net: Network) -> None:
        assert self.station.ip is not None
        self.run_dir: Optional[Path] = proto.babel_dir(self.run_tag, self.name)
        radio = self.radios[0]
        self.popen(proto.babeld_args(self.run_dir, radio.intf, self.station.ip, radio.mac),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(self, net: Network) -> None:
        try:
            super().stop(net)
        finally:
            if getattr(self, "run_dir", None) is not None:
                shutil.rmtree(self.run_dir, ignore_errors=True)  # type: ignore[arg-type]
                self.run_dir = None


# -- reading the tables ---------------------------------------------------------------------
def _names(net: Network) -> Dict[str, str]:
    """MACs (radios, bat0) and IPs -> node names."""
    out = {}
    for r in net.radios:
        out[r.mac.lower()] = out[batman_mac(r.mac.lower())] = r.node
    for name in net.topo.node_names():
        for addr in net.topo.addresses(name):
            out[addr.split("/")[0]] = name
    return out


def table(net: Network, name: str) -> Table:
    """What node ``name``'s routing says now: destination node -> next-hop node."""
    node, routing, names = net[name], net.topo.routing, _names(net)
    if routing == "batman-adv":
        raw: Dict[str, Optional[str]] = dict(proto.parse_originators(node.cmd(
            ["batctl", "meshif", proto.BATMAN_IF, "originators", "-H"], check=False).stdout))
    elif routing == "babel":
        raw = proto.parse_ip_routes(node.cmd(["ip", "-j", "route", "show"], check=False).stdout)
    elif routing == "hwmp":
        raw = {p.destination.lower(): p.next_hop.lower() for r in net.radios if r.node == name
               for p in mesh.read_paths(node, r.intf) if p.active}
    else:
        raw = {dst: via for dst, via in (net.topo.resolve_route(r) for r in net.topo.routes
                                         if r.node == name)}
    out: Table = {}
    for dst, via in raw.items():
        if dst in names and names[dst] != name:
            out[names[dst]] = names.get(via or dst, via or dst)
    return out


def tables(net: Network, names: Optional[Iterable[str]] = None) -> Dict[str, Table]:
    """Every node's table (or those of ``names``), read concurrently."""
    wanted = list(names if names is not None else _routed(net))
    out: Dict[str, Table] = {}

    def read(name: str) -> None:
        out[name] = table(net, name)
    netns.each(read, wanted)
    return {name: out[name] for name in wanted}


def _routed(net: Network) -> List[str]:
    return [n for n in net.topo.node_names() if n in net.topo.stations]


# -- convergence ----------------------------------------------------------------------------
def converge(net: Network, pairs: Iterable[Tuple[str, str]], *,
             timeout: float = CONVERGE_TIMEOUT) -> Dict[str, Any]:
    """Wait until each ``(src, dst)`` has a route both ways, at most ``timeout`` guest
    seconds. HWMP is reactive: a ping per pair makes it find the path; under batman-adv a
    pair counts once a ping crosses (``_answers``). Returns what to
    record: the seconds it took and the pairs still without a route (a network split by
    the geometry is not an error: the run goes on and the record says so)."""
    want = sorted({p for a, b in pairs if a != b for p in ((a, b), (b, a))})
    start = time.monotonic()
    missing = want
    while True:
        if net.topo.routing == "hwmp":  # one pair at a time: two ends' path requests sent
            for a, b in sorted({tuple(sorted(p)) for p in missing}):  # at once may collide
                _answers(net, a, b)
        now = tables(net, sorted({a for a, _ in missing}))
        missing = [(a, b) for a, b in missing if b not in now[a]
                   or (net.topo.routing == "batman-adv" and not _answers(net, a, b))]
        if not missing or time.monotonic() - start > timeout:
            break
        time.sleep(1.0)
    return {"protocol": net.topo.routing, "converged_s": round(time.monotonic() - start, 3),
            "without_route": [f"{a}->{b}" for a, b in missing]}


def _answers(net: Network, a: str, b: str) -> bool:
    """Whether ``b`` answers a ping from ``a``. batman-adv's originator table can name a
    next hop before the translation tables (which node owns which bat0 address) have
    spread, and until then no IP packet crosses: a ping of 3 right after the originator
    routes appeared got no answer."""
    return net[a].cmd(["ping", "-c", "1", "-W", "1", _ip(net, b)], check=False).returncode == 0


def _ip(net: Network, name: str) -> str:
    ip = net.topo.primary_ip(name)
    if ip is None:
        raise HarnessError(f"node {name!r} has no address to route to")
    return ip.split("/")[0]


# -- the route log --------------------------------------------------------------------------
class RouteLog:
    """Reads every routed node's table each ``interval`` s from a thread and keeps the
    changes; ``stop()`` reads once more and returns them (``{"t", "node", "dst", "via"}``,
    time-ordered)."""

    def __init__(self, net: Network, interval: float = LOG_INTERVAL):
        self.net, self.interval = net, interval
        self.entries: List[Dict[str, Any]] = []
        self.error: Optional[BaseException] = None
        self._last: Dict[str, Table] = {}
        self._stop = threading.Event()
        self.t0 = time.monotonic()
        self._thread = threading.Thread(target=self._loop, daemon=True, name="route-log")
        self._thread.start()

    def _loop(self) -> None:
        try:
            while True:
                last = self._stop.is_set()  # one reading after stop(): up to that moment
                t = round(time.monotonic() - self.t0, 3)
                self.entries += changes(self._last, (now := tables(self.net)), t)
                self._last = now
                if last:
                    return
                self._stop.wait(self.interval)
        except BaseException as err:  # reported by stop()
            self.error = err

    def stop(self) -> List[Dict[str, Any]]:
        self._stop.set()
        self._thread.join()
        if self.error is not None:
            raise HarnessError(f"reading the routes failed: {self.error}")
        return self.entries


def changes(before: Dict[str, Table], after: Dict[str, Table], t: float) -> List[Dict[str, Any]]:
    """The log entries between two readings: a new or changed next hop, or a route gone."""
    out = []
    for node in sorted(after):
        old, new = before.get(node, {}), after[node]
        for dst in sorted(set(old) | set(new)):
            if old.get(dst) != new.get(dst):
                out.append({"t": t, "node": node, "dst": dst, "via": new.get(dst)})
    return out
