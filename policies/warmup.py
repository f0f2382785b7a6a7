"""``warm_arp``: a ping along every flow's path before the measured flows, so neighbour (ARP)
entries exist before the traffic starts.

Why: ARP asks by broadcast, one try, no ACK and no RTS/CTS. When two hidden senders start
together, each one's broadcast collides at the receiver with the other's stream most of the
time (it cannot sense it), three ARP tries fail within seconds, and iperf3's connection setup
fails with "No route to host" before anything is measured (seen in labs/02-hidden-terminal
with TCP and with UDP, RTS/CTS on or off). One ping per flow, while the air is still quiet,
resolves every hop's entries in both directions; the entries then outlive the flows.
"""
from __future__ import annotations

from typing import Any, Dict, List

from harness.errors import HarnessError
from harness.traffic.flows import answered_ping
from policies import Policy, RunContext
from policies.routes import node_ip

#: Pings per pair before giving up (one is enough on a quiet medium).
ATTEMPTS = 3


class WarmArp(Policy):
    """``warm_arp: true``: one answered ping from each flow's source to its destination."""

    name = "warm_arp"

    def __init__(self, value: bool):
        if not isinstance(value, bool):
            raise HarnessError(f"warm_arp {value!r} is invalid: allowed true or false")
        super().__init__(value)
        self.done: List[str] = []

    @property
    def active(self) -> bool:
        return bool(self.value)

    def prime(self, ctx: RunContext) -> None:
        if not self.active:
            return
        for flow in ctx.flows:
            pair = f"{flow.src}->{flow.dst}"
            if pair in self.done:
                continue
            ip = node_ip(ctx.net, flow.dst, "warm_arp")
            if not answered_ping(ctx.net, flow.src, ip, ATTEMPTS):
                raise HarnessError(f"warm_arp: {flow.src} got no answer from {flow.dst} "
                                   f"({ip}) in {ATTEMPTS} pings: the path is broken before any flow")
            self.done.append(pair)

    def record(self) -> Dict[str, Any]:
        return {"value": self.value, "pairs": list(self.done),
                "mechanism": "one answered ping per flow before the measured flows"}


def warm_arp(value: Any) -> WarmArp:
    """Factory named in the catalog (``policies.warmup:warm_arp``)."""
    return WarmArp(value)
