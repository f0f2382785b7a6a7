"""A campus mesh: routers inside buildings with walls and floors, routed as a testbed is.

The place is data (``topologies/purdue_map.yaml`` by default, or any file of the same form,
docs/campus.md): buildings with their floors and walls, the routers' positions and antenna
heights, the radio every router carries, and the parameters of the medium's indoor propagation
model (log-distance, a loss per wall crossed, per floor crossed, static shadowing with a seed
of its own, per-frame fading). The builder turns it into one 802.11 IBSS station per router
(``r<ID>``, address 10.0.0.<ID>; flows may name a router by its number) and the medium
settings the place implies (``Topology.medium``).

Routes are static, as on a testbed whose routing daemon was stopped once its routes settled:
- ``routing: etx``: an ETX snapshot from the medium's own link table (``harness.medium.link_table``):
  ETX = 1 / (df x dr) from the delivery ratios of probe frames in both directions, shortest ETX
  paths between every pair, frozen as static routes (what OLSR with ETX converges to);
- ``routing: pinned``: one path (``path: "1-23-16"``), routed hop by hop in both directions
  between every pair of its routers; every hop must be a link.
``nodes: path`` starts only the path's routers: the others would only listen (no routing
traffic), and static shadowing is keyed by router names, so the links stay the same.
``outside`` adds a neighbouring pair of routers off the path, linked one hop, RTS/CTS off
whatever ``rts`` says (a network of its own, on the same channel): flows name them
``outside1`` and ``outside2``; ``first`` and ``last`` stay the pinned path's ends. ``auto``
picks the pair by a rule (``outside_pair``), so a sweep over paths gets each path's own
neighbour without hand-picking.
"""
from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import yaml

from harness.errors import HarnessError
from harness.kernel import naming, wireless
from harness.medium.link_table import DATA_FRAME_BYTES, LinkTable, link_table
from harness.medium.spec import RATE_LOSS_DB, MediumSpec
from harness.net.topo import Topology
from harness.params import Builder, ParamSpec, SchemaError

HERE = Path(__file__).resolve().parent
#: Campus files by name (``topology.campus``); any other value is a path to a YAML file.
CAMPUSES = {"purdue-map": HERE / "purdue_map.yaml"}
DEFAULT_CAMPUS = "purdue-map"
ROUTINGS = ("etx", "pinned")
NODE_SETS = ("all", "path")
RATES_B = (1, 2, 5.5, 11)
#: The frames the ETX snapshot rates links by: full-size data frames at ``etx_rate``, what the
#: flows send (OLSR's own probes were small broadcasts at 1 Mbit/s, which rate long hops
#: better: ``studies.p000_campus.map_population`` compares the two snapshots, docs/campus.md).
ETX_PROBE_BYTES = DATA_FRAME_BYTES
#: A link is usable for routing (and a hop of a pinned path) when df x dr >= this (ETX <= 10).
MIN_LINK_QUALITY = 0.1
#: The medium's default capture threshold (dB, docs/medium.md): an overlapping frame within
#: this of the wanted one's power destroys it.
CAPTURE_DB = 10.0
#: Names flows give the ``outside`` pair (sender, receiver of its traffic).
OUTSIDE_ALIASES = ("outside1", "outside2")

TOP_KEYS = ("name", "description", "floor_height", "radio", "propagation", "wall_loss",
            "buildings", "routers", "paths")
RADIO_KEYS = ("phy", "channel", "txpower_dbm", "antenna_gain_dbi", "retry_limit")
PROPAGATION_KEYS = ("exponent", "ref_loss", "floor_loss", "shadowing", "shadowing_seed",
                    "fading", "fading_sigma", "rx_sensitivity", "cs_threshold", "noise_figure")
BUILDING_KEYS = ("name", "outline", "floors", "walls")


# -- the place ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Building:
    name: str
    outline: Tuple[float, float, float, float]   # x0, y0, x1, y1 (metres)
    floors: int

    def contains(self, x: float, y: float) -> bool:
        x0, y0, x1, y1 = self.outline
        return x0 <= x <= x1 and y0 <= y <= y1


