"""Paper 000's reading of Linux 2.6.8's loss recovery (studies/p000_campus/experiments/000_old_recovery.yaml):
lossy 3- and 4-hop paths run in the paper's grid at 5.5 Mbit/s with RACK, the tail loss probe
and F-RTO off in every node (policy ``tcp_recovery: linux-2.6.8``), beside the same paths with
Linux 6.1's recovery (000_near_stall's records and the grids').

It asks whether the paper's best windows at 3-4 hops (claim 7's ceil(1.5 h) with RTS/CTS off,
claim 6's 1 segment with it on), its spreads (claim 2) and its RTS/CTS gain there (claim 5)
come from its kernel: a window of fewer than four segments cannot produce three duplicate ACKs,
so without RACK and the probe every end-to-end loss costs it a retransmission timeout. It is
not the model.

Imports only the paper-analysis helpers (``analysis``, ``map_analysis``), ``map_eleven`` (which
failed runs are a broken path), ``map_cck_loss`` (a run's receivers) and ``map_near_stall``
(the per-path claim criteria, the window row, the run-to-run noise, the largest 2-hop spread).
"""
from __future__ import annotations

import statistics
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from harness.analysis import records as A
from studies.p000_campus import map_analysis as M
from studies.p000_campus import map_near_stall as N
from studies.p000_campus.map_cck_loss import loss_map
from studies.p000_campus.map_eleven import broken_path

RATE = M.LONG_RATE
#: Windows that cannot hold three segments past a lost one (two 724-byte segments for a window
#: of 1): without RACK and the tail loss probe their losses wait for the timeout.
SMALL = (1, 2, 3)
#: Windows of four segments or more: a loss is found from three duplicate ACKs (or SACKs).
LARGE = (4, 5, 6)

#: (path, layout, receivers' loss per rate) of a run: the reading's runs and their bases agree
#: on all three.
Case = Tuple[str, int, Tuple[Tuple[float, float], ...]]


def recovery_of(rec: Mapping[str, Any]) -> Optional[str]:
    """The run's ``policy.tcp_recovery`` (None: Linux 6.1's own)."""
    return (rec.get("params") or {}).get("policy", {}).get("tcp_recovery")


def case_of(rec: Mapping[str, Any]) -> Case:
    return (str(A.param(rec, "topology.path")), N.seed_of(rec),
            tuple(sorted(loss_map(rec).items())))


def counted(records: Sequence[Mapping[str, Any]]) -> List[Mapping[str, Any]]:
    """Runs that count: ok ones and those whose path carried nothing (0 kbit/s, as
    ``map_near_stall`` counts them)."""
    return [r for r in records if r.get("status") == "ok" or broken_path(r)]


def base_records(runs: Sequence[Mapping[str, Any]], others: Sequence[Mapping[str, Any]]
                 ) -> List[Mapping[str, Any]]:
    """The runs of ``others`` (000_near_stall's, the grids') on the reading's cases at its
    rate with Linux 6.1's recovery: the same paths, layouts and receivers."""
    wanted = {case_of(r) for r in runs}
    return [r for r in counted(others) if recovery_of(r) is None and case_of(r) in wanted
            and A.param(r, "topology.rate") == RATE]


def retransmits(rec: Mapping[str, Any]) -> Optional[float]:
    flows = rec.get("flows") or []
    value = flows[0].get("retransmits") if flows else None
    return None if value is None else float(value)


def mean_per_run(records: Sequence[Mapping[str, Any]], path: str, rts: bool,
                 get: Callable[[Mapping[str, Any]], Optional[float]]) -> Optional[float]:
    """``get``'s mean per run over the path's windows at one RTS/CTS setting."""
    vals = [v for r in records if str(A.param(r, "topology.path")) == path
            and bool(A.param(r, "topology.rts")) == rts for v in [get(r)] if v is not None]
    return statistics.mean(vals) if vals else None


def mean_retransmits(records: Sequence[Mapping[str, Any]], path: str, rts: bool
                     ) -> Optional[float]:
    """Segments the sender sent again per run (iperf3's count), over the path's windows."""
    return mean_per_run(records, path, rts, retransmits)


def ratio(old: M.Grid, new: M.Grid, path: str, rts: bool, windows: Sequence[Optional[int]]
          ) -> Optional[float]:
    """Mean over ``windows`` of old / new throughput, in percent of Linux 6.1's (None where
    a window is missing or 6.1 carried nothing)."""
    vals = []
    for w in windows:
        a, b = old.mean((path, RATE, rts, w)), new.mean((path, RATE, rts, w))
        if a is None or b is None or b <= 0:
            return None
        vals.append(a / b * 100)
    return statistics.mean(vals)


