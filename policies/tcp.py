"""TCP settings of every node: SACK on/off (``net.ipv4.tcp_sack``, per namespace) and the
default congestion module (loaded and allowed in the root namespace first; flows that name
their own module still pass it to iperf3 with ``-C``)."""
from __future__ import annotations

from typing import Any, Dict

from harness.errors import HarnessError
from harness.kernel import tcp
from policies import Policy, RunContext


class Sack(Policy):
    """Selective acknowledgements in every node (both ends must agree for SACK to be used)."""

    name = "sack"

    def __init__(self, value: bool):
        if not isinstance(value, bool):
            raise HarnessError(f"sack {value!r} is invalid: allowed true or false")
        super().__init__(value)

    def apply(self, ctx: RunContext) -> None:
        for node in ctx.net.nodes.values():
            node.set_sysctls({"net.ipv4.tcp_sack": int(self.value)})

    def record(self) -> Dict[str, Any]:
        return {"value": self.value, "mechanism": "sysctl net.ipv4.tcp_sack in every node"}


class Congestion(Policy):
    """Default congestion module of every node's namespace."""

    name = "congestion"

    def __init__(self, value: str):
        super().__init__(tcp.check_congestion(value))

    def apply(self, ctx: RunContext) -> None:
        ctx.net.ensure_congestion([self.value])
        for node in ctx.net.nodes.values():
            tcp.set_default_congestion(node, self.value)

    def record(self) -> Dict[str, Any]:
        return {"value": self.value,
                "mechanism": "net.ipv4.tcp_congestion_control in every node; flows use -C"}


def sack(value: bool) -> Sack:
    """Factory named in the catalog (``policies.tcp:sack``)."""
    return Sack(value)


def congestion(value: str) -> Congestion:
    """Factory named in the catalog (``policies.tcp:congestion``)."""
    return Congestion(value)
