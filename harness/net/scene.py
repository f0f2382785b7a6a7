"""A topology as a picture sees it: positions, ranges, links, routes, walls (pure data).

``scene_of(topo, medium)`` describes what ``harness.analysis.topology_figure`` draws, from the
description alone (no root, no kernel): every node where it stands, each radio's transmission
and carrier-sense range, the links (declared wireless neighbours, veths, or, where nothing is
declared, every pair within transmission range), the paths the static routes give, and walls.
What a running network adds (the medium's delivery ratio per link, the routes in force, a
node moved) is laid over it with ``with_counters``, ``with_routes`` and ``with_position``.

A scene is plain data (``to_dict`` / ``from_dict``): the prompt in the VM hands it to the host,
which draws it (the guest has no matplotlib).
"""
from __future__ import annotations

import ipaddress
import itertools
import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from harness.kernel import wireless
from harness.medium import propagation
from harness.medium.spec import MediumSpec, spec_of
from harness.net import coverage
from harness.net.topo import L2_KINDS, Topology

#: Longest path a route walk follows before it calls the routes a loop.
MAX_PATH = 64


@dataclass
class SceneNode:
    name: str
    kind: str                        # station, mesh_point, host, ...
    x: float
    y: float
    ip: Optional[str] = None
    tx_range: Optional[float] = None  # metres; None: not known (no circle drawn)
    cs_range: Optional[float] = None
    placed: bool = False             # True: a wired node without a position, placed for drawing


@dataclass
class SceneLink:
    a: str
    b: str
    kind: str                        # wireless | in_range | veth | association
    #: frames delivered / attempted, per direction ("a>b", "b>a"), from the medium's counters
    delivery: Dict[str, float] = field(default_factory=dict)
    attempts: Dict[str, int] = field(default_factory=dict)

    @property
    def worst_delivery(self) -> Optional[float]:
        """The lower delivery ratio of the two directions that carried frames; None if
        neither did."""
        return min(self.delivery.values()) if self.delivery else None


@dataclass
class Scene:
    name: str
    nodes: List[SceneNode] = field(default_factory=list)
    links: List[SceneLink] = field(default_factory=list)
    routes: List[List[str]] = field(default_factory=list)    # node paths, source first
    walls: List[Tuple[float, float, float, float]] = field(default_factory=list)
    note: str = ""

    def node(self, name: str) -> SceneNode:
        for node in self.nodes:
            if node.name == name:
                return node
        raise KeyError(name)

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Scene:
        return cls(name=data["name"], nodes=[SceneNode(**n) for n in data.get("nodes", [])],
                   links=[SceneLink(**l) for l in data.get("links", [])],
                   routes=[list(r) for r in data.get("routes", [])],
                   walls=[(w[0], w[1], w[2], w[3]) for w in data.get("walls", [])],
                   note=data.get("note", ""))


def _distance(a: SceneNode, b: SceneNode) -> float:
    return math.hypot(a.x - b.x, a.y - b.y)


def _positions(topo: Topology) -> Dict[str, Tuple[float, float]]:
    """Every node that has a position (stations and access points)."""
    return {name: (float(spec.position[0]), float(spec.position[1]))
            for group in (topo.stations, topo.access_points) for name, spec in group.items()}


def _place_wired(topo: Topology, known: Dict[str, Tuple[float, float]]) -> Dict[str, Tuple[float, float]]:
    """Positions for nodes without one (hosts, switches): below a node they link to (nearest
    the radios first), else in a row under the others, so the picture shows them without
    inventing physics."""
    xs = [p[0] for p in known.values()] or [0.0]
    ys = [p[1] for p in known.values()] or [0.0]
    step = max(max(xs) - min(xs), max(ys) - min(ys), 100.0) / 6
    placed: Dict[str, Tuple[float, float]] = {}
    todo = [n for n in topo.node_names() if n not in known]
    while todo:
        done = {**known, **placed}
        name, anchor = next(((n, done[p]) for n in todo for p in topo.neighbours(n) if p in done),
                            (todo[0], None))
        if anchor is None:  # nothing linked to a placed node: a row under everything
            placed[name] = (min(xs) + step * len(placed), min(ys) - 3 * step)
        else:
            x, y = anchor[0], anchor[1] - step
            while (x, y) in done.values():
                x += step
            placed[name] = (x, y)
        todo.remove(name)
    return placed


#: Farthest range the picture solves for (metres): beyond it a radio reaches "everything".
MAX_RANGE = 1e6


