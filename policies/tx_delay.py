"""Host latency on every node with radios: each packet leaving a radio's interface waits
``tx_delay`` ms before the driver gets it (netem delay on the interface's egress,
``harness.kernel.shaping.delay_lines``), locally sent and forwarded packets alike.

In the emulation a router hands a frame it received to its radio again within microseconds of
guest time; a 2004 router's interrupt, driver and forwarding path took longer. How much longer
may change who starts first after a frame: a relay whose next frame waits could begin inside
the frame of a sender it cannot hear rather than before it, the collision an RTS/CTS exchange
prevents. Paper 000's ``000_tx_delay`` tested that (it did not happen at 0.5-2 ms;
studies/p000_campus/findings.md). Read back with ``tc qdisc show``; a node whose interface does
not show the delay fails the run.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from harness.kernel import shaping
from harness.net.nodes import WirelessNode
from policies import Policy, PolicyViolation, RunContext


class TxDelay(Policy):
    """``tx_delay: <ms>`` on every radio interface of every node; null leaves none."""

    name = "tx_delay"

    def __init__(self, value: Optional[float]):
        super().__init__(None if value is None else shaping.check_delay(value))
        self.interfaces: List[str] = []

    @property
    def active(self) -> bool:
        return self.value is not None

    def apply(self, ctx: RunContext) -> None:
        if self.value is None:
            return
        for node in ctx.net.nodes.values():
            if not isinstance(node, WirelessNode):
                continue
            intfs = [radio.intf for radio in node.radios]
            shown = node.script(  # set and read back in one process (each costs ~60 ms)
                [line for intf in intfs for line in shaping.delay_lines(intf, self.value)]
                + [f"tc qdisc show dev {intf} root" for intf in intfs]).stdout
            held = [line for line in shown.splitlines() if "netem" in line and "delay" in line]
            if len(held) != len(intfs):
                raise PolicyViolation(f"tx_delay {self.value:g} ms: [{node.name}] "
                                      f"{', '.join(intfs)} show {len(held)} netem delay(s): "
                                      f"{shown.strip()!r}")
            self.interfaces += [f"{node.name}:{intf}" for intf in intfs]

    def record(self) -> Dict[str, Any]:
        return {"value": self.value, "interfaces": len(self.interfaces),
                "mechanism": "netem delay on every radio interface's egress, read back"}


def tx_delay(value: Optional[float]) -> TxDelay:
    """Factory named in the catalog (``policies.tx_delay:tx_delay``)."""
    return TxDelay(value)