@dataclass(frozen=True)
class Wall:
    x1: float
    y1: float
    x2: float
    y2: float
    kind: str
    loss_db: float
    building: str


@dataclass(frozen=True)
class Router:
    id: int
    building: str
    floor: int
    x: float
    y: float
    height: float                  # antenna above its floor (metres)

    @property
    def name(self) -> str:
        return router_name(self.id)


@dataclass
class Campus:
    """A campus file, validated: everything the builder and the floor plan need."""

    name: str
    source: str
    description: str
    floor_height: float
    radio: Dict[str, Any]
    propagation: Dict[str, Any]
    wall_loss: Dict[str, float]
    buildings: Dict[str, Building]
    walls: List[Wall]
    routers: Dict[int, Router]
    paths: List[List[int]] = field(default_factory=list)

    def position(self, rid: int) -> Tuple[float, float, float]:
        r = self.routers[rid]
        return (r.x, r.y, r.floor * self.floor_height + r.height)

    def medium(self, shadowing_seed: Optional[int] = None) -> Dict[str, Any]:
        """Medium settings of this place (``MediumSpec`` keys; plain data for records)."""
        prop = dict(self.propagation)
        if shadowing_seed is not None:
            prop["shadowing_seed"] = shadowing_seed
        out: Dict[str, Any] = {"propagation": "indoor", "floor_height": self.floor_height,
                               "walls": [[w.x1, w.y1, w.x2, w.y2, w.loss_db] for w in self.walls]}
        out.update({k: v for k, v in prop.items() if v is not None})
        return out


def with_fading(campus: Campus, fading_sigma: Optional[float]) -> Campus:
    """The campus with per-frame log-normal fading of ``fading_sigma`` dB (None: as filed)."""
    if fading_sigma is None:
        return campus
    prop = {**campus.propagation, "fading": "lognormal", "fading_sigma": float(fading_sigma)}
    return replace(campus, propagation=prop)


def with_sensitivity(campus: Campus, rx_sensitivity: Optional[float]) -> Campus:
    """The campus with radios that lock onto a frame, and sense the medium busy, only from
    ``rx_sensitivity`` dBm on (None: as filed). A reading of real receivers, whose detection
    sits above the noise floor the file assumes: fewer routers hear each other, so more hidden
    pairs; routes and link checks follow it."""
    if rx_sensitivity is None:
        return campus
    prop = {**campus.propagation, "rx_sensitivity": float(rx_sensitivity), "cs_threshold": None}
    return replace(campus, propagation=prop)


def with_rate_loss(campus: Campus, rate_loss: Optional[Mapping[Any, float]]) -> Campus:
    """The campus with receivers that lose ``rate_loss`` dB per rate (Mbit/s) against the
    medium's ideal error formulas (``medium.rate_loss``, docs/medium.md; None: as filed)."""
    if not rate_loss:
        return campus
    loss = {float(rate): float(db) for rate, db in rate_loss.items()}
    return replace(campus, propagation={**campus.propagation, "rate_loss": loss})


def router_name(rid: int) -> str:
    return f"r{rid}"


def campus_path(campus: str) -> Path:
    """The file ``topology.campus`` names: a known campus or a path to a YAML file."""
    if campus in CAMPUSES:
        return CAMPUSES[campus]
    path = Path(campus).expanduser()
    if path.suffix not in (".yaml", ".yml") or not path.is_file():
        raise SchemaError("topology.campus", f"{campus!r} is neither a known campus "
                                             f"({', '.join(CAMPUSES)}) nor a campus file "
                                             "(.yaml) that exists")
    return path


_CAMPUS_MEMO: Dict[Tuple[str, float], Campus] = {}


def load_campus(campus: str = DEFAULT_CAMPUS) -> Campus:
    """Read and check a campus file; errors name the file and the key."""
    path = campus_path(campus)
    key = (str(path.resolve()), path.stat().st_mtime)
    if key not in _CAMPUS_MEMO:
        try:
            data = yaml.safe_load(path.read_text())
        except yaml.YAMLError as err:
            raise HarnessError(f"{path}: not valid YAML: {err}") from None
        _CAMPUS_MEMO[key] = _parse_campus(data, str(path))
    return _CAMPUS_MEMO[key]


