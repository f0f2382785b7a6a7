"""Paper 000's sensitivity run on lossier hops (experiments/papers/000_fading.yaml): the 3- and
4-hop paths of the default layout under per-frame fading of several spreads, read as the
quantities of claims 3 and 5-7 per spread, beside what the medium's link table says each
spread does to a hop. It tests one reading of why our long paths differ from MAP's (MAP's
hops lost more frames per attempt); it is not the model.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from harness.papers import analysis as A
from harness.papers import map_analysis as M

RATE = 5.5


def filed_sigma() -> float:
    """The default campus file's per-frame fading spread (dB): records that do not set
    ``topology.fading_sigma`` ran with it."""
    from topologies.campus import load_campus
    return float(load_campus().propagation.get("fading_sigma") or 0.0)


FILED_SIGMA = filed_sigma()


def sigma_of(rec: Mapping[str, Any]) -> float:
    value = A.param(rec, "topology.fading_sigma")
    return FILED_SIGMA if value is None else float(value)


def grids(records: Sequence[Mapping[str, Any]]) -> Dict[float, M.Grid]:
    """One grid per fading spread (ok campus records only, as ``Grid.of`` reads them)."""
    groups: Dict[float, List[Mapping[str, Any]]] = {}
    for rec in records:
        groups.setdefault(sigma_of(rec), []).append(rec)
    return {s: M.Grid.of(recs) for s, recs in sorted(groups.items())}


def _medium(records: Sequence[Mapping[str, Any]]
            ) -> Dict[Tuple[float, int, bool], Tuple[Optional[float], Optional[float]]]:
    """(sigma, hops, rts) -> (share of MAC attempts received, retry-limit drops per run);
    None where no run has the medium's counters."""
    acc: Dict[Tuple[float, int, bool], Tuple[List[float], List[float]]] = {}
    for rec in records:
        if rec.get("status") != "ok":
            continue
        key = (sigma_of(rec), M.hops_of(A.param(rec, "topology.path")),
               bool(A.param(rec, "topology.rts")))
        ok, drops = A.attempt_success(rec), A.retry_drops(rec)
        got = acc.setdefault(key, ([], []))
        if ok is not None:
            got[0].append(ok)
        if drops is not None:
            got[1].append(drops)
    return {k: (sum(a) / len(a) if a else None, sum(d) / len(d) if d else None)
            for k, (a, d) in acc.items()}


def _pair(off: Optional[float], on: Optional[float], fmt: str) -> str:
    return " / ".join("-" if v is None else format(v, fmt) for v in (off, on))


def _kbps(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.0f}"


def _mean(series: Mapping[Optional[int], float]) -> Optional[float]:
    return sum(series.values()) / len(series) if series else None


def table_lines(records: Sequence[Mapping[str, Any]]) -> List[str]:
    """Per fading spread and hop count: throughput with RTS/CTS off and on (means over the
    windows measured, and the best window's), the gain of RTS/CTS as claim 5 reads it,
    the best windows (claims 6, 7) and what the medium saw."""
    by_sigma = grids(records)
    medium = _medium(records)
    out = ["| fading (dB) | hops | RTS off: mean / best kbit/s | RTS on: mean / best kbit/s | "
           "RTS/CTS on over off | best window off / on | attempts received off / on | "
           "retry-limit drops per run off / on |",
           "|---|---|---|---|---|---|---|---|"]
    for sigma, grid in by_sigma.items():
        for h in grid.hop_counts():
            off, on = grid.series(h, RATE, False), grid.series(h, RATE, True)
            gain = M.rts_gain(grid, h, RATE, favour=True, how="mean" if h == 3 else "max")
            m_off = medium.get((sigma, h, False), (None, None))
            m_on = medium.get((sigma, h, True), (None, None))
            out.append(
                f"| {sigma:g} | {h} | {_kbps(_mean(off))} / {_kbps(max(off.values(), default=None))}"
                f" | {_kbps(_mean(on))} / {_kbps(max(on.values(), default=None))} | "
                f"{M.fmt_gain(gain)} | {M.window_label(M.best_window(off))} / "
                f"{M.window_label(M.best_window(on))} | {_pair(m_off[0], m_on[0], '.1%')} | "
                f"{_pair(m_off[1], m_on[1], '.1f')} |")
    return out


