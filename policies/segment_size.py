"""Segment size: the receiver advertises a smaller MSS (route metric ``advmss N`` on its route
to the sender), so the sender's data segments shrink. Paper 004 (Table 1) compares the packet
rate of 1040-byte and 40-byte packets to show that TCP ACK-sized frames cost nearly as much
air as data frames; this is how a stock kernel sends such small segments.

Why a route metric and not ``TCP_MAXSEG``/MTU: iperf3's ``-M`` is refused below 88 bytes and
mac80211 refuses MTUs below 256, while the advertised MSS reaches the sender in the SYN-ACK.
The kernel floors the MSS at TCP_MIN_MSS (88 bytes) and subtracts TCP options (timestamps,
12 bytes): measured on 6.1, ``mss: 48`` gave 76-byte payloads, so ``mss: 88`` (76-byte
payloads, 128-byte IP packets) is the smallest segment a stock kernel sends. The payload
actually used is verified from ``ss`` (``mss:``) and stored.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Optional

from harness.params import ParamSpec
from policies import FlowPlan, Policy, PolicyViolation, RunContext

if TYPE_CHECKING:
    from harness.traffic import FlowRun

#: Linux's floor for the MSS (TCP_MIN_MSS; measured: advertised 48 gave 76-byte payloads).
MIN_SND_MSS = 88
#: TCP timestamp option bytes the sender subtracts from the MSS.
TIMESTAMP_BYTES = 12
#: ``mss``: what the receiver advertises, up to a 1500-byte MTU's 1460 (the catalog offers it).
PARAM = ParamSpec("mss", "int", "MSS the receiver advertises (bytes)", min=40, max=1460,
                  nullable=True, null_label="Linux default")


def expected_payload(advmss: int) -> int:
    """Payload bytes per segment the sender should use for an advertised MSS (timestamps on)."""
    return max(advmss, MIN_SND_MSS) - TIMESTAMP_BYTES


class SegmentSize(Policy):
    """``mss: N`` = route ``advmss N`` on every receiver towards its sender."""

    name = "mss"

    def __init__(self, value: Optional[int]):
        super().__init__(PARAM.validate(value, "mss"))

    def apply(self, ctx: RunContext) -> None:
        if not self.active:
            return
        for sender, receiver in ctx.pairs():
            ctx.add_route_metric(receiver, sender, "advmss", str(self.value))

    def verify(self, ctx: RunContext, flow: FlowPlan, run: FlowRun) -> Dict[str, Any]:
        if not self.active or flow.protocol != "tcp":
            return {}
        seen = sorted({s.mss for s in run.ss if s.mss})
        want = expected_payload(self.value)
        if not seen:
            raise PolicyViolation(f"mss {self.value}: no ss sample reported the segment size")
        if max(seen) > want:
            raise PolicyViolation(f"mss {self.value}: the sender used segments of {seen} bytes, "
                                  f"more than the {want} bytes the advertised MSS allows")
        return {"advmss": self.value, "payload_bytes": seen}

    def record(self) -> Dict[str, Any]:
        return {"value": self.value, "mechanism": "route advmss (receiver -> sender)"}


def segment_size(value: Optional[int]) -> SegmentSize:
    """Factory named in the catalog (``policies.segment_size:segment_size``)."""
    return SegmentSize(value)
