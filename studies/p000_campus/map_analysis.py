"""Paper 000's analyses of its grid (path x rate x RTS/CTS x window) from our run records.

The paper averages, per hop count, over its 4 (or 2) paths and 3 runs of each; so do we: the
mean over a hop count's paths of each path's mean over repetitions. Windows are the receiver
window limits the experiments sweep (``policy.rwnd_clamp``: 1..6 segments, None = unclamped);
rates are ``topology.rate`` (2, 5.5, "auto"). Pure: records in, numbers out (no plots).

Definitions (the paper's, where it gives one):
- spread across windows: (max - min) / min of the hop count's average throughput over all
  window values, unclamped included (the paper's 9277 % comes from a zero at 3 segments);
- best window: the limited window (1..6) with the highest average throughput;
- RTS/CTS gain: average over windows of the hop count's average throughput, one setting over
  the other, minus 1; at 4 hops the paper compares the maximum averages over windows instead;
- Table 3: per hop count and rate, the RTS/CTS setting whose best average is higher, "on/off"
  when the hop count's paths disagree (some better with it, some without), then the best window
  of each setting named.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from harness.analysis import records as A
from harness.analysis import stats

RATES: Tuple[Any, ...] = (2, 5.5, "auto")
RTS: Tuple[bool, ...] = (False, True)
WINDOWS: Tuple[Optional[int], ...] = (1, 2, 3, 4, 5, 6, None)
HOPS: Tuple[int, ...] = (1, 2, 3, 4)

Key = Tuple[str, Any, bool, Optional[int]]          # path, rate, rts, window
HopKey = Tuple[int, Any, bool, Optional[int]]       # hops, rate, rts, window


def hops_of(path: str) -> int:
    return path.count("-")


def rate_label(rate: Any) -> str:
    return "auto" if rate == "auto" else f"{rate:g} Mbit/s"


def window_label(window: Optional[int]) -> str:
    return "unclamped" if window is None else str(window)


def rtt_ms(rec: Mapping[str, Any]) -> Optional[float]:
    """The flow's mean RTT (ms) from the sender's socket samples."""
    flows = rec.get("flows") or []
    value = flows[0].get("rtt_mean_ms") if flows else None
    return float(value) if isinstance(value, (int, float)) else None


@dataclass
class Grid:
    """Per (path, rate, rts, window): throughputs (kbit/s) and RTTs (ms) over repetitions."""

    kbps: Dict[Key, List[float]]
    rtt: Dict[Key, List[float]]

    @classmethod
    def of(cls, records: Iterable[Mapping[str, Any]], window: str = "rwnd_clamp",
           zero: Optional[Callable[[Mapping[str, Any]], bool]] = None) -> Grid:
        """The grid of one window mechanism: ``rwnd_clamp`` (the receiver's, the paper grid's;
        runs with a sender limit are left out) or ``cwnd_clamp`` (only runs with one).
        ``zero`` names the failed runs that are their point's outcome (a path that carried
        nothing, e.g. ``map_eleven.broken_path``): they count as 0 kbit/s, with no RTT; other
        failed runs are left out."""
        kbps: Dict[Key, List[float]] = {}
        rtt: Dict[Key, List[float]] = {}
        for rec in records:
            policy = (rec.get("params") or {}).get("policy", {})
            nothing = zero is not None and rec.get("status") != "ok" and zero(rec)
            if (rec.get("status") != "ok" and not nothing) \
                    or A.param(rec, "topology.builder") != "campus" \
                    or ("cwnd_clamp" in policy) != (window == "cwnd_clamp"):
                continue
            key = (A.param(rec, "topology.path"), A.param(rec, "topology.rate"),
                   bool(A.param(rec, "topology.rts")), policy.get(window))
            if nothing:
                kbps.setdefault(key, []).append(0.0)
                continue
            value = A.throughput_kbps(rec)
            if value is not None:
                kbps.setdefault(key, []).append(value)
            r = rtt_ms(rec)
            if r is not None:
                rtt.setdefault(key, []).append(r)
        return cls(kbps, rtt)

    def paths(self, hops: Optional[int] = None) -> List[str]:
        found = sorted({k[0] for k in self.kbps}, key=lambda p: (hops_of(p), p))
        return [p for p in found if hops is None or hops_of(p) == hops]

    def hop_counts(self) -> List[int]:
        return sorted({hops_of(p) for p in self.paths()})

    def mean(self, key: Key, what: str = "kbps") -> Optional[float]:
        vals = (self.kbps if what == "kbps" else self.rtt).get(key)
        return stats.mean(vals) if vals else None

    def avg(self, hops: int, rate: Any, rts: bool, window: Optional[int], what: str = "kbps",
            exclude: Sequence[str] = ()) -> Optional[float]:
        """Mean over the hop count's paths of each path's mean (None if a path is missing)."""
        vals = [self.mean((p, rate, rts, window), what) for p in self.paths(hops)
                if p not in exclude]
        if not vals or any(v is None for v in vals):
            return None
        return sum(v for v in vals if v is not None) / len(vals)

    def series(self, hops: int, rate: Any, rts: bool, what: str = "kbps"
               ) -> Dict[Optional[int], float]:
        """Window -> the hop count's average (windows with every path measured)."""
        out = {}
        for w in WINDOWS:
            v = self.avg(hops, rate, rts, w, what)
            if v is not None:
                out[w] = v
        return out

    def per_path(self, path: str, rate: Any, rts: bool, what: str = "kbps"
                 ) -> Dict[Optional[int], List[float]]:
        src = self.kbps if what == "kbps" else self.rtt
        return {w: src[(path, rate, rts, w)] for w in WINDOWS if (path, rate, rts, w) in src}


