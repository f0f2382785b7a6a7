"""Paper 000's reading of madwifi's retry series (studies/p000_campus/experiments/000_retry_series.yaml):
000_old_recovery's lossy 3- and 4-hop paths (Linux 2.6.8's loss recovery, 5.5 Mbit/s, the
paper's window x RTS/CTS grid) with every frame tried in one series at its fixed rate until the
retry limit (``medium.retry_series: single``: 11 tries, RTS failures on their own limit, as
MAP's madwifi and Atheros hardware did), beside the same runs with the kernel's rate table (at
most 8 tries at 5.5 Mbit/s, an RTS failure counted as one of them).

It asks whether the tries MAP's driver gave a frame, which lose fewer segments end to end and
spare the RTS/CTS exchange's failed RTS frames, are what made the paper's RTS/CTS pay at 3-4
hops (claim 5), its spreads (claim 2) and its best windows (claims 6, 7). It is not the model.

Imports only the paper-analysis helpers (``analysis``, ``map_analysis``), ``map_eleven`` (which
failed runs are a broken path), ``map_cck_loss`` (a run's receivers), ``map_near_stall`` (the
per-path claim criteria, the largest 2-hop spread) and ``map_old_recovery`` (the runs that
count, the case of a run, the tables by path and claim).
"""
from __future__ import annotations

from typing import Any, List, Mapping, Optional, Sequence, Tuple

from harness.analysis import records as A
from studies.p000_campus import map_analysis as M
from studies.p000_campus import map_near_stall as N
from studies.p000_campus import map_old_recovery as R
from studies.p000_campus.map_cck_loss import loss_map
from studies.p000_campus.map_eleven import broken_path

RATE = M.LONG_RATE
NAMES = ("table", "series")


def series_of(rec: Mapping[str, Any]) -> Optional[str]:
    """The run's ``medium.retry_series`` (None: the kernel's rate table)."""
    return ((rec.get("params") or {}).get("medium") or {}).get("retry_series")


def base_records(runs: Sequence[Mapping[str, Any]], others: Sequence[Mapping[str, Any]]
                 ) -> List[Mapping[str, Any]]:
    """The runs of ``others`` (000_old_recovery's) on the reading's cases with the same
    recovery and the kernel's table: the same paths, layouts, receivers and seeds."""
    wanted = {R.case_of(r) for r in runs}
    recovery = {R.recovery_of(r) for r in runs}
    return [r for r in R.counted(others) if series_of(r) is None and R.case_of(r) in wanted
            and R.recovery_of(r) in recovery and A.param(r, "topology.rate") == RATE]


def retry_drops(rec: Mapping[str, Any]) -> Optional[float]:
    """Frames the path's radios dropped after their last try (the medium's count): the
    segments and ACKs lost end to end on the air."""
    radios = ((rec.get("medium") or {}).get("summary") or {}).get("radios")
    if not radios:
        return None
    return float(sum(int(s.get("retry_drops") or 0) for s in radios.values()))


def most_tries(records: Sequence[Mapping[str, Any]]) -> Optional[int]:
    """The most transmissions any frame of these runs used (the medium's tries histogram)."""
    got = [len(s.get("tries") or []) for r in records
           for s in (((r.get("medium") or {}).get("summary") or {}).get("radios") or {}).values()]
    return max(got) if got else None


def mean_of(records: Sequence[Mapping[str, Any]], path: str, rts: bool, what: str
            ) -> Optional[float]:
    """Per run over the path's windows: ``drops`` (retry drops) or ``resent`` (iperf3's)."""
    return R.mean_per_run(records, path, rts, retry_drops if what == "drops" else R.retransmits)


def gains(series: M.Grid, table: M.Grid) -> List[Tuple[str, Optional[float], Optional[float]]]:
    """(path, RTS/CTS off's, on's) throughput with one series over the table's, in percent,
    the mean over every window."""
    return [(p, R.ratio(series, table, p, False, M.WINDOWS),
             R.ratio(series, table, p, True, M.WINDOWS)) for p in series.paths()]


def loss_lines(series: M.Grid, table: M.Grid, s_recs: Sequence[Mapping[str, Any]],
               t_recs: Sequence[Mapping[str, Any]]) -> List[str]:
    """The mechanism's own test: frames dropped on the air and segments resent per run, with
    the kernel's table and one series, and what one series gives each RTS/CTS setting."""
    out = ["| path | RTS/CTS | dropped per run: table / series | resent per run: table / "
           "series | throughput: series / table |", "|---|---|---|---|---|"]
    for path, off, on in gains(series, table):
        for rts, gain in ((False, off), (True, on)):
            cells = [f"{_num(mean_of(t_recs, path, rts, w))} / "
                     f"{_num(mean_of(s_recs, path, rts, w))}" for w in ("drops", "resent")]
            out.append(f"| {path} | {'on' if rts else 'off'} | {' | '.join(cells)} | "
                       f"{_pct(gain)} |")
    return out


