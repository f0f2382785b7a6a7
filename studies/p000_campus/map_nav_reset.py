"""Paper 000's reading of the NAV an unanswered RTS leaves behind
(studies/p000_campus/experiments/000_nav_reset.yaml): on the long paths about a fifth of the RTS frames get
no CTS, and in the medium's default every one of them still holds its overhearers' NAV for
the whole exchange it announced. 802.11 (2012, 9.3.2.4) permits a station to reset a NAV an
RTS set when nothing starts on the air shortly after it (``medium.nav_reset: true``); cards
that did so gave up less air to failed exchanges. Read as the quantities of claims 3 and 5-7
with the rule off and on, on the same paths, rate and windows; the RTS/CTS-off runs are the
control (no RTS, nothing to reset). It tests one reading of claim 5; it is not the model.

Imports only the paper-analysis helpers (``analysis``, ``map_analysis``, ``map_variants``).
"""
from __future__ import annotations

import statistics
from typing import Any, List, Mapping, Optional, Sequence

from harness.analysis import records as A
from studies.p000_campus import map_analysis as M
from studies.p000_campus import map_variants as V


def reset_of(rec: Mapping[str, Any]) -> float:
    """1.0 when the run's medium reset the NAV of an unanswered RTS, else 0.0."""
    return 1.0 if A.param(rec, "medium.nav_reset") else 0.0


def _label(value: float) -> str:
    return "NAV reset" if value else "full NAV (the medium's)"


def _cell(value: float) -> str:
    return "reset" if value else "full"


#: The condition this run varies (``map_variants``).
NAV_RESET = V.Condition(reset_of, "NAV of an unanswered RTS", _label, 0.0, "",
                        "the NAV reset of an unanswered RTS", cell=_cell)


def resets_per_run(records: Sequence[Mapping[str, Any]], rts: bool) -> Optional[float]:
    """Mean over the rule's runs with RTS/CTS ``rts`` of the NAV resets of all radios."""
    counts = []
    for rec in records:
        if reset_of(rec) and bool(A.param(rec, "topology.rts")) == rts:
            radios = ((rec.get("medium") or {}).get("summary") or {}).get("radios") or {}
            if any("nav_resets" in r for r in radios.values()):
                counts.append(sum(int(r.get("nav_resets") or 0) for r in radios.values()))
    return statistics.fmean(counts) if counts else None


def control_ratio(records: Sequence[Mapping[str, Any]]) -> Optional[float]:
    """With RTS/CTS off (no RTS, so nothing to reset): mean throughput with the rule over
    without it, over the same paths and windows."""
    kbps = {v: [r["flows"][0]["throughput_bps"] for r in records if not A.param(
        r, "topology.rts") and reset_of(r) == v and r.get("flows")] for v in (0.0, 1.0)}
    if not kbps[0.0] or not kbps[1.0]:
        return None
    return statistics.fmean(kbps[1.0]) / statistics.fmean(kbps[0.0])


def section_lines(records: Sequence[Mapping[str, Any]]) -> List[str]:
    """The reading's part of a report or of the paper page (its ok records)."""
    ok = [r for r in records if r.get("status") == "ok"]
    if not any(reset_of(r) for r in ok):
        return ["No run of the NAV-reset reading is stored yet.", ""]
    windows = sorted({M.window_label(A.param(r, "policy.rwnd_clamp")) for r in ok})
    on, off = resets_per_run(ok, True), resets_per_run(ok, False)
    ctrl = control_ratio(ok)
    counts = ("NAV resets per run (all radios): "
              + (f"{on:.0f} with RTS/CTS on" if on is not None else "-")
              + (f", {off:.0f} with it off" if off is not None else "")
              + (f"; with RTS/CTS off the rule changes the mean throughput by "
                 f"{ctrl - 1:+.1%} (the control: no RTS, nothing to reset; runs differ only "
                 "by their seeds)" if ctrl is not None else "") + ".")
    return ["The default layout's 3- and 4-hop paths at 5.5 Mbit/s, RTS/CTS off and on (per "
            "frame, as madwifi chose it: `medium.rts_flags: first_entry`), with the medium's "
            "NAV, which an overheard RTS sets for its whole announced exchange, or with the NAV "
            "of an RTS reset when nothing starts on the air within 2 SIFS + CTS + "
            "PHY-RX-START delay + 2 slots of its end (`medium.nav_reset: true`, 802.11-2012 "
            "9.3.2.4). RTS/CTS on over off reads as claim 5 does (3 hops: means over the "
            "windows; 4 hops: best averages); windows measured: " + ", ".join(windows)
            + "; one 20 s BIC flow, one run per point.", "", counts, "",
            "What TCP got:", ""] + V.table_lines(ok, NAV_RESET) \
        + V.exchange_section(ok, NAV_RESET) \
        + ["", "The claims that differ on the default layout, judged per NAV rule (criteria "
           "as in the grid's, restricted to these paths and rate):", ""] \
        + V.claim_lines(ok, NAV_RESET) + ["", V.verdict_line(ok, NAV_RESET), ""]
