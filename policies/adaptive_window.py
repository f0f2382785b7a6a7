"""Adaptive window limit of paper 001 (Chen, Xue, Nahrstedt): the sender's congestion-window
limit is chosen from the round-trip hop count (RTHC) of the route in force, by the paper's table.

Why a table and not a formula: the paper measured the best limit per chain length (k ~ 1/5 of
the RTHC) and proposes the staircase below; for N > 30 it says "similar simulations" are needed,
so beyond the table this policy extrapolates with k = 1/5 and records that it did.

How the hop count is found (works on any topology the harness builds):
- IP routes are walked hop by hop from the sender to the receiver and back (``ip -o route get``
  in each node, the gateway mapped to the node that owns it), so static chains, grids and
  routing daemons that install IP routes all count correctly;
- where the destination is on-link at IP level (802.11s mesh: one IP subnet, HWMP forwards at
  layer 2), the mesh path's ``hop_count`` from ``iw dev X mpath dump`` counts the air hops.

The limit is realised like ``cwnd_clamp`` (route ``cwnd lock N``, primed, verified from ``ss``)
with one limit per (sender, receiver) pair. Linux applies a route's locked cwnd to new
connections only, so the limit follows the route in force when each flow starts; re-routing
during a flow (the paper's mobile case) would need a kernel change.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Tuple

from harness.errors import HarnessError
from harness.kernel.mesh import parse_mpath_dump
from policies import FlowPlan, NodePair, RunContext, SwitchPolicy
from policies.routes import node_ip, parse_route_get
from policies.window import check_iperf_cwnd, check_window, prime_cwnd_locks

if TYPE_CHECKING:
    from harness.net import Network
    from harness.traffic import FlowRun

#: Paper 001 §IV: (largest RTHC N of the row, window limit in packets).
CWL_TABLE: Tuple[Tuple[int, int], ...] = ((4, 2), (8, 1), (12, 2), (20, 3), (26, 4), (30, 5))
#: Beyond the table: limit = round(k * N) with the paper's simulated k (Fig. 4).
K_BEYOND_TABLE = 1.0 / 5.0
#: A route longer than this is a loop, not a path.
MAX_HOPS = 64


def cwl_for_rthc(rthc: int) -> int:
    """Window limit (segments) for a round-trip hop count, by paper 001's table."""
    if isinstance(rthc, bool) or not isinstance(rthc, int) or rthc < 1:
        raise HarnessError(f"round-trip hop count {rthc!r} is invalid: allowed an integer >= 1")
    for top, limit in CWL_TABLE:
        if rthc <= top:
            return limit
    return max(CWL_TABLE[-1][1], int(math.floor(K_BEYOND_TABLE * rthc + 0.5)))


def in_table(rthc: int) -> bool:
    """True when the paper's table covers this RTHC (else the limit is extrapolated)."""
    return rthc <= CWL_TABLE[-1][0]


def parse_mpath_hop_count(text: str) -> Optional[int]:
    """Hop count from ``iw dev X mpath get MAC`` (or one ``mpath dump`` line); None if absent
    (the first row ``harness.kernel.mesh.parse_mpath_dump`` reads)."""
    rows = parse_mpath_dump(text)
    return rows[0].hops if rows else None


Step = Tuple[Optional[str], int]


def walk(next_step: Callable[[str], Step], src: str, dst: str) -> int:
    """Hops from ``src`` to ``dst``; ``next_step(node)`` -> (next node, hops) where next node
    None means the destination is reached after ``hops`` more (on-link: 1, mesh: its count)."""
    hops, cur, seen = 0, src, [src]
    while cur != dst:
        nxt, n = next_step(cur)
        hops += n
        if nxt is None:
            return hops
        if nxt in seen or hops > MAX_HOPS:
            raise HarnessError(f"adaptive_window: route {src} -> {dst} loops: "
                               + " -> ".join(seen + [nxt]))
        seen.append(nxt)
        cur = nxt
    return hops


def route_hops(net: Network, src: str, dst: str) -> int:
    """Hop count of the route in force from ``src`` to ``dst`` (see the module docstring)."""
    dst_ip = node_ip(net, dst, "adaptive_window")
    owners = _ip_owners(net)
    dst_mac = _mac_of(net, dst)

    def next_step(node: str) -> Step:
        out = net[node].cmd(["ip", "-o", "route", "get", dst_ip]).stdout
        via, dev = parse_route_get(out)
        if via is None:
            return None, _l2_hops(net, node, dev, dst_mac)
        if via not in owners:
            raise HarnessError(f"adaptive_window: {node} routes {dst_ip} via {via}, "
                               "which no node of the network owns")
        return owners[via], 1

    return walk(next_step, src, dst)


