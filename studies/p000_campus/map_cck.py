"""Paper 000's reading of fragile DATA (studies/p000_campus/experiments/000_cck_interference.yaml): the 3-
and 4-hop paths of the default layout with CCK payloads suppressing an overlapping frame as the
medium does (weight 2) or not at all (16, as the medium treats Barker symbols; docs/medium.md),
read as the quantities of claims 3 and 5-7 per weight, with where the attempts failed. It tests
one reading of why RTS/CTS paid off on MAP's long paths and not on ours (a hidden sender's frame
broke MAP's 5.5 Mbit/s DATA as readily as its RTS); it is not the model.

Imports only the paper-analysis helpers (``analysis``, ``map_analysis``, ``map_variants``).
"""
from __future__ import annotations

from typing import Any, List, Mapping, Sequence

from harness.analysis import records as A
from studies.p000_campus import map_analysis as M
from studies.p000_campus import map_variants as V

#: The medium's own weight of interference against a CCK symbol (docs/medium.md).
MEDIUM_WEIGHT = 2.0


def weight_of(rec: Mapping[str, Any]) -> float:
    """The run's CCK interference weight G (None in the record: the medium's own)."""
    value = A.param(rec, "medium.cck_interference_weight")
    return MEDIUM_WEIGHT if value is None else float(value)


def _label(value: float) -> str:
    return f"G {value:g}" + (" (the medium's)" if value == MEDIUM_WEIGHT else "")


#: The condition this run varies (``map_variants``).
CCK_WEIGHT = V.Condition(weight_of, "CCK interference weight G", _label, MEDIUM_WEIGHT, "",
                         "DATA as fragile as the RTS")


def section_lines(records: Sequence[Mapping[str, Any]]) -> List[str]:
    """The reading's part of a report or of the paper page."""
    ok = [r for r in records if r.get("status") == "ok"]
    if not ok:
        return ["No run of the fragile-DATA reading is stored yet.", ""]
    windows = sorted({M.window_label(A.param(r, "policy.rwnd_clamp")) for r in ok})
    return ["The same paths at 5.5 Mbit/s on the default layout (shadowing seed 1, the campus "
            "file's 2 dB fading), with an overlapping frame charged against each CCK symbol "
            "of the DATA as the medium does (G 2: about 4.5 dB of SIR needed, where the RTS "
            "at 1 Mbit/s needs about 10.5) or at full power, as the medium charges it against "
            "Barker symbols (G 16: about 13.5 dB; docs/medium.md). Link table, routes and "
            "path check are the same for both. RTS/CTS on over off reads as claim 5 does "
            "(3 hops: means over the windows; 4 hops: best averages); windows measured: "
            + ", ".join(windows) + ".", "", "What TCP got:", ""] \
        + V.table_lines(ok, CCK_WEIGHT) + V.exchange_section(ok, CCK_WEIGHT) \
        + ["", "The claims that differ on the default layout, judged per weight (criteria as "
           "in the grid's, restricted to these paths and rate):", ""] \
        + V.claim_lines(ok, CCK_WEIGHT) + ["", V.verdict_line(ok, CCK_WEIGHT), ""]
