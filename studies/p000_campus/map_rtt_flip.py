"""Paper 000, a test of one reading of claim 8 (RTS/CTS raises the RTT at 1-2 hops and lowers it
at 3-4) on the grid's records, no run of its own: at a fixed window the RTT is the window over
the throughput (Little's law, ``map_analysis.little_rtt_ms``), so RTS/CTS can lower the RTT at
a window only where it raises the throughput there. If that holds window by window, claim 8's
flip is claims 4 and 5 seen through the RTT, and our RTT cannot flip where RTS/CTS does not help
(claim 5). The unclamped window is left out: its RTT is the queue TCP builds (hundreds of ms),
which Little's law does not tie to a window we set.

Imports: map_analysis only (pure functions over a Grid).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple

from studies.p000_campus import map_analysis as M

#: The windows compared: the grid's clamped ones (the unclamped window's RTT is its queue).
WINDOWS = (1, 2, 3, 4, 5, 6)
#: Share of the (path-averaged) windows where RTS/CTS must move the RTT against the throughput
#: for the reading to hold on a layout.
AGREEMENT = 0.9


@dataclass(frozen=True)
class RtsRtt:
    """One hop count and rate: RTS/CTS's effect on RTT and throughput, window by window."""

    hops: int
    rate: Any
    against: int          # windows where RTT and throughput moved in opposite directions
    compared: int         # windows with both settings measured
    rtt_off: float        # ms, means over the windows compared
    rtt_on: float
    kbps_off: float       # kbit/s, means over the windows compared
    kbps_on: float


def rows(grid: M.Grid, hops: Sequence[int] = (1, 2, 3, 4), rates: Sequence[Any] = M.RATES,
         windows: Sequence[int] = WINDOWS) -> List[RtsRtt]:
    """Per hop count and rate: at each window (the hop count's averages over its paths), does
    RTS/CTS move the RTT against the throughput? Points not measured are left out."""
    out = []
    for h in hops:
        for rate in rates:
            cells: List[Tuple[float, float, float, float]] = []   # rtt off, on, kbps off, on
            for w in windows:
                r0, r1 = (grid.avg(h, rate, s, w, "rtt") for s in M.RTS)
                k0, k1 = (grid.avg(h, rate, s, w) for s in M.RTS)
                if r0 is not None and r1 is not None and k0 is not None and k1 is not None:
                    cells.append((r0, r1, k0, k1))
            if not cells:
                continue
            n = len(cells)
            mean = [sum(c[i] for c in cells) / n for i in range(4)]
            against = sum(1 for r0, r1, k0, k1 in cells if (r1 - r0) * (k1 - k0) < 0)
            out.append(RtsRtt(h, rate, against, n, *mean))
    return out


def costly(found: Sequence[RtsRtt]) -> List[int]:
    """Hop counts where RTS/CTS lowered the throughput (means over rates and windows)."""
    hops = sorted({r.hops for r in found})
    return [h for h in hops
            if sum(r.kbps_on - r.kbps_off for r in found if r.hops == h) < 0]


def agreement(found: Sequence[RtsRtt]) -> Optional[float]:
    """Share of the windows compared where RTS/CTS moved the RTT against the throughput."""
    n = sum(r.compared for r in found)
    return sum(r.against for r in found) / n if n else None


def holds(grid: M.Grid) -> Optional[bool]:
    """The reading holds on a layout when RTS/CTS moves the RTT against the throughput at
    AGREEMENT of the windows compared, over every hop count and rate."""
    share = agreement(rows(grid))
    return None if share is None else share >= AGREEMENT


def flips(found: Sequence[RtsRtt]) -> Optional[bool]:
    """Claim 8's flip on the clamped windows: RTS/CTS raises the mean RTT at 1-2 hops and
    lowers it at 3-4 (means over rates)."""
    per = {}
    for h in (1, 2, 3, 4):
        at = [r for r in found if r.hops == h]
        if not at:
            return None
        per[h] = sum(r.rtt_on - r.rtt_off for r in at) / len(at)
    return per[1] > 0 and per[2] > 0 and per[3] < 0 and per[4] < 0


def section_lines(grids: Sequence[Tuple[int, M.Grid]]) -> List[str]:
    """The page's section: the default layout's table, each layout's agreement, the verdict.
    ``grids`` holds (shadowing seed, Grid) pairs, the default layout (seed 1) first."""
    if not grids:
        return []
    table = rows(grids[0][1])
    if not table:
        return []
    out = ["## RTS/CTS, RTT and throughput at one window (claim 8, a test of one reading)", "",
           "Whether claim 8's flip (RTS/CTS raising the RTT at 1-2 hops, lowering it at 3-4) is "
           "claims 4 and 5 seen through Little's law: at a fixed window the RTT is the window "
           "over the throughput, so RTS/CTS can lower the RTT only where it raises the "
           "throughput. Windows 1-6 (the unclamped window's RTT is the queue TCP builds), "
           "averages over each hop count's paths; default layout (shadowing seed 1).", "",
           "| hops | rate | RTT off / on (ms) | kbit/s off / on | windows where RTS/CTS moved "
           "the RTT against the throughput |", "|---|---|---|---|---|"]
    for r in table:
        out.append(f"| {r.hops} | {M.rate_label(r.rate)} | {r.rtt_off:.0f} / {r.rtt_on:.0f} | "
                   f"{r.kbps_off:.0f} / {r.kbps_on:.0f} | {r.against} of {r.compared} |")
    out += ["", "| layout | windows against | reading holds (>= "
            f"{AGREEMENT:.0%}) | RTS/CTS raises the RTT at 1-2 hops, lowers it at 3-4 |",
            "|---|---|---|---|"]
    marks = []
    for seed, grid in grids:
        found = rows(grid)
        share, flip = agreement(found), flips(found)
        mark = None if share is None else share >= AGREEMENT
        marks.append(mark)
        out.append(f"| seed {seed} | " + ("-" if share is None else f"{share:.0%}") + " | "
                   + ("-" if mark is None else "yes" if mark else "no") + " | "
                   + ("-" if flip is None else "yes" if flip else "no") + " |")
    held = sum(1 for m in marks if m)
    if held >= 2:
        cost = costly(table)
        gain = [f"{M.rate_label(r.rate)} at {r.hops} hops" for r in table
                if r.kbps_on > r.kbps_off and r.rtt_on < r.rtt_off]
        text = ("the reading holds: at a fixed window RTS/CTS moves the RTT against the "
                "throughput, so claim 8's flip at 3-4 hops stands or falls with claim 5 "
                "(RTS/CTS raising the throughput there). On the default layout RTS/CTS cost "
                "throughput (means over rates and windows) at "
                + (", ".join(str(h) for h in cost) or "no") + " hops and raised the RTT with it"
                + ("; where it raised the throughput (" + ", ".join(gain) + ") it lowered the "
                   "RTT" if gain else "") + ". The paper's own numbers agree with the law: its "
                "RTS/CTS lowered the RTT at 3-4 hops, where it raised the throughput "
                "(+19 to +27 %).")
    else:
        text = ("the reading does not hold: RTS/CTS moves the RTT with the throughput at too "
                "many windows for Little's law to tie claim 8 to claim 5.")
    return out + ["", f"**Verdict ({held} of {len(marks)} layouts):** {text}", ""]
