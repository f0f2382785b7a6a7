"""Paper 000, a test of one reading of claim 1 (studies/p000_campus/experiments/000_window_quickack.yaml):
the window spread at 1 hop comes from how Linux keeps a small receiver window (a 1-segment
window sent as two half segments, delayed ACKs), not from the medium. The run limits the
sender's window in whole segments with every segment ACKed at once; this module reads its
spread per rate beside the grid's (receiver window, RTS/CTS off) and judges claim 1's criterion;
the same mechanism's run at 3-4 hops (000_window_quickack_long.yaml) is judged on claims 3 and
5-7 beside the grid, and with its run at 1-2 hops (000_window_quickack_short.yaml) every hop
count at 5.5 Mbit/s is judged on claims 2, 6 and 7 (``hop_count_lines``); its run at 2 Mbit/s
and auto rate with RTS/CTS on (000_window_quickack_rates.yaml) judges claim 6 at every rate
(``rate_claim_lines``).
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from harness.analysis import records as A
from harness.analysis import stats
from studies.p000_campus import map_analysis as M

#: Claim 1's criterion (map_analysis.verdicts): spread across windows <= 15 % at 1 hop.
LIMIT = 15.0


def series(records: Sequence[Mapping[str, Any]]) -> Dict[Any, Dict[Optional[int], float]]:
    """Rate -> window (sender limit) -> mean over the 1-hop paths measured at every window of
    that rate's series (ok runs with a sender limit only)."""
    per: Dict[Any, Dict[Optional[int], Dict[str, List[float]]]] = {}
    for rec in records:
        policy = (rec.get("params") or {}).get("policy") or {}
        if rec.get("status") != "ok" or "cwnd_clamp" not in policy:
            continue
        path = str(A.param(rec, "topology.path"))
        if M.hops_of(path) != 1:
            continue
        value = A.throughput_kbps(rec)
        if value is not None:
            per.setdefault(A.param(rec, "topology.rate"), {}).setdefault(
                policy["cwnd_clamp"], {}).setdefault(path, []).append(value)
    out: Dict[Any, Dict[Optional[int], float]] = {}
    for rate, by_window in per.items():
        paths = set.intersection(*(set(v) for v in by_window.values()))
        if not paths:
            continue
        out[rate] = {w: sum(sum(v[p]) / len(v[p]) for p in paths) / len(paths)
                     for w, v in by_window.items()}
    return out


def _pct(v: Optional[float]) -> str:
    return "-" if v is None else "inf" if v == float("inf") else f"{v:.0f} %"


def _mark(value: str, holds: Optional[bool]) -> str:
    """A claim's value and verdict in one table cell."""
    return f"{value}: {'-' if holds is None else 'holds' if holds else 'no'}"


def _rates(keys: Sequence[Any]) -> List[Any]:
    return [r for r in M.RATES if r in keys]


def table_lines(records: Sequence[Mapping[str, Any]], grid: Optional[M.Grid] = None
                ) -> List[str]:
    """Per rate: throughput per window (means over the 1-hop paths) and the spread, beside
    the grid's spread with the receiver's window at RTS/CTS off when the grid is given."""
    got = series(records)
    windows = [w for w in M.WINDOWS if any(w in s for s in got.values())]
    head = "| rate | " + " | ".join(M.window_label(w) for w in windows) + \
        " | spread (sender limit, every segment ACKed) |"
    sep = "|---|" + "---|" * (len(windows) + 1)
    if grid is not None:
        head += " grid: spread (receiver window, delayed ACK) |"
        sep += "---|"
    out = [head, sep]
    for rate in _rates(list(got)):
        s = got[rate]
        cells = [f"{s[w]:.0f}" if w in s else "-" for w in windows]
        row = f"| {M.rate_label(rate)} | " + " | ".join(cells) + \
            f" | {_pct(M.spread(s))} |"
        if grid is not None:
            theirs = M.spread(grid.series(1, rate, False))
            row += f" {_pct(theirs)} |"
        out.append(row)
    return out


def holds(records: Sequence[Mapping[str, Any]]) -> Optional[bool]:
    """Claim 1's criterion on this run: the spread is within LIMIT at every rate measured."""
    spreads = [M.spread(s) for s in series(records).values()]
    got = [v for v in spreads if v is not None]
    return all(v <= LIMIT for v in got) if got else None


