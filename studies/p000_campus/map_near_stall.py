"""Paper 000's reading of long paths as slow as MAP's (studies/p000_campus/experiments/000_near_stall.yaml):
the 3- and 4-hop paths of the three layouts that the receivers at the quoted CCK SNRs
(``topology.rate_loss``) leave with one hop between a tenth and two thirds of its full frames
through per attempt, run in the paper's grid at 5.5 Mbit/s (seven windows, RTS/CTS off and on,
three repetitions), beside the same paths with the medium's own receivers (the grids' records).

It asks whether the paper's window results at 3-4 hops (claim 2's large spreads, claim 6's best
window of 1 segment with RTS/CTS on, claim 7's ceil(1.5 h) with it off) and its RTS/CTS gain
(claim 5) are what a path shows that carries as little as MAP's long paths did (claim 3): if so,
they follow from claim 3, whatever made MAP's paths slow. It is not the model.

Imports only the paper-analysis helpers (``analysis``, ``map_analysis``), ``map_eleven`` (which
failed runs are a broken path) and ``map_cck_loss`` (the link-table lines).
"""
from __future__ import annotations

import statistics
from typing import Any, Dict, List, Mapping, Optional, Sequence, Set, Tuple

from harness.analysis import records as A
from studies.p000_campus import map_analysis as M
from studies.p000_campus.map_cck_loss import link_lines, loss_map
from studies.p000_campus.map_eleven import broken_path

RATE = M.LONG_RATE
HOPS = (3, 4)


def seed_of(rec: Mapping[str, Any]) -> int:
    """The run's shadowing seed (the layout; 1 is the default)."""
    return int(A.param(rec, "topology.shadowing_seed") or 1)


def lost_control(rec: Mapping[str, Any]) -> bool:
    """A run whose iperf3 lost its control connection: on a path that carries a few kbit/s
    at best it fails again when run again (the slow test's retry did), so it is not run
    again; like any failed run other than a broken path it is left out of the grid."""
    return rec.get("status") != "ok" \
        and "control socket has closed unexpectedly" in str(rec.get("error") or "")


def pairs(records: Sequence[Mapping[str, Any]]) -> Set[Tuple[str, int]]:
    """(path, layout) of the reading's runs."""
    return {(str(A.param(r, "topology.path")), seed_of(r)) for r in records}


def slow_grid(records: Sequence[Mapping[str, Any]]) -> M.Grid:
    """The reading's runs as a grid; a run whose path carried none of the pings before the
    flow counts as 0 kbit/s (``map_eleven.broken_path``), as MAP would have measured it."""
    return M.Grid.of(records, zero=broken_path)


def control(grid_records: Sequence[Mapping[str, Any]], wanted: Set[Tuple[str, int]]
            ) -> M.Grid:
    """The same paths and layouts in the grids (the medium's own receivers, 5.5 Mbit/s)."""
    return M.Grid.of([r for r in grid_records
                      if (str(A.param(r, "topology.path")), seed_of(r)) in wanted
                      and A.param(r, "topology.rate") == RATE and not loss_map(r)])


def two_hop_spread(grid_records: Sequence[Mapping[str, Any]]) -> Optional[float]:
    """The largest spread across windows at 2 hops, 5.5 Mbit/s, over the layouts and RTS/CTS
    settings of the grids: what a 3- or 4-hop spread must exceed for the spread to grow with
    the hop count (claim 2). None without 2-hop records."""
    by_seed: Dict[int, List[Mapping[str, Any]]] = {}
    for rec in grid_records:
        by_seed.setdefault(seed_of(rec), []).append(rec)
    vals = [M.spread(M.Grid.of(recs).series(2, RATE, rts))
            for recs in by_seed.values() for rts in M.RTS]
    got = [v for v in vals if v is not None]
    return max(got) if got else None


