"""Paper 000's reading of what "RTS/CTS off" means (studies/p000_campus/experiments/000_per_frame_rts.yaml): the
3- and 4-hop paths of the default layout with RTS/CTS chosen per frame, the threshold alone
deciding as MAP's madwifi did (``medium.rts_flags: first_entry``), beside the same runs with
the kernel's choice per rate-table entry (minstrel puts every fallback entry behind RTS/CTS
whatever the threshold; docs/medium.md). The kernel's runs are those of 000_cck_interference
at the medium's CCK weight: the same paths, windows and seed. Read as the quantities of claims
3 and 5-7 per choice, with where the attempts failed. It tests one reading of why RTS/CTS paid
off on MAP's long paths and not on ours; it is not the model.

Imports only the paper-analysis helpers (``analysis``, ``map_analysis``, ``map_variants``,
``map_cck``).
"""
from __future__ import annotations

from typing import Any, List, Mapping, Sequence

from harness.analysis import records as A
from studies.p000_campus import map_analysis as M
from studies.p000_campus import map_cck
from studies.p000_campus import map_variants as V

#: Condition values: the kernel's choice per rate-table entry (the medium's default), per frame.
PER_ENTRY, PER_FRAME = 0.0, 1.0


def choice_of(rec: Mapping[str, Any]) -> float:
    """``PER_FRAME`` where the run's medium followed each frame's first entry."""
    return PER_FRAME if A.param(rec, "medium.rts_flags") == "first_entry" else PER_ENTRY


def _cell(value: float) -> str:
    return "per frame" if value == PER_FRAME else "per entry"


def _label(value: float) -> str:
    return ("per frame (the threshold's)" if value == PER_FRAME
            else "per entry (the kernel's)")


#: The condition this run varies (``map_variants``).
RTS_CHOICE = V.Condition(choice_of, "RTS/CTS chosen", _label, PER_ENTRY, "",
                         "RTS/CTS off meaning every attempt bare", cell=_cell)


def records(flags: Sequence[Mapping[str, Any]], kernel: Sequence[Mapping[str, Any]] = ()
            ) -> List[Mapping[str, Any]]:
    """The reading's records: the per-frame runs (000_per_frame_rts) and, as their base, the runs
    of 000_cck_interference at the medium's own CCK weight (the kernel's per-entry choice)."""
    base = [r for r in kernel if map_cck.weight_of(r) == map_cck.MEDIUM_WEIGHT
            and choice_of(r) == PER_ENTRY]
    return [r for r in list(flags) + base if r.get("status") == "ok"]


def section_lines(recs: Sequence[Mapping[str, Any]]) -> List[str]:
    """The reading's part of a report or of the paper page (``records`` gives ``recs``)."""
    ok = [r for r in recs if r.get("status") == "ok"]
    if not any(choice_of(r) == PER_FRAME for r in ok):
        return ["No run of the RTS/CTS-per-frame reading is stored yet.", ""]
    windows = sorted({M.window_label(A.param(r, "policy.rwnd_clamp")) for r in ok})
    failed = V.exchange_section(ok, RTS_CHOICE, "with the kernel's choice, part of the "
                                "attempts \"off\" went out behind RTS/CTS")
    return ["The same paths at 5.5 Mbit/s on the default layout (shadowing seed 1, the campus "
            "file's 2 dB fading), with RTS/CTS chosen per rate-table entry as the kernel asks "
            "(minstrel marks every entry after the first, so with the threshold off a frame's "
            "later attempts still go out behind RTS/CTS: 000_cck_interference's runs at the "
            "medium's weight) or per frame, the threshold alone deciding, as MAP's madwifi did "
            "(`medium.rts_flags: first_entry`: every attempt bare with RTS/CTS off; with it on "
            "nothing changes). RTS/CTS on over off reads as claim 5 does (3 hops: means over "
            "the windows; 4 hops: best averages); windows measured: " + ", ".join(windows)
            + ".", "", "What TCP got:", ""] \
        + V.table_lines(ok, RTS_CHOICE) + failed \
        + ["", "The claims that differ on the default layout, judged per choice (criteria as "
           "in the grid's, restricted to these paths and rate):", ""] \
        + V.claim_lines(ok, RTS_CHOICE) + ["", _verdict(ok), ""]


def _verdict(ok: Sequence[Mapping[str, Any]]) -> str:
    if any(choice_of(r) == PER_ENTRY for r in ok):
        return V.verdict_line(ok, RTS_CHOICE)
    return ("Not judged here: the base, the kernel's choice per entry, is 000_cck_interference's "
            "runs at the medium's CCK weight; the paper page (studies/p000_campus/report.md) "
            "reads the two together.")