# -- the paper's quantities ----------------------------------------------------------------
def spread(series: Mapping[Optional[int], float]) -> Optional[float]:
    """(max - min) / min in percent (inf when the minimum is 0); None with < 2 windows."""
    if len(series) < 2:
        return None
    lo, hi = min(series.values()), max(series.values())
    return math.inf if lo <= 0 else (hi - lo) / lo * 100


def best_window(series: Mapping[Optional[int], float]) -> Optional[int]:
    limited = {w: v for w, v in series.items() if w is not None}
    return max(limited, key=lambda w: (limited[w], -w)) if limited else None


def rts_gain(grid: Grid, hops: int, rate: Any, favour: bool, how: str = "mean"
             ) -> Optional[float]:
    """Percent by which RTS/CTS ``favour`` (True = on) beats the other setting: averages over
    windows (``how="mean"``) or the best averages over windows (``"max"``)."""
    a, b = grid.series(hops, rate, favour), grid.series(hops, rate, not favour)
    common = [w for w in a if w in b]
    if not common:
        return None
    agg = (lambda s: sum(s[w] for w in common) / len(common)) if how == "mean" \
        else (lambda s: max(s[w] for w in common))
    base = agg(b)
    return None if base <= 0 else (agg(a) / base - 1) * 100


def path_rts_winner(grid: Grid, path: str, rate: Any) -> Optional[bool]:
    """The RTS/CTS setting whose best window gives this path more (None: missing data)."""
    best = {}
    for rts in RTS:
        vals = [grid.mean((path, rate, rts, w)) for w in WINDOWS]
        got = [v for v in vals if v is not None]
        if not got:
            return None
        best[rts] = max(got)
    return best[True] > best[False]


@dataclass
class Table3Cell:
    rts: str          # "on", "off" or "on/off"
    window: str       # "2", or "1 / 4" for on/off (RTS on's optimum / RTS off's)