def claims(grid: M.Grid, two_hop: Optional[float]) -> List[Tuple[str, str, Optional[bool]]]:
    """Claim 2's 3-4 hop part (every spread at 3 and 4 hops above the largest 2-hop one), then
    claims 3, 5, 6, 7 as ``map_analysis.long_path_claims`` reads them: (claim, ours, holds)."""
    spreads = {(h, rts): M.spread(grid.series(h, RATE, rts)) for h in HOPS for rts in M.RTS}
    got = {k: v for k, v in spreads.items() if v is not None}
    ours = ", ".join(f"{h} hops {'on' if rts else 'off'} {_pct(v)}" for (h, rts), v in got.items())
    holds = _above(list(spreads.values()), two_hop)
    head = ("2: spread across windows at 3-4 hops above the largest 2-hop spread of the grids "
            f"({_pct(two_hop)})")
    return [(head, ours or "-", holds)] + M.long_path_claims(grid)


def _above(spreads: Sequence[Optional[float]], two_hop: Optional[float]) -> Optional[bool]:
    """Claim 2's 3-4 hop test: every spread above the largest 2-hop one (None: not judged)."""
    if two_hop is None or any(v is None for v in spreads):
        return None
    return all(v is not None and v > two_hop for v in spreads)


def path_claims(grid: M.Grid, path: str, two_hop: Optional[float]
                ) -> List[Tuple[str, str, Optional[bool]]]:
    """The same criteria on one path alone (its means over the runs instead of a hop count's
    averages): 3 (as slow as MAP's), 2, 5, 6, 7. (claim, ours, holds)."""
    h = M.hops_of(path)
    one = M.Grid({k: v for k, v in grid.kbps.items() if k[0] == path},
                 {k: v for k, v in grid.rtt.items() if k[0] == path})
    off, on = one.series(h, RATE, False), one.series(h, RATE, True)
    best = max([*off.values(), *on.values()], default=None)
    spreads = [M.spread(s) for s in (off, on)]
    gain = M.rts_gain(one, h, RATE, favour=True, how="mean" if h == 3 else "max")
    w_on, w_off = M.best_window(on), M.best_window(off)
    return [
        ("3", _kbps(best), None if best is None else best <= M.MAP_LONG_BEST[h]),
        ("2", " / ".join(_pct(v) for v in spreads), _above(spreads, two_hop)),
        ("5", M.fmt_gain(gain), None if gain is None else gain > 0),
        ("6", M.window_label(w_on) if on else "-", None if w_on is None else w_on <= 2),
        ("7", M.window_label(w_off) if off else "-",
         None if w_off is None else M.near_paper_best_off(h, w_off)),
    ]


def per_path_lines(slow: M.Grid, two_hop: Optional[float], layouts: Mapping[str, int]
                   ) -> List[str]:
    """Each path with the quoted receivers judged alone: is it as slow as MAP's (claim 3), and
    do claims 2, 5, 6, 7 hold on it."""
    out = ["| path (layout) | 3: best kbit/s (MAP's: < 300 at 3 hops, <= 390 at 4) | 2: spread "
           f"off / on (above {_pct(two_hop)}) | 5: RTS/CTS on over off | 6: best window on "
           "(<= 2) | 7: best window off (within 1 of ceil(1.5 h)) |",
           "|---|---|---|---|---|---|"]
    for path in slow.paths():
        cells = [f"{ours}: {_mark(holds)}" for _n, ours, holds in path_claims(slow, path, two_hop)]
        out.append(f"| {path} ({layouts.get(path, '-')}) | " + " | ".join(cells) + " |")
    return out


def slow_note(slow: M.Grid) -> str:
    """What the paths as slow as MAP's (claim 3 on the path alone) show: the spread across
    windows beside the runs' own noise, and what RTS/CTS does there."""
    rows = []
    for path in slow.paths():
        marks = path_claims(slow, path, None)
        if not marks[0][2]:
            continue
        noise = [run_noise(slow, path, rts) for rts in M.RTS]
        rows.append(f"{path} ({marks[0][1]} kbit/s at best): spreads {marks[1][1]}, runs of one "
                    "window differ by " + " / ".join(_pct(v) for v in noise)
                    + f" (off / on), RTS/CTS {marks[2][1]}")
    if not rows:
        return "No path of the reading is as slow as MAP's."
    return ("The paths as slow as MAP's: " + "; ".join(rows) + ". Where runs of one window "
            "differ as much as the windows do, which window is best is the runs' chance.")


def _pct(v: Optional[float]) -> str:
    return "-" if v is None else "inf" if v == float("inf") else f"{v:.0f} %"


