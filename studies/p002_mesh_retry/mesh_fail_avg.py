"""Paper 002's reading of the link-failure average (studies/p002_mesh_retry/experiments/002_fail_avg.yaml): the
sweep's cubic points with the radios on mac80211 rebuilt with Linux 3.12's mesh link-failure
average (policy ``mac80211: fail-avg-3.12``), read beside the same points of the reduced sweep
on the stock 6.1 module. It tests the reading that our curves' shape (the steep rise from
R = 1, the stalls at R = 3, no decline beyond the peak) is Linux 6.1's, which breaks a peer
link on one frame dropped at the retry limit; it is not the model.

Per hop count, build and retry limit: throughput, the frames dropped at the limit, TCP's
timeouts, the longest stall, and how far the sequence number of the sender's path to the far
end grew during the run (each HWMP discovery of the path, and each break, raises it).

A third file (``002_fail_avg_window.yaml``) holds the sender's window at R = 31 to the sizes
that small limits left it at, to tell the window's effect from the limit's.

A second file (``002_fail_avg_stall.yaml``) puts the same build to the full sweep's stalled
point (3 hops, R = 3, 100 s), read beside the sweep's runs there as ``mesh_stall`` reads its
trickle.

A fourth (``002_fail_avg_bursty.yaml``) puts the build on ``mesh_bursty``'s fading hops, which
still drop frames at limits 5-9, read beside that reading's stock runs.

Imports only the paper-analysis helpers and the record readers of ``paper002``,
``mesh_lossy``, ``mesh_bursty`` and ``mesh_stall``.
"""
from __future__ import annotations

import statistics as stats
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from harness.analysis import records as A
from studies.p002_mesh_retry import mesh_bursty as B
from studies.p002_mesh_retry import mesh_lossy as L
from studies.p002_mesh_retry import mesh_stall as S
from studies.p002_mesh_retry import paper as P

#: The experiment's name (``harness report`` and the page find its records by it).
NAME = "paper002_fail_avg"
#: Its test of the stall diagnosis: the full sweep's stalled point (3 hops, R = 3, 100 s).
STALL_NAME = "paper002_fail_avg_stall"
#: Its test of the window mechanism: 5 hops, R = 31, the sender's window limited.
WINDOW_NAME = "paper002_fail_avg_window"
#: Its test on fading hops that still drop frames at 5-9 (5 hops, hop SNR 30 / 35 dB).
BURSTY_NAME = "paper002_fail_avg_bursty"
#: The stock runs it is read beside: the reduced sweep (same points, flows and repetitions).
BESIDE = "paper002_retry_sweep_reduced"
#: The module the reading runs.
MODULE = "cubic"
STOCK = "6.1 (stock)"


def build_of(rec: Mapping[str, Any]) -> str:
    """The mac80211 build the run asked for (``policy.mac80211``; null: the stock 6.1)."""
    value = A.param(rec, "policy.mac80211")
    return f"{value} (edited)" if value else STOCK


def far_sn_growth(rec: Mapping[str, Any]) -> Optional[int]:
    """How far the sequence number of the sender's path to the flow's receiver grew between
    the path check before the flow and the one after (``mesh_path`` records: the first of its
    checked sender->receiver pairs), or None."""
    mp = (rec.get("policies") or {}).get("mesh_path") or {}
    pairs = list(mp.get("pairs") or {})
    if not pairs or "->" not in pairs[0]:
        return None
    sender, receiver = pairs[0].split("->", 1)

    def sn(which: str) -> Optional[int]:
        for path in ((mp.get(which) or {}).get("paths") or {}).get(sender) or []:
            if path.get("destination_node") == receiver:
                return int(path.get("sn") or 0)
        return None
    before, after = sn("before"), sn("after")
    return None if before is None or after is None else after - before


def groups(records: Sequence[Mapping[str, Any]]
           ) -> Dict[Tuple[int, int, str], List[Mapping[str, Any]]]:
    """Runs with a flow of the reading's module, by (hops, retry limit, build)."""
    out: Dict[Tuple[int, int, str], List[Mapping[str, Any]]] = {}
    for rec in records:
        hops, limit = A.param(rec, "topology.hops"), P.limit_of(rec)
        if rec.get("status") == "ok" and P.module_of(rec) == MODULE and hops is not None \
                and limit is not None and P.throughput_mbps(rec) is not None:
            out.setdefault((int(hops), int(limit), build_of(rec)), []).append(rec)
    return dict(sorted(out.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] != STOCK)))