def _bad(where: str, key: str, problem: str) -> HarnessError:
    return HarnessError(f"{where}: {key}: {problem}")


def _num(value: Any, where: str, key: str, lo: Optional[float] = None,
         hi: Optional[float] = None) -> float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or (lo is not None and value < lo) or (hi is not None and value > hi):
        span = f" in [{lo if lo is not None else '-inf'}, {hi if hi is not None else 'inf'}]"
        raise _bad(where, key, f"{value!r} is not a number{span}")
    return float(value)


#: The radio settings a campus file may give, checked by the kernel's rules for them.
RADIO_RULES = {"channel": wireless.CHANNEL, "txpower_dbm": wireless.TXPOWER_DBM,
               "antenna_gain_dbi": wireless.ANTENNA_GAIN_DBI, "retry_limit": wireless.RETRY_LIMIT}


def _radio_value(rule: ParamSpec, value: Any, where: str) -> Any:
    try:
        return rule.check(value, f"radio.{rule.name}")
    except SchemaError as err:
        raise _bad(where, err.path, err.problem) from None


def _mapping(value: Any, allowed: Sequence[str], where: str, key: str) -> Dict[str, Any]:
    if not isinstance(value, dict):
        raise _bad(where, key, f"expected a mapping with keys {', '.join(allowed)}")
    unknown = [k for k in value if k not in allowed]
    if unknown:
        raise _bad(where, f"{key}.{unknown[0]}", f"unknown key; allowed: {', '.join(allowed)}")
    return dict(value)


def _parse_campus(data: Any, where: str) -> Campus:
    data = _mapping(data, TOP_KEYS, where, "(top level)")
    for key in ("floor_height", "radio", "propagation", "wall_loss", "buildings", "routers"):
        if key not in data:
            raise _bad(where, key, "missing (required)")
    floor_height = _num(data["floor_height"], where, "floor_height", 1.0, 20.0)
    radio = _mapping(data["radio"], RADIO_KEYS, where, "radio")
    if radio.get("phy", "b") != "b":
        raise _bad(where, "radio.phy", f"{radio['phy']!r}: only b (802.11b) is supported")
    defaults = {"channel": 1, "txpower_dbm": 18, "antenna_gain_dbi": 0, "retry_limit": 7}
    radio = {"phy": "b", **{key: _radio_value(rule, radio.get(key, defaults[key]), where)
                            for key, rule in RADIO_RULES.items()}}
    prop = _mapping(data["propagation"], PROPAGATION_KEYS, where, "propagation")
    try:  # the medium's own rules for its keys
        MediumSpec.from_dict({"propagation": "indoor", **prop}, where=f"{where}: propagation")
    except HarnessError as err:
        raise HarnessError(str(err)) from None
    wall_loss = {str(k): _num(v, where, f"wall_loss.{k}", 0, 100)
                 for k, v in _mapping(data["wall_loss"], list(data["wall_loss"] or {}),
                                      where, "wall_loss").items()}
    if "exterior" not in wall_loss:
        raise _bad(where, "wall_loss.exterior", "missing: the loss of a building's outer wall")
    buildings: Dict[str, Building] = {}
    walls: List[Wall] = []
    if not isinstance(data["buildings"], list) or not data["buildings"]:
        raise _bad(where, "buildings", "expected a non-empty list of buildings")
    for i, raw in enumerate(data["buildings"]):
        at = f"buildings[{i}]"
        b = _mapping(raw, BUILDING_KEYS, where, at)
        name = b.get("name")
        if not isinstance(name, str) or not name or name in buildings:
            raise _bad(where, f"{at}.name", f"{name!r}: expected a unique name")
        outline = b.get("outline")
        if not isinstance(outline, list) or len(outline) != 4:
            raise _bad(where, f"{at}.outline", "expected [x0, y0, x1, y1] (metres)")
        x0, y0, x1, y1 = (_num(v, where, f"{at}.outline", -1e5, 1e5) for v in outline)
        if not (x0 < x1 and y0 < y1):
            raise _bad(where, f"{at}.outline", "expected x0 < x1 and y0 < y1")
        floors = int(_num(b.get("floors", 1), where, f"{at}.floors", 1, 50))
        buildings[name] = Building(name, (x0, y0, x1, y1), floors)
        ext = wall_loss["exterior"]
        for seg in ((x0, y0, x1, y0), (x1, y0, x1, y1), (x1, y1, x0, y1), (x0, y1, x0, y0)):
            walls.append(Wall(*seg, "exterior", ext, name))
        for j, w in enumerate(b.get("walls") or []):
            wat = f"{at}.walls[{j}]"
            if not isinstance(w, list) or len(w) != 5 or w[4] not in wall_loss:
                raise _bad(where, wat, f"expected [x1, y1, x2, y2, type] with type one of "
                                       f"{', '.join(wall_loss)}")
            xs = [_num(v, where, wat, -1e5, 1e5) for v in w[:4]]
            for px, py in ((xs[0], xs[1]), (xs[2], xs[3])):
                if not buildings[name].contains(px, py):
                    raise _bad(where, wat, f"end ({px:g}, {py:g}) lies outside building {name}")
            walls.append(Wall(xs[0], xs[1], xs[2], xs[3], w[4], wall_loss[w[4]], name))
    routers = _parse_routers(data["routers"], buildings, where)
    paths = []
    for i, p in enumerate(data.get("paths") or []):
        if not isinstance(p, list) or len(p) < 2 or any(r not in routers for r in p):
            raise _bad(where, f"paths[{i}]", f"{p!r}: expected a list of 2 or more router ids "
                                             "of this campus")
        paths.append([int(r) for r in p])
    desc = data.get("description", "")
    return Campus(str(data.get("name") or Path(where).stem), where,
                  desc if isinstance(desc, str) else "", floor_height, radio, prop,
                  wall_loss, buildings, walls, routers, paths)


