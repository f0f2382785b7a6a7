"""Paper 000: how firmly three runs a point decide the best window (claims 6 and 7).

Claims 6 and 7 name the best window per hop count and rate (about 1 segment with RTS/CTS on,
about ceil(1.5 h) with it off). Each is one argmax over seven windows of means of three
20 s runs a path; where the windows differ less than the runs of one window do, that argmax is
the runs' chance, and a claim judged on it says nothing either way. This reading resamples the
grid's runs (each point's runs drawn again with replacement, as many as it has) and judges the
two claims on every resample: a claim whose verdict holds in nearly every resample is decided
by the runs, one that holds in some and fails in others is not. It reads the grids' records
only (no runs of its own) and is not the model.

Imports only the paper-analysis helpers (``map_analysis``).
"""
from __future__ import annotations

import random
import statistics
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from studies.p000_campus import map_analysis as M

#: Resamples per layout, and the seed of the draws (the page regenerates identically).
RESAMPLES = 1000
SEED = 2007
#: A verdict counts as decided by the runs when this share of the resamples or more agrees
#: with it (a stated cut: one in twenty may disagree).
FIRM = 0.95

Cell = Tuple[int, Any]          # hops, rate


@dataclass(frozen=True)
class Claim:
    """One claim's cells and test: with RTS/CTS ``rts``, at ``hops``, a cell passes when
    ``near(hops, best window)``; the claim holds with ``needed`` cells passing."""

    number: int
    rts: bool
    hops: Tuple[int, ...]
    needed: int
    near: Callable[[int, int], bool]
    paper: str


CLAIM6 = Claim(6, True, (2, 3, 4), 6, lambda h, w: w <= 2, "best window <= 2 in 6 of 9 cells")
CLAIM7 = Claim(7, False, (1, 2, 3, 4), 8, M.near_paper_best_off,
               "best window within 1 of min(6, ceil(1.5 h)) in 8 of 12 cells")
CLAIMS = (CLAIM6, CLAIM7)


@dataclass
class Draws:
    """One claim on one layout over the resamples: the best window the runs give per cell,
    the share of resamples with that same best window, the share in which the cell passes,
    and the share in which the claim holds."""

    observed: Dict[Cell, int]
    same: Dict[Cell, float]
    passing: Dict[Cell, float]
    holds_observed: Optional[bool]
    holds_share: float


def _best(means: Dict[M.Key, float], paths: Sequence[str], rate: Any, rts: bool
          ) -> Optional[int]:
    """``M.best_window`` of the hop count's average, as ``Grid.series`` takes it, but over
    one resample's means with the paths found once (``Grid`` finds them again per window,
    too slow for a thousand resamples)."""
    series = {}
    for w in M.WINDOWS:
        vals = [means.get((p, rate, rts, w)) for p in paths]
        if paths and all(v is not None for v in vals):
            series[w] = sum(v for v in vals if v is not None) / len(vals)
    return M.best_window(series)


def _bests(means: Dict[M.Key, float], by_hops: Dict[int, List[str]], claim: Claim
           ) -> Dict[Cell, int]:
    out = {}
    for h in claim.hops:
        for rate in M.RATES:
            w = _best(means, by_hops.get(h, []), rate, claim.rts)
            if w is not None:
                out[(h, rate)] = w
    return out


