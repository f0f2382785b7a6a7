"""Paper 000's readings that vary one condition around the 3- and 4-hop paths at 5.5 Mbit/s
(the fading spread in ``map_fading``, a hidden neighbour's load in ``map_outside``): the
records split into one grid per value of that condition, read as the quantities of claims 3
and 5-7 per value, and the verdict of which claims the condition explains (those failing at
the base value and holding at another).

Imports only the paper-analysis helpers (``analysis``, ``map_analysis``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from harness.analysis import records as A
from studies.p000_campus import map_analysis as M

RATE = M.LONG_RATE


@dataclass(frozen=True)
class Condition:
    """The condition a reading varies: how a record gives its value, how a value is named in
    a table's column or head, and the base value (the model's own, or none)."""

    value_of: Callable[[Mapping[str, Any]], float]
    column: str                      # first column's head, e.g. "fading (dB)"
    label: Callable[[float], str]    # a value in a claim table's head, e.g. "fading 2 dB"
    base: float
    unit: str                        # in the verdict: "dB"
    explained_by: str                # in the verdict: "lossier hops"
    cell: Callable[[float], str] = "{:g}".format  # a value in a table's first column, a verdict
    #: Failed runs that are their point's outcome (a path that carried nothing): 0 kbit/s.
    zero: Optional[Callable[[Mapping[str, Any]], bool]] = None


def grids(records: Sequence[Mapping[str, Any]], cond: Condition) -> Dict[float, M.Grid]:
    """One grid per value of the condition (ok campus records, and the failed ones the
    condition counts as 0 kbit/s, as ``Grid.of`` reads them)."""
    groups: Dict[float, List[Mapping[str, Any]]] = {}
    for rec in records:
        groups.setdefault(cond.value_of(rec), []).append(rec)
    return {v: M.Grid.of(recs, zero=cond.zero) for v, recs in sorted(groups.items())}


def _medium(records: Sequence[Mapping[str, Any]], cond: Condition
            ) -> Dict[Tuple[float, int, bool], Tuple[Optional[float], Optional[float]]]:
    """(value, hops, rts) -> (share of MAC attempts received, retry-limit drops per run) at
    ``RATE``, the rate of the table's throughputs; None where no run has the medium's
    counters."""
    acc: Dict[Tuple[float, int, bool], Tuple[List[float], List[float]]] = {}
    for rec in records:
        if rec.get("status") != "ok" or A.param(rec, "topology.rate") != RATE:
            continue
        key = (cond.value_of(rec), M.hops_of(A.param(rec, "topology.path")),
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


def _best(series: Mapping[Optional[int], float]) -> str:
    return M.window_label(M.best_window(series)) if series else "-"


def table_lines(records: Sequence[Mapping[str, Any]], cond: Condition) -> List[str]:
    """Per value and hop count: throughput with RTS/CTS off and on (means over the windows
    measured, and the best window's), the gain of RTS/CTS as claim 5 reads it, the best
    windows (claims 6, 7) and what the medium saw."""
    medium = _medium(records, cond)
    out = [f"| {cond.column} | hops | RTS off: mean / best kbit/s | RTS on: mean / best kbit/s | "
           "RTS/CTS on over off | best window off / on | attempts received off / on | "
           "retry-limit drops per run off / on |",
           "|---|---|---|---|---|---|---|---|"]
    for value, grid in grids(records, cond).items():
        for h in grid.hop_counts():
            off, on = grid.series(h, RATE, False), grid.series(h, RATE, True)
            gain = M.rts_gain(grid, h, RATE, favour=True, how="mean" if h == 3 else "max")
            m_off = medium.get((value, h, False), (None, None))
            m_on = medium.get((value, h, True), (None, None))
            out.append(
                f"| {cond.cell(value)} | {h} | {_kbps(_mean(off))} / {_kbps(max(off.values(), default=None))}"
                f" | {_kbps(_mean(on))} / {_kbps(max(on.values(), default=None))} | "
                f"{M.fmt_gain(gain)} | {_best(off)} / {_best(on)} | "
                f"{_pair(m_off[0], m_on[0], '.1%')} | "
                f"{_pair(m_off[1], m_on[1], '.1f')} |")
    return out


def exchange_lines(records: Sequence[Mapping[str, Any]], cond: Condition) -> List[str]:
    """Per value and hop count, where the path's attempts failed (the medium's
    ``rts_failures``): DATA frames lost without RTS/CTS, and with it the RTS frames that got
    no CTS and the DATA frames lost after a CTS, each of those sent. If the exchange protects
    the DATA frames, their loss falls with RTS/CTS on. Empty where no record has the counter."""
    acc = A.exchange_sums(records, lambda rec: (
        cond.value_of(rec), M.hops_of(A.param(rec, "topology.path")),
        bool(A.param(rec, "topology.rts"))))
    if not acc:
        return []

    out = [f"| {cond.column} | hops | DATA lost, RTS/CTS off | RTS lost (no CTS), RTS/CTS on | "
           "DATA lost after a CTS, RTS/CTS on |", "|---|---|---|---|---|"]
    for value, h in sorted({(v, h) for v, h, _r in acc}):
        a0, _r0, d0, _n0 = acc.get((value, h, False), [0, 0, 0, 0])
        a1, r1, d1, _n1 = acc.get((value, h, True), [0, 0, 0, 0])
        out.append(f"| {cond.cell(value)} | {h} | {A.fmt_share(d0, a0)} | {A.fmt_share(r1, a1)} | "
                   f"{A.fmt_share(d1, a1 - r1)} |")
    return out


def exchange_section(records: Sequence[Mapping[str, Any]], cond: Condition, note: str = ""
                     ) -> List[str]:
    """``exchange_lines`` under its heading (``note`` goes first in its parenthesis); empty
    where no record has the counter."""
    table = exchange_lines(records, cond)
    if not table:
        return []
    what = "; ".join(filter(None, (note, "share of the frames of each kind sent")))
    return ["", f"Where the path's attempts failed ({what}):", ""] + table


def marks(records: Sequence[Mapping[str, Any]], cond: Condition
          ) -> Dict[float, List[Tuple[str, str, Optional[bool]]]]:
    """Per value: ``map_analysis.long_path_claims`` (claims 3, 5, 6, 7)."""
    return {v: M.long_path_claims(g) for v, g in grids(records, cond).items()}


def claim_lines(records: Sequence[Mapping[str, Any]], cond: Condition) -> List[str]:
    """One row per claim, one column per value: our value and whether it holds."""
    per = marks(records, cond)
    if not per:
        return []
    first = next(iter(per.values()))
    out = [f"| claim ({RATE:g} Mbit/s) | " + " | ".join(cond.label(v) for v in per) + " |",
           "|---|" + "---|" * len(per)]
    for i, (claim, _ours, _holds) in enumerate(first):
        cells = []
        for v in per:
            _c, ours, holds = per[v][i]
            cells.append(f"{ours}: {'-' if holds is None else 'holds' if holds else 'no'}")
        out.append(f"| {claim} | " + " | ".join(cells) + " |")
    return out


def verdict_line(records: Sequence[Mapping[str, Any]], cond: Condition) -> str:
    """Which claims the condition explains: those that fail at the base value and hold at a
    larger one (the slow tests ask only the second)."""
    per = marks(records, cond)
    larger = [v for v in per if v > cond.base]

    def at(v: float) -> str:
        return f"{cond.cell(v)} {cond.unit}" if cond.unit else cond.cell(v)

    if not larger:
        return f"No run above the base ({at(cond.base)}): nothing is judged."
    first = next(iter(per.values()))
    names = [c.split(":")[0] for c, _o, _h in first]
    base = per.get(cond.base)
    already = [n for i, n in enumerate(names) if base is not None and base[i][2]]
    explained = [n for i, n in enumerate(names) if n not in already
                 and any(per[v][i][2] for v in larger)]
    rest = [n for n in names if n not in already and n not in explained]
    values = ", ".join(cond.cell(v) for v in larger)
    unit = f" {cond.unit}" if cond.unit else ""
    parts = []
    if explained:
        parts.append(f"explained by {cond.explained_by} (fails at {at(cond.base)}, "
                     f"holds at {' or '.join(cond.cell(x) for x in larger)}{unit}): claim "
                     + ", ".join(explained))
    if rest:
        where = (f"does not hold at {values}{unit}" if len(larger) == 1
                 else f"holds at none of {values}{unit}")
        parts.append(f"not explained ({where}): claim " + ", ".join(rest))
    if already:
        parts.append(f"already holding at {at(cond.base)}: claim " + ", ".join(already))
    return f"**Verdict:** {'; '.join(parts)}."
