"""Paper 002's reading of lossy hops (studies/p002_mesh_retry/experiments/002_lossy_hops.yaml): the 5-hop chain
of the sweep with an independent loss on every PPDU of every hop (``medium.links[].per``) and
each frame tried to the retry limit in one series. It tests one reading of why our curve has
no decline at large limits (the decline needs frames that use long retry series, which our
one-room channel does not give); it is not the model.

Read per hop loss and retry limit: throughput, how long the retry series were, the frames
dropped at the limit, and what TCP saw (its retransmission timeouts, RTT and RTO from the
sender's socket samples), so that the paper's mechanism (long series push the path's delay
past RTO_min, timeouts fire) can be checked, not only the curve.

The tables and verdicts take the channel a run set as a ``Channel`` (how to read it from a
record, how to print it), so that another reading of the same kind (``mesh_bursty``: fades in
bursts) shares them.

Imports only the paper-analysis helpers and ``paper002``'s record readers.
"""
from __future__ import annotations

import statistics as stats
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from harness.analysis import records as A
from studies.p002_mesh_retry import paper as P

#: The experiments' name, or its start (``harness report`` and the page find their records by
#: it; ``paper002_lossy_hops_more`` adds runs to the first file's points, read as one set).
NAME = "paper002_lossy_hops"
#: A frame counts as a long series above this many transmissions (the sweep's limit 7).
LONG_SERIES = 7
#: A curve whose best limit carries less (Mbit/s) is a collapsed path, its shape noise: a
#: quarter of the sweep's best 5-hop cubic mean (4.1 Mbit/s, 100 s runs), a stated cut.
COLLAPSED_MBPS = 1.0


def collapsed(series: Mapping[int, Sequence[float]]) -> bool:
    """The curve (limit -> Mbit/s of its runs) carries under ``COLLAPSED_MBPS`` at every
    limit."""
    return max(stats.mean(v) for v in series.values()) < COLLAPSED_MBPS


def link_value(rec: Mapping[str, Any], key: str) -> Optional[float]:
    """The value of ``key`` (``per``, ``snr``) that the run's link overrides
    (``medium.links``) set, if they all set one and the same, else None."""
    links = A.param(rec, "medium.links") or []
    values = {float(l[key]) for l in links if isinstance(l, Mapping) and l.get(key) is not None}
    return values.pop() if len(values) == 1 else None


def hop_loss(rec: Mapping[str, Any]) -> Optional[float]:
    """The per-PPDU loss the run set on its hops (one value for all of them), or None."""
    return link_value(rec, "per")


@dataclass(frozen=True)
class Channel:
    """What a reading's runs set on their hops: ``of`` reads it from a record (None: not one of
    the reading's runs), ``head`` names the table's first column, ``cell`` prints a value in it
    and ``name`` in a verdict line."""

    of: Callable[[Mapping[str, Any]], Optional[float]]
    head: str
    cell: Callable[[float], str]
    name: Callable[[float], str]


#: This reading's channel: one independent loss per PPDU on every hop.
LOSSY = Channel(hop_loss, "loss per PPDU (exchange fails)",
                lambda loss: f"{loss:g} ({1 - (1 - loss) ** 2:.2f})",
                lambda loss: f"loss {loss:g} per PPDU")


def timeouts(rec: Mapping[str, Any]) -> int:
    """Retransmission timeouts the sender's socket samples show: each rise of the backoff
    between two samples counts once (two timeouts inside one 0.5 s sample count as one)."""
    return sum(1 for series in P.socket_series(rec) for a, b in zip(series, series[1:])
               if int(b.get("backoff") or 0) > int(a.get("backoff") or 0))


def socket_values(rec: Mapping[str, Any], key: str) -> List[float]:
    """One field of every socket sample of the first flow (e.g. ``rtt_ms``, ``rto_ms``)."""
    return [float(s[key]) for series in P.socket_series(rec) for s in series
            if isinstance(s.get(key), (int, float))]


def quantile(xs: Sequence[float], q: float) -> Optional[float]:
    if not xs:
        return None
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def _fmt(x: Optional[float], pattern: str) -> str:
    return "-" if x is None else pattern.format(x)


def groups(records: Sequence[Mapping[str, Any]], channel: Channel = LOSSY
           ) -> Dict[Tuple[float, int], List[Mapping[str, Any]]]:
    """Runs with a flow, by (channel, retry limit)."""
    out: Dict[Tuple[float, int], List[Mapping[str, Any]]] = {}
    for rec in records:
        loss, limit = channel.of(rec), P.limit_of(rec)
        if rec.get("status") == "ok" and loss is not None and limit is not None \
                and P.throughput_mbps(rec) is not None:
            out.setdefault((loss, int(limit)), []).append(rec)
    return dict(sorted(out.items()))


def unpathed(records: Sequence[Mapping[str, Any]], channel: Channel = LOSSY
             ) -> Dict[Tuple[float, int], int]:
    """Runs whose path check found no HWMP path (no flow started), by (channel, limit)."""
    out: Dict[Tuple[float, int], int] = {}
    for rec in records:
        loss, limit = channel.of(rec), P.limit_of(rec)
        if P.no_path(rec) and loss is not None and limit is not None:
            out[(loss, int(limit))] = out.get((loss, int(limit)), 0) + 1
    return out