def table3(grid: Grid) -> Dict[Tuple[int, Any], Table3Cell]:
    out = {}
    for h in grid.hop_counts():
        for rate in RATES:
            winners = [path_rts_winner(grid, p, rate) for p in grid.paths(h)]
            if not winners or any(w is None for w in winners):
                continue
            bw = {rts: best_window(grid.series(h, rate, rts)) for rts in RTS}
            if all(winners):
                out[(h, rate)] = Table3Cell("on", str(bw[True]))
            elif not any(winners):
                out[(h, rate)] = Table3Cell("off", str(bw[False]))
            else:
                out[(h, rate)] = Table3Cell("on/off", f"{bw[True]} / {bw[False]}")
    return out


#: Paper 000's Table 3 (§5): (hops, rate) -> (RTS/CTS, best window).
PAPER_TABLE3 = {
    (1, 2): ("off", "2"), (1, 5.5): ("off", "2"), (1, "auto"): ("off", "2"),
    (2, 2): ("on/off", "1 / 2"), (2, 5.5): ("off", "3"), (2, "auto"): ("off", "2"),
    (3, 2): ("on/off", "1 / 4"), (3, 5.5): ("on", "1"), (3, "auto"): ("on/off", "1 / 5"),
    (4, 2): ("on/off", "1 / 6"), (4, 5.5): ("on", "6"), (4, "auto"): ("on", "1"),
}
#: The paper's spread tables (§4.1-4.4): (hops, rts) -> {rate: percent}; 1 hop: "< 5 %".
PAPER_SPREAD = {
    (2, True): {2: 18, 5.5: 17, "auto": 27}, (2, False): {2: 8, 5.5: 12, "auto": 25},
    (3, True): {2: 34, 5.5: 96, "auto": 245}, (3, False): {2: 163, 5.5: 82, "auto": 389},
    (4, True): {2: 16, 5.5: 35, "auto": 206}, (4, False): {2: 56, 5.5: 64, "auto": 9277},
}
#: Best windows the paper states (§4.2-4.4): (hops, rts) -> {rate: window}.
PAPER_BEST = {
    (2, True): {2: 1, 5.5: 1, "auto": 1}, (2, False): {2: 2, 5.5: 3, "auto": 2},
    (3, True): {2: 1, 5.5: 1, "auto": 1}, (3, False): {2: 4, 5.5: 5, "auto": 5},
    (4, True): {2: 1, 5.5: 6, "auto": 1}, (4, False): {2: 6, 5.5: 6, "auto": 6},
}
#: RTS/CTS off over on at 1 hop (§4.1), percent.
PAPER_RTS_1HOP = {2: 4, 5.5: 12, "auto": 23}
#: RTS/CTS on over off at 3-4 hops (§4.3-4.4, claim 5), percent: (hops, rate) -> gain; 3 hops
#: compares averages over windows, 4 hops the best averages.
PAPER_RTS_LONG = {(3, 5.5): 24, (4, 5.5): 27, (4, "auto"): 19}


def mean_over(grid: Grid, hops: int, what: str = "kbps", rates: Sequence[Any] = RATES,
              rts: Sequence[bool] = RTS, windows: Sequence[Optional[int]] = WINDOWS,
              exclude: Sequence[str] = ()) -> Optional[float]:
    vals = [grid.avg(hops, r, s, w, what, exclude) for r in rates for s in rts for w in windows]
    got = [v for v in vals if v is not None]
    return sum(got) / len(got) if got else None


def _best_windows(grid: Grid, hops: Sequence[int], rts: bool) -> Dict[Tuple[int, Any], int]:
    out = {}
    for h in hops:
        for r in RATES:
            w = best_window(grid.series(h, r, rts))
            if w is not None:
                out[(h, r)] = w
    return out


#: MAC bytes around an IP packet in an IBSS: QoS data header 26, LLC/SNAP 8, FCS 4.
MAC_OVERHEAD = 38