def long_series_lines(records: Sequence[Mapping[str, Any]], hops: Sequence[int] = (3, 4)
                      ) -> List[str]:
    """The paths of ``hops`` at 5.5 Mbit/s: throughput per sender window (means over the hop
    count's paths), RTS/CTS off and on."""
    grid = M.Grid.of(records, window="cwnd_clamp")
    out = ["| hops | RTS/CTS | " + " | ".join(M.window_label(w) for w in M.WINDOWS) +
           " | best window |", "|---|---|" + "---|" * (len(M.WINDOWS) + 1)]
    for h in hops:
        for rts in M.RTS:
            s = grid.series(h, M.LONG_RATE, rts)
            if not s:
                continue
            out.append(f"| {h} | {'on' if rts else 'off'} | "
                       + " | ".join(f"{s[w]:.0f}" if w in s else "-" for w in M.WINDOWS)
                       + f" | {M.window_label(M.best_window(s))} |")
    return out


def hop_count_claims(grid: M.Grid) -> List[Tuple[str, str, Optional[bool]]]:
    """Claims 2, 6 and 7 at 5.5 Mbit/s alone over 1-4 hops (the criteria of
    ``map_analysis.verdicts`` restricted to one rate): (claim, ours, holds)."""
    rate = M.LONG_RATE
    hops = [h for h in (1, 2, 3, 4) if h in grid.hop_counts()]
    med: Dict[int, float] = {}
    for h in hops:
        got = [v for v in (M.spread(grid.series(h, rate, s)) for s in M.RTS) if v is not None]
        if got:
            med[h] = stats.median(got)
    grows = (med[1] < med[2] < med[3] and med[4] > med[2]) if len(med) == 4 else None
    out: List[Tuple[str, str, Optional[bool]]] = [(
        "2: window sensitivity grows with hop count (median spread over RTS/CTS at 1 < 2 < 3 "
        "hops, 4 above 2)", ", ".join(f"{h}: {_pct(v)}" for h, v in med.items()) or "-", grows)]
    value, ok6 = claim6(grid, rate)
    out.append(("6: best window with RTS/CTS on <= 2 (2 of the 3 hop counts 2-4)", value, ok6))
    value, ok7 = _best_window_claim(grid, rate, False, (1, 2, 3, 4), M.near_paper_best_off, 3)
    out.append(("7: best window with RTS/CTS off within 1 of ceil(1.5 h) (3 of the 4 hop "
                "counts)", value, ok7))
    return out


def _best_window_claim(grid: M.Grid, rate: Any, rts: bool, at: Sequence[int],
                       ok: Callable[[int, int], bool], need: int
                       ) -> Tuple[str, Optional[bool]]:
    """The best window per hop count of ``at`` (text) and whether ``ok`` holds on ``need`` of
    them (None unless every hop count is measured)."""
    found = {h: M.best_window(grid.series(h, rate, rts)) for h in at
             if h in grid.hop_counts()}
    wins: Dict[int, int] = {h: w for h, w in found.items() if w is not None}
    good = sum(1 for h, w in wins.items() if ok(h, w))
    return (", ".join(f"{h} hops {M.window_label(w)}" for h, w in wins.items()) or "-",
            good >= need if len(wins) == len(at) else None)


def claim6(grid: M.Grid, rate: Any) -> Tuple[str, Optional[bool]]:
    """Claim 6 at one rate: the best window with RTS/CTS on is at most 2 at two of the three
    hop counts 2-4 (the criterion of ``map_analysis.verdicts`` at one rate)."""
    return _best_window_claim(grid, rate, True, (2, 3, 4), lambda _h, w: w <= 2, 2)