def draws(grid: M.Grid, claim: Claim, resamples: int = RESAMPLES, seed: int = SEED) -> Draws:
    """``claim`` judged on the grid's runs and on ``resamples`` resamples of them."""
    by_hops = {h: grid.paths(h) for h in claim.hops}
    keys = [k for k in grid.kbps if k[2] == claim.rts and grid.kbps[k]]
    observed = _bests({k: statistics.mean(grid.kbps[k]) for k in keys}, by_hops, claim)
    rng = random.Random(seed)
    same = {c: 0 for c in observed}
    passing = {c: 0 for c in observed}
    holds = 0
    for _ in range(resamples):
        means = {}
        for k in keys:
            runs = grid.kbps[k]
            means[k] = sum(rng.choice(runs) for _ in runs) / len(runs)
        bests = _bests(means, by_hops, claim)
        for c, w in bests.items():
            same[c] += w == observed.get(c)
            passing[c] += bool(claim.near(c[0], w))
        holds += sum(1 for c, w in bests.items() if claim.near(c[0], w)) >= claim.needed
    n = max(1, resamples)
    full = len(observed) == len(claim.hops) * len(M.RATES)
    return Draws(observed, {c: v / n for c, v in same.items()},
                 {c: v / n for c, v in passing.items()},
                 sum(1 for c, w in observed.items() if claim.near(c[0], w)) >= claim.needed
                 if full else None,
                 holds / n)


def firmness(d: Draws) -> str:
    """The claim's verdict on the runs and whether the resamples decide it."""
    if d.holds_observed is None:
        return "incomplete grid"
    agree = d.holds_share if d.holds_observed else 1 - d.holds_share
    verdict = "holds" if d.holds_observed else "fails"
    return f"{verdict} on the runs, in {agree:.0%} of resamples: " + \
        ("decided by the runs" if agree >= FIRM else "the runs' chance")


def section_lines(grids: Sequence[Tuple[int, M.Grid]], resamples: int = RESAMPLES) -> List[str]:
    """The page's section: per claim and layout (shadowing seed, grid), each cell's best
    window with how often the resamples give it and how often the cell passes, then the
    claim's verdict and how firm it is."""
    if not grids:
        return []
    seeds = [s for s, _g in grids]
    out = ["## How firmly three runs decide the best window (claims 6, 7; a test of one "
           "reading)", "",
           "Claims 6 and 7 name one best window per hop count and rate: an argmax over seven "
           "windows of means of three 20 s runs a path. Each grid's runs resampled "
           f"{resamples} times (each point's runs drawn again with replacement) and both claims "
           "judged on every resample: per cell, the best window on the runs (the share of "
           "resamples that give the same window / the share in which the cell passes the "
           f"claim's test). A verdict that {FIRM:.0%} of the resamples share is decided by the "
           "runs; one that fewer share is the runs' chance. Three runs drawn again from "
           "three understate how far a fourth could fall, so \"decided\" is the weaker of "
           "the two findings.", ""]
    firm: Dict[Tuple[int, int], bool] = {}
    for claim in CLAIMS:
        results = [draws(g, claim, resamples) for _s, g in grids]
        out += [f"Claim {claim.number} (RTS/CTS {'on' if claim.rts else 'off'}; "
                f"{claim.paper}):", "",
                "| hops | rate | " + " | ".join(f"seed {s}" for s in seeds) + " |",
                "|---|---|" + "---|" * len(seeds)]
        cells = sorted({c for d in results for c in d.observed},
                       key=lambda c: (c[0], M.RATES.index(c[1])))
        for c in cells:
            out.append(f"| {c[0]} | {M.rate_label(c[1])} | " + " | ".join(
                f"{d.observed[c]} ({d.same[c]:.0%} / {d.passing[c]:.0%})" if c in d.observed
                else "-" for d in results) + " |")
        out += [""] + [f"- seed {s}: claim {claim.number} {firmness(d)}"
                       for s, d in zip(seeds, results)] + [""]
        for s, d in zip(seeds, results):
            if d.holds_observed is not None:
                agree = d.holds_share if d.holds_observed else 1 - d.holds_share
                firm[(claim.number, s)] = agree >= FIRM
    decided = {n: sum(1 for (m, _s), f in firm.items() if m == n and f)
               for n in (c.number for c in CLAIMS)}
    out += ["**Verdict:** " + "; ".join(
        f"claim {n}: the verdict is decided by the runs on {k} of {len(seeds)} layouts"
        for n, k in decided.items()) + ". Where it is decided, our difference from the paper "
        "is not the runs' chance; where it is not, three runs a point cannot tell the "
        "windows apart, ours as likely as the paper's.", ""]
    return out
