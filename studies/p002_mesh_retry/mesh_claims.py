"""Paper 002's six checkable claims (its catalogue entry's "002.4"), each judged on the
records: the regime it was measured in, the paper's statement, ours, the verdict and, where we
differ, the explanation with the figures of the runs that tested it (the sweep's own counters
and the readings: lossy hops, fades in bursts, Linux 3.12's link-failure average). Every
figure is read from the records given; the prose only joins them.

Imports only the paper-analysis helpers, ``policies.frame_travel``, ``paper002`` and the
readings' modules (``mesh_lossy``, ``mesh_bursty``, ``mesh_fail_avg``,
``mesh_fail_avg_modules``).
"""
from __future__ import annotations

import statistics as stats
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from harness.analysis import records as A
from harness.study.claims import Judged, Row, judged_lines
from policies import frame_travel as ft
from studies.p002_mesh_retry import mesh_bursty as B
from studies.p002_mesh_retry import mesh_fail_avg as F
from studies.p002_mesh_retry import mesh_fail_avg_modules as FM
from studies.p002_mesh_retry import mesh_lossy as L
from studies.p002_mesh_retry import paper as P

Rec = Mapping[str, Any]
#: Limits at and above Linux's default, where the paper's decline lies.
HIGH = P.DEFAULT_LIMIT
#: A frame "needs a long series" beyond this many transmissions (the sweep's evidence table).
LONG = 5


def declines(series: A.Series) -> bool:
    """The curve turns down beyond its peak by more than the runs can blur: the largest limit
    lies outside the peak's plateau (``paper002.plateau``)."""
    peak = P.argmax(series)
    return peak is not None and peak != max(series) and max(series) not in P.plateau(series)


def _pct(a: float, b: float) -> str:
    return f"{a / b - 1:+.1%}" if b else "-"


def curve_text(series: A.Series) -> str:
    """'peak at R = x, R = last -y % from it' for one curve."""
    m = A.means(series)
    peak = P.argmax(series)
    if peak is None:
        return "no runs"
    last = max(m)
    if peak == last:
        return f"peak at the largest limit, R = {last}"
    return f"peak at R = {peak}, R = {last} {_pct(m[last], m[peak])}" + (
        " (a decline)" if declines(series) else "")


# -- the sweep's figures -------------------------------------------------------------------
def sweep_cells(sweep: Sequence[Rec]) -> List[Tuple[int, str, A.Series]]:
    return [(h, mod, s) for h in P.hop_counts(sweep) for mod, s in P.curves(sweep, h).items()
            if len(s) >= 3]


def regime(sweep: Sequence[Rec]) -> str:
    runs = [len(v) for _h, _m, s in sweep_cells(sweep) for v in s.values()]
    secs = sorted(P.flow_seconds(sweep))
    reps = f"{min(runs)}-{max(runs)}" if runs and min(runs) != max(runs) else \
        (str(runs[0]) if runs else "0")
    return (f"the sweep: {reps} x {'/'.join(f'{s:g}' for s in secs)} s a point, "
            "802.11g minstrel, one room, TGn channel, Linux 6.1")


def high_limit_evidence(sweep: Sequence[Rec]) -> Tuple[Optional[float], Optional[float]]:
    """At limits >= 7: (the largest per-point mean share of unicast frames that needed more
    than 5 transmissions, the largest per-point mean of drops at the limit per second)."""
    longs: Dict[Tuple[int, int], List[float]] = {}
    drops: Dict[Tuple[int, int], List[float]] = {}
    for rec in sweep:
        limit, hops = P.limit_of(rec), A.param(rec, "topology.hops")
        if rec.get("status") != "ok" or limit is None or limit < HIGH or P.policy_case(rec):
            continue
        share = P.tries_share_over(rec, LONG)
        if share is not None:
            longs.setdefault((hops, limit), []).append(share)
        drops.setdefault((hops, limit), []).append(P.limit_drops_per_s(rec))
    return (max((stats.mean(v) for v in longs.values()), default=None),
            max((stats.mean(v) for v in drops.values()), default=None))