def one_segment_model(rate: float, rts: bool) -> float:
    """Analytic 1-hop goodput with a 1-segment receiver window over goodput with a full
    pipe (harness.medium.analytic): Linux sends a 1448-byte window as two 724-byte segments
    (docs/policies.md), each its own DCF exchange, plus one TCP ACK per two segments; the
    full pipe sends 1448-byte segments. Idle time while the sender waits is left out, so
    this is the part of the loss the segment size alone explains."""
    from harness.medium import analytic
    half = analytic.tcp_goodput_mbps("b", rate, mss=724, overhead=MAC_OVERHEAD, rts=rts)
    full = analytic.tcp_goodput_mbps("b", rate, mss=1448, overhead=MAC_OVERHEAD, rts=rts)
    return half / full


#: The basic rate set our 802.11b radios join with (``harness.kernel.wireless.basic_rates``):
#: the medium sends RTS, CTS and ACK at the data rate, up to 11 Mbit/s.
OUR_BASIC: Tuple[float, ...] = (1.0, 2.0, 5.5, 11.0)
#: The 802.11b basic rate set of madwifi's 802.11 layer (1 and 2 Mbit/s): control frames of
#: a 5.5 or 11 Mbit/s frame at 2 Mbit/s (studies/p000_campus/experiments/000_basic_rates.yaml).
MAP_BASIC: Tuple[float, ...] = (1.0, 2.0)


def rts_cost_model(rate: float, short_preamble: bool = False, acks_bare: bool = False,
                   basic: Sequence[float] = OUR_BASIC) -> float:
    """Analytic gain (percent) of RTS/CTS off over on for one TCP flow on one clean hop
    (harness.medium.analytic; long preamble: each RTS and CTS carries its own 192 us PLCP
    header, 96 us with the short one): the cost of the extra exchange alone, with no hidden
    terminal to prevent. ``acks_bare``: only the data segments go behind RTS/CTS, the TCP
    ACKs bare (an RTS threshold between the two lengths, ``topology.rts_threshold``).
    ``basic``: the basic rate set, which fixes the control frames' rate (our radios' by
    default; ``MAP_BASIC`` puts them at 2 Mbit/s)."""
    from harness.medium import analytic
    off = analytic.tcp_goodput_mbps("b", rate, overhead=MAC_OVERHEAD,
                                    short_preamble=short_preamble, basic=list(basic))
    on = analytic.tcp_goodput_mbps("b", rate, overhead=MAC_OVERHEAD, rts=True,
                                   ack_rts=False if acks_bare else None,
                                   short_preamble=short_preamble, basic=list(basic))
    return (off / on - 1) * 100


#: TCP payload per segment with timestamps (bytes): the unit of the grid's windows.
SEGMENT_BYTES = 1448


def little_rtt_ms(window: int, kbps: float) -> float:
    """Little's law for a window-limited flow: the RTT is the window's bytes over the
    throughput, wherever on the path (air or queue) they wait."""
    return window * SEGMENT_BYTES * 8 / kbps


def little_rows(grid: Grid, hops: Sequence[int] = (1, 2), rts: bool = False,
                windows: Sequence[int] = (1, 2, 3, 4, 5, 6), rates: Sequence[Any] = RATES,
                exclude: Sequence[str] = ("5-3-23",)
                ) -> List[Tuple[int, Any, Dict[int, Tuple[float, float]]]]:
    """(hops, rate, window -> (measured RTT, Little's RTT) in ms) from the hop count's
    averages, the paths of claim 9 (5-3-23 aside); points not measured are left out."""
    out = []
    for h in hops:
        for rate in rates:
            cells = {}
            for w in windows:
                rtt = grid.avg(h, rate, rts, w, "rtt", exclude)
                kbps = grid.avg(h, rate, rts, w, "kbps", exclude)
                if rtt is not None and kbps:
                    cells[w] = (rtt, little_rtt_ms(w, kbps))
            if cells:
                out.append((h, rate, cells))
    return out


