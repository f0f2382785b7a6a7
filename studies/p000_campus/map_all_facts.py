"""Paper 000's reading of MAP's MAC and TCP together (studies/p000_campus/experiments/000_all_facts.yaml):
each earlier reading changed one thing; this one sets at once what is published or documented
of MAP's routers (madwifi's single series of 11 data tries with RTS failures counted apart, its
control frames at 2 Mbit/s, Linux 2.6.8's loss recovery) on the long paths under loss in
bursts (5 dB fades, 50 ms coherence), beside 000_coherence's 50 ms runs (the same paths,
windows, fading and two runs a point, with the medium's and Linux 6.1's defaults).

The mechanism under test: in a fade a failed RTS spends the RTS limit, not the frame's data
tries, so with RTS/CTS on fewer frames are given up, and with 2.6.8's recovery a frame given up
at a small window costs a timeout; RTS/CTS could then pay (claim 5) and larger windows be best
without it (claim 7). It tests one reading; it is not the model.

Imports only the paper-analysis helpers (``analysis``, ``map_analysis``, ``map_variants``) and
``map_old_recovery`` (a run's recovery, its retransmissions).
"""
from __future__ import annotations

import statistics
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from harness.analysis import records as A
from studies.p000_campus import map_analysis as M
from studies.p000_campus import map_variants as V
from studies.p000_campus.map_old_recovery import recovery_of, retransmits

#: The coherence time (ms) of the control runs in 000_coherence, and of the reading's runs.
COHERENCE_MS = 50.0


def facts_of(rec: Mapping[str, Any]) -> float:
    """1.0 for a run with MAP's MAC and TCP (madwifi's single retry series and Linux 2.6.8's
    recovery), 0.0 for one with the medium's and Linux 6.1's own."""
    single = A.param(rec, "medium.retry_series") == "single"
    return 1.0 if single and recovery_of(rec) == "linux-2.6.8" else 0.0


def _label(value: float) -> str:
    return "MAP's MAC and TCP" if value else "defaults (000_coherence)"


def _cell(value: float) -> str:
    return "MAP's" if value else "defaults"


#: The condition this reading varies (``map_variants``).
FACTS = V.Condition(facts_of, "MAC and TCP", _label, 0.0, "",
                    "MAP's MAC and TCP together", cell=_cell)


def control_records(coherence: Sequence[Mapping[str, Any]]) -> List[Mapping[str, Any]]:
    """000_coherence's runs at ``COHERENCE_MS`` (its control for this reading)."""
    return [r for r in coherence if facts_of(r) == 0.0
            and A.param(r, "medium.fading_coherence") == COHERENCE_MS]


def retransmit_rows(records: Sequence[Mapping[str, Any]]
                    ) -> Dict[Tuple[float, int, bool], Tuple[Optional[float], Optional[float]]]:
    """(value, hops, rts) -> segments sent again per run at windows of 1-2 segments and at
    4 or more (unclamped included): the small windows are those whose losses 2.6.8 finds only
    by the timeout."""
    acc: Dict[Tuple[float, int, bool], Tuple[List[float], List[float]]] = {}
    for rec in records:
        got = retransmits(rec)
        if rec.get("status") != "ok" or got is None:
            continue
        key = (facts_of(rec), M.hops_of(A.param(rec, "topology.path")),
               bool(A.param(rec, "topology.rts")))
        window = A.param(rec, "policy.rwnd_clamp")
        small, large = acc.setdefault(key, ([], []))
        (small if window is not None and window <= 2 else large).append(got)
    return {k: (statistics.fmean(s) if s else None, statistics.fmean(b) if b else None)
            for k, (s, b) in acc.items()}


def _num(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:.0f}"


def retransmit_lines(records: Sequence[Mapping[str, Any]]) -> List[str]:
    rows = retransmit_rows(records)
    if not rows:
        return []
    out = ["| MAC and TCP | hops | windows 1-2: off / on | windows 4+: off / on |",
           "|---|---|---|---|"]
    for value, h in sorted({(v, h) for v, h, _r in rows}):
        off, on = rows.get((value, h, False), (None, None)), rows.get((value, h, True), (None, None))
        out.append(f"| {_cell(value)} | {h} | {_num(off[0])} / {_num(on[0])} | "
                   f"{_num(off[1])} / {_num(on[1])} |")
    return out


def section_lines(records: Sequence[Mapping[str, Any]], coherence: Sequence[Mapping[str, Any]]
                  ) -> List[str]:
    """The reading's part of a report or of the paper page: its records beside the control
    (000_coherence's records, if given)."""
    ok = [r for r in records if r.get("status") == "ok" and facts_of(r)]
    if not ok:
        return ["No run of the reading of MAP's MAC and TCP together is stored yet.", ""]
    both = ok + [r for r in control_records(coherence) if r.get("status") == "ok"]
    windows = sorted({M.window_label(A.param(r, "policy.rwnd_clamp")) for r in ok})
    control = "beside 000_coherence's 50 ms runs, the control" if len(both) > len(ok) else \
        "(000_coherence's records, the control, not given)"
    return ["The default layout's 3- and 4-hop paths at 5.5 Mbit/s under 5 dB fades drifting "
            "with a 50 ms coherence time, RTS/CTS off and on, with what is published or "
            "documented of MAP's routers at once: madwifi's one series of 11 data tries at the "
            "fixed rate with a missing CTS counted against a separate RTS limit "
            "(`medium.retry_series: single`), its control frames at 2 Mbit/s "
            "(`medium.basic_rates: {b: [1, 2]}`) and Linux 2.6.8's loss recovery "
            "(`policy.tcp_recovery: linux-2.6.8`), " + control + "; windows measured: "
            + ", ".join(windows) + "; one 20 s BIC flow, two runs a point. RTS/CTS on over off "
            "reads as claim 5 does (3 hops: means over the windows; 4 hops: best averages).",
            "", "What TCP got:", ""] + V.table_lines(both, FACTS) \
        + V.exchange_section(both, FACTS) \
        + ["", "Segments sent again per run (iperf3), at the windows whose losses 2.6.8 finds "
           "only by the timeout and at the others:", ""] + retransmit_lines(both) \
        + ["", "The claims that differ on the default layout, judged with each MAC and TCP "
           "(criteria as in the grid's, restricted to these paths and rate):", ""] \
        + V.claim_lines(both, FACTS) + ["", V.verdict_line(both, FACTS), ""]