def _parse_routers(raw: Any, buildings: Mapping[str, Building], where: str) -> Dict[int, Router]:
    if not isinstance(raw, dict) or not raw:
        raise _bad(where, "routers", "expected a mapping  ID: [building, floor, x, y, height]")
    routers: Dict[int, Router] = {}
    for rid, spec in raw.items():
        at = f"routers.{rid}"
        if isinstance(rid, bool) or not isinstance(rid, int) or not 1 <= rid <= 254:
            raise _bad(where, at, "router ids are integers 1..254 (the last byte of the address)")
        if not isinstance(spec, list) or len(spec) != 5 or spec[0] not in buildings:
            raise _bad(where, at, "expected [building, floor, x, y, antenna height], building "
                                  f"one of {', '.join(buildings)}")
        b = buildings[spec[0]]
        floor = int(_num(spec[1], where, f"{at} floor", 0, b.floors - 1))
        x, y = _num(spec[2], where, f"{at} x"), _num(spec[3], where, f"{at} y")
        if not b.contains(x, y):
            raise _bad(where, at, f"({x:g}, {y:g}) lies outside building {b.name} "
                                  f"{list(b.outline)}")
        height = _num(spec[4], where, f"{at} height", 0.1, 20)
        routers[rid] = Router(rid, b.name, floor, x, y, height)
    return dict(sorted(routers.items()))


# -- links and routes --------------------------------------------------------------------
def radio_rows(campus: Campus, ids: Sequence[int]) -> List[Dict[str, Any]]:
    """The medium's radio rows of these routers (as ``Network.radio_table()`` gives them)."""
    rows = []
    for i, rid in enumerate(ids):
        rows.append({"node": router_name(rid), "index": 0, "mac": naming.radio_mac(i, 0),
                     "position": campus.position(rid), "phy_mode": "b",
                     "freq": 2407 + 5 * campus.radio["channel"],
                     "txpower_dbm": campus.radio["txpower_dbm"],
                     "antenna_gain_dbi": campus.radio["antenna_gain_dbi"]})
    return rows


def campus_links(campus: Campus, shadowing_seed: Optional[int] = None,
                 frame_bytes: int = DATA_FRAME_BYTES) -> LinkTable:
    """The medium's link table of every router of the campus (``harness.medium.link_table``)."""
    spec = MediumSpec.from_dict(campus.medium(shadowing_seed))
    return link_table(radio_rows(campus, list(campus.routers)), spec, frame_bytes)