def one_segment_rows(grid: Grid) -> List[Tuple[Any, bool, Optional[float], float]]:
    """(rate, rts, measured window-1 / unclamped at 1 hop, model ratio) at the fixed rates."""
    out = []
    for rate in (2, 5.5):
        for rts in RTS:
            one, free = grid.avg(1, rate, rts, 1), grid.avg(1, rate, rts, None)
            measured = one / free if one is not None and free else None
            out.append((rate, rts, measured, one_segment_model(float(rate), rts)))
    return out


def mechanism_rows(sender: Iterable[Mapping[str, Any]], grid: Grid
                   ) -> List[Tuple[str, bool, Optional[int], float, Optional[float]]]:
    """(path, rts, window, kbit/s with the sender's limit, kbit/s with the receiver's) for the
    points the sender-window experiment ran (same path, rate 5.5, RTS/CTS and window)."""
    acc: Dict[Tuple[str, bool, Optional[int]], List[float]] = {}
    for rec in sender:
        if rec.get("status") != "ok" or "cwnd_clamp" not in rec["params"]["policy"]:
            continue
        value = A.throughput_kbps(rec)
        if value is not None:
            key = (A.param(rec, "topology.path"), bool(A.param(rec, "topology.rts")),
                   A.param(rec, "policy.cwnd_clamp"))
            acc.setdefault(key, []).append(value)
    out = []
    for (path, rts, w), vals in sorted(acc.items(), key=lambda kv: (hops_of(kv[0][0]), kv[0][0],
                                                                   kv[0][1], kv[0][2] or 99)):
        out.append((path, rts, w, stats.mean(vals), grid.mean((path, 5.5, rts, w))))
    return out


# -- the checkable claims (000.4) ----------------------------------------------------------
def near_paper_best_off(hops: int, window: int) -> bool:
    """Claim 7's test of one best window with RTS/CTS off: within 1 segment of the paper's
    min(6, ceil(1.5 h))."""
    return abs(window - min(6, math.ceil(1.5 * hops))) <= 1


@dataclass
class Verdict:
    """One claim of 000.4 judged on one layout's records."""

    key: str
    claim: str
    regime: str
    paper: str
    ours: str
    holds: Optional[bool]        # None: not measured
    criterion: str


def _fmt_pct(v: Optional[float]) -> str:
    if v is None:
        return "-"
    return "inf" if math.isinf(v) else f"{v:+.0f} %" if v < 0 else f"{v:.0f} %"


def fmt_gain(v: Optional[float]) -> str:
    """A gain in percent with its sign (``+12 %``, ``-3 %``)."""
    return "-" if v is None else f"{v:+.0f} %"