def rate_claim_lines(records: Sequence[Mapping[str, Any]], grid: Optional[M.Grid] = None
                     ) -> List[str]:
    """Claim 6 at each rate with the sender's limit and every segment ACKed (every window
    run's records together) beside the grid's receiver window; empty unless some rate
    besides 5.5 Mbit/s is measured at 2-4 hops with RTS/CTS on."""
    ours = M.Grid.of(records, window="cwnd_clamp")
    judged = {r: c for r, c in ((r, claim6(ours, r)) for r in M.RATES) if c[1] is not None}
    if set(judged) <= {M.LONG_RATE}:
        return []
    out = ["### Claim 6 at every rate", "",
           "The 2- to 4-hop paths with RTS/CTS on and the window limited at the sender, every "
           "segment ACKed (kbit/s, means over each hop count's paths), beside the grid's best "
           "window with the receiver's window on the default layout. The paper: with RTS/CTS "
           "on the best window is 1 segment at every rate, at 2, 3 and 4 hops.", "",
           "| rate | hops | " + " | ".join(M.window_label(w) for w in M.WINDOWS)
           + " | best window, sender limit | best window, grid |",
           "|---|---|" + "---|" * (len(M.WINDOWS) + 2)]
    for rate in judged:
        for h in (2, 3, 4):
            s = ours.series(h, rate, True)
            g = grid.series(h, rate, True) if grid is not None else {}
            out.append(f"| {M.rate_label(rate)} | {h} | "
                       + " | ".join(f"{s[w]:.0f}" if w in s else "-" for w in M.WINDOWS)
                       + f" | {M.window_label(M.best_window(s))} | "
                       + (f"{M.window_label(M.best_window(g))} |" if g else "- |"))
    out += ["", "| claim 6 (best window with RTS/CTS on <= 2 at 2 of the 3 hop counts 2-4) "
            "| sender limit, every segment ACKed | grid: receiver window, delayed ACK |",
            "|---|---|---|"]
    explained, still, held = [], [], []
    for rate, (value, holds) in judged.items():
        theirs = claim6(grid, rate) if grid is not None else ("-", None)
        out.append(f"| {M.rate_label(rate)} | {_mark(value, holds)} | "
                   f"{_mark(theirs[0], theirs[1])} |")
        if holds:
            held.append(M.rate_label(rate))
        if holds and theirs[1] is False:
            explained.append(M.rate_label(rate))
        elif holds is False:
            still.append(M.rate_label(rate))
    if grid is None:
        text = ("claim 6 holds with the sender's limit at " + (", ".join(held) or "no rate")
                + " (the grid's receiver window beside it: the paper page)")
    elif explained:
        text = ("claim 6 explained by the window's mechanics (fails with the grid's receiver "
                "window, holds with the sender's limit) at " + ", ".join(explained))
    else:
        text = "claim 6 explained by the window's mechanics at no rate"
    if still:
        text += "; not explained (fails with the sender's limit too) at " + ", ".join(still)
    return out + ["", f"**Verdict:** {text}.", ""]


def hop_count_lines(records: Sequence[Mapping[str, Any]], grid: Optional[M.Grid] = None
                    ) -> List[str]:
    """Claims 2, 6, 7 at 5.5 Mbit/s over 1-4 hops with the sender's limit and every segment
    ACKed (every window run's records together) beside the grid's receiver window."""
    ours = M.Grid.of(records, window="cwnd_clamp")
    if len([h for h in (1, 2, 3, 4) if h in ours.hop_counts()]) < 4:
        return []
    theirs = hop_count_claims(grid) if grid is not None else None
    out = ["### Window sensitivity over hop counts (claims 2, 6, 7 at 5.5 Mbit/s)", "",
           "Every window run above together (the paper's 14 paths at 5.5 Mbit/s, RTS/CTS off "
           "and on): the spread across windows per hop count ((max - min) / min of the hop "
           "count's averages) and the best windows, with the window limited at the sender "
           "and every segment ACKed, beside the grid's receiver window on the default layout.",
           "", "| hops | RTS/CTS | spread, sender limit | spread, grid | best window, sender "
           "limit | best window, grid |", "|---|---|---|---|---|---|"]
    for h in (1, 2, 3, 4):
        for rts in M.RTS:
            s = ours.series(h, M.LONG_RATE, rts)
            g = grid.series(h, M.LONG_RATE, rts) if grid is not None else {}
            if not s:
                continue
            out.append(f"| {h} | {'on' if rts else 'off'} | {_pct(M.spread(s))} | "
                       f"{_pct(M.spread(g)) if g else '-'} | "
                       f"{M.window_label(M.best_window(s))} | "
                       f"{M.window_label(M.best_window(g)) if g else '-'} |")
    rows = hop_count_claims(ours)
    out += ["", "| claim (5.5 Mbit/s, 1-4 hops) | sender limit, every segment ACKed |"
            + (" grid: receiver window, delayed ACK |" if theirs else ""),
            "|---|---|" + ("---|" if theirs else "")]
    for i, (claim, value, holds) in enumerate(rows):
        out.append(f"| {claim} | {_mark(value, holds)} |"
                   + (f" {_mark(theirs[i][1], theirs[i][2])} |" if theirs else ""))
    explained = [c.split(":")[0] for i, (c, _v, h) in enumerate(rows)
                 if h and theirs is not None and theirs[i][2] is False]
    still = [c.split(":")[0] for c, _v, h in rows if h is False]
    text = ("explained by the window's mechanics (fails with the grid's receiver window, holds "
            "with the sender's limit): claim " + ", ".join(explained) if explained else
            "no claim explained by the window's mechanics")
    if still:
        text += "; not explained (fails with the sender's limit too): claim " + ", ".join(still)
    return out + ["", f"**Verdict:** {text}.", ""]