def cells(recs: Sequence[Mapping[str, Any]]) -> Dict[str, str]:
    """One point's table cells, by column: runs, mean Mbit/s (min-max), frames retransmitted,
    drops at the limit, timeouts, longest stall, the sender's cwnd / RTT, far-end SN growth."""
    growth = [g for g in (far_sn_growth(r) for r in recs) if g is not None]
    tput = [P.throughput_mbps(r) or 0.0 for r in recs]
    retried = [x for x in (P.tries_share_over(r, 1) for r in recs) if x is not None]
    return {
        "runs": str(len(recs)),
        "mbps": f"{stats.mean(tput):.2f} ({min(tput):.2f}-{max(tput):.2f})",
        "retried": f"{stats.mean(retried):.1%}" if retried else "-",
        "drops": f"{stats.mean(P.limit_drops_per_s(r) for r in recs):.1f}",
        "timeouts": f"{stats.mean(L.timeouts(r) for r in recs):.1f}",
        "stall": f"{stats.mean(P.stall_seconds(r) for r in recs):.0f}",
        "cwnd_rtt": _median([x for r in recs for x in L.socket_values(r, "cwnd")], "{:.0f}")
        + " / " + _median([x for r in recs for x in L.socket_values(r, "rtt_ms")], "{:.0f}"),
        "sn": f"{stats.mean(growth):.0f}" if growth else "-",
    }


#: The point columns of the reading's tables, after the point's own (``cells``' keys, heads).
COLUMNS = (("runs", "runs"), ("mbps", "mean Mbit/s (min-max)"),
           ("retried", "frames > 1 transmission"), ("drops", "drops at the limit per s"),
           ("timeouts", "timeouts per run"), ("stall", "longest stall (s, mean)"),
           ("cwnd_rtt", "sender's cwnd / RTT, median (segments / ms)"),
           ("sn", "far-end path SN growth per run"))


def _table(first: str, points: Mapping[Tuple[Any, int, str], Sequence[Mapping[str, Any]]],
           label: Any) -> List[str]:
    """Markdown: one row per (``first`` column's value, retry limit, build) point."""
    lines = [f"| {first} | R | mac80211 | " + " | ".join(h for _k, h in COLUMNS) + " |",
             "|---|---|---|" + "---|" * len(COLUMNS)]
    for (value, limit, build), recs in points.items():
        c = cells(recs)
        lines.append(f"| {label(value)} | {limit} | {build} | "
                     + " | ".join(c[k] for k, _h in COLUMNS) + " |")
    return lines


def rows(records: Sequence[Mapping[str, Any]]) -> List[str]:
    return _table("hops", groups(records), str)


def _median(xs: Sequence[float], pattern: str) -> str:
    return pattern.format(stats.median(xs)) if xs else "-"


def curves(records: Sequence[Mapping[str, Any]]) -> Dict[Tuple[int, str], Dict[int, List[float]]]:
    """Throughputs (Mbit/s) by (hops, build), then retry limit."""
    out: Dict[Tuple[int, str], Dict[int, List[float]]] = {}
    for (hops, limit, build), recs in groups(records).items():
        out.setdefault((hops, build), {})[limit] = [P.throughput_mbps(r) or 0.0 for r in recs]
    return out


def _shape(series: Dict[int, List[float]], build: str) -> str:
    """One curve's verdict: the peak, the paper's band, both ends against the peak, the shape
    and whether the peak stands out of its runs' noise."""
    means = {x: stats.mean(v) for x, v in series.items()}
    peak = P.argmax(series) or min(means)
    top, first, last = means[peak], means[min(means)], means[max(means)]
    shape = "concave (interior peak, both ends below)" if P.concave(series) else "not concave"
    inside = "inside" if P.PEAK_BAND[0] <= peak <= P.PEAK_BAND[1] else "outside"
    return (f"mac80211 {build}: peak at R = {peak} ({top:.2f} Mbit/s, {inside} the paper's "
            f"{P.PEAK_BAND[0]}-{P.PEAK_BAND[1]}); R = {min(means)} is {first / top - 1:+.1%} "
            f"from it, R = {max(means)} {last / top - 1:+.1%}; {shape}; "
            + P.peak_resolution(series))


def verdict_lines(records: Sequence[Mapping[str, Any]]) -> List[str]:
    """Per hop count and build: the peak, the shape, R = 1 and the largest limit against the
    peak."""
    return [f"- {hops} hops, " + _shape(series, build)
            for (hops, build), series in curves(records).items() if series]


