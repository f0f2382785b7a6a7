"""Paper 002's stall diagnosis put to a test (studies/p002_mesh_retry/experiments/002_stall_nudge.yaml): at
3 hops and R = 3 the full sweep's flows stall with timeouts that send nothing, the segment's
copy held in Linux 6.1's queue of a mesh path left neither active nor resolving. If so, a
trickle of other frames to the far end (a small UDP flow beside the TCP one) starts a path
discovery again and frees the queue, and the stalls go. Read per congestion module: the
sweep's runs at that point beside the trickle's, the TCP flow alone.

Imports only ``paper002``'s record readers.
"""
from __future__ import annotations

import statistics as stats
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from studies.p002_mesh_retry import paper as P

#: The experiment's name (the page finds its records by it).
NAME = "paper002_stall_nudge"
#: The sweep's point the trickle is compared with.
HOPS, LIMIT = 3, 3


def tcp_mbps(rec: Mapping[str, Any]) -> Optional[float]:
    """The first flow's goodput (the TCP flow: flows are stored in start order, TCP first)."""
    flows = rec.get("flows") or []
    if rec.get("status") != "ok" or not flows or not flows[0].get("throughput_bps"):
        return None
    return float(flows[0]["throughput_bps"]) / 1e6


def trickle_delivered(rec: Mapping[str, Any]) -> Optional[float]:
    """Share of the UDP trickle's datagrams that arrived (iperf3's loss figure), or None."""
    for flow in (rec.get("flows") or [])[1:]:
        if str(flow.get("protocol") or "").upper() == "UDP" \
                and isinstance(flow.get("lost_percent"), (int, float)):
            return 1.0 - float(flow["lost_percent"]) / 100.0
    return None


def at_point(records: Sequence[Mapping[str, Any]]) -> Dict[str, List[Mapping[str, Any]]]:
    """Runs with a flow at 3 hops and R = 3 (no Eq. 5), by congestion module."""
    out: Dict[str, List[Mapping[str, Any]]] = {}
    for rec in records:
        if rec.get("status") == "ok" and P.limit_of(rec) == LIMIT \
                and not P.policy_case(rec) and tcp_mbps(rec) is not None \
                and (rec.get("params") or {}).get("topology", {}).get("hops") == HOPS:
            out.setdefault(str(P.module_of(rec)), []).append(rec)
    return out


def silent_counts(changed: Sequence[Mapping[str, Any]], sweep: Sequence[Mapping[str, Any]]
                  ) -> Tuple[int, int, int, int]:
    """At the stalled point, over the modules ``changed`` ran: (runs of ``changed`` whose
    timeouts sent nothing, its runs, the same of the sweep's runs, the sweep's runs)."""
    with_, without = at_point(changed), at_point(sweep)

    def silent(recs: Sequence[Mapping[str, Any]]) -> int:
        return sum(1 for r in recs if P.silent_timeouts(r) >= P.SILENT_RTOS)
    return (sum(silent(v) for v in with_.values()), sum(len(v) for v in with_.values()),
            sum(silent(without.get(m, [])) for m in with_),
            sum(len(without.get(m, [])) for m in with_))


def cells(recs: Sequence[Mapping[str, Any]]) -> str:
    """Markdown cells: runs, runs whose timeouts sent nothing, runs stalled >= 5 s, TCP Mbit/s."""
    silent = sum(1 for r in recs if P.silent_timeouts(r) >= P.SILENT_RTOS)
    stalled = sum(1 for r in recs if P.stall_seconds(r) >= P.STALL_S)
    mean = stats.mean(tcp_mbps(r) or 0.0 for r in recs)
    return f"{len(recs)} | {silent} | {stalled} | {mean:.2f}"


def rows(nudged: Sequence[Mapping[str, Any]], sweep: Sequence[Mapping[str, Any]]) -> List[str]:
    """Markdown: per module, the sweep's runs beside the trickle's."""
    with_, without = at_point(nudged), at_point(sweep)
    lines = ["| module | runs | timeouts sent nothing | stalled >= 5 s | TCP Mbit/s | with the "
             "trickle: runs | timeouts sent nothing | stalled >= 5 s | TCP Mbit/s | trickle "
             "delivered |", "|---|---|---|---|---|---|---|---|---|---|"]
    for module in sorted(with_):
        delivered = [x for x in (trickle_delivered(r) for r in with_[module]) if x is not None]
        lines.append(f"| {module} | " + (cells(without[module]) if module in without
                                         else "- | - | - | -")
                     + f" | {cells(with_[module])} | "
                     + (f"{stats.mean(delivered):.0%}" if delivered else "-") + " |")
    return lines


def section(nudged: Sequence[Mapping[str, Any]], sweep: Sequence[Mapping[str, Any]],
            sweep_name: str, heading: str = "##") -> List[str]:
    """The page's section on the trickle beside the sweep's stalled point."""
    if not at_point(nudged):
        return []
    return [f"{heading} The stalls at R = 3 with a trickle to the far end (a test of the "
            "diagnosis)", "",
            f"`{NAME}`: 3 hops, R = 3, 100 s, a 16 kbit/s UDP flow from the same sender to the "
            "same receiver beside the TCP flow, against the same point of "
            f"`{sweep_name}` (same modules). If the stalls are frames held in a mesh path's "
            "queue that only a new frame to the far end releases, the trickle removes them. "
            "Counts are runs; the throughput is the TCP flow's.", ""] \
        + rows(nudged, sweep) + [""]