def link_quality(table: LinkTable, a: str, b: str, rate: float) -> float:
    """df x dr: the chance a probe and its reverse both arrive (1 / ETX)."""
    return table.delivery(a, b, rate) * table.delivery(b, a, rate)


def etx_paths(table: LinkTable, names: Sequence[str], rate: float
              ) -> Dict[Tuple[str, str], List[str]]:
    """Shortest-ETX path between every ordered pair joined by usable links (Dijkstra; ties
    go to fewer hops, then to the lower node names, so the snapshot is deterministic)."""
    nbrs: Dict[str, List[Tuple[str, float]]] = {n: [] for n in names}
    for a in names:
        for b in names:
            q = link_quality(table, a, b, rate) if a != b else 0.0
            if q >= MIN_LINK_QUALITY:
                nbrs[a].append((b, 1.0 / q))
    out: Dict[Tuple[str, str], List[str]] = {}
    for src in names:
        best: Dict[str, Tuple[float, int, List[str]]] = {src: (0.0, 0, [src])}
        heap: List[Tuple[float, int, List[str]]] = [(0.0, 0, [src])]
        done = set()
        while heap:
            cost, hops, path = heapq.heappop(heap)
            node = path[-1]
            if node in done:
                continue
            done.add(node)
            for nxt, etx in nbrs[node]:
                cand = (round(cost + etx, 9), hops + 1, path + [nxt])
                if nxt not in best or cand < best[nxt]:
                    best[nxt] = cand
                    heapq.heappush(heap, cand)
        for dst, (_c, _h, path) in best.items():
            if dst != src:
                out[(src, dst)] = path
    return out


class CampusTopology(Topology):
    """A ``Topology`` that knows its campus, its link table and its routing, so it can refuse a
    flow its frozen routes do not carry before anything starts."""

    def __init__(self, name: str, campus: Campus, routing: str):
        super().__init__(name)
        self.campus = campus
        self.routing = routing
        #: The route each ordered pair of routers takes (node names), as frozen.
        self.paths: Dict[Tuple[str, str], List[str]] = {}
        self.pinned: List[str] = []

    def check_flow(self, src: str, dst: str) -> None:
        for a, b in ((src, dst), (dst, src)):
            if (a, b) not in self.paths:
                if self.routing == "pinned":
                    raise HarnessError(
                        f"routing: pinned carries flows between the routers of topology.path "
                        f"({', '.join(n[1:] for n in self.pinned)}) only; {a[1:]} -> {b[1:]} "
                        "has no route")
                raise HarnessError(f"router {b[1:]} is unreachable from router {a[1:]}: no "
                                   f"chain of links with df x dr >= {MIN_LINK_QUALITY:g} joins "
                                   "them (the campus's ETX snapshot)")


def parse_path(path: Optional[str], campus: Campus) -> List[int]:
    """``"1-23-16"`` -> [1, 23, 16]; errors name ``topology.path``."""
    if not isinstance(path, str) or not path.strip():
        raise SchemaError("topology.path", "required with routing: pinned: the routers of the "
                                           "path, e.g. \"1-23-16\"")
    ids: List[int] = []
    for part in path.replace(" ", "").split("-"):
        if not part.isdigit() or int(part) not in campus.routers:
            raise SchemaError("topology.path", f"{part!r} in {path!r} is not a router of campus "
                                               f"{campus.name}; routers: "
                                               + ", ".join(str(r) for r in campus.routers))
        if int(part) in ids:
            raise SchemaError("topology.path", f"{path!r} visits router {part} twice")
        ids.append(int(part))
    if len(ids) < 2:
        raise SchemaError("topology.path", f"{path!r}: a path needs 2 or more routers")
    return ids


def hidden(table: LinkTable, a: str, b: str) -> bool:
    """Radios a and b hear each other below their carrier-sense thresholds, both ways."""
    return table.get(a, b).mean_dbm < table.radios[b]["cs_threshold_dbm"] \
        and table.get(b, a).mean_dbm < table.radios[a]["cs_threshold_dbm"]