def _pct(v: Optional[float]) -> str:
    return "-" if v is None else "inf" if v == float("inf") else f"{v:.0f} %"


def _num(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:.0f}"


def _mark(holds: Optional[bool]) -> str:
    return "-" if holds is None else "holds" if holds else "no"


def path_lines(old: M.Grid, new: M.Grid, old_recs: Sequence[Mapping[str, Any]],
               new_recs: Sequence[Mapping[str, Any]], layouts: Mapping[str, int],
               names: Tuple[str, str] = ("6.1", "2.6.8"), head: str = "recovery") -> List[str]:
    """Per path and RTS/CTS setting: kbit/s per window with each recovery (or what ``names``
    the base and the reading's runs), the spread, the best limited window, the runs' own noise
    and the retransmitted segments per run."""
    out = [f"| path (layout) | RTS/CTS | {head} | " + " | ".join(
        M.window_label(w) for w in M.WINDOWS) + " | spread | best window | run to run | "
        "resent per run |", "|---|---|---|" + "---|" * (len(M.WINDOWS) + 4)]
    for path in old.paths():
        for rts in M.RTS:
            for name, grid, recs in ((names[0], new, new_recs), (names[1], old, old_recs)):
                out.append(N.window_row(grid, path, rts, f"{path} ({layouts.get(path, '-')})",
                                        name)
                           + f" | {_num(mean_retransmits(recs, path, rts))} |")
    return out


def cost_lines(old: M.Grid, new: M.Grid) -> List[str]:
    """The mechanism's own test: 2.6.8's throughput over 6.1's at windows 1-3 (no three
    duplicate ACKs) and 4-6. If the reading's mechanism acts, the small windows lose more."""
    out = ["| path | RTS/CTS | windows 1-3: 2.6.8 / 6.1 | windows 4-6: 2.6.8 / 6.1 |",
           "|---|---|---|---|"]
    for path in old.paths():
        for rts in M.RTS:
            out.append(f"| {path} | {'on' if rts else 'off'} | "
                       f"{_pct(ratio(old, new, path, rts, SMALL))} | "
                       f"{_pct(ratio(old, new, path, rts, LARGE))} |")
    return out


def group_costs(old: M.Grid, new: M.Grid) -> List[Tuple[str, bool, float, float]]:
    """(path, RTS/CTS, windows 1-3's ratio, windows 4-6's) where both are measured."""
    out = []
    for p in old.paths():
        for rts in M.RTS:
            small, large = ratio(old, new, p, rts, SMALL), ratio(old, new, p, rts, LARGE)
            if small is not None and large is not None:
                out.append((p, rts, small, large))
    return out


def exceptions(old: M.Grid, new: M.Grid) -> List[Tuple[str, bool]]:
    """(path, RTS/CTS) where 2.6.8's recovery does not cost windows 1-3 more than 4-6."""
    return [(p, rts) for p, rts, small, large in group_costs(old, new) if small >= large]


def small_windows_lose_more(old: M.Grid, new: M.Grid) -> Optional[bool]:
    """Whether 2.6.8's recovery costs windows 1-3 more than windows 4-6 on every path and
    RTS/CTS setting where both are measured (None: none is)."""
    costs = group_costs(old, new)
    return all(small < large for _p, _r, small, large in costs) if costs else None


def per_path_claim_lines(old: M.Grid, new: M.Grid, two_hop: Optional[float],
                         layouts: Mapping[str, int]) -> List[str]:
    """Each path alone, claims 2, 5, 6, 7 (``map_near_stall.path_claims``' criteria) with
    each recovery: 6.1 / 2.6.8."""
    out = ["| path (layout) | 2: spread off / on (above the 2-hop " + _pct(two_hop) + ") | "
           "5: RTS/CTS on over off | 6: best window on (<= 2) | 7: best window off (within 1 "
           "of ceil(1.5 h)) |", "|---|---|---|---|---|"]
    for path in old.paths():
        a = N.path_claims(new, path, two_hop)[1:]
        b = N.path_claims(old, path, two_hop)[1:]
        cells = [f"{oa}: {_mark(ha)} / {ob}: {_mark(hb)}"
                 for (_n, oa, ha), (_m, ob, hb) in zip(a, b)]
        out.append(f"| {path} ({layouts.get(path, '-')}) | " + " | ".join(cells) + " |")
    return out