def section(records: Sequence[Mapping[str, Any]], heading: str = "##") -> List[str]:
    """The page's (or a report's) section (``records``: this reading's runs and the reduced
    sweep's, any others are ignored)."""
    if not any(build != STOCK for (_, _, build) in groups(records)):
        return []
    return [f"{heading} Linux 3.12's link-failure average (a test of one reading)", "",
            f"`{NAME}` (3 and 5 hops, {MODULE}, 30 s, the sweep's channel): the radios run "
            "on mac80211 rebuilt with the paper's kernel's link-failure average (a fifth of the "
            "way per data frame, the link broken after 17 failures in a row; docs/kernel.md, "
            "\"A mac80211 with 3.12's link-failure average\"), beside the same points of "
            f"`{BESIDE}` on the stock 6.1 module (which breaks the link on one frame dropped "
            "at the limit after a clean run). Is our curves' shape (the steep rise from R = 1, "
            "no decline after the peak) 6.1's? Timeouts: rises of the sender's backoff between "
            "its socket samples; stall: the longest run of seconds in which the sender sent "
            "nothing; SN growth: HWMP discoveries of the sender's path to the far end, and "
            "breaks, raise its sequence number; frames > 1 transmission: every radio's unicast frames "
            "that needed a retransmission (in one room nearly all of them after a collision); cwnd "
            "and RTT: the sender's socket samples (0.5 s).",
            ""] \
        + rows(records) + [""] + verdict_lines(records) + [""]


def stall_rows(edited: Sequence[Mapping[str, Any]], sweep: Sequence[Mapping[str, Any]]
               ) -> List[str]:
    """Markdown: per module at the stalled point, the sweep's stock runs beside the edited
    build's, with the far-end path's SN growth of each."""
    with_, without = S.at_point(edited), S.at_point(sweep)

    def growth(recs: Sequence[Mapping[str, Any]]) -> str:
        values = [g for g in (far_sn_growth(r) for r in recs) if g is not None]
        return f"{stats.mean(values):.0f}" if values else "-"
    lines = ["| module | 6.1 (stock): runs | timeouts sent nothing | stalled >= 5 s | "
             "TCP Mbit/s | SN growth | 3.12's average: runs | timeouts sent nothing | "
             "stalled >= 5 s | TCP Mbit/s | SN growth |", "|---|" + "---|" * 10]
    for module in sorted(with_):
        stock = without.get(module, [])
        lines.append(f"| {module} | " + (f"{S.cells(stock)} | {growth(stock)}" if stock
                                         else "- | - | - | - | -")
                     + f" | {S.cells(with_[module])} | {growth(with_[module])} |")
    return lines


def stall_section(edited: Sequence[Mapping[str, Any]], sweep: Sequence[Mapping[str, Any]],
                  sweep_name: Optional[str], heading: str = "##") -> List[str]:
    """The page's section on the stalled point with the edited build (``sweep_name`` None: a
    report of the file alone, the page sets the sweep beside it)."""
    if not S.at_point(edited):
        return []
    beside = (f"against the same point of `{sweep_name}` on the stock module (same modules)"
              if sweep_name else "(the page sets the full sweep's runs at this point beside "
              "them)")
    return [f"{heading} The stalls at R = 3 with Linux 3.12's link-failure average (a test of "
            "the diagnosis)", "",
            f"`{STALL_NAME}`: 3 hops, R = 3, 100 s, the radios on mac80211 with 3.12's "
            f"average, {beside}. If the stalls start with peer links that 6.1 breaks on one frame dropped "
            "at the limit, they go with 3.12's average. Counts are runs.", ""] \
        + stall_rows(edited, sweep) + [""]


def _point_cells(recs: Sequence[Mapping[str, Any]]) -> str:
    c = cells(recs)
    return " | ".join(c[k] for k in ("runs", "mbps", "retried", "drops", "cwnd_rtt"))


def window_rows(windowed: Sequence[Mapping[str, Any]], reading: Sequence[Mapping[str, Any]]
                ) -> List[str]:
    """Markdown: the edited build's 5-hop points without a window limit (``reading``), then
    R = 31 with the sender's window limited (``windowed``)."""
    lines = ["| 5 hops, edited build | runs | mean Mbit/s (min-max) | frames > 1 transmission | "
             "drops at the limit per s | sender's cwnd / RTT, median (segments / ms) |",
             "|---|---|---|---|---|---|"]
    for (hops, limit, build), recs in groups(reading).items():
        if hops == 5 and build != STOCK:
            lines.append(f"| R = {limit}, window unlimited | {_point_cells(recs)} |")
    clamped: Dict[int, List[Mapping[str, Any]]] = {}
    for rec in windowed:
        clamp = A.param(rec, "policy.cwnd_clamp")
        if rec.get("status") == "ok" and clamp is not None \
                and P.throughput_mbps(rec) is not None:
            clamped.setdefault(int(clamp), []).append(rec)
    for clamp, recs in sorted(clamped.items()):
        lines.append(f"| R = {P.limit_of(recs[0])}, window <= {clamp} | {_point_cells(recs)} |")
    return lines


