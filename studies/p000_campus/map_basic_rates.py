"""Paper 000's reading of the control frames' rate (studies/p000_campus/experiments/000_basic_rates.yaml and
its 1-hop part, 000_basic_rates_1hop.yaml): our radios join with every 802.11b rate basic, so
the medium sends RTS, CTS and ACK at the data rate; madwifi's 802.11 layer marked only 1 and
2 Mbit/s basic in 802.11b mode, so MAP's went at 2 Mbit/s for 5.5 and 11 Mbit/s frames
(``medium.basic_rates: {b: [1, 2]}``). Longer control frames make the exchange cost more at
1 hop (claim 4's figures); control frames at 2 Mbit/s decode farther than 5.5 Mbit/s data, so
a CTS could reach the hidden routers that our CTS does not (claim 5). Read beside
000_rts_threshold(_1hop), the same grids with the control frames at the data rate, through
that reading's helpers (``map_rts_threshold``); it tests one reading, it is not the model.

The CTS's reach is also read from the campus's link table, before any run: which routers of
a long path, hidden from a hop's sender, decode the receiver's CTS at 2 Mbit/s and at
5.5 Mbit/s (``cts_reach``).

Imports the paper-analysis helpers (``analysis``, ``map_analysis``, ``map_variants``,
``map_rts_threshold``, ``map_links``) and the campus builder for its link table.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from harness.analysis import records as A
from studies.p000_campus import map_analysis as M
from studies.p000_campus import map_links as L
from studies.p000_campus import map_rts_threshold as T
from studies.p000_campus import map_variants as V
from topologies import campus as C

#: The 1-hop rates the reading changes (at 2 Mbit/s the control frames go at 2 either way).
ONE_HOP_RATES: Tuple[Any, ...] = (5.5, "auto")
#: The thresholds compared: RTS/CTS before every frame, and above 500 bytes (TCP ACKs bare).
THRESHOLDS: Tuple[float, ...] = (T.EVERY_FRAME, T.ACKS_BARE)
#: The long-path points of claim 5 this reading runs (5.5 Mbit/s only).
LONG_POINTS: Tuple[Tuple[int, Any], ...] = ((3, 5.5), (4, 5.5))
#: A CTS (14 bytes) a router decodes at least this often sets its NAV (map_links' criterion).
CTS_BYTES = 14


def cts_reach(shadowing_seed: int = 1) -> List[Tuple[str, str, str, float, float]]:
    """On the paper's 3- and 4-hop paths (link table of the layout): for every hop s -> r
    (both directions) and every router h of the path hidden from s, the chance that h decodes
    r's CTS at 2 and at 5.5 Mbit/s: (path, hop, h, at 2, at 5.5)."""
    campus = C.load_campus(C.DEFAULT_CAMPUS)
    table = C.campus_links(campus, shadowing_seed, frame_bytes=CTS_BYTES)
    out = []
    for path in (p for p in L.PATHS if len(p) >= 4):
        name = "-".join(map(str, path))
        for s, r in C.path_hops(path):
            for h in path:
                if h in (s, r) or not L.hidden(table, s, h):
                    continue
                rn, hn = C.router_name(r), C.router_name(h)
                out.append((name, f"{s}->{r}", str(h), table.delivery(rn, hn, 2),
                            table.delivery(rn, hn, 5.5)))
    return out


def cts_reach_line(rows: Sequence[Tuple[str, str, str, float, float]]) -> str:
    """How many (hop, hidden router) pairs a CTS reaches at each rate, and at 2 Mbit/s only."""
    at2 = sum(1 for *_k, d2, _d in rows if d2 >= L.DECODES)
    at55 = sum(1 for *_k, _d2, d in rows if d >= L.DECODES)
    only = [f"{h} of {hop} on {p}" for p, hop, h, d2, d in rows
            if d2 >= L.DECODES > d]
    return (f"From the default layout's link table (a {CTS_BYTES}-byte frame, before any run): "
            f"of the {len(rows)} pairs of a hop and a router of the same 3- or 4-hop path "
            f"hidden from the hop's sender, {at2} decode the receiver's CTS at 2 Mbit/s and "
            f"{at55} at 5.5 Mbit/s (at least {L.DECODES:g} of the time); "
            + (f"{len(only)} only at 2 Mbit/s: " + ", ".join(only) if only else
               "none only at 2 Mbit/s, so a slower CTS sets no NAV that ours misses") + ".")