def flat_beyond(cells: Sequence[Tuple[int, str, A.Series]]) -> Optional[float]:
    """The widest (max - min) / min of the means at limits >= 7 over the curves."""
    out = []
    for _h, _m, s in cells:
        high = [v for x, v in A.means(s).items() if x >= HIGH]
        if len(high) >= 2 and min(high) > 0:
            out.append(max(high) / min(high) - 1)
    return max(out) if out else None


# -- the readings' figures ----------------------------------------------------------------
#: One reading: (what it changed, with its file; {curve label: series}; the same curves
#: without the runs whose timeouts sent nothing, ``paper002.without_silent``).
Reading = Tuple[str, Dict[str, A.Series], Dict[str, A.Series]]


def lossy_reading(lossy: Sequence[Rec]) -> Reading:
    def curves(recs: Sequence[Rec]) -> Dict[str, A.Series]:
        return {f"loss {loss:g}": s for loss, s in L.curves(recs).items()}
    return (f"hops that lose attempts (`{L.NAME}`, `_more`)", curves(lossy),
            curves(P.without_silent(lossy)))


def bursty_reading(bursty: Sequence[Rec]) -> Reading:
    def curves(recs: Sequence[Rec]) -> Dict[str, A.Series]:
        return {f"{snr:g} dB": s for snr, s in L.curves(recs, B.BURSTY).items()}
    return f"fades in bursts (`{B.NAME}`)", curves(bursty), curves(P.without_silent(bursty))


def fail_avg_reading(fail_avg: Sequence[Rec]) -> Reading:
    def curves(recs: Sequence[Rec]) -> Dict[str, A.Series]:
        return {f"{hops} hops": s for (hops, build), s in sorted(F.curves(recs).items())
                if build != F.STOCK and s}
    return (f"mac80211 with Linux 3.12's link-failure average (`{F.NAME}`, cubic)",
            curves(fail_avg), curves(P.without_silent(fail_avg)))


def reading_text(reading: Reading) -> str:
    what, curves, _kept = reading
    return f"{what}: " + "; ".join(f"{label}: {curve_text(s)}" for label, s in curves.items()) \
        if curves else ""


def rto_text(lossy: Sequence[Rec]) -> str:
    """At the lossy reading's largest limit, per loss: the sender's RTO against the RTT."""
    groups = L.groups(lossy)
    if not groups:
        return ""
    high = max(limit for _loss, limit in groups)
    parts = []
    for (loss, limit), recs in groups.items():
        rtt = [x for r in recs for x in L.socket_values(r, "rtt_ms")]
        rto = [x for r in recs for x in L.socket_values(r, "rto_ms")]
        if limit == high and rtt and rto:
            p99 = L.quantile(rtt, 0.99)
            parts.append(f"loss {loss:g}: RTO median {stats.median(rto):.0f} ms, RTT median "
                         f"{stats.median(rtt):.0f} and 99th percentile {p99:.0f} ms")
    return (f"with lossy hops at R = {high} the sender's RTO follows the RTT ("
            + "; ".join(parts) + ")") if parts else ""


def declining(readings: Sequence[Reading]) -> List[Tuple[str, int]]:
    """(reading and curve, peak) of every reading's curve that declines beyond its peak; the
    label says when the decline goes with the runs whose timeouts sent nothing."""
    out = []
    for what, curves, kept in readings:
        for label, s in curves.items():
            if declines(s):
                gone = label in kept and not declines(kept[label])
                out.append((f"{what.split(' (')[0]}, {label}"
                            + (", only with the runs whose timeouts sent nothing" if gone
                               else ""), P.argmax(s) or 0))
    return out


def edited_curves(modules: Sequence[Rec], hops: int) -> Dict[str, A.Series]:
    """The edited build's curves (``002_fail_avg_modules`` with ``002_fail_avg``'s cubic) at
    one path length, by module."""
    return P.curves([r for r in modules if r.get("status") == "ok"
                     and F.build_of(r) != F.STOCK
                     and r.get("experiment") in (FM.NAME, F.NAME)], hops)