def claim_lines(records: Sequence[Mapping[str, Any]]) -> List[str]:
    """One row per claim, one column per fading spread: our value and whether it holds."""
    by_sigma = grids(records)
    marks = {s: M.long_path_claims(g) for s, g in by_sigma.items()}
    if not marks:
        return []
    first = next(iter(marks.values()))
    out = ["| claim (5.5 Mbit/s) | " + " | ".join(f"fading {s:g} dB" for s in marks) + " |",
           "|---|" + "---|" * len(marks)]
    for i, (claim, _ours, _holds) in enumerate(first):
        cells = []
        for s in marks:
            _c, ours, holds = marks[s][i]
            cells.append(f"{ours}: {'-' if holds is None else 'holds' if holds else 'no'}")
        out.append(f"| {claim} | " + " | ".join(cells) + " |")
    return out


def verdict_line(records: Sequence[Mapping[str, Any]]) -> str:
    """Which claims the lossier hops explain: those that fail at the file's spread and hold at
    a larger one (the slow test asks only the second)."""
    marks = {s: M.long_path_claims(g) for s, g in grids(records).items()}
    larger = [s for s in marks if s > FILED_SIGMA]
    if not larger:
        return "No run above the campus file's fading: nothing is judged."
    first = next(iter(marks.values()))
    names = [c.split(":")[0] for c, _o, _h in first]
    base = marks.get(FILED_SIGMA)
    already = [n for i, n in enumerate(names) if base is not None and base[i][2]]
    explained = [n for i, n in enumerate(names) if n not in already
                 and any(marks[s][i][2] for s in larger)]
    rest = [n for n in names if n not in already and n not in explained]
    spreads = ", ".join(f"{s:g}" for s in larger)
    parts = []
    if explained:
        parts.append(f"explained by lossier hops (fails at {FILED_SIGMA:g} dB, holds at "
                     f"{' or '.join(f'{x:g}' for x in larger)} dB): claim "
                     + ", ".join(explained))
    if rest:
        parts.append(f"not explained (holds at none of {spreads} dB): claim " + ", ".join(rest))
    if already:
        parts.append(f"already holding at {FILED_SIGMA:g} dB: claim " + ", ".join(already))
    text = "; ".join(parts)
    return f"**Verdict:** {text}."


def link_lines(paths: Sequence[str], sigmas: Sequence[float], seed: int = 1) -> List[str]:
    """What each spread does to the paths' hops in the medium's link table: the weakest hop's
    chance that one full-size 5.5 Mbit/s frame gets through per attempt (the worse direction),
    and the mean over the path's hops."""
    import dataclasses

    from topologies import campus as C
    place = C.load_campus()
    tables = {s: C.campus_links(dataclasses.replace(place, propagation={
        **place.propagation, "fading": "lognormal", "fading_sigma": s}), seed) for s in sigmas}
    out = ["| path | " + " | ".join(f"fading {s:g} dB: weakest / mean hop" for s in sigmas) + " |",
           "|---|" + "---|" * len(sigmas)]
    for path in paths:
        names = [C.router_name(int(x)) for x in path.split("-")]
        cells = []
        for s in sigmas:
            t = tables[s]
            hops = [min(t.delivery(a, b, RATE), t.delivery(b, a, RATE))
                    for a, b in zip(names, names[1:])]
            cells.append(f"{min(hops):.2f} / {sum(hops) / len(hops):.2f}")
        out.append(f"| {path} | " + " | ".join(cells) + " |")
    return out


def section_lines(records: Sequence[Mapping[str, Any]]) -> List[str]:
    """The sensitivity run's part of a report or of the paper page."""
    ok = [r for r in records if r.get("status") == "ok"]
    if not ok:
        return ["No run of the sensitivity sweep is stored yet.", ""]
    sigmas = sorted({sigma_of(r) for r in ok})
    paths = sorted({str(A.param(r, "topology.path")) for r in ok}, key=lambda p: (M.hops_of(p), p))
    return ["Per-frame log-normal fading raised from the campus file's 2 dB, at 5.5 Mbit/s, the "
            "default layout (shadowing seed 1); each link's mean power is unchanged. RTS/CTS "
            "on over off reads as claim 5 does (3 hops: means over the windows; 4 hops: best "
            "averages); windows measured: "
            + ", ".join(sorted({M.window_label(A.param(r, "policy.rwnd_clamp")) for r in ok}))
            + ".", "", "What each spread does to the hops (the medium's link table, one "
            "1538-byte frame per attempt at 5.5 Mbit/s, the worse direction):", ""] \
        + link_lines(paths, sigmas) + ["", "What TCP got:", ""] + table_lines(ok) \
        + ["", "The claims that differ on the default layout, judged per spread (criteria as "
           "in the grid's, restricted to these paths and rate):", ""] + claim_lines(ok) \
        + ["", verdict_line(ok), ""]