def control_at_two(rec: Mapping[str, Any]) -> bool:
    """The run's basic rate set is madwifi's {1, 2} (``medium.basic_rates``)."""
    basic = ((rec.get("params") or {}).get("medium") or {}).get("basic_rates") or {}
    return [float(r) for r in basic.get("b") or ()] == list(M.MAP_BASIC)


def split(records: Sequence[Mapping[str, Any]]
          ) -> Tuple[List[Mapping[str, Any]], List[Mapping[str, Any]]]:
    """(control frames at the data rate, at 2 Mbit/s): the ok records of each."""
    ok = [r for r in records if r.get("status") == "ok"]
    return [r for r in ok if not control_at_two(r)], [r for r in ok if control_at_two(r)]


def _pair(gains: Mapping[float, Mapping[Any, Optional[float]]], rate: Any) -> str:
    return " / ".join(M.fmt_gain((gains.get(t) or {}).get(rate)) for t in THRESHOLDS)


def one_hop_lines(data_rate: Sequence[Mapping[str, Any]], at_two: Sequence[Mapping[str, Any]]
                  ) -> List[str]:
    """Claim 4's 1-hop costs per control rate beside the paper and the clean-hop arithmetic
    with each basic rate set (long preamble)."""
    ours, theirs = T.one_hop_gains(data_rate), T.one_hop_gains(at_two)
    if not theirs:
        return []
    out = ["| rate | paper | control at the data rate: every frame / TCP ACKs bare | control "
           "at 2 Mbit/s: every frame / TCP ACKs bare | analytic, data rate: every / bare | "
           "analytic, 2 Mbit/s: every / bare |", "|---|---|---|---|---|---|"]
    for rate in ONE_HOP_RATES:
        model = 11.0 if rate == "auto" else float(rate)
        arith = [" / ".join(M.fmt_gain(M.rts_cost_model(model, acks_bare=bare, basic=basic))
                            for bare in (False, True)) for basic in (M.OUR_BASIC, M.MAP_BASIC)]
        out.append(f"| {M.rate_label(rate)} | +{M.PAPER_RTS_1HOP[rate]} % | {_pair(ours, rate)} "
                   f"| {_pair(theirs, rate)} | {arith[0]} | {arith[1]} |")
    return out


def long_lines(data_rate: Sequence[Mapping[str, Any]], at_two: Sequence[Mapping[str, Any]]
               ) -> List[str]:
    """Claim 5 (RTS/CTS on over off; 3 hops: means over windows, 4 hops: best averages) per
    control rate and threshold, beside the paper."""
    ours, theirs = T.long_gains(data_rate), T.long_gains(at_two)
    if not theirs:
        return []
    out = ["| hops | rate | paper | control at the data rate: every frame / TCP ACKs bare | "
           "control at 2 Mbit/s: every frame / TCP ACKs bare |", "|---|---|---|---|---|"]
    for h, rate in LONG_POINTS:
        cells = [" / ".join(M.fmt_gain(g.get((t, h, rate))) for t in THRESHOLDS)
                 for g in (ours, theirs)]
        out.append(f"| {h} | {M.rate_label(rate)} | +{M.PAPER_RTS_LONG[(h, rate)]} % | "
                   f"{cells[0]} | {cells[1]} |")
    return out


def rts_lost(records: Sequence[Mapping[str, Any]]) -> Dict[Tuple[float, int], Optional[float]]:
    """(threshold, hops) -> the share of the segments' direction's attempts whose RTS got no
    CTS, on the long paths (``map_rts_threshold.direction_sums``)."""
    out: Dict[Tuple[float, int], Optional[float]] = {}
    for (t, h, name), (att, rts, _data) in T.direction_sums(records).items():
        if name == "segments" and h in (3, 4):
            out[(t, h)] = rts / att if att else None
    return out


def rts_lost_lines(data_rate: Sequence[Mapping[str, Any]], at_two: Sequence[Mapping[str, Any]]
                   ) -> List[str]:
    """The RTS frames of the segments' direction that got no CTS, per control rate."""
    ours, theirs = rts_lost(data_rate), rts_lost(at_two)
    if not theirs:
        return []
    pct = lambda v: "-" if v is None else f"{v * 100:.1f} %"  # noqa: E731
    out = ["| RTS/CTS on | hops | RTS lost, control at the data rate | RTS lost, control at "
           "2 Mbit/s |", "|---|---|---|---|"]
    for t, h in sorted(set(ours) | set(theirs)):
        out.append(f"| {T._cell(t)} | {h} | {pct(ours.get((t, h)))} | {pct(theirs.get((t, h)))} |")
    return out