def long_claim_lines(records: Sequence[Mapping[str, Any]], grid: Optional[M.Grid] = None
                     ) -> List[str]:
    """Claims 3, 5, 6, 7 on the 3-4 hop paths at 5.5 Mbit/s with each window mechanism."""
    ours = M.long_path_claims(M.Grid.of(records, window="cwnd_clamp"))
    theirs = M.long_path_claims(grid) if grid is not None else None
    out = ["| claim (5.5 Mbit/s, 3-4 hops) | sender limit, every segment ACKed |"
           + (" grid: receiver window, delayed ACK |" if theirs else ""),
           "|---|---|" + ("---|" if theirs else "")]
    for i, (claim, value, holds) in enumerate(ours):
        row = f"| {claim} | {_mark(value, holds)} |"
        if theirs:
            row += f" {_mark(theirs[i][1], theirs[i][2])} |"
        out.append(row)
    return out


def rates_only(records: Sequence[Mapping[str, Any]]) -> bool:
    """The run measured rates besides 5.5 Mbit/s only (000_window_quickack_rates): its part
    is ``rate_claim_lines``."""
    return M.LONG_RATE not in {A.param(r, "topology.rate") for r in records}


def section_lines(records: Sequence[Mapping[str, Any]], grid: Optional[M.Grid] = None
                  ) -> List[str]:
    """The 1-hop part (claim 1) and the 3-4 hop part (claims 3, 5-7), each where measured."""
    out: List[str] = []
    ok = [r for r in records if r.get("status") == "ok"]
    if ok and rates_only(ok):
        return rate_claim_lines(ok, grid)
    hops = {M.hops_of(str(A.param(r, "topology.path"))) for r in ok}
    if hops == {1}:
        out += one_hop_lines(ok, grid)
    if 2 in hops:
        out += ["The 1- and 2-hop paths at 5.5 Mbit/s with the same window mechanism, RTS/CTS "
                "off and on (kbit/s, means over each hop count's paths):", ""] \
            + long_series_lines(ok, (1, 2)) + [""]
    if hops & {3, 4}:
        out += ["The 3- and 4-hop paths at 5.5 Mbit/s with the same window mechanism (kbit/s, "
                "means over each hop count's paths):", ""] + long_series_lines(ok) + \
            ["", "The claims that differ on the default layout, with each mechanism (criteria "
             "as in the lossier-hops run):", ""] + long_claim_lines(ok, grid) + [""]
    return out or ["No run of this experiment is stored yet.", ""]


def one_hop_lines(records: Sequence[Mapping[str, Any]], grid: Optional[M.Grid] = None
                  ) -> List[str]:
    verdict = holds(records)
    text = ("no run yet" if verdict is None else
            f"claim 1's criterion (spread <= {LIMIT:g} % at every rate) "
            + ("holds: the reading explains claim 1" if verdict else
               "does not hold: the reading does not explain claim 1 (or not all of it)"))
    return ["The 1-hop paths with the window limited at the sender in whole 1448-byte "
            "segments and every segment ACKed at once (`cwnd_clamp`, `delayed_ack: false`), "
            "RTS/CTS off; kbit/s, means over the paths. Spread: (max - min) / min over the "
            "windows, as claim 1 reads it.", ""] + table_lines(records, grid) + \
        ["", f"**Verdict:** {text}.", ""]
