"""The 802.11s path in force, checked before the flows and recorded (paper 002's testbed).

A mesh chain is only a chain if HWMP really routes hop by hop: the enforced peerings
(``MeshPoint``) leave one path, and this policy proves it before any measured traffic:

- a few pings from every TCP sender to its receiver make HWMP resolve the path both ways;
- ``iw dev X mpath dump`` on every mesh point of the path must show the destination through
  the next node of the declared chain with the remaining hop count (or fewer: see
  ``path_problems``), in both directions, and ``station dump`` an established peer link to
  the declared neighbours only;
- the medium's per-link counters over the probe must show no unicast transmission between
  mesh points that are not declared neighbours (a frame that skipped a hop).

After the flows the same counters must still show none, and the path tables and peer links
are read again (the airtime metric then reflects minstrel's view under load). Everything is
stored in the run's record (``policies.mesh_path``); a path that does not hold fails the run.
"""
from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Tuple

from harness.errors import HarnessError
from harness.kernel import mesh
from policies import FlowPlan, PolicyViolation, RunContext, SwitchPolicy

if TYPE_CHECKING:
    from harness.net import Network, Topology
    from harness.traffic import FlowRun

#: Pings per probe, and how many probes before the path is declared missing (the first
#: ping of an unresolved path waits for HWMP's discovery).
PROBE_PINGS = 5
PROBE_ATTEMPTS = 3
#: How the error of a run whose probes found no path ends (reports count such runs:
#: studies.p002_mesh_retry.paper.no_path).
NO_PATH_ERROR = "HWMP found no path"


def expected_path(topo: Topology, src: str, dst: str) -> List[str]:
    """The declared chain from ``src`` to ``dst`` (shortest over declared wireless links)."""
    prev: Dict[str, Optional[str]] = {src: None}
    queue = deque([src])
    while queue:
        cur = queue.popleft()
        if cur == dst:
            break
        for nxt in topo.wireless_neighbours(cur):
            if nxt not in prev:
                prev[nxt] = cur
                queue.append(nxt)
    if dst not in prev:
        raise HarnessError(f"mesh_path: {src} and {dst} are not connected by declared wireless "
                           "links (the topology declares no path between them)")
    path = [dst]
    while path[-1] != src:
        step = prev[path[-1]]
        assert step is not None  # only src has no predecessor
        path.append(step)
    return path[::-1]


def path_problems(path: List[str], tables: Mapping[str, List[mesh.MeshPath]],
                  mac: Mapping[str, str]) -> Tuple[List[str], List[str]]:
    """(contradictions, notes) of the path tables against the chain ``path``, one direction.

    A contradiction is a path through another next hop, one with more hops than the chain, or
    no path at all. Only noted are a path that HWMP has deactivated but still holds through the
    chain's next hop (a path error after failed frames, frequent at retry limit 1; it is
    rediscovered on the next frame, over the only peer links there are), and one through the
    chain's next hop with fewer hops: Linux answers a path request from an intermediate node
    that holds an active path to the target with a reply of hop count 0, so the requester
    stores 1 whatever the distance (``hwmp_preq_frame_process``, IEEE 802.11-2012 13.10.9.3
    case E2). Frames follow next hops, so the route is the chain either way."""
    dst = path[-1]
    problems: List[str] = []
    notes: List[str] = []
    for i, node in enumerate(path[:-1]):
        want_next, want_hops = mac[path[i + 1]], len(path) - 1 - i
        entry = next((p for p in tables.get(node, []) if p.destination == mac[dst]), None)
        if entry is None:
            problems.append(f"{node} has no path to {dst}")
        elif entry.next_hop != want_next or entry.hops > want_hops:
            problems.append(f"{node} reaches {dst} via {entry.next_hop} in {entry.hops} hops; "
                            f"the chain says via {path[i + 1]} ({want_next}) in {want_hops}")
        elif entry.hops < want_hops:
            notes.append(f"{node}'s path to {dst} (via {path[i + 1]}) counts {entry.hops} hops "
                         f"for the chain's {want_hops} (an intermediate node's reply)")
        elif not entry.active:
            notes.append(f"{node}'s path to {dst} (via {path[i + 1]}) is inactive "
                         f"(flags {entry.flags:#x})")
    return problems, notes


