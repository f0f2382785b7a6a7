"""iperf3 ``-J`` output -> ``FlowResult`` (pure: no processes, no kernel).

Throughput is the receiver's goodput (``end.sum_received``); retransmits come from the
sender side (``end.sum_sent``). Per-interval samples carry the sender's ``snd_cwnd`` and
``rtt`` only when the iperf3 client is the sender (not with ``-R``).
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional, Tuple, Union

from harness.errors import HarnessError


@dataclass
class Interval:
    start: float
    end: float
    bytes: int
    bits_per_second: float
    retransmits: Optional[int] = None
    snd_cwnd: Optional[int] = None      # bytes
    rtt_us: Optional[int] = None
    packets: Optional[int] = None       # UDP
    lost_packets: Optional[int] = None  # UDP (receiver side only)


@dataclass
class FlowResult:
    protocol: str                       # "TCP" | "UDP"
    duration: float                     # seconds measured
    throughput_bps: float               # receiver goodput
    bytes: int                          # bytes received
    bytes_sent: int
    retransmits: Optional[int] = None   # TCP
    congestion: Optional[str] = None    # sender's congestion module
    receiver_congestion: Optional[str] = None
    reverse: bool = False
    intervals: List[Interval] = field(default_factory=list)
    lost_packets: Optional[int] = None  # UDP
    packets: Optional[int] = None       # UDP
    lost_percent: Optional[float] = None
    jitter_ms: Optional[float] = None
    src: Optional[str] = None           # filled by harness.traffic.flows
    dst: Optional[str] = None

    @property
    def throughput_mbps(self) -> float:
        return self.throughput_bps / 1e6

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


def parse(data: Union[str, bytes, Dict[str, Any]]) -> FlowResult:
    """Parse one iperf3 client's JSON report; an iperf3 ``error`` becomes a HarnessError."""
    try:
        report = data if isinstance(data, dict) else json.loads(data)
    except ValueError as err:
        raise HarnessError(f"iperf3 output is not JSON: {str(data)[:200]!r}") from err
    if report.get("error"):
        raise HarnessError(f"iperf3 failed: {report['error']}")
    try:
        start = report["start"]
        end = report["end"]
        test = start["test_start"]
    except KeyError as err:
        raise HarnessError(f"iperf3 JSON lacks {err}: not a complete client report") from None
    protocol = test.get("protocol", "TCP").upper()
    reverse = bool(test.get("reverse", 0))
    intervals = [_interval(iv.get("sum", {}), iv.get("streams", []), protocol)
                 for iv in report.get("intervals", [])]
    udp = protocol == "UDP"
    summary = end.get("sum", {}) if udp else {}
    sent, received = end.get("sum_sent", summary), end.get("sum_received", summary)
    common: Dict[str, Any] = dict(
        duration=float(received.get("seconds", (summary if udp else sent).get("seconds", 0.0))),
        throughput_bps=float(received.get("bits_per_second", 0.0)),
        bytes=int(received.get("bytes", 0)), bytes_sent=int(sent.get("bytes", 0)),
        reverse=reverse, intervals=intervals)
    if udp:
        return FlowResult(protocol="UDP", **common,
                          lost_packets=_opt_int(summary.get("lost_packets")),
                          packets=_opt_int(summary.get("packets")),
                          lost_percent=_opt_float(summary.get("lost_percent")),
                          jitter_ms=_opt_float(summary.get("jitter_ms")))
    return FlowResult(protocol="TCP", **common, retransmits=_opt_int(sent.get("retransmits")),
                      congestion=end.get("sender_tcp_congestion"),
                      receiver_congestion=end.get("receiver_tcp_congestion"))


def _interval(total: Dict[str, Any], streams: List[Dict[str, Any]], protocol: str) -> Interval:
    first = streams[0] if streams else {}
    return Interval(
        start=float(total.get("start", 0.0)), end=float(total.get("end", 0.0)),
        bytes=int(total.get("bytes", 0)), bits_per_second=float(total.get("bits_per_second", 0.0)),
        retransmits=_opt_int(total.get("retransmits")),
        snd_cwnd=_opt_int(first.get("snd_cwnd")),
        rtt_us=_opt_int(first.get("rtt")),
        packets=_opt_int(total.get("packets")) if protocol == "UDP" else None,
        lost_packets=_opt_int(total.get("lost_packets")) if protocol == "UDP" else None)


def _opt_int(value: Any) -> Optional[int]:
    return None if value is None else int(value)


def _opt_float(value: Any) -> Optional[float]:
    return None if value is None else float(value)


def receiver_intervals(result: Any) -> List[Tuple[float, float, int]]:
    """(start, end, bytes) per second as the *receiver* counted them (``--get-server-output``
    with a JSON-mode server, kept in ``result.raw``; an iperf3 client's own UDP intervals count
    what it sent)."""
    raw = getattr(result, "raw", None) or {}
    server = raw.get("server_output_json") or {}
    sums = [iv.get("sum", {}) for iv in server.get("intervals", [])]
    return [(float(t.get("start", 0)), float(t.get("end", 0)), int(t.get("bytes", 0)))
            for t in sums if not t.get("omitted")]


def receiver_mbps(result: Any, skip: int = 1) -> float:
    """Receiver-side goodput over its intervals, skipping the first ``skip`` and the last."""
    ivs = receiver_intervals(result)
    ivs = ivs[skip:len(ivs) - 1] if len(ivs) > skip + 1 else ivs
    secs = sum(e - s for s, e, _ in ivs)
    if not secs:
        # a server not in JSON mode sends text: the client's end.sum_received (receiver side,
        # omitted seconds excluded) is the same measure over the whole test
        if getattr(result, "protocol", "") and getattr(result, "throughput_bps", None) is not None:
            return result.throughput_bps / 1e6
        raise ValueError("no receiver-side report (iperf3 server intervals or end.sum_received)")
    return sum(b for _, _, b in ivs) * 8 / secs / 1e6