# -- the six claims -------------------------------------------------------------------------
def decline_summary(found: Sequence[Tuple[str, int]]) -> str:
    """Which readings brought a decline, and whether any with the paper's peak."""
    if not found:
        return "None of them brings a decline beyond the peak; the paper's decline is not found."
    band = [(w, x) for w, x in found if P.PEAK_BAND[0] <= x <= P.PEAK_BAND[1]]
    text = "A decline beyond the peak appears in: " + "; ".join(
        f"{w}, peak at R = {x}" for w, x in found) + ". "
    return text + ("With the paper's peak inside 5-9: " + "; ".join(w for w, _x in band) + "."
                   if band else "None of them with the peak inside 5-9: what put the paper's "
                   "peak there is not found.")


def judge_concave(cells: Sequence[Tuple[int, str, A.Series]], sweep: Sequence[Rec],
                  readings: Sequence[Reading], rto: str = "") -> Judged:
    n = len(cells)
    conc = sum(P.concave(s) for _h, _m, s in cells)
    inside = sum(P.PEAK_BAND[0] <= (P.argmax(s) or 0) <= P.PEAK_BAND[1] for _h, _m, s in cells)
    resolved = sum(P.peak_resolved(s) for _h, _m, s in cells)
    flat_end = sum(max(s) in P.plateau(s) for _h, _m, s in cells)
    dec = sum(declines(s) for _h, _m, s in cells)
    ours = (f"{conc} of {n} concave; argmax in 5-9 {inside} of {n}; {resolved} of {n} peaks "
            f"out of their runs' spread; the largest limit within the peak's spread {flat_end} "
            f"of {n}")
    starts = [min(P.plateau(s)) for _h, _m, s in cells]
    rise = f"{min(starts)}-{max(starts)}" if min(starts) != max(starts) else str(starts[0])
    if conc == inside == resolved == dec == n:
        verdict = "holds"
    elif dec == 0:
        verdict = f"differs: a rise to R = {rise}, then a plateau to the largest limit " \
            "(no decline)"
    else:
        verdict = f"partly: a decline on {dec} of {n}"
    why = ""
    if not verdict.startswith("holds"):
        longs, drops = high_limit_evidence(sweep)
        flat = flat_beyond(cells)
        lead = (f"Our curves rise from R = 1 to R = {rise} and then stay flat" if dec == 0
                else f"{n - dec} of {n} curves rise from R = 1 to R = {rise} and then stay "
                "flat")
        why = (lead
               + (f" (R >= 7 within {flat:.1%} of each other on every curve)"
                  if flat is not None else "")
               + ": at R >= 7 at most "
               + (f"{longs:.2%}" if longs is not None else "-")
               + " of unicast frames needed more than 5 transmissions and at most "
               + (f"{drops:.2f}" if drops is not None else "-")
               + " frames a second were dropped at the limit, so a larger limit has almost "
               "nothing to act on. Tested, each reading changing one thing: "
               + "; ".join(t for t in [*(reading_text(r) for r in readings), rto] if t) + ". "
               + decline_summary(declining(readings)))
    return Judged(1, "Throughput concave in the retry limit for every module at 3 and 5 hops; "
                  "argmax in [5, 9]; R = 1 and R = 31 below the peak", regime(sweep),
                  "12 of 12 concave, argmax in 5-9", ours, verdict, why)


def _held(row: Row) -> str:
    """A comparison-table row's verdict in this section's words."""
    return "holds" if row.verdict == "agrees" else row.verdict


def judge_small(cells: Sequence[Tuple[int, str, A.Series]], sweep: Sequence[Rec],
                row: Row) -> Judged:
    """Claim 2: the count and verdict are the comparison table's (``paper002.sweep_rows``);
    beside them how much R = 7 carries over R = 1."""
    pairs = [A.means(s) for _h, _m, s in cells if 1 in s and HIGH in s]
    ratios = [m[HIGH] / m[1] for m in pairs if m[1] > 0]
    ours = f"{row.ours}" + (
        f"; R = 7 carries {min(ratios):.1f}-{max(ratios):.1f}x R = 1" if ratios else "")
    return Judged(2, "Very small retry limits hurt TCP: throughput(1) < throughput(7)",
                  regime(sweep), "yes, every module", ours, _held(row))


