"""Paper 000's reading of a live campus (studies/p000_campus/experiments/000_outside.yaml): the 3- and
4-hop paths of the default layout beside a neighbouring network that the path cannot hear
(``topology.outside: auto``, topologies/campus.py), idle or offering UDP, read as the
quantities of claims 3 and 5-7 per offered load. It tests one reading of why our long paths
differ from MAP's (traffic from outside the testbed collided with the path's frames); it is
not the model.

Each record is read for the path alone: its TCP flow, and the medium's counters of the links
between the path's routers (the neighbour's own frames left out).

Imports only the paper-analysis helpers (``analysis``, ``map_analysis``, ``map_variants``).
"""
from __future__ import annotations

import statistics as stats
from typing import Any, Dict, List, Mapping, Sequence, Tuple

from harness.analysis import records as A
from studies.p000_campus import map_analysis as M
from studies.p000_campus import map_variants as V


def load_of(rec: Mapping[str, Any]) -> float:
    """The neighbour's offered UDP load in Mbit/s (0: idle)."""
    flows = (rec.get("params") or {}).get("flows") or []
    return sum(float(f.get("bitrate") or 0) for f in flows
               if f.get("protocol") == "udp") / 1e6


def _is(flow: Mapping[str, Any], protocol: str) -> bool:
    """A result flow's protocol (iperf3 names it; a record without one is TCP)."""
    return str(flow.get("protocol") or "TCP").upper() == protocol


def _path_names(rec: Mapping[str, Any]) -> List[str]:
    return [f"r{x}" for x in str(A.param(rec, "topology.path")).split("-")]


def path_view(rec: Mapping[str, Any]) -> Dict[str, Any]:
    """The record as the path saw it: TCP flows only, medium links between path routers only."""
    out = dict(rec)
    out["flows"] = [f for f in rec.get("flows") or [] if _is(f, "TCP")]
    medium = rec.get("medium") or {}
    links = (medium.get("summary") or {}).get("links")
    if isinstance(links, Mapping):
        names = set(_path_names(rec))
        kept = {k: v for k, v in links.items()
                if all(end in names for end in str(k).split(">"))}
        out["medium"] = {**medium, "summary": {**medium["summary"], "links": kept}}
    return out


#: The condition this run varies (``map_variants``).
OUTSIDE = V.Condition(load_of, "outside load (Mbit/s)", lambda v: f"outside {v:g} Mbit/s", 0.0,
                      "Mbit/s", "a hidden neighbour's load")


def _views(records: Sequence[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    return [path_view(r) for r in records if r.get("status") == "ok"]


def neighbours(records: Sequence[Mapping[str, Any]]) -> Dict[str, Tuple[str, str]]:
    """Path -> the neighbour pair its runs carried UDP between (from the records' flows)."""
    out: Dict[str, Tuple[str, str]] = {}
    for rec in records:
        for f in rec.get("flows") or []:
            if _is(f, "UDP"):
                out[str(A.param(rec, "topology.path"))] = (str(f.get("src")), str(f.get("dst")))
    return out


def delivered(records: Sequence[Mapping[str, Any]]) -> Dict[float, float]:
    """Offered load -> the neighbour's delivered UDP goodput (Mbit/s, mean over runs)."""
    acc: Dict[float, List[float]] = {}
    for rec in records:
        if rec.get("status") != "ok":
            continue
        got = [float(f.get("throughput_bps") or 0) / 1e6 for f in rec.get("flows") or []
               if _is(f, "UDP")]
        if got:
            acc.setdefault(load_of(rec), []).append(sum(got))
    return {k: stats.mean(v) for k, v in sorted(acc.items())}


def neighbour_lines(records: Sequence[Mapping[str, Any]]) -> List[str]:
    """Per path: the neighbour pair and the hops whose frames its sender can break unseen (the
    medium's link table of the records' layout, the rule of ``outside: auto``)."""
    from topologies import campus as C
    seed = next((A.param(r, "topology.shadowing_seed") for r in records), None)
    table = C.campus_links(C.load_campus(), seed, C.ETX_PROBE_BYTES)
    out = ["| path | neighbour (sender > receiver) | hops it hits unseen |", "|---|---|---|"]
    for path, (src, dst) in sorted(neighbours(records).items(),
                                   key=lambda kv: (M.hops_of(kv[0]), kv[0])):
        names = [C.router_name(int(x)) for x in path.split("-")]
        hits = ", ".join(f"{s[1:]}>{r[1:]}" for s, r in C.hidden_hits(table, names, src))
        out.append(f"| {path} | {src[1:]} > {dst[1:]} | {hits or '-'} |")
    return out


def section_lines(records: Sequence[Mapping[str, Any]]) -> List[str]:
    """The reading's part of a report or of the paper page."""
    views = _views(records)
    if not views:
        return ["No run of this reading is stored yet.", ""]
    got = delivered(records)
    return ["Each path beside a neighbouring network (two routers off the path, one hop "
            "apart, RTS/CTS off) whose sender the path's routers cannot hear and which can "
            "break some of the path's hops unseen (`topology.outside: auto`), idle or offering "
            "UDP at 5.5 Mbit/s; the path's own flow, RTS/CTS and windows as in the grid, "
            "default layout. Windows measured: "
            + ", ".join(sorted({M.window_label(A.param(r, "policy.rwnd_clamp")) for r in views}))
            + ".", ""] + neighbour_lines(records) \
        + ["", "The neighbour's UDP delivered: " + ", ".join(
            f"{v:.2f} of {k:g} Mbit/s offered" for k, v in got.items() if k > 0) + ".", "",
           "What the path's TCP got (the medium's counters of the path's links only):", ""] \
        + V.table_lines(views, OUTSIDE) \
        + ["", "The claims that differ on the default layout, judged per offered load "
           "(criteria as in the grid's, restricted to these paths and rate):", ""] \
        + V.claim_lines(views, OUTSIDE) + ["", V.verdict_line(views, OUTSIDE), ""]