def rows(records: Sequence[Mapping[str, Any]], channel: Channel = LOSSY) -> List[str]:
    """Markdown: per channel and retry limit, the throughput and what the medium and TCP saw
    (``records``: all of them, so that runs without a path are counted beside the others)."""
    lines = [f"| {channel.head} | R | runs | mean Mbit/s | frames > "
             f"{LONG_SERIES} transmissions | drops at the limit per s | timeouts per run | "
             "longest stall (s, mean) | timeouts sent nothing (runs) | RTT median / p99 (ms) | "
             "RTO median (ms) | no path, no flow |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    missing = unpathed(records, channel)
    for (loss, limit), recs in groups(records, channel).items():
        mean = stats.mean(P.throughput_mbps(r) or 0.0 for r in recs)
        long_ = [x for x in (P.tries_share_over(r, LONG_SERIES) for r in recs) if x is not None]
        drops = [P.limit_drops_per_s(r) for r in recs]
        rtt = [x for r in recs for x in socket_values(r, "rtt_ms")]
        rto = [x for r in recs for x in socket_values(r, "rto_ms")]
        lines.append(
            f"| {channel.cell(loss)} | {limit} | {len(recs)} | {mean:.2f} | "
            + _fmt(stats.mean(long_) if long_ else None, "{:.2%}") + " | "
            + _fmt(stats.mean(drops) if drops else None, "{:.1f}") + " | "
            + f"{stats.mean(timeouts(r) for r in recs):.1f} | "
            + f"{stats.mean(P.stall_seconds(r) for r in recs):.0f} | "
            + f"{len(recs) - len(P.without_silent(recs))} | "
            + _fmt(stats.median(rtt) if rtt else None, "{:.0f}") + " / "
            + _fmt(quantile(rtt, 0.99), "{:.0f}") + " | "
            + _fmt(stats.median(rto) if rto else None, "{:.0f}") + " | "
            + f"{missing.get((loss, limit), 0)} |")
    return lines


def curves(records: Sequence[Mapping[str, Any]], channel: Channel = LOSSY
           ) -> Dict[float, Dict[int, List[float]]]:
    """Throughputs (Mbit/s) by channel, then retry limit."""
    out: Dict[float, Dict[int, List[float]]] = {}
    for (loss, limit), recs in groups(records, channel).items():
        out.setdefault(loss, {})[limit] = [P.throughput_mbps(r) or 0.0 for r in recs]
    return out


def verdict_lines(records: Sequence[Mapping[str, Any]], channel: Channel = LOSSY
                  ) -> List[str]:
    """Per channel: where the curve peaks, whether it is concave (interior peak, both ends
    below), and how far the largest limit sits below the peak; then the same without the runs
    whose timeouts sent nothing (Linux 6.1's held mesh-path queue, not the channel)."""
    out = _verdicts(records, channel, "")
    kept = P.without_silent(records)
    if len(kept) < len([r for r in records if r.get("status") == "ok"]):
        out += _verdicts(kept, channel, ", without the runs whose timeouts sent nothing")
    return out


def _verdicts(records: Sequence[Mapping[str, Any]], channel: Channel, label: str) -> List[str]:
    out = []
    for loss, series in curves(records, channel).items():
        means = {x: stats.mean(v) for x, v in series.items()}
        peak = P.argmax(series)
        if peak is None:
            continue
        top, last = means[peak], means[max(means)]
        shape = ("concave (interior peak, both ends below)" if P.concave(series)
                 else "not concave")
        if collapsed(series):
            shape += f" (every limit under {COLLAPSED_MBPS:g} Mbit/s: a collapsed path, no shape)"
        out.append(f"- {channel.name(loss)}{label}: peak at R = {peak} ({top:.2f} Mbit/s); "
                   f"R = {max(means)} is {last / top - 1:+.1%} from it; " + shape)
    return out


def section(records: Sequence[Mapping[str, Any]], heading: str = "##") -> List[str]:
    """The page's (or a report's) section on lossy hops (``records``: every stored run)."""
    if not groups(records):
        return []
    return [f"{heading} Hops that lose attempts (a test of one reading)", "",
            f"`{NAME}` and `{NAME}_more` as one set (5 hops, cubic, the sweep's channel, 30 s): "
            "an independent loss on every "
            "PPDU of every hop, both ways, and every frame tried to the limit in one series "
            "(`retry_series: single`, as the paper's hardware retried). Does the paper's "
            "decline at large limits appear once frames need long retry series? Timeouts: "
            "rises of the sender's backoff between its socket samples (0.5 s); stall: the "
            "longest run of seconds in which the sender sent nothing; RTT and RTO: the "
            "sender's socket samples (the RTO with its backoff, as the kernel holds it).", ""] \
        + rows(records) + [""] + verdict_lines(records) + [""]