def verdicts(grid: Grid) -> List[Verdict]:
    """Claims 1-12 of paper 000 (papers' 000.4), each with the criterion it is judged by."""
    out: List[Verdict] = []
    hops = grid.hop_counts()
    cells = [(r, s) for r in RATES for s in RTS]

    def spreads(h: int) -> List[float]:
        vals = [spread(grid.series(h, r, s)) for r, s in cells]
        return [v for v in vals if v is not None]

    # 1. window barely matters at 1 hop
    s1 = spreads(1) if 1 in hops else []
    out.append(Verdict(
        "window_1hop", "window size barely matters at 1 hop", "1 hop, every rate and RTS/CTS",
        "< 5 % (10-15 % on the longest links)",
        ", ".join(_fmt_pct(v) for v in s1) if s1 else "-",
        max(s1) <= 15 if s1 else None, "spread across windows <= 15 % for all 6 rate x RTS/CTS"))
    # 2. window sensitivity grows with hop count
    med = {h: stats.median(spreads(h)) for h in hops if spreads(h)}
    grows = None
    if all(h in med for h in (1, 2, 3)):
        grows = med[1] < med[2] < med[3] and (4 not in med or med[4] > med[2])
    out.append(Verdict(
        "spread_grows", "window sensitivity grows with hop count", "1-4 hops, medians over rate x "
        "RTS/CTS", "<= 5 %, 8-27 %, 34-389 %, 16-9277 %",
        ", ".join(f"{h}: {_fmt_pct(v)}" for h, v in med.items()) or "-", grows,
        "median spread at 1 < 2 < 3 hops, and 4 hops above 2 hops"))
    # 3. throughput falls steeply with hop count
    ratio2 = []
    for r, s in cells:
        one = mean_over(grid, 1, rates=[r], rts=[s]) if 1 in hops else None
        two = mean_over(grid, 2, rates=[r], rts=[s]) if 2 in hops else None
        if one and two is not None:
            ratio2.append(two / one)
    far = [mean_over(grid, h) for h in (3, 4) if h in hops]
    one_all = mean_over(grid, 1) if 1 in hops else None
    steep = None
    if ratio2 and len(ratio2) == len(cells) and far and one_all:
        steep = max(ratio2) < 0.5 and all(v is not None and v < 0.25 * one_all for v in far)
    out.append(Verdict(
        "hop_scaling", "throughput falls steeply with hop count", "all rates and RTS/CTS",
        "2-hop < 0.5 x 1-hop; 3-hop < 300 kbit/s, 4-hop <= 390 kbit/s (5.5 Mbit/s)",
        (f"2-hop / 1-hop {min(ratio2):.2f}-{max(ratio2):.2f}; " if ratio2 else "")
        + ", ".join(f"{h} hops {v:.0f} kbit/s" for h, v in
                    ((h, mean_over(grid, h)) for h in hops) if v is not None), steep,
        "2-hop / 1-hop < 0.5 for all 6 rate x RTS/CTS, and 3- and 4-hop < 0.25 x 1-hop"))
    # 4. RTS/CTS hurts at 1 hop, more at higher rates
    g1 = {r: rts_gain(grid, 1, r, favour=False) for r in RATES} if 1 in hops else {}
    hurt = None
    if g1 and all(v is not None for v in g1.values()):
        vals = [g1[r] for r in RATES]
        hurt = all(v > 0 for v in vals if v is not None) and vals[0] < vals[1] < vals[2]  # type: ignore[operator]
    out.append(Verdict(
        "rts_1hop", "RTS/CTS hurts at 1 hop, more at higher rates", "1 hop; averages over windows",
        "RTS off +4 %, +12 %, +23 % (2, 5.5, auto)",
        ", ".join(f"{rate_label(r)} {fmt_gain(v)}" for r, v in g1.items()) or "-", hurt,
        "RTS off ahead at every rate, the gain growing 2 < 5.5 < auto"))
    # 5. RTS/CTS helps at 3-4 hops (5.5 and auto)
    g34 = {}
    if 3 in hops:
        g34["3 hops, 5.5"] = rts_gain(grid, 3, 5.5, favour=True)
    if 4 in hops:
        g34["4 hops, 5.5"] = rts_gain(grid, 4, 5.5, favour=True, how="max")
        g34["4 hops, auto"] = rts_gain(grid, 4, "auto", favour=True, how="max")
    helps = all(v is not None and v > 0 for v in g34.values()) if len(g34) == 3 else None
    out.append(Verdict(
        "rts_3_4hops", "RTS/CTS helps at 3-4 hops (hidden terminals)",
        "3 hops: averages over windows; 4 hops: best averages", "+24 % (3 hops, 5.5), +27 % "
        "(4 hops, 5.5), +19 % (4 hops, auto)",
        ", ".join(f"{k} {fmt_gain(v)}" for k, v in g34.items()) or "-", helps,
        "RTS on ahead in all three"))
    # 6. best window with RTS on is about 1 segment (2-4 hops)
    on = _best_windows(grid, [h for h in (2, 3, 4) if h in hops], True)
    small = sum(1 for v in on.values() if v <= 2)
    out.append(Verdict(
        "best_on", "best window with RTS/CTS on is about 1 segment", "2-4 hops, every rate",
        "1 in 8 of 9 cells (6 at 4 hops, 5.5)",
        ", ".join(f"{h}h/{rate_label(r)}: {v}" for (h, r), v in on.items()) or "-",
        small >= 6 if len(on) == 9 else None, "best window <= 2 in at least 6 of the 9 cells"))
    # 7. best window with RTS off is about ceil(1.5 h)
    off = _best_windows(grid, hops, False)
    near = sum(1 for (h, _r), v in off.items() if near_paper_best_off(h, v))
    out.append(Verdict(
        "best_off", "best window with RTS/CTS off is about ceil(1.5 h)", "1-4 hops, every rate",
        "2, 2-3, 4-5, 6 segments at 1-4 hops",
        ", ".join(f"{h}h/{rate_label(r)}: {v}" for (h, r), v in off.items()) or "-",
        near >= 8 if len(off) == 12 else None,
        "best window within 1 of min(6, ceil(1.5 h)) in at least 8 of the 12 cells"))
    # 8. RTT against RTS/CTS flips with hop count
    rtt: Dict[Tuple[int, bool], float] = {}
    for h in hops:
        for s in RTS:
            value = mean_over(grid, h, "rtt", rts=[s])
            if value is not None:
                rtt[(h, s)] = value
    flips = None
    if all((h, s) in rtt for h in (1, 2, 3, 4) for s in RTS):
        flips = all(rtt[(h, True)] > rtt[(h, False)] for h in (1, 2)) and \
            all(rtt[(h, True)] < rtt[(h, False)] for h in (3, 4))
    out.append(Verdict(
        "rtt_flip", "RTS/CTS raises RTT at 1-2 hops, lowers it at 3-4", "means over rates and "
        "windows", "higher with RTS at 1-2 hops, lower at 3-4",
        ", ".join(f"{h} hops {rtt[(h, False)]:.0f}/{rtt[(h, True)]:.0f} ms"
                  for h in hops if rtt.get((h, False)) and rtt.get((h, True))) or "-", flips,
        "mean RTT off/on per hop count: on > off at 1, 2 hops; on < off at 3, 4"))
    # 9. RTT is small at 1-2 hops (5-3-23 aside)
    small_rtt = [grid.avg(h, r, s, w, "rtt", exclude=("5-3-23",)) for h in (1, 2) if h in hops
                 for r in RATES for s in RTS for w in WINDOWS]
    got = [v for v in small_rtt if v is not None]
    under = sum(1 for v in got if v < 20)
    out.append(Verdict(
        "rtt_small", "RTT is small at 1-2 hops", "1-2 hops, 5-3-23 aside; every rate, RTS/CTS, "
        "window", "< 20 ms", f"{under} of {len(got)} averages < 20 ms (median "
        f"{stats.median(got):.0f} ms)" if got else "-",
        under >= 0.9 * len(got) if got else None, "at least 90 % of the averages below 20 ms"))
    # 10. a higher fixed rate gives more at 1 hop
    order = {s: [mean_over(grid, 1, rates=[r], rts=[s]) for r in RATES] for s in RTS} \
        if 1 in hops else {}
    ordered = None
    if order and all(v is not None for vs in order.values() for v in vs):
        ordered = all(vs[0] < vs[1] < vs[2] for vs in order.values())  # type: ignore[operator]
    out.append(Verdict(
        "rate_order_1hop", "2 < 5.5 < auto at 1 hop", "1 hop, both RTS/CTS settings",
        "2 < 5.5 < auto",
        "; ".join(f"RTS {'on' if s else 'off'}: " + " / ".join(f"{v:.0f}" for v in vs if v)
                  for s, vs in order.items()) + " kbit/s" if order else "-", ordered,
        "means over windows and paths strictly increase with the rate, both RTS/CTS settings"))
    # 11. auto rate: best at 1, 2, 4 hops, worse than 5.5 at 3
    auto_vs = {h: (mean_over(grid, h, rates=["auto"]), mean_over(grid, h, rates=[5.5]))
               for h in hops}
    pattern = None
    if all(a is not None and b is not None for a, b in auto_vs.values()) and len(auto_vs) == 4:
        pattern = all((a > b) == (h != 3) for h, (a, b) in auto_vs.items())  # type: ignore[operator]
    out.append(Verdict(
        "auto_vs_55", "auto rate beats 5.5 Mbit/s at 1, 2, 4 hops, not at 3", "means over RTS/CTS "
        "and windows", "auto > 5.5 at 1, 2, 4 hops; < at 3",
        ", ".join(f"{h} hops {a:.0f}/{b:.0f}" for h, (a, b) in auto_vs.items()
                  if a is not None and b is not None) + " kbit/s (auto/5.5)" if auto_vs else "-",
        pattern, "the sign of auto - 5.5 as stated at each hop count"))
    # 12. 11 Mbit/s beyond 1 hop: prior experience in the paper, not in its grid (nor ours)
    out.append(Verdict(
        "eleven", "11 Mbit/s gives very low throughput beyond 1 hop", "prior experience, not "
        "measured", "very low", "-", None, "not in the grid (no fixed 11 Mbit/s): its own run, "
        "studies/p000_campus/experiments/000_rate11.yaml, on the paper page"))
    return out


