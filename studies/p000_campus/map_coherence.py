"""Paper 000's reading of bursty loss (studies/p000_campus/experiments/000_coherence.yaml): the 3- and 4-hop
paths of the default layout under the same log-normal fading drawn afresh per frame or
drifting with a coherence time (``medium.fading_coherence``, docs/medium.md), read as the
quantities of claims 3 and 5-7 per coherence time, beside the RTT at a 1-segment window that
the paper reports for its 3-hop paths. It tests one reading of why our long paths differ
from MAP's (MAP's losses came in bursts, so a frame's retries met the same fade); it is not
the model.

Imports only the paper-analysis helpers (``analysis``, ``map_analysis``, ``map_variants``).
"""
from __future__ import annotations

from typing import Any, List, Mapping, Sequence

from harness.analysis import records as A
from studies.p000_campus import map_analysis as M
from studies.p000_campus import map_variants as V

RATE = V.RATE
#: The paper's 3-hop RTT at auto rate and a 1-segment window, RTS/CTS off and on (§4.3).
PAPER_RTT_MS = (388.0, 679.0)


def coherence_of(rec: Mapping[str, Any]) -> float:
    """The run's fading coherence time in ms (0: a fresh fade per frame, the default)."""
    value = A.param(rec, "medium.fading_coherence")
    return 0.0 if value is None else float(value)


def _label(value: float) -> str:
    return "per frame" if value == 0 else f"coherence {value:g} ms"


#: The condition this run varies (``map_variants``).
COHERENCE = V.Condition(coherence_of, "coherence (ms)", _label, 0.0, "ms", "bursty loss")


def sigma_of(records: Sequence[Mapping[str, Any]]) -> str:
    """The fading spread the runs share, as the page states it ("5 dB"; "mixed" if not one)."""
    got = {A.param(r, "topology.fading_sigma") for r in records}
    return f"{got.pop():g} dB" if len(got) == 1 and None not in got else "mixed"


def rtt_lines(records: Sequence[Mapping[str, Any]]) -> List[str]:
    """Per coherence time and hop count: the mean RTT at a 1-segment window and the largest
    over the windows, RTS/CTS off and on (ms); the paper's 3-hop RTTs at 1 segment are
    hundreds of ms (auto rate; ours 5.5 Mbit/s)."""
    out = ["| coherence (ms) | hops | RTT at 1 segment off / on (ms) | "
           "largest RTT over windows off / on (ms) |", "|---|---|---|---|"]
    for value, grid in V.grids(records, COHERENCE).items():
        for h in grid.hop_counts():
            one, most = [], []
            for rts in (False, True):
                series = grid.series(h, RATE, rts, what="rtt")
                one.append(f"{series[1]:.0f}" if 1 in series else "-")
                most.append(f"{max(series.values()):.0f}" if series else "-")
            out.append(f"| {value:g} | {h} | {' / '.join(one)} | {' / '.join(most)} |")
    return out


def _exchange(records: Sequence[Mapping[str, Any]]) -> List[str]:
    """Where the attempts failed, for the runs whose medium counted it (``rts_failures``)."""
    counted = sum(1 for r in records if A.exchange_failures(r) is not None)
    return V.exchange_section(records, COHERENCE, f"{counted} of {len(records)} runs, those "
                              "whose medium counted the attempts that ended at the RTS")


def section_lines(records: Sequence[Mapping[str, Any]]) -> List[str]:
    """The reading's part of a report or of the paper page."""
    ok = [r for r in records if r.get("status") == "ok"]
    if not ok:
        return ["No run of the bursty-loss reading is stored yet.", ""]
    windows = sorted({M.window_label(A.param(r, "policy.rwnd_clamp")) for r in ok})
    return ["Log-normal fading of " + sigma_of(ok) + " at 5.5 Mbit/s, the default layout "
            "(shadowing seed 1), drawn afresh per frame or drifting with a coherence time "
            "(each router pair keeps its fade, correlation exp(-dt / T) between frames dt "
            "apart; docs/medium.md): the same delivery ratio per attempt on every hop, losses "
            "spread evenly or in bursts. RTS/CTS on over off reads as claim 5 does (3 hops: "
            "means over the windows; 4 hops: best averages); windows measured: "
            + ", ".join(windows) + ".", "", "What TCP got:", ""] + V.table_lines(ok, COHERENCE) \
        + ["", f"Round-trip times (the paper's 3-hop paths at a 1-segment window: "
           f"{PAPER_RTT_MS[0]:.0f} ms RTS/CTS off, {PAPER_RTT_MS[1]:.0f} ms on):", ""] \
        + rtt_lines(ok) + _exchange(ok) \
        + ["", "The claims that differ on the default layout, judged per coherence time "
           "(criteria as in the grid's, restricted to these paths and rate):", ""] \
        + V.claim_lines(ok, COHERENCE) + ["", V.verdict_line(ok, COHERENCE), ""]