def claim5_holds(at_two: Sequence[Mapping[str, Any]]) -> Optional[bool]:
    """Claim 5 with the control frames at 2 Mbit/s: RTS/CTS on pays at 3 and at 4 hops at
    5.5 Mbit/s with one of the thresholds (None unless both hop counts are measured)."""
    gains = T.long_gains(at_two)
    per = {t: [gains.get((t, h, r)) for h, r in LONG_POINTS] for t in THRESHOLDS}
    if not any(all(v is not None for v in vals) for vals in per.values()):
        return None
    return any(all(v is not None and v > 0 for v in vals) for vals in per.values())


def claim4_near(at_two: Sequence[Mapping[str, Any]]) -> Optional[bool]:
    """Claim 4's figures with the control frames at 2 Mbit/s and the TCP ACKs bare: within
    ``map_rts_threshold.TOLERANCE`` points of the paper's at 5.5 Mbit/s and auto rate."""
    bare = T.one_hop_gains(at_two).get(T.ACKS_BARE) or {}
    vals = [(bare.get(r), M.PAPER_RTS_1HOP[r]) for r in ONE_HOP_RATES]
    if any(v is None for v, _p in vals):
        return None
    return all(v is not None and abs(v - p) <= T.TOLERANCE for v, p in vals)


def verdict(records: Sequence[Mapping[str, Any]]) -> str:
    """The reading's outcome on claims 4 and 5."""
    _ours, at_two = split(records)
    c4, c5 = claim4_near(at_two), claim5_holds(at_two)
    near = f"within {T.TOLERANCE:g} points of the paper's at 5.5 Mbit/s and auto rate"
    part4 = ("not judged (the 1-hop runs are missing)" if c4 is None
             else f"come {near}" if c4 else f"do not come {near}")
    part5 = ("not judged (the 3- and 4-hop runs are missing)" if c5 is None else
             "RTS/CTS pays at 3 and 4 hops (claim 5 holds)" if c5 else
             "RTS/CTS still does not pay at both 3 and 4 hops (claim 5 fails)")
    return (f"**Verdict:** with the control frames at 2 Mbit/s the 1-hop costs with the TCP ACKs "
            f"bare {part4}; on the long paths {part5}.")


def section_lines(records: Sequence[Mapping[str, Any]],
                  reach: Optional[Sequence[Tuple[str, str, str, float, float]]] = None
                  ) -> List[str]:
    """The reading's part of a report or of the paper page: ``records`` are those of
    000_basic_rates(_1hop) with, where given, those of 000_rts_threshold(_1hop) (the control
    frames at the data rate); ``reach`` the link table's ``cts_reach`` where the page has it."""
    data_rate, at_two = split(records)
    if not at_two:
        return ["No run of the control-rate reading is stored yet.", ""]
    out = ["The same grids as the RTS-threshold reading (RTS/CTS off, on before every frame, on "
           "above 500 bytes; RTS/CTS per frame as madwifi chose it), with one change: the basic "
           "rate set {1, 2} (`medium.basic_rates: {b: [1, 2]}`), so that the medium sends RTS, "
           "CTS and ACK of a 5.5 or 11 Mbit/s frame at 2 Mbit/s, as madwifi's 802.11b mode "
           "did; ours otherwise join with every 802.11b rate basic and send them at the data "
           "rate. Default layout, one 20 s BIC flow per point, one run per point.", ""]
    hop1 = one_hop_lines(data_rate, at_two)
    if hop1:
        out += ["RTS/CTS off over on at 1 hop (claim 4: means over the windows "
                + T.windows_text(at_two, (1,)) + " and the four paths), beside the clean-hop "
                "arithmetic (harness.medium.analytic, long preamble, auto rate as 11 Mbit/s):",
                ""] + hop1 + [""]
    long_ = long_lines(data_rate, at_two)
    if long_:
        tags = T.tagged([r for r in at_two if M.hops_of(str(A.param(r, "topology.path"))) > 1])
        out += ["RTS/CTS on over off on the 3- and 4-hop paths as claim 5 reads it (3 hops: "
                "means over the windows " + T.windows_text(at_two, (3, 4)) + "; 4 hops: best "
                "averages):", ""] + long_ \
            + ["", "What TCP got at 5.5 Mbit/s with the control frames at 2 Mbit/s:", ""] \
            + V.table_lines(tags, T.THRESHOLD) \
            + ["", "The data segments' RTS frames that got no CTS (share of the segments' "
               "direction's attempts on the 3- and 4-hop paths):", ""] \
            + rts_lost_lines(data_rate, at_two)
    if reach is not None:
        out += ["", cts_reach_line(reach)]
    return out + ["", verdict(at_two), ""]