def judge_earlier(cells: Sequence[Tuple[int, str, A.Series]], sweep: Sequence[Rec],
                  modules: Sequence[Rec]) -> Judged:
    by = {(h, mod): s for h, mod, s in cells}
    five = [s for (h, _m), s in by.items() if h == 5]
    three = [s for (h, _m), s in by.items() if h == 3]
    early5 = sum((P.argmax(s) or 99) <= HIGH and declines(s) for s in five)
    late3 = sum((P.argmax(s) or 99) <= 9 and declines(s) for s in three)
    ours = (f"5 hops: a peak at R <= 7 with a decline {early5} of {len(five)}; 3 hops: a "
            f"decline beyond a peak at R <= 9 {late3} of {len(three)}")
    verdict = "holds" if five and three and early5 == len(five) and late3 == len(three) else \
        "differs: no decline at either length" if early5 == late3 == 0 else "partly"
    why = ""
    if verdict != "holds":
        why = ("No curve declines (claim 1), so no decline can start earlier."
               if early5 == late3 == 0 else
               f"Only {early5} of {len(five)} 5-hop and {late3} of {len(three)} 3-hop curves "
               "decline where the claim puts it (claim 1).")
        c5, c3 = edited_curves(modules, 5), edited_curves(modules, 3)
        both = [m for m in c5 if m in c3]
        if both:
            first = [m for m in both if declines(c5[m])
                     and (P.argmax(c5[m]) or 99) <= (P.argmax(c3[m]) or 0)]
            why += (" Tested on mac80211 with Linux 3.12's link-failure average, every module "
                    f"(`{FM.NAME}` with `{F.NAME}`'s cubic), peaks at 5 / 3 hops: "
                    + ", ".join(f"{m} {P.argmax(c5[m])} / {P.argmax(c3[m])}" for m in both)
                    + f"; the 5-hop curve declines beyond a peak at or below the 3-hop one's "
                    f"for {len(first)} of {len(both)} modules ({', '.join(first) or 'none'})"
                    + (", with the 5-hop peak below 5: the claim's direction appears there, "
                       "not its limits." if first and all((P.argmax(c5[m]) or 0) < 5
                                                          for m in first) else "."))
    return Judged(3, "The decline starts earlier on the longer path: 5 hops after 5-7, 3 hops "
                  "after 9", regime(sweep), "5 hops: argmax <= 7, decline; 3 hops: decline "
                  "after 9", ours, verdict, why)


def shape_of(series: A.Series) -> str:
    """A curve's shape in words: a peak with a decline beyond it, a rise to a plateau that
    holds the largest limit, or neither."""
    m = A.means(series)
    rises = 1 in m and HIGH in m and m[1] < m[HIGH]
    if declines(series):
        return "a peak, then a decline"
    return "a rise to a plateau" if rises and max(series) in P.plateau(series) else "neither"


def judge_same_shape(cells: Sequence[Tuple[int, str, A.Series]], sweep: Sequence[Rec]
                     ) -> Judged:
    shapes: Dict[str, int] = {}
    for _h, _mod, s in cells:
        shapes[shape_of(s)] = shapes.get(shape_of(s), 0) + 1
    peaks: Dict[int, List[int]] = {}
    for h, _mod, s in cells:
        peaks.setdefault(h, []).append(P.argmax(s) or 0)
    ours = "; ".join(f"{k} of {len(cells)}: {shape}" for shape, k in shapes.items()) + "; " \
        + "; ".join(f"{h} hops argmax {min(v)}-{max(v)}" for h, v in sorted(peaks.items()))
    # CUBIC's level at 5 hops against the other modules' (the paper's outlier)
    five = {mod: s for h, mod, s in cells if h == 5}
    if "cubic" in five and len(five) > 1:
        def level(s: A.Series) -> float:
            return stats.mean(v for x, v in A.means(s).items() if x >= P.PEAK_BAND[0])
        others = [level(s) for mod, s in five.items() if mod != "cubic"]
        ours += (f"; CUBIC at 5 hops (R >= 5) {_pct(level(five['cubic']), stats.median(others))}"
                 " from the other modules' median")
    only = next(iter(shapes)) if len(shapes) == 1 else ""
    plateau = only == "a rise to a plateau"
    verdict = (f"holds for the shape we measure ({only})" if only and only != "neither"
               else "differs")
    why = ("The shape is the same for every module, but it is claim 1's plateau, not the "
           "paper's peak: where the argmax lands on the plateau is the runs' chance (no peak "
           "out of its runs' spread, the section \"Where the peak lies\").") if plateau else ""
    return Judged(4, "The same shape for every congestion module (CUBIC an outlier in level at "
                  "5 hops)", regime(sweep), "yes; CUBIC deviates at 5 hops (direction not "
                  "stated)", ours, verdict, why)


