"""Paper 000, a test of one reading of claim 11 (auto rate beats 5.5 Mbit/s at 1, 2 and 4 hops,
not at 3) on stored records, no run of its own: auto rate falls behind a fixed 5.5 Mbit/s on a
path exactly where that path cannot hold 11 Mbit/s (its throughput at a fixed 11 Mbit/s below
5.5's, from 000_rate11). Why minstrel loses there (its probes of the faster rates on hops that
fail them, or its choices under collisions) is not measured here. If that holds path by path, claim 11's pattern over hop counts is a statement
about which paths hold 11 Mbit/s at each hop count, not about the hop count itself.

Imports: map_analysis and map_eleven (pure functions over records).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from studies.p000_campus import map_analysis as M
from studies.p000_campus import map_eleven

#: A path "holds 11 Mbit/s" when 11 Mbit/s carries at least this share of 5.5's throughput
#: (a 5 % band for run-to-run noise: one 20 s run per point in 000_rate11).
HOLDS = 0.95
#: Share of a layout's paths where the two must agree for the reading to hold on it.
AGREEMENT = 0.9


@dataclass(frozen=True)
class PathRates:
    """One path on one layout: auto over 5.5 Mbit/s (the grid) and 11 over 5.5 (000_rate11)."""

    path: str
    auto_ratio: float      # means over RTS/CTS and windows, auto / 5.5 Mbit/s
    eleven_ratio: float    # 11 / 5.5 Mbit/s, RTS/CTS off, window unclamped

    @property
    def hops(self) -> int:
        return M.hops_of(self.path)

    @property
    def holds_eleven(self) -> bool:
        return self.eleven_ratio >= HOLDS

    @property
    def auto_ahead(self) -> bool:
        return self.auto_ratio > 1.0

    @property
    def agrees(self) -> bool:
        return self.holds_eleven == self.auto_ahead


def auto_ratios(grid: M.Grid) -> Dict[str, float]:
    """Path -> auto over 5.5 Mbit/s, each the mean over RTS/CTS and windows measured at both."""
    out = {}
    for h in sorted(grid.hop_counts()):
        for p in grid.paths(h):
            pairs = [(grid.mean((p, "auto", s, w)), grid.mean((p, 5.5, s, w)))
                     for s in M.RTS for w in M.WINDOWS]
            got = [(a, b) for a, b in pairs if a is not None and b is not None]
            base = sum(b for _a, b in got)
            if got and base:
                out[p] = sum(a for a, _b in got) / base
    return out


def rows(grid: M.Grid, eleven: Sequence[Mapping[str, Any]], seed: int) -> List[PathRates]:
    """The layout's paths measured in both runs, by hop count then name."""
    auto, fast = auto_ratios(grid), map_eleven.ratios(eleven, seed)
    return [PathRates(p, auto[p], fast[p])
            for p in sorted(set(auto) & set(fast), key=lambda p: (M.hops_of(p), p))]


def agreement(found: Sequence[PathRates]) -> Optional[float]:
    return sum(1 for r in found if r.agrees) / len(found) if found else None


def section_lines(grids: Sequence[Tuple[int, M.Grid]], eleven: Sequence[Mapping[str, Any]]
                  ) -> List[str]:
    """The page's section: per path and layout both ratios, each layout's agreement and the
    verdict. ``grids`` holds (shadowing seed, Grid) pairs."""
    per = [(seed, rows(grid, eleven, seed)) for seed, grid in grids]
    per = [(seed, found) for seed, found in per if found]
    if not per:
        return []
    paths = sorted({r.path for _s, found in per for r in found}, key=lambda p: (M.hops_of(p), p))
    out = ["## Auto rate against 5.5 Mbit/s, path by path (claim 11, a test of one reading)", "",
           "Whether auto rate falls behind a fixed 5.5 Mbit/s on a path exactly where the path "
           "cannot hold 11 Mbit/s: auto / 5.5 Mbit/s from the grid (means over RTS/CTS and "
           "windows) beside 11 / 5.5 Mbit/s from `paper000_rate11` (RTS/CTS off, window "
           f"unclamped); a path holds 11 Mbit/s when the second is at least {HOLDS:g}. Marked "
           "*: the two disagree.", "",
           "| path | hops | " + " | ".join(f"seed {s}: auto / 5.5, 11 / 5.5" for s, _f in per)
           + " |", "|---|---|" + "---|" * len(per)]
    for p in paths:
        cells = []
        for _s, found in per:
            r = next((x for x in found if x.path == p), None)
            cells.append("-" if r is None else f"{r.auto_ratio:.2f}, {r.eleven_ratio:.2f}"
                         + ("" if r.agrees else " *"))
        out.append(f"| {p} | {M.hops_of(p)} | " + " | ".join(cells) + " |")
    out += ["", "| layout | paths where the two agree | hop counts with a path that cannot "
            "hold 11 Mbit/s | hop counts where auto falls behind 5.5 Mbit/s (means over "
            "paths, claim 11) |", "|---|---|---|---|"]
    held = 0
    for seed, found in per:
        share = agreement(found)
        held += share is not None and share >= AGREEMENT
        weak = sorted({r.hops for r in found if not r.holds_eleven})
        grid = dict(grids)[seed]
        behind = [h for h in sorted(grid.hop_counts()) if _behind(grid, h)]
        out.append(f"| seed {seed} | {sum(r.agrees for r in found)} of {len(found)} | "
                   f"{', '.join(map(str, weak)) or 'none'} | "
                   f"{', '.join(map(str, behind)) or 'none'} |")
    if held >= 2:
        text = ("the reading holds: auto rate falls behind 5.5 Mbit/s on the paths that cannot "
                "hold 11 Mbit/s and beats it on the others, at every hop count. Claim 11's "
                "exception at 3 hops is then a property of MAP's 3-hop paths (more of them, or "
                "worse, unable to hold 11 Mbit/s than its 2- and 4-hop paths), not of the hop "
                "count; on ours the paths "
                "that cannot hold 11 Mbit/s are too few at any hop count to pull the hop "
                "count's mean below 5.5 Mbit/s's (last column).")
    else:
        text = ("the reading does not hold: whether a path holds 11 Mbit/s does not tell "
                "whether auto rate beats 5.5 Mbit/s on it.")
    return out + ["", f"**Verdict ({held} of {len(per)} layouts):** {text}", ""]


def _behind(grid: M.Grid, hops: int) -> bool:
    auto, fixed = M.mean_over(grid, hops, rates=["auto"]), M.mean_over(grid, hops, rates=[5.5])
    return auto is not None and fixed is not None and auto < fixed