def window_section(windowed: Sequence[Mapping[str, Any]], reading: Sequence[Mapping[str, Any]],
                   heading: str = "##") -> List[str]:
    """The page's section on the window mechanism (``reading``: this reading's runs)."""
    if not any(A.param(r, "policy.cwnd_clamp") is not None for r in windowed):
        return []
    return [f"{heading} The small limit's gain at 5 hops: its window or the limit? (a test of "
            "one mechanism)", "",
            f"`{WINDOW_NAME}`: 5 hops, R = 31 (no frame dropped), cubic, 30 s, the edited "
            "build, the sender's window limited (`cwnd_clamp`) to the sizes the small limits' "
            "drops left it at; above it the same chain without a window limit "
            f"(`{NAME}`). If a small window carries what R = 3 carried, the gain is the "
            "window's: fewer frames queued on the path, fewer contending.", ""] \
        + window_rows(windowed, reading) + [""]


def bursty_groups(records: Sequence[Mapping[str, Any]]
                  ) -> Dict[Tuple[float, int, str], List[Mapping[str, Any]]]:
    """Runs with a flow on fading hops (``mesh_bursty``'s channel), by (hop SNR, retry limit,
    build)."""
    out: Dict[Tuple[float, int, str], List[Mapping[str, Any]]] = {}
    for rec in records:
        snr, limit = B.hop_snr(rec), P.limit_of(rec)
        if rec.get("status") == "ok" and snr is not None and limit is not None \
                and P.throughput_mbps(rec) is not None:
            out.setdefault((snr, int(limit), build_of(rec)), []).append(rec)
    return dict(sorted(out.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] != STOCK)))


def bursty_section(edited: Sequence[Mapping[str, Any]], stock: Sequence[Mapping[str, Any]],
                   heading: str = "##") -> List[str]:
    """The page's section on the edited build over fading hops: ``edited`` this reading's
    runs, ``stock`` ``mesh_bursty``'s, read at the hop SNRs the edited runs used."""
    snrs = {snr for (snr, _, _) in bursty_groups(edited)}
    if not snrs:
        return []
    recs = list(edited) + [r for r in stock if B.hop_snr(r) in snrs]
    lines = [f"{heading} Fades in bursts with Linux 3.12's link-failure average (a test of one "
             "reading)", "",
             f"`{BURSTY_NAME}`: `{B.NAME}`'s 5-hop chain (cubic, 30 s, every hop's mean SNR "
             f"{' and '.join(f'{x:g}' for x in sorted(snrs))} dB, Rayleigh fades drifting, "
             "every frame tried to the limit in one series), the radios on mac80211 with 3.12's "
             "link-failure average, beside that reading's runs on the stock module. On this "
             "channel frames are still dropped at limits 5-9, where in one room they are "
             "dropped almost only at 1-3; on the edited build such drops cost TCP a loss, not a "
             "path. Does the peak then move into the paper's 5-9? Columns as in the section "
             "\"Linux 3.12's link-failure average\".", ""]
    lines += _table("hop SNR (dB)", bursty_groups(recs), lambda snr: f"{snr:g}") + [""]
    for (snr, build), series in sorted(bursty_curves(recs).items(),
                                       key=lambda kv: (kv[0][0], kv[0][1] != STOCK)):
        lines.append(f"- hop SNR {snr:g} dB, " + _shape(series, build))
    return lines + [""]


def bursty_curves(records: Sequence[Mapping[str, Any]]
                  ) -> Dict[Tuple[float, str], Dict[int, List[float]]]:
    """Throughputs (Mbit/s) on fading hops by (hop SNR, build), then retry limit."""
    out: Dict[Tuple[float, str], Dict[int, List[float]]] = {}
    for (snr, limit, build), recs in bursty_groups(records).items():
        out.setdefault((snr, build), {})[limit] = [P.throughput_mbps(r) or 0.0 for r in recs]
    return out
