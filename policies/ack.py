"""Delayed ACK on/off. Linux delays ACKs (one per two segments, or a 40 ms+ timer); the route
metric ``quickack 1`` on the *receiver's* route to the sender makes it acknowledge every
segment, the regime of the chain papers' simulated receivers (docs/kernel.md, 'Delayed ACK')."""
from __future__ import annotations

from typing import Any, Dict

from harness.errors import HarnessError
from policies import Policy, RunContext


class DelayedAck(Policy):
    """``delayed_ack: false`` = quickack on the receivers; ``true`` = Linux as it is."""

    name = "delayed_ack"

    def __init__(self, value: bool):
        if not isinstance(value, bool):
            raise HarnessError(f"delayed_ack {value!r} is invalid: allowed true (Linux default) "
                               "or false (quickack: one ACK per segment)")
        super().__init__(value)

    @property
    def active(self) -> bool:
        return self.value is False

    def apply(self, ctx: RunContext) -> None:
        if not self.active:
            return
        for sender, receiver in ctx.pairs():
            ctx.add_route_metric(receiver, sender, "quickack", "1")

    def record(self) -> Dict[str, Any]:
        how = "Linux default" if self.value else "route quickack 1 on the receiver"
        return {"value": self.value, "mechanism": how}


def delayed_ack(value: bool) -> DelayedAck:
    """Factory named in the catalog (``policies.ack:delayed_ack``)."""
    return DelayedAck(value)