def _ip_owners(net: Network) -> Dict[str, str]:
    out: Dict[str, str] = {}
    for name, node in net.nodes.items():
        for ip in getattr(node, "ips", []) or [node.ip]:
            if ip:
                out[str(ip).split("/")[0]] = name
    return out


def _mac_of(net: Network, node: str) -> Optional[str]:
    return next((r.mac for r in getattr(net, "radios", []) if r.node == node), None)


def _l2_hops(net: Network, node: str, dev: str, dst_mac: Optional[str]) -> int:
    """1 on an ordinary link; the mesh path's hop count when ``dev`` is an 802.11s interface."""
    if dst_mac is None:
        return 1
    # the dump, not ``mpath get``: iw prints the column header only with the dump, and the
    # row is read by the header's names (seen: every MANET path counted as 1 hop)
    res = net[node].cmd(["iw", "dev", dev, "mpath", "dump"], check=False)
    if getattr(res, "returncode", 1) != 0:
        return 1
    rows = [p for p in parse_mpath_dump(res.stdout) if p.destination.lower() == dst_mac.lower()]
    return rows[0].hops if rows and rows[0].hops > 0 else 1


class AdaptiveWindow(SwitchPolicy):
    """Per (sender, receiver): limit = table(RTHC of the route in force), as a primed clamp."""

    name = "adaptive_window"
    meaning = "window limit from the round-trip hop count, paper 001"

    def __init__(self, value: bool):
        super().__init__(value)
        self.limits: Dict[NodePair, Dict[str, Any]] = {}
        self.metrics: Dict[str, str] = {}
        #: pairs of a MANET whose priming connection did not complete: why
        self.unprimed: Dict[NodePair, str] = {}

    def apply(self, ctx: RunContext) -> None:
        if not self.active:
            return
        if ctx.route_metrics and any("cwnd" in m for m in ctx.route_metrics.values()):
            raise HarnessError("adaptive_window and cwnd_clamp both set the sender's window "
                               "limit: allowed one of them per experiment")
        for sender, receiver in ctx.pairs():
            fwd = route_hops(ctx.net, sender, receiver)
            back = route_hops(ctx.net, receiver, sender)
            rthc = fwd + back
            limit = cwl_for_rthc(rthc)
            self.limits[(sender, receiver)] = {"forward_hops": fwd, "return_hops": back,
                                               "rthc": rthc, "limit": limit,
                                               "from_table": in_table(rthc)}
            ctx.add_route_metric(sender, receiver, "cwnd", f"lock {limit}")
            ctx.net[sender].set_sysctls({"net.ipv4.tcp_no_metrics_save": 0})

    def prime(self, ctx: RunContext) -> None:
        if self.active:
            self.unprimed = prime_cwnd_locks(ctx, self.limits, self.metrics)

    def verify(self, ctx: RunContext, flow: FlowPlan, run: FlowRun) -> Dict[str, Any]:
        if not self.active or flow.protocol != "tcp":
            return {}
        info = self.limits.get((flow.sender, flow.receiver))
        if info is None:
            return {}
        if not run.ss and run.incomplete:  # a MANET flow that never connected: nothing sent
            return {"held": None, "rthc": info["rthc"], "note": run.incomplete}
        why = self.unprimed.get((flow.sender, flow.receiver))
        if why is not None:  # no limit to hold: it ran unbounded
            return {"held": None, "primed": False, "rthc": info["rthc"],
                    "limit": info["limit"], "note": why}
        found = check_window(run.ss, info["limit"], what="adaptive window limit",
                             check_cwnd=True)
        found.update(check_iperf_cwnd(run.result, info["limit"],
                                      over_in_recovery=found["max_over_in_prr"]))
        found.update(rthc=info["rthc"])
        return found

    def record(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"value": self.value,
                               "mechanism": "route cwnd lock (sender), limit from RTHC by "
                                            "paper 001's table",
                               "pairs": {f"{s}->{r}": v for (s, r), v in self.limits.items()}}
        if self.metrics:
            out["tcp_metrics"] = self.metrics
        if self.unprimed:
            out["unprimed"] = {f"{s}->{r}": why for (s, r), why in self.unprimed.items()}
        return out


def adaptive_window(value: bool) -> AdaptiveWindow:
    """Factory named in the catalog (``policies.adaptive_window:adaptive_window``)."""
    return AdaptiveWindow(value)