def _kbps(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:.0f}"


def run_noise(grid: M.Grid, path: str, rts: bool) -> Optional[float]:
    """How far runs of one window differ: the median over the windows of the runs' standard
    deviation over their mean, in percent (None without two runs at some window). Where it
    is as large as the windows' differences, the best window is the runs' chance."""
    cvs = [statistics.stdev(v) / statistics.mean(v) * 100
           for v in grid.per_path(path, RATE, rts).values()
           if len(v) > 1 and statistics.mean(v) > 0]
    return statistics.median(cvs) if cvs else None


def path_lines(slow: M.Grid, ctrl: M.Grid, layouts: Mapping[str, int]) -> List[str]:
    """Per path and RTS/CTS setting: kbit/s per window (mean over the runs), quoted receivers
    beside the medium's, with the spread, the best limited window and the runs' own noise."""
    out = ["| path (layout) | RTS/CTS | receivers | " + " | ".join(
        M.window_label(w) for w in M.WINDOWS) + " | spread | best window | run to run |",
        "|---|---|---|" + "---|" * (len(M.WINDOWS) + 3)]
    for path in slow.paths():
        for rts in M.RTS:
            for name, grid in (("medium's", ctrl), ("quoted", slow)):
                out.append(window_row(grid, path, rts, f"{path} ({layouts.get(path, '-')})",
                                      name) + " |")
    return out


def window_row(grid: M.Grid, path: str, rts: bool, label: str, name: str) -> str:
    """One path's row at 5.5 Mbit/s, unterminated: label, RTS/CTS, ``name``, kbit/s per window
    (means over the runs), the spread, the best limited window and the runs' own noise."""
    series = {w: grid.mean((path, RATE, rts, w)) for w in M.WINDOWS}
    got = {w: v for w, v in series.items() if v is not None}
    return (f"| {label} | {'on' if rts else 'off'} | {name} | "
            + " | ".join(_kbps(series[w]) for w in M.WINDOWS)
            + f" | {_pct(M.spread(got))} | "
            f"{M.window_label(M.best_window(got)) if got else '-'} | "
            f"{_pct(run_noise(grid, path, rts))}")


def hop_lines(slow: M.Grid, ctrl: M.Grid) -> List[str]:
    """Per hop count and RTS/CTS setting (means over the hop count's paths): best and mean
    throughput, spread and best window with each receiver, beside the paper's at 5.5 Mbit/s."""
    out = ["| hops | RTS/CTS | best / mean kbit/s: medium's, quoted | spread: medium's, quoted, "
           "paper | best window: medium's, quoted, paper |", "|---|---|---|---|---|"]
    for h in HOPS:
        for rts in M.RTS:
            a, b = ctrl.series(h, RATE, rts), slow.series(h, RATE, rts)
            if not b:
                continue
            kb = "; ".join(f"{_kbps(max(s.values(), default=None))} / "
                           f"{_kbps(sum(s.values()) / len(s) if s else None)}" for s in (a, b))
            sp = ", ".join(_pct(M.spread(s)) for s in (a, b))
            best = ", ".join(M.window_label(M.best_window(s)) if s else "-" for s in (a, b))
            out.append(f"| {h} | {'on' if rts else 'off'} | {kb} | "
                       f"{sp}, {M.PAPER_SPREAD[(h, rts)][RATE]} % | "
                       f"{best}, {M.PAPER_BEST[(h, rts)][RATE]} |")
    return out


def claim_lines(slow: M.Grid, ctrl: M.Grid, two_hop: Optional[float]) -> List[str]:
    """One row per claim: the same paths with the medium's receivers and with the quoted ones."""
    mine, base = claims(slow, two_hop), claims(ctrl, two_hop)
    out = ["| claim (5.5 Mbit/s, these paths) | medium's receivers (the grids) | "
           "quoted receivers |", "|---|---|---|"]
    for (claim, b_ours, b_holds), (_c, ours, holds) in zip(base, mine):
        out.append(f"| {claim} | {b_ours}: {_mark(b_holds)} | {ours}: {_mark(holds)} |")
    return out