def breaks(table: LinkTable, x: str, s: str, r: str) -> bool:
    """x's frames at r come within ``CAPTURE_DB`` of s's: overlapping, they destroy s's."""
    return table.get(x, r).mean_dbm > table.get(s, r).mean_dbm - CAPTURE_DB


def path_hops(path: Sequence[Any]) -> List[Tuple[Any, Any]]:
    """The hops of a path in both directions (TCP's ACKs run backwards): (sender, receiver)."""
    return list(zip(path, path[1:])) + list(zip(path[::-1], path[::-1][1:]))


def hidden_hits(table: LinkTable, path: Sequence[str], x: str) -> List[Tuple[str, str]]:
    """The hops s -> r of ``path`` that router ``x`` can break as a hidden terminal: x and s
    are ``hidden`` from each other and x ``breaks`` s's frames at r."""
    return [(s, r) for s, r in path_hops(path) if hidden(table, s, x) and breaks(table, x, s, r)]


def outside_pair(table: LinkTable, path: Sequence[str], rate: float
                 ) -> Optional[Tuple[str, str]]:
    """``outside: auto``: the neighbouring network most able to collide with the path unseen.
    Its sender is the router off the path that is a hidden terminal to the most hops of
    ``path`` (``hidden_hits``; ties: the larger summed power at those hops' receivers), its
    receiver the router off the path (not the sender) with the best link to it at ``rate``
    (df x dr, at least ``MIN_LINK_QUALITY``). None when no router off the path hides."""
    others = [n for n in table.names() if n not in path]
    scored = []
    for x in others:
        hits = hidden_hits(table, path, x)
        if hits:
            power = sum(10 ** (table.get(x, r).mean_dbm / 10) for _s, r in hits)
            scored.append((len(hits), power, x))
    for _n, _p, x in sorted(scored, reverse=True):
        partners = sorted(((link_quality(table, x, y, rate), y) for y in others if y != x),
                          reverse=True)
        if partners and partners[0][0] >= MIN_LINK_QUALITY:
            return x, partners[0][1]
    return None


def parse_outside(outside: str, campus: Campus, pinned: Sequence[int]) -> List[int]:
    """``"14-25"`` -> [14, 25] (routers of the campus, off the path, distinct); errors name
    ``topology.outside``."""
    parts = outside.replace(" ", "").split("-")
    if len(parts) != 2 or not all(p.isdigit() and int(p) in campus.routers for p in parts):
        raise SchemaError("topology.outside", f"{outside!r}: auto, or two routers of campus "
                                              f"{campus.name} as \"a-b\"; routers: "
                                              + ", ".join(str(r) for r in campus.routers))
    ids = [int(p) for p in parts]
    if ids[0] == ids[1] or any(r in pinned for r in ids):
        raise SchemaError("topology.outside", f"{outside!r}: two different routers off the "
                                              f"path ({'-'.join(map(str, pinned))})")
    return ids