def peer_problems(topo: Topology, peers: Mapping[str, Mapping[str, mesh.Peer]],
                  node_of: Mapping[str, str]) -> List[str]:
    """Established peer links that are not declared neighbours, or declared ones missing."""
    out = []
    for node, table in peers.items():
        estab = {node_of.get(mac, mac) for mac, p in table.items() if p.plink == "ESTAB"}
        want = set(topo.wireless_neighbours(node))
        if estab != want:
            out.append(f"{node} has peer links to {sorted(estab)}, declared {sorted(want)}")
    return out


def link_attempts(stats: Optional[Mapping[str, Any]], node_of: Mapping[str, str]
                  ) -> Dict[Tuple[str, str], int]:
    """The medium's unicast transmissions per directed link so far, by node names."""
    out: Dict[Tuple[str, str], int] = {}
    for link in (stats or {}).get("links", []):
        a = link.get("tx_node") or node_of.get(str(link.get("tx")).lower(), str(link.get("tx")))
        b = link.get("rx_node") or node_of.get(str(link.get("rx")).lower(), str(link.get("rx")))
        out[(a, b)] = int(link.get("attempts") or 0)
    return out


def stray_attempts(before: Mapping[Tuple[str, str], int], after: Mapping[Tuple[str, str], int],
                   topo: Topology) -> Dict[str, int]:
    """Unicast transmissions between mesh points that are not declared neighbours, between
    two readings of the medium's counters (``link_attempts``)."""
    out = {}
    for (a, b), n in after.items():
        k = n - before.get((a, b), 0)
        if k and b not in topo.wireless_neighbours(a):
            out[f"{a}>{b}"] = k
    return out


class MeshPathCheck(SwitchPolicy):
    """``mesh_path: true``: prove and record the enforced path (see the module docstring)."""

    name = "mesh_path"
    meaning = "check and record the 802.11s path before the flows"

    def __init__(self, value: bool):
        super().__init__(value)
        self.pairs: Dict[str, Any] = {}
        self.before: Dict[str, Any] = {}
        self.after: Dict[str, Any] = {}
        self.stray: Dict[str, Dict[str, int]] = {}
        self._mark: Dict[Tuple[str, str], int] = {}
        self.notes: List[str] = []

    def apply(self, ctx: RunContext) -> None:
        if not self.active:
            return
        net = ctx.net
        mac, node_of = _macs(net)
        if not mac:
            raise HarnessError("mesh_path: the network has no radios: allowed only on 802.11s "
                               "mesh topologies (builder mesh_chain, or chain with mode: mesh)")
        stats_before = link_attempts(net.medium_stats(), node_of)
        for sender, receiver in ctx.pairs():
            path = expected_path(net.topo, sender, receiver)
            self.pairs[f"{sender}->{receiver}"] = {"path": path, "probe": _probe(net, sender,
                                                                                  receiver)}
        stats_probe = link_attempts(net.medium_stats(), node_of)
        self.before = _snapshot(net, node_of)
        problems: List[str] = []
        tables = {n: [mesh.MeshPath(**p) for p in v] for n, v in self.before["raw_paths"].items()}
        for info in self.pairs.values():
            for way in (info["path"], info["path"][::-1]):
                found, notes = path_problems(way, tables, mac)
                problems += found
                self.notes += notes
        peers = {n: {m: mesh.Peer(**p) for m, p in v.items()}
                 for n, v in self.before["raw_peers"].items()}
        problems += peer_problems(net.topo, peers, node_of)
        self.stray["probe"] = stray_attempts(stats_before, stats_probe, net.topo)
        problems += [f"{k}: {v} unicast transmissions during the probe, between mesh points "
                     "that are not neighbours" for k, v in self.stray["probe"].items()]
        self._mark = stats_probe
        if problems:
            raise PolicyViolation("mesh_path: the path in force is not the declared chain: "
                                  + "; ".join(problems))

    def verify(self, ctx: RunContext, flow: FlowPlan, run: FlowRun) -> Dict[str, Any]:
        if not self.active or self.after:
            return {}
        net = ctx.net
        _mac, node_of = _macs(net)
        self.after = _snapshot(net, node_of)
        now = link_attempts(net.medium_stats(), node_of)
        self.stray["flows"] = stray_attempts(self._mark, now, net.topo)
        if self.stray["flows"]:
            raise PolicyViolation("mesh_path: during the flows, unicast frames went between "
                                  "mesh points that are not neighbours: "
                                  + ", ".join(f"{k} {v}" for k, v in self.stray["flows"].items()))
        return {"held": True, "stray_attempts": self.stray["flows"]}

    def record(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"value": self.value,
                               "mechanism": "pings, then iw mpath dump / station dump on every "
                                            "mesh point and the medium's per-link counters",
                               "pairs": self.pairs, "stray_attempts": self.stray,
                               "notes": self.notes}
        for key, snap in (("before", self.before), ("after", self.after)):
            if snap:
                out[key] = {"paths": snap["paths"], "stations": snap["stations"]}
        # the report reads these (studies.p002_mesh_retry.paper.metric_checks)
        latest = self.after or self.before
        if latest:
            out["paths"] = latest["paths"]
            out["stations"] = latest["stations"]
        return out