def explained(old: M.Grid, new: M.Grid, two_hop: Optional[float]
              ) -> Dict[str, Dict[str, List[str]]]:
    """Per kind, claim (2, 5, 6, 7) -> paths: where it fails with 6.1's recovery and holds
    with 2.6.8's (``"follow"``), fails with both (``"neither"``), holds with both (``"both"``)
    and where 2.6.8's breaks it (``"lost"``)."""
    out: Dict[str, Dict[str, List[str]]] = {k: {} for k in ("follow", "neither", "both", "lost")}
    for path in old.paths():
        a = N.path_claims(new, path, two_hop)[1:]
        b = N.path_claims(old, path, two_hop)[1:]
        for (name, _oa, ha), (_m, _ob, hb) in zip(a, b):
            if ha is None or hb is None:
                continue
            kind = "follow" if hb and not ha else "neither" if not (ha or hb) \
                else "both" if ha and hb else "lost"
            out[kind].setdefault(name, []).append(path)
    return out


def verdict_line(old: M.Grid, new: M.Grid, two_hop: Optional[float]) -> str:
    """Which claims, path by path, 2.6.8's recovery turns from failing to holding."""
    kinds = explained(old, new, two_hop)
    mech = small_windows_lose_more(old, new)
    where = "; ".join(f"{p} RTS/CTS {'on' if rts else 'off'}, runs of one window "
                      f"{_pct(N.run_noise(old, p, rts))} apart"
                      for p, rts in exceptions(old, new))
    parts = [("the mechanism acts (2.6.8's recovery costs windows 1-3 more than 4-6 on "
              "every path)" if mech else "the mechanism does not act on every path (2.6.8's "
              f"recovery does not cost windows 1-3 more than 4-6 on {where})")
             if mech is not None else "the mechanism is not judged (records missing)"]
    parts += claim_parts(kinds, "6.1's recovery", "2.6.8's")
    return f"**Verdict:** {'; '.join(parts)}."


def claim_parts(kinds: Mapping[str, Mapping[str, List[str]]], base: str, mine: str
                ) -> List[str]:
    """``explained``'s kinds as a verdict's phrases: which claims, on which paths, fail with
    ``base`` and hold with ``mine``, fail or hold with either, or hold with ``base`` only."""
    labels = {"follow": f"fail with {base} and hold with {mine}",
              "neither": "fail with either", "both": "hold with either",
              "lost": f"hold with {base} only"}
    return [f"{label}: claim " + "; ".join(
        f"{name} ({', '.join(paths)})" for name, paths in sorted(kinds[kind].items()))
        for kind, label in labels.items() if kinds[kind]]


def section_lines(records: Sequence[Mapping[str, Any]],
                  others: Sequence[Mapping[str, Any]] = ()) -> List[str]:
    """The reading's part of a report or of the paper page, from its records and those of
    000_near_stall and the grids (``others``; without them the 6.1 rows are empty)."""
    runs = [r for r in counted(records) if recovery_of(r) is not None]
    if not runs:
        return ["No run of the loss-recovery reading is stored yet.", ""]
    base = base_records(runs, others)
    layouts = {str(A.param(r, "topology.path")): N.seed_of(r) for r in runs}
    old = M.Grid.of(runs, zero=broken_path)
    new = M.Grid.of(base, zero=broken_path)
    two_hop = N.two_hop_spread([r for r in others if r.get("status") == "ok"
                                and not loss_map(r) and recovery_of(r) is None
                                and M.hops_of(str(A.param(r, "topology.path"))) == 2])
    applied = ((runs[0].get("policies") or {}).get("tcp_recovery") or {}).get("sysctls", {})
    sysctls = ", ".join(f"`{k.split('.')[-1]} {v}`" for k, v in applied.items()) or "-"
    out = ["The lossy 3- and 4-hop paths (000_near_stall's three paths with a flow, receivers at "
           "the quoted CCK SNRs; the grid's slowest, 1-23-16-13-22 on the default layout, with "
           "the medium's own) in the paper's grid at 5.5 Mbit/s, with Linux 2.6.8's loss "
           f"recovery in every node (policy `tcp_recovery: linux-2.6.8`: {sysctls}: no RACK, "
           "no tail loss probe, no F-RTO), beside the same paths with Linux 6.1's (the records "
           "of 000_near_stall and the grids). A window of fewer than four segments cannot "
           "bring three duplicate ACKs, so without the probe and RACK each end-to-end loss "
           "costs it a retransmission timeout (at least 200 ms). The question: do the paper's "
           "3-4 hop best windows and RTS/CTS gain come from that? Spread: (max - min) / min "
           "of the means over the windows; resent: iperf3's retransmitted segments per run.",
           ""]
    out += ["Per path (kbit/s, means over the runs):", ""] \
        + path_lines(old, new, runs, base, layouts)
    out += ["", "What 2.6.8's recovery costs each window group (throughput with it over 6.1's):",
            ""] + cost_lines(old, new)
    out += ["", "The claims path by path (6.1 / 2.6.8; criteria as in the slow-path reading):",
            ""] + per_path_claim_lines(old, new, two_hop, layouts)
    return out + ["", verdict_line(old, new, two_hop), ""]