def build(campus: str = DEFAULT_CAMPUS, routing: str = "etx", path: Optional[str] = None,
          nodes: str = "all", rate: Optional[float] = None, rts: bool = False,
          shadowing_seed: Optional[int] = None, etx_rate: float = 2,
          fading_sigma: Optional[float] = None, outside: Optional[str] = None,
          rate_loss: Optional[Mapping[str, float]] = None,
          rx_sensitivity: Optional[float] = None,
          rts_threshold: Optional[int] = None) -> CampusTopology:
    """The campus as a topology: one IBSS station per router (all, or the path's), static
    routes by ``routing``; ``rate`` None = auto (minstrel). ``fading_sigma`` replaces the
    file's per-frame fading by log-normal fading of that spread (a sensitivity knob: lossier
    links at the same mean power; routes and link checks follow it); ``rate_loss`` likewise
    gives the receivers an implementation loss per rate (``with_rate_loss``) and
    ``rx_sensitivity`` a detection threshold above the file's (``with_sensitivity``).
    ``rts_threshold`` protects only frames longer than that many bytes where ``rts`` would
    protect every one (``iw phy set rts N``: a TCP ACK of 88 bytes then goes bare)."""
    if rts_threshold is not None and not rts:
        raise SchemaError("topology.rts_threshold", f"{rts_threshold}: only with rts: true "
                                                    "(the threshold of RTS/CTS that is on)")
    place = with_sensitivity(with_rate_loss(with_fading(load_campus(campus), fading_sigma),
                                            rate_loss), rx_sensitivity)
    if routing not in ROUTINGS:
        raise SchemaError("topology.routing", f"{routing!r}; allowed: {', '.join(ROUTINGS)}")
    if nodes not in NODE_SETS:
        raise SchemaError("topology.nodes", f"{nodes!r}; allowed: {', '.join(NODE_SETS)}")
    if routing == "etx" and path is not None:
        raise SchemaError("topology.path", "only with routing: pinned (routing: etx routes "
                                           "every pair by its ETX snapshot)")
    if outside is not None and routing != "pinned":
        raise SchemaError("topology.outside", "only with routing: pinned (a neighbouring pair "
                                              "beside one path)")
    if nodes == "path" and routing != "pinned":
        raise SchemaError("topology.nodes", "path (start only the path's routers) needs "
                                            "routing: pinned and a topology.path")
    table = campus_links(place, shadowing_seed, ETX_PROBE_BYTES)
    pinned = parse_path(path, place) if routing == "pinned" else []
    if pinned:
        for ra, rb in zip(pinned, pinned[1:]):
            q = link_quality(table, router_name(ra), router_name(rb), etx_rate)
            if q < MIN_LINK_QUALITY:
                raise SchemaError("topology.path", f"{path!r} is not a path: {ra} and {rb} are not "
                                                   f"linked (probes at {etx_rate:g} Mbit/s arrive "
                                                   f"both ways with probability {q:.3f}, below "
                                                   f"{MIN_LINK_QUALITY:g})")
    extra = _outside_ids(outside, place, table, pinned, rate if rate is not None else etx_rate)
    ids = pinned if nodes == "path" else list(place.routers)
    ids = list(ids) + [r for r in extra if r not in ids]
    topo = CampusTopology(f"campus-{place.name}", place, routing)
    for rid in ids:
        name = router_name(rid)
        topo.add_station(name, place.position(rid), mode="ibss", channel=place.radio["channel"],
                         rate=rate, rts=_station_rts(rts, rts_threshold, rid in extra),
                         txpower_dbm=place.radio["txpower_dbm"],
                         retry_limit=place.radio["retry_limit"], ip=f"10.0.0.{rid}/24", phy="b",
                         antenna_gain_dbi=place.radio["antenna_gain_dbi"])
        topo.add_alias(str(rid), name)
    names = [router_name(r) for r in ids]
    if pinned:
        topo.pinned = [router_name(r) for r in pinned]
        for a, b in zip(topo.pinned, topo.pinned[1:]):
            topo.add_link(a, b)
        for i, a in enumerate(topo.pinned):
            for j, b in enumerate(topo.pinned):
                if i < j:
                    topo.paths[(a, b)] = topo.pinned[i:j + 1]
                elif i > j:
                    topo.paths[(a, b)] = topo.pinned[j:i + 1][::-1]
        # flows' first and last: the path's ends, whatever else is started
        topo.add_alias("first", topo.pinned[0])
        topo.add_alias("last", topo.pinned[-1])
    else:
        topo.paths = etx_paths(table, names, etx_rate)
        for (a, b), route in topo.paths.items():
            if len(route) == 2 and b not in topo.wireless_neighbours(a):
                topo.add_link(a, b)
    if extra:
        a, b = (router_name(r) for r in extra)
        topo.add_link(a, b)
        topo.paths[(a, b)], topo.paths[(b, a)] = [a, b], [b, a]
        for alias, name in zip(OUTSIDE_ALIASES, (a, b)):
            topo.add_alias(alias, name)
    for (a, b), route in topo.paths.items():
        if len(route) > 2:
            topo.add_route(a, b, route[1])
    topo.medium = place.medium(shadowing_seed)
    return topo


def _station_rts(rts: bool, threshold: Optional[int], outside: bool) -> Union[bool, int]:
    """A router's RTS setting: off for the outside pair, else the threshold or on for all."""
    if outside or not rts:
        return False
    return True if threshold is None else threshold