def _macs(net: Network) -> Tuple[Dict[str, str], Dict[str, str]]:
    """node -> MAC of its (first) radio, and MAC -> node."""
    mac: Dict[str, str] = {}
    for radio in net.radios:
        mac.setdefault(radio.node, radio.mac.lower())
    return mac, {m: n for n, m in mac.items()}


def _probe(net: Network, src: str, dst: str) -> Dict[str, Any]:
    from harness.traffic.flows import ping
    last = None
    for attempt in range(1, PROBE_ATTEMPTS + 1):
        last = ping(net, src, dst, count=PROBE_PINGS)
        if last.received:
            return {"attempts": attempt, **last.to_dict()}
    raise PolicyViolation(f"mesh_path: no ping from {src} reached {dst} in {PROBE_ATTEMPTS} "
                          f"probes of {PROBE_PINGS} ({last.to_dict() if last else ''}): "
                          f"{NO_PATH_ERROR}")


def _snapshot(net: Network, node_of: Mapping[str, str]) -> Dict[str, Any]:
    """Path tables and peers of every mesh point, raw and with node names beside MACs."""
    raw_paths: Dict[str, List[Dict[str, Any]]] = {}
    raw_peers: Dict[str, Dict[str, Dict[str, Any]]] = {}
    for node_name in sorted({r.node for r in net.radios if r.mode == "mesh"}):
        intf = next(r.intf for r in net.radios if r.node == node_name)
        node = net[node_name]
        raw_paths[node_name] = [p.to_dict() for p in mesh.read_paths(node, intf)]
        raw_peers[node_name] = {m: p.to_dict() for m, p in mesh.read_peers(node, intf).items()}
    paths = {n: [dict(p, destination_node=node_of.get(p["destination"]),
                      next_hop_node=node_of.get(p["next_hop"])) for p in v]
             for n, v in raw_paths.items()}
    stations = {n: {m: dict(p, node=node_of.get(m)) for m, p in v.items()}
                for n, v in raw_peers.items()}
    return {"raw_paths": raw_paths, "raw_peers": raw_peers, "paths": paths, "stations": stations}


def mesh_path(value: bool) -> MeshPathCheck:
    """Factory named in the catalog (``policies.mesh_path:mesh_path``)."""
    return MeshPathCheck(value)