def _distance_at(spec: MediumSpec, freq: float, budget_db: float, height: float) -> float:
    """The distance at which the model's path loss (no walls) reaches ``budget_db``."""
    lo, hi = propagation.MIN_DIST, MAX_RANGE
    if propagation.loss_at_distance_db(spec, freq, hi, height, height) < budget_db:
        return hi
    for _ in range(80):  # bisection: loss grows with distance
        mid = (lo * hi) ** 0.5
        below = propagation.loss_at_distance_db(spec, freq, mid, height, height) < budget_db
        lo, hi = (mid, hi) if below else (lo, mid)
    return lo


def ranges(spec: Optional[MediumSpec], radio: Any = None) -> Tuple[Optional[float], Optional[float]]:
    """(transmission, carrier-sense) range in metres of a radio (its spec: channel, power,
    position) as the medium sets its thresholds: the settings' ranges where given, else the
    distance where a like radio's mean power falls to the threshold (rx sensitivity -90 dBm,
    carrier sense at the same power unless ``cs_threshold``), walls left out."""
    if spec is None:
        return None, None
    tx, cs = spec.tx_range, spec.cs_range
    if radio is not None and (tx is None or cs is None):
        freq = float(wireless.channel_freq(radio.channel))
        power = propagation.TXPOWER_DBM if radio.txpower_dbm is None else radio.txpower_dbm
        height = float(radio.position[2])
        if tx is None:
            sens = propagation.rx_sensitivity_dbm(spec, freq, radio.txpower_dbm, height)
            tx = _distance_at(spec, freq, power - sens, height)
        if cs is None:
            cs = (_distance_at(spec, freq, power - spec.cs_threshold, height)
                  if spec.cs_threshold is not None else tx)
    return tx, cs if cs is not None else tx


def scene_of(topo: Topology, medium: Any = None) -> Scene:
    """The scene of a topology description; ``medium`` as ``Network(medium=...)`` takes it
    (None: the default medium; ``'none'``: plain hwsim, no ranges)."""
    spec = coverage.medium_for(topo, spec_of(medium))  # the topology's walls join the medium's
    positioned = _positions(topo)
    placed = _place_wired(topo, positioned)
    nodes = []
    for name in topo.node_names():
        x, y = positioned.get(name) or placed[name]
        tx, cs = ranges(spec, topo.spec(name)) if name in positioned else (None, None)
        nodes.append(SceneNode(name, topo.node_kind(name), x, y, topo.primary_ip(name),
                               tx, cs, placed=name in placed))
    scene = Scene(topo.name, nodes)
    scene.links = [SceneLink(link.a, link.b, link.kind) for link in topo.links]
    if not any(l.kind == "wireless" for l in topo.links):
        scene.links += [l for l in _in_range(nodes)
                        if not any({l.a, l.b} == {k.a, k.b} for k in scene.links)]
    scene.walls = [(w.x1, w.y1, w.x2, w.y2) for w in (spec.walls if spec is not None else [])]
    if spec is not None and scene.walls:
        scene.note = "ranges drawn as in open space: a wall shortens them"
    return scene


def _in_range(nodes: Sequence[SceneNode]) -> List[SceneLink]:
    """Pairs of radios within transmission range of each other (both ways)."""
    radios = [n for n in nodes if n.tx_range]
    return [SceneLink(a.name, b.name, "in_range") for a, b in itertools.combinations(radios, 2)
            if _distance(a, b) <= min(a.tx_range or 0.0, b.tx_range or 0.0)]


# -- routes from the description ---------------------------------------------------------
def _node_of_ip(topo: Topology, ip: str) -> Optional[str]:
    return next((name for name in topo.node_names()
                 if any(a.split("/")[0] == ip for a in topo.addresses(name))), None)


def next_hop(topo: Topology, node: str, dst: str) -> Optional[str]:
    """The node a packet from ``node`` to node ``dst`` goes to next by the topology's static
    routes (longest prefix), or ``dst`` itself when they share a subnet; None: no route."""
    dst_ip = topo.primary_ip(dst)
    if dst_ip is None:
        return None
    target = ipaddress.ip_address(dst_ip)
    routes = [topo.resolve_route(r) for r in topo.routes if r.node == node]
    matches = [(ipaddress.ip_network(n).prefixlen, via) for n, via in routes
               if target in ipaddress.ip_network(n)]
    if matches:  # the longest prefix; the first route of equals
        return _node_of_ip(topo, max(matches, key=lambda m: m[0])[1])
    mine = [ipaddress.ip_interface(a).network for a in topo.addresses(node)]
    return dst if any(target in n for n in mine) else None