def fewer_losses(s_recs: Sequence[Mapping[str, Any]], t_recs: Sequence[Mapping[str, Any]],
                 paths: Sequence[str]) -> Optional[bool]:
    """Whether one series drops fewer frames per run on every path and RTS/CTS setting."""
    pairs = [(mean_of(s_recs, p, rts, "drops"), mean_of(t_recs, p, rts, "drops"))
             for p in paths for rts in M.RTS]
    got = [(a, b) for a, b in pairs if a is not None and b is not None]
    return all(a < b for a, b in got) if got else None


def rts_gains_more(series: M.Grid, table: M.Grid) -> List[str]:
    """The paths where one series raises throughput more with RTS/CTS on than off."""
    return [p for p, off, on in gains(series, table)
            if off is not None and on is not None and on > off]


def verdict_line(series: M.Grid, table: M.Grid, s_recs: Sequence[Mapping[str, Any]],
                 t_recs: Sequence[Mapping[str, Any]], two_hop: Optional[float]) -> str:
    """Whether the mechanism acts, and which claims one series turns from failing to holding."""
    fewer = fewer_losses(s_recs, t_recs, series.paths())
    more = rts_gains_more(series, table)
    parts = ["losses are not judged (records missing)" if fewer is None else
             "one series drops fewer frames on every path and RTS/CTS setting" if fewer else
             "one series does not drop fewer frames on every path and RTS/CTS setting",
             "it raises RTS/CTS on more than off on "
             + (", ".join(more) if more else "no path")]
    parts += R.claim_parts(R.explained(series, table, two_hop), "the table", "one series")
    return f"**Verdict:** {'; '.join(parts)}."


GROUPS = {
    "linux-2.6.8": "With Linux 2.6.8's loss recovery: 000_old_recovery's lossy paths, beside its "
                   "runs (000_retry_series)",
    None: "With Linux 6.1's, the model's: the default layout's 3- and 4-hop paths, beside the "
          "grid's runs (000_retry_series_grid)",
}


def section_lines(records: Sequence[Mapping[str, Any]],
                  others: Sequence[Mapping[str, Any]] = ()) -> List[str]:
    """The reading's part of a report or of the paper page, from its records (either file's)
    and those of 000_old_recovery and the grids (``others``; without them the table rows are
    empty), one part per loss recovery."""
    runs = [r for r in R.counted(records) if series_of(r) == "single"]
    if not runs:
        return ["No run of the retry-series reading is stored yet.", ""]
    two_hop = N.two_hop_spread([r for r in others if r.get("status") == "ok"
                                and not loss_map(r) and R.recovery_of(r) is None
                                and series_of(r) is None
                                and M.hops_of(str(A.param(r, "topology.path"))) == 2])
    out = ["Lossy 3- and 4-hop paths at 5.5 Mbit/s in the paper's windows x RTS/CTS with each "
           "frame tried in one series at its rate until the retry limit "
           "(`medium.retry_series: single`: 11 tries, a missing CTS counted against the RTS "
           "limit, not a data try, as MAP's madwifi and its Atheros radios did), beside the same "
           "points with the kernel's rate table. The question: do the tries MAP's driver gave a "
           "frame explain its RTS/CTS gain at 3-4 hops, its spreads and best windows? Spread: "
           "(max - min) / min of the means over the windows; dropped: frames the path's radios "
           "gave up on; resent: iperf3's retransmitted segments per run.", ""]
    recoveries = sorted({R.recovery_of(r) for r in runs}, key=lambda v: (v is None, str(v)))
    for recovery in recoveries:
        mine = [r for r in runs if R.recovery_of(r) == recovery]
        out += [f"**{GROUPS.get(recovery, f'With tcp_recovery {recovery}')}**", ""] \
            + group_lines(mine, base_records(mine, others), two_hop)
    return out


def group_lines(runs: Sequence[Mapping[str, Any]], base: Sequence[Mapping[str, Any]],
                two_hop: Optional[float]) -> List[str]:
    """One loss recovery's runs against their base: the windows, the losses, the claims."""
    layouts = {str(A.param(r, "topology.path")): N.seed_of(r) for r in runs}
    series = M.Grid.of(runs, zero=broken_path)
    table = M.Grid.of(base, zero=broken_path)
    out = [f"Tries per frame: at most {_num(most_tries(base))} with the table, "
           f"{_num(most_tries(runs))} with one series.", "",
           "Per path (kbit/s, means over the runs):", ""] \
        + R.path_lines(series, table, runs, base, layouts, names=NAMES, head="tries")
    out += ["", "What one series changes (means per run over the windows):", ""] \
        + loss_lines(series, table, runs, base)
    out += ["", "The claims path by path (table / series; criteria as in the slow-path "
            "reading):", ""] + R.per_path_claim_lines(series, table, two_hop, layouts)
    return out + ["", verdict_line(series, table, runs, base, two_hop), ""]


def _pct(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:.0f} %"


def _num(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:.0f}"