def _outside_ids(outside: Optional[str], place: Campus, table: LinkTable,
                 pinned: Sequence[int], rate: float) -> List[int]:
    """The ``outside`` pair's routers (none without it), checked to be linked at ``rate``."""
    if outside is None:
        return []
    names = [router_name(r) for r in pinned]
    if outside == "auto":
        pair = outside_pair(table, names, rate)
        if pair is None:
            raise SchemaError("topology.outside", f"auto: no router off the path "
                                                  f"{'-'.join(map(str, pinned))} is hidden from "
                                                  "it; name a pair as \"a-b\"")
        return [int(n[1:]) for n in pair]
    ids = parse_outside(outside, place, pinned)
    q = link_quality(table, router_name(ids[0]), router_name(ids[1]), rate)
    if q < MIN_LINK_QUALITY:
        raise SchemaError("topology.outside", f"{outside!r}: {ids[0]} and {ids[1]} are not "
                                              f"linked at {rate:g} Mbit/s (df x dr {q:.3f}, "
                                              f"below {MIN_LINK_QUALITY:g})")
    return ids


#: What ``topology: {builder: campus, ...}`` accepts (docs/campus.md).
BUILDER = Builder(
    name="campus",
    build=build,
    doc="Routers of a campus file (buildings, walls, floors) as 802.11b IBSS stations; "
        "static routes from an ETX snapshot of the medium's link table, or one pinned path.",
    params=(
        ParamSpec("campus", "str", "campus name or a campus YAML file", default=DEFAULT_CAMPUS),
        ParamSpec("routing", "choice", "etx: shortest-ETX snapshot; pinned: topology.path",
                  default="etx", choices=ROUTINGS),
        ParamSpec("path", "str", "routers of the pinned path, e.g. \"5-3-23\"", default=None,
                  nullable=True, null_label="none (routing: etx)"),
        ParamSpec("nodes", "choice", "routers started: all, or only the pinned path's",
                  default="all", choices=NODE_SETS),
        ParamSpec("rate", "choice", "fixed 802.11b rate in Mbit/s, or auto (minstrel)",
                  default="auto", choices=RATES_B + ("auto",)),
        ParamSpec("rts", "bool", "RTS/CTS before every data frame", default=False),
        wireless.RTS_THRESHOLD.variant(doc="with rts: true, " + wireless.RTS_THRESHOLD.doc,
                                       nullable=True, null_label="every frame (0)",
                                       omit_default=True),
        ParamSpec("shadowing_seed", "int", "seed of the static shadowing (another layout of "
                  "the same buildings)", default=None, min=0, nullable=True,
                  null_label="the campus file's"),
        ParamSpec("etx_rate", "choice", "rate of the ETX probes (Mbit/s)", default=2,
                  choices=RATES_B),
        ParamSpec("fading_sigma", "float", "per-frame log-normal fading (dB) in place of the "
                  "campus file's: lossier links at the same mean power", default=None,
                  min=0.5, max=12, nullable=True, null_label="the campus file's",
                  omit_default=True),
        ParamSpec("rate_loss", "floatmap", "receiver implementation loss in dB per rate "
                  "(Mbit/s), e.g. {5.5: 4.6, 11: 2.7} (medium.rate_loss over the campus: routes "
                  "and link checks follow it)", default=None, min=RATE_LOSS_DB.min,
                  max=RATE_LOSS_DB.max, nullable=True, null_label="none (the ideal formulas)",
                  omit_default=True),
        ParamSpec("rx_sensitivity", "float", "power (dBm) from which a radio locks onto a "
                  "frame and senses the medium busy, in place of the campus file's (routes and "
                  "link checks follow it)", default=None, min=-100.0, max=-60.0, nullable=True,
                  null_label="the campus file's", omit_default=True),
        ParamSpec("outside", "str", "a neighbouring pair off the pinned path, \"a-b\" or auto "
                  "(the router hidden from most of the path's hops and its best partner); "
                  "flows name it outside1, outside2", default=None, nullable=True,
                  null_label="none", omit_default=True),
    ),
)