def judge_arithmetic() -> Judged:
    t_n = ft.t_multihop(5, 9, ft.CASES["normal"]) / 1e3
    t_b = ft.t_multihop(5, 31, ft.CASES["best"]) / 1e3
    w, extra = P.crossings()
    ok = round(t_n) in (236, 237) and round(t_b) in (60, 61) and w[4] == w[5] == 7 \
        and min(extra) >= 2 and max(extra) <= 3
    return Judged(5, "Frame travel time grows linearly with hops, super-linearly with retries "
                  "(Eq. 4); crosses RTO_min = 200 ms at the stated retry counts",
                  "pure arithmetic: Eqs. 1, 4, Tables II/III (`policies/frame_travel.py`)",
                  "236 ms (normal, 5 hops, R = 9); 60 ms (best, 5 hops, R = 31); worst above "
                  "200 ms from R = 7 at 4 and 5 hops; normal 2-3 more",
                  f"{t_n:.1f} ms; {t_b:.1f} ms; worst from R = {w[4]} / {w[5]}; normal "
                  f"{min(extra)}-{max(extra)} more", "holds" if ok else "differs")


def judge_longer_lower(cells: Sequence[Tuple[int, str, A.Series]], sweep: Sequence[Rec],
                       row: Row) -> Judged:
    """Claim 6: the count and verdict are the comparison table's; beside them the share of
    the 3-hop throughput the 5-hop path carries."""
    by = {(h, mod): A.means(s) for h, mod, s in cells}
    ratios = [m5[x] / by[(3, mod)][x] for (h, mod), m5 in by.items() if h == 5
              and (3, mod) in by for x in m5 if by[(3, mod)].get(x)]
    ours = f"{row.ours} (module, limit) pairs" + (
        f"; 5 hops carry {min(ratios):.2f}-{max(ratios):.2f} of 3 hops" if ratios else "")
    return Judged(6, "A 5-hop path carries less than a 3-hop path", regime(sweep),
                  "yes (not quantified)", ours, _held(row))


def judged_claims(sweep: Sequence[Rec], lossy: Sequence[Rec] = (), bursty: Sequence[Rec] = (),
                  fail_avg: Sequence[Rec] = (), modules: Sequence[Rec] = ()) -> List[Judged]:
    """Claims 1-6 of 002.4 on the sweep's runs (``sweep``: those that carried a flow), with the
    readings' runs for the explanations (``modules``: ``002_fail_avg_modules``' runs and
    ``002_fail_avg``'s)."""
    cells = sweep_cells(sweep)
    readings = [lossy_reading(lossy), bursty_reading(bursty), fail_avg_reading(fail_avg)]
    rows = {r.claim.key: r for r in P.sweep_rows(sweep)}
    return [judge_concave(cells, sweep, readings, rto_text(lossy)),
            judge_small(cells, sweep, rows["002.small_hurts"]),
            judge_earlier(cells, sweep, modules), judge_same_shape(cells, sweep),
            judge_arithmetic(), judge_longer_lower(cells, sweep, rows["002.five_below_three"])]


def section(sweep: Sequence[Rec], name: str, lossy: Sequence[Rec] = (),
            bursty: Sequence[Rec] = (), fail_avg: Sequence[Rec] = (),
            modules: Sequence[Rec] = ()) -> List[str]:
    """The page's section "Each claim of 002.4" (``sweep``: the runs that carried a flow)."""
    if not sweep_cells(sweep):
        return []
    return ["## Each claim of 002.4", "",
            f"Judged on `{name}` (every module, 3 and 5 hops, every retry limit); the "
            "explanations read the readings above. Where we differ, the bullet under the table "
            "gives the explanation and the runs that tested it.", ""] \
        + judged_lines(judged_claims(sweep, lossy, bursty, fail_avg, modules))