def path_of(hop: Any, src: str, dst: str) -> Optional[List[str]]:
    """Follow ``hop(node, dst) -> next node`` from ``src``; None if it breaks or loops."""
    path = [src]
    while path[-1] != dst:
        nxt = hop(path[-1], dst)
        if nxt is None or nxt in path or len(path) > MAX_PATH:
            return None
        path.append(nxt)
    return path


def static_path(topo: Topology, src: str, dst: str) -> Optional[List[str]]:
    """The path of the topology's static routes from ``src`` to ``dst`` (IBSS chains, through
    the switches and access points of a LAN); None for 802.11s mesh points, whose paths HWMP
    finds at run time."""
    if src in topo.stations and topo.stations[src].mode == "mesh":
        return None
    path = path_of(lambda node, d: next_hop(topo, node, d), src, dst)
    return through_bridges(topo, path) if path else None


BRIDGES = L2_KINDS  # switches and access points: an IP hop across them crosses them


def through_bridges(topo: Topology, path: Sequence[str]) -> List[str]:
    """``path`` with each IP hop between two nodes that share no link replaced by the
    shortest way over the topology's links through switches and access points (``server ->
    client`` on a LAN is ``server, sw1, ap1, client``); a hop with no such way stays as it is."""
    out = [path[0]] if path else []
    for a, b in zip(path, path[1:]):
        out += _bridged(topo, a, b)[1:]
    return out


def _bridged(topo: Topology, a: str, b: str) -> List[str]:
    before: Dict[str, str] = {a: a}
    queue = [a]
    for node in queue:  # breadth first: the queue grows behind the loop
        for other in topo.neighbours(node):
            if other in before:
                continue
            before[other] = node
            if other == b:
                way = [b]
                while way[-1] != a:
                    way.append(before[way[-1]])
                return way[::-1]
            if topo.node_kind(other) in BRIDGES:
                queue.append(other)
    return [a, b]


# -- what a running network adds -----------------------------------------------------------
def with_counters(scene: Scene, stats: Optional[Mapping[str, Any]]) -> Scene:
    """The scene with each link's delivery ratio (successes / attempts per direction) from the
    medium's counters (``MediumHandle.stats()`` or a record's ``medium.counters``); links
    that carried frames but are not drawn yet are added as ``in_range``."""
    out = replace(scene, links=[replace(l, delivery={}, attempts={}) for l in scene.links])
    names = {n.name for n in out.nodes}
    by_pair = {frozenset((l.a, l.b)): l for l in out.links}
    for row in (stats or {}).get("links", []):
        tx, rx = row.get("tx_node"), row.get("rx_node")
        attempts = int(row.get("attempts") or 0)
        if tx not in names or rx not in names or not attempts:
            continue
        link = by_pair.get(frozenset((tx, rx)))
        if link is None:
            link = by_pair[frozenset((tx, rx))] = SceneLink(tx, rx, "in_range")
            out.links.append(link)
        key = f"{tx}>{rx}"
        link.attempts[key] = attempts
        link.delivery[key] = int(row.get("successes") or 0) / attempts
    return out


def with_routes(scene: Scene, paths: Iterable[Optional[Sequence[str]]]) -> Scene:
    """The scene with these paths (source first; None: no path) as routes, duplicates dropped."""
    return replace(scene, routes=[list(p) for p in dict.fromkeys(tuple(p) for p in paths if p)])


def with_position(scene: Scene, name: str, x: float, y: float) -> Scene:
    """The scene with one node moved (``move`` at the prompt)."""
    return with_positions(scene, {name: (x, y)})


def with_positions(scene: Scene, where: Mapping[str, Sequence[float]]) -> Scene:
    """The scene with nodes moved to ``where`` (name -> x, y; moving nodes at a time); pairs
    in range are redrawn where the scene drew them (no wireless links declared)."""
    if not where:
        return scene
    nodes = [replace(n, x=float(where[n.name][0]), y=float(where[n.name][1]))
             if n.name in where else n for n in scene.nodes]
    links = list(scene.links)
    if not any(l.kind == "wireless" for l in links):
        links = [l for l in links if l.kind != "in_range"] + _in_range(nodes)
    return replace(scene, nodes=nodes, links=links)


def link_distance(scene: Scene, link: SceneLink) -> float:
    return _distance(scene.node(link.a), scene.node(link.b))