#: The rate of the long-path claims' slices (E23's).
LONG_RATE = 5.5
#: Claim 3's bounds on the best average at 3 and 4 hops (kbit/s): what MAP's long paths carried.
MAP_LONG_BEST = {3: 300.0, 4: 390.0}


def long_path_claims(grid: Grid) -> List[Tuple[str, str, Optional[bool]]]:
    """Claims 3, 5, 6 and 7 as they read on the 3- and 4-hop paths at 5.5 Mbit/s alone (the
    criteria of ``verdicts`` restricted to them), for the runs that test a reading on those
    paths only: (claim, ours, holds)."""
    hops = [h for h in (3, 4) if h in grid.hop_counts()]
    out: List[Tuple[str, str, Optional[bool]]] = []
    best = {h: max([v for s in RTS for v in grid.series(h, LONG_RATE, s).values()], default=None)
            for h in hops}
    got = [h for h in hops if best[h] is not None]
    out.append(("3: long paths carry what MAP's did (best average < 300 kbit/s at 3 hops, "
                "<= 390 at 4)", ", ".join(f"{h} hops {best[h]:.0f}" for h in got) or "-",
                all((best[h] or 0) <= MAP_LONG_BEST[h] for h in got) if len(got) == 2 else None))
    gains = {h: rts_gain(grid, h, LONG_RATE, favour=True, how="mean" if h == 3 else "max")
             for h in hops}
    out.append(("5: RTS/CTS helps at 3-4 hops (3 hops: means over windows; 4 hops: best "
                "averages)", ", ".join(f"{h} hops {fmt_gain(g)}" for h, g in gains.items()),
                all(g is not None and g > 0 for g in gains.values()) if len(gains) == 2
                else None))
    for rts, claim, ok in ((True, "6: best window with RTS/CTS on <= 2",
                            lambda h, w: w <= 2),
                           (False, "7: best window with RTS/CTS off within 1 of ceil(1.5 h)",
                            near_paper_best_off)):
        wins = {h: best_window(grid.series(h, LONG_RATE, rts)) for h in hops}
        out.append((claim, ", ".join(f"{h} hops {window_label(w)}" for h, w in wins.items()),
                    all(w is not None and ok(h, w) for h, w in wins.items())
                    if len(wins) == 2 else None))
    return out