def _mark(holds: Optional[bool]) -> str:
    return "-" if holds is None else "holds" if holds else "no"


def verdict_line(slow: M.Grid, ctrl: M.Grid, two_hop: Optional[float]) -> str:
    """Which claims follow from paths as slow as MAP's: those that fail on these paths with the
    medium's receivers and hold with the quoted ones."""
    mine, base = claims(slow, two_hop), claims(ctrl, two_hop)
    names = [c.split(":")[0] for c, _o, _h in mine]
    follow = [n for n, (_c, _o, h), (_d, _p, b) in zip(names, mine, base) if h and not b]
    fails = [n for n, (_c, _o, h) in zip(names, mine) if h is False]
    both = [n for n, (_c, _o, h), (_d, _p, b) in zip(names, mine, base) if h and b]
    unjudged = [n for n, (_c, _o, h) in zip(names, mine) if h is None]
    parts = []
    if follow:
        parts.append("on paths as slow as MAP's (fail on the same paths with the medium's "
                     "receivers, hold with the quoted ones): claim " + ", ".join(follow))
    if fails:
        parts.append("not on these paths either: claim " + ", ".join(fails))
    if both:
        parts.append("holding with either receiver: claim " + ", ".join(both))
    if unjudged:
        parts.append("not judged (records missing): claim " + ", ".join(unjudged))
    return f"**Verdict:** {'; '.join(parts)}."


def section_lines(records: Sequence[Mapping[str, Any]],
                  grid_records: Sequence[Mapping[str, Any]] = ()) -> List[str]:
    """The reading's part of a report or of the paper page, from all of its records and the
    grids' (without the grids, the medium's columns are empty and claim 2 is not judged)."""
    runs = [r for r in records if r.get("status") == "ok" or broken_path(r)]
    if not runs:
        return ["No run of the slow-path reading is stored yet.", ""]
    wanted = pairs(runs)
    layouts = {p: s for p, s in wanted}
    slow, ctrl = slow_grid(runs), control(grid_records, wanted)
    two_hop = two_hop_spread(grid_records)
    broken = sum(1 for r in runs if r.get("status") != "ok")
    losses = loss_map(runs[0])
    out = ["The 3- and 4-hop paths of the three layouts that receivers at the quoted CCK SNRs "
           f"(`topology.rate_loss: {{{', '.join(f'{k:g}: {v:g}' for k, v in losses.items())}}}`, "
           "as in 000_cck_loss) leave with one hop that gets between a tenth and two thirds of "
           "its full frames through per attempt at 5.5 Mbit/s, chosen from the medium's link "
           "table before any run; run as the paper's grid at 5.5 Mbit/s (windows 1-6 and "
           "unclamped, RTS/CTS off and on, three repetitions), beside the same paths with the "
           "medium's own receivers (the grids' records). The question: are the paper's 3-4 hop "
           "window and RTS/CTS results what a path shows that carries as little as MAP's did "
           "(claim 3)? Spread: (max - min) / min of the means over the windows.", ""]
    for seed in sorted({s for _p, s in wanted}):
        out += [f"Layout {seed} (shadowing seed {seed}), the link table:", ""] \
            + link_lines([p for p, s in sorted(wanted) if s == seed],
                         [{}, losses], seed) + [""]
    out += ["Per path (kbit/s, means over the runs; run to run: the median over the windows "
            "of the runs' standard deviation over their mean"
            + (f"; {broken} runs whose path carried none of the pings before the flow count "
               "as 0" if broken else "") + "):", ""] + path_lines(slow, ctrl, layouts)
    out += ["", "Per hop count (means over its paths), beside the paper's at 5.5 Mbit/s:", ""] \
        + hop_lines(slow, ctrl)
    out += ["", "Each path alone with the quoted receivers (criteria as below, on the path's "
            "means):", ""] + per_path_lines(slow, two_hop, layouts)
    out += ["", slow_note(slow)]
    out += ["", "The claims on these paths (criteria as in the other readings; claim 2's 3-4 "
            "hop part against the largest 2-hop spread at 5.5 Mbit/s on the three layouts):",
            ""] + claim_lines(slow, ctrl, two_hop)
    return out + ["", verdict_line(slow, ctrl, two_hop), ""]
