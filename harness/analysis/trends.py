"""Trend assertions for experiments: each failure prints the numbers, the regime and the rule.

A trend test that fails with ``False is not True`` teaches nothing; these print the table they
judged (mean, 95% CI, n per point), the regime the claim is made for, and the expected relation.

A *series* is any of: a mapping ``x -> value`` or ``x -> [repetitions]``; a list of values
(x = 0, 1, ...); a list of ``(x, value)`` pairs. Repetitions are averaged.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from harness.analysis import stats
from harness.experiment.results import jain_fairness

Regime = Union[None, str, Mapping[str, Any]]


@dataclass
class Point:
    x: Any
    values: List[float]

    @property
    def mean(self) -> float:
        return stats.mean(self.values)

    @property
    def ci(self) -> float:
        return stats.ci_half_width(self.values)


def points(series: Any) -> List[Point]:
    """Normalise a series (see module doc) to a list of points in the given order."""
    if isinstance(series, Mapping):
        items = list(series.items())
    else:
        seq = list(series)
        if seq and all(isinstance(p, tuple) and len(p) == 2 for p in seq):
            items = seq
        else:
            items = list(enumerate(seq))
    out = []
    for x, value in items:
        vals = list(value) if isinstance(value, (list, tuple)) else [value]
        vals = [float(v) for v in vals if v is not None]
        if not vals:
            raise ValueError(f"no values for x={x!r}")
        out.append(Point(x, vals))
    if not out:
        raise ValueError("empty series")
    return out


def _fmt(v: Optional[float]) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.4g}"


def table(pts: Sequence[Point], what: str = "value", x_name: str = "x",
          marks: Optional[Dict[int, str]] = None) -> str:
    """The numbers as a text table; ``marks`` annotates rows (index -> note)."""
    marks = marks or {}
    rows = [(str(p.x), _fmt(p.mean), _fmt(p.ci), str(len(p.values)), marks.get(i, ""))
            for i, p in enumerate(pts)]
    head = (x_name, f"mean {what}", "±95% CI", "n", "")
    widths = [max(len(r[c]) for r in rows + [head]) for c in range(4)]

    def line(r: Sequence[str]) -> str:
        return ("  " + " | ".join(r[c].rjust(widths[c]) for c in range(4))
                + (f"  <- {r[4]}" if r[4] else ""))

    return "\n".join([line(head), "  " + "-+-".join("-" * w for w in widths)] +
                     [line(r) for r in rows])


def _regime_text(regime: Regime) -> str:
    if regime is None or regime == "":
        return "(not stated)"
    if isinstance(regime, Mapping):
        return ", ".join(f"{k}={v}" for k, v in regime.items())
    return str(regime)


def _fail(name: str, pts: Sequence[Point], expected: str, regime: Regime, what: str,
          x_name: str, found: str, marks: Optional[Dict[int, str]] = None) -> None:
    raise AssertionError(
        f"{name}: {found}\n"
        f"regime: {_regime_text(regime)}\n"
        f"expected: {expected}\n"
        f"{table(pts, what, x_name, marks)}")


def _monotone(series: Any, sign: int, strict: bool, tolerance: float, regime: Regime,
              what: str, x_name: str, name: str) -> None:
    pts = points(series)
    word = "decrease" if sign < 0 else "increase"
    if strict:
        expected = (f"{what} to {word} strictly at every step of {x_name}"
                    + (f" by more than {tolerance:.0%}" if tolerance else ""))
    else:
        expected = (f"{what} never to {'increase' if sign < 0 else 'decrease'} along {x_name}"
                    + (f" by more than {tolerance:.0%} of the previous value" if tolerance else ""))
    marks = {}
    for i in range(1, len(pts)):
        prev, cur = pts[i - 1].mean, pts[i].mean
        step = (cur - prev) * sign  # positive = in the expected direction
        if strict:
            ok = step > tolerance * abs(prev)
        else:
            ok = step >= -tolerance * abs(prev)
        if not ok:
            change = (cur - prev) / abs(prev) if prev else math.inf
            marks[i] = f"{change:+.1%} from {x_name}={pts[i - 1].x}"
    if marks:
        _fail(name, pts, expected, regime, what, x_name,
              f"{len(marks)} step(s) break the trend", marks)


def assert_decreasing(series: Any, *, strict: bool = False, tolerance: float = 0.0,
                      regime: Regime = None, what: str = "value", x_name: str = "x") -> None:
    """Means fall along the series.

    Not strict: each value <= previous * (1 + tolerance) (small rises are noise).
    Strict: each value < previous * (1 - tolerance) (every step falls by more than tolerance).
    """
    _monotone(series, -1, strict, tolerance, regime, what, x_name, "assert_decreasing")


def assert_increasing(series: Any, *, strict: bool = False, tolerance: float = 0.0,
                      regime: Regime = None, what: str = "value", x_name: str = "x") -> None:
    """Mirror of ``assert_decreasing``."""
    _monotone(series, +1, strict, tolerance, regime, what, x_name, "assert_increasing")


def argmax(series: Any) -> Any:
    """The x whose mean is largest (the first one on ties)."""
    pts = points(series)
    return max(pts, key=lambda p: p.mean).x if pts else None


def assert_argmax_in(series: Any, lo: Any, hi: Any, *, regime: Regime = None,
                     what: str = "value", x_name: str = "x") -> None:
    """The x of the largest mean lies in [lo, hi] (inclusive)."""
    pts = points(series)
    best = max(range(len(pts)), key=lambda i: pts[i].mean)
    x = pts[best].x
    try:
        ok = lo <= x <= hi
    except TypeError:
        ok = False
    if not ok:
        _fail("assert_argmax_in", pts, f"argmax of {what} over {x_name} in [{lo}, {hi}]",
              regime, what, x_name, f"argmax is {x_name}={x}", {best: "max"})


def assert_unimodal(series: Any, *, tolerance: float = 0.0, interior: bool = False,
                    regime: Regime = None, what: str = "value", x_name: str = "x") -> None:
    """Means rise (within tolerance) to one peak, then fall (within tolerance).

    ``interior=True`` also requires the peak not to sit at either end (a real rise and fall).
    """
    pts = points(series)
    best = max(range(len(pts)), key=lambda i: pts[i].mean)
    marks: Dict[int, str] = {best: "peak"}
    bad = 0
    for i in range(1, best + 1):
        if pts[i].mean < pts[i - 1].mean * (1 - tolerance) - 1e-12:
            marks[i] = f"falls before the peak ({(pts[i].mean / pts[i - 1].mean - 1):+.1%})"
            bad += 1
    for i in range(best + 1, len(pts)):
        if pts[i].mean > pts[i - 1].mean * (1 + tolerance) + 1e-12:
            marks[i] = f"rises after the peak ({(pts[i].mean / pts[i - 1].mean - 1):+.1%})"
            bad += 1
    if interior and best in (0, len(pts) - 1):
        marks[best] = "peak at an end"
        bad += 1
    if bad:
        tol = f" (steps against the trend up to {tolerance:.0%} tolerated)" if tolerance else ""
        _fail("assert_unimodal", pts,
              f"{what} rises to a single peak{' inside the range' if interior else ''} "
              f"and falls after it along {x_name}{tol}", regime, what, x_name,
              "not unimodal", marks)


def relative_spread(values: Any, relative_to: str = "max") -> float:
    """(max - min) / max (or / min, / mean) of the means."""
    means = [p.mean for p in points(values)]
    hi, lo = max(means), min(means)
    base = {"max": hi, "min": lo, "mean": sum(means) / len(means)}[relative_to]
    return (hi - lo) / base if base else math.inf


def assert_relative_spread_below(values: Any, pct: float, *, relative_to: str = "max",
                                 regime: Regime = None, what: str = "value",
                                 x_name: str = "x") -> None:
    """(max - min) / ``relative_to`` of the means is below ``pct`` percent."""
    if relative_to not in ("max", "min", "mean"):
        raise ValueError("relative_to must be max, min or mean")
    pts = points(values)
    spread = relative_spread(values, relative_to)
    if not spread < pct / 100.0:
        hi = max(range(len(pts)), key=lambda i: pts[i].mean)
        lo = min(range(len(pts)), key=lambda i: pts[i].mean)
        _fail("assert_relative_spread_below", pts,
              f"(max - min) / {relative_to} of {what} < {pct:g}%", regime, what, x_name,
              f"spread is {spread:.1%}", {hi: "max", lo: "min"})


def assert_ordering(groups: Mapping[Any, Any], order: Optional[Sequence[Any]] = None, *,
                    strict: bool = False, tolerance: float = 0.0, regime: Regime = None,
                    what: str = "value", x_name: str = "group") -> None:
    """Group means are in descending order ``order`` (default: the mapping's order).

    Not strict: each mean <= previous * (1 + tolerance); strict: each < previous.
    """
    order = list(groups) if order is None else list(order)
    missing = [g for g in order if g not in groups]
    if missing:
        raise ValueError(f"groups {missing} not in {list(groups)}")
    series = [(g, groups[g]) for g in order]
    try:
        _monotone(series, -1, strict, tolerance, regime, what, x_name, "assert_ordering")
    except AssertionError as err:
        expected = " > " if strict else " >= "
        msg = str(err).replace("expected: ", f"expected: {expected.join(map(str, order))}; ", 1)
        raise AssertionError(msg) from None


def assert_fair(xs: Any, min_index: float = 0.9, *, regime: Regime = None,
                what: str = "throughput", x_name: str = "flow") -> None:
    """Jain's index of the (mean) shares is at least ``min_index``."""
    pts = points(xs)
    index = jain_fairness([p.mean for p in pts])
    if index < min_index:
        total = sum(p.mean for p in pts)
        marks = {i: f"{p.mean / total:.0%} share" for i, p in enumerate(pts)} if total else {}
        _fail("assert_fair", pts, f"Jain index of {what} >= {min_index:g}", regime, what,
              x_name, f"Jain index is {index:.3f}", marks)
