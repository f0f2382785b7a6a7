"""Policies: what runs on top of a topology (TCP windows, ACKs, congestion, 802.11 MAC).

Each policy named in ``harness/experiment/catalog.py`` is realised by a factory
(``policies.window:cwnd_clamp`` ...) that takes the YAML value and returns a ``Policy``.
A run composes several: the executor calls every policy's hooks in order, so the hooks
are small and each says *when* its kernel change must happen:

- ``prepare(topo)``: change the description before the network starts (MAC settings must be
  known to the medium and to the IBSS join);
- ``apply(ctx)``: after start, before any traffic (sysctls, route metrics);
- ``prime(ctx)``: after every policy applied, before the measured flows (the cwnd clamp's
  priming connection);
- ``verify(ctx, flow, run)``: after a flow, from its ``ss`` samples (``run.ss``) and iperf3
  report (``run.result``); raise
  ``PolicyViolation`` when the policy did not hold, so the run fails loudly;
- ``record()``: what was applied, stored in every run's result.

May import: ``harness.errors``, ``harness.kernel``, ``harness.net``, ``harness.traffic``
(types of the network and of a flow's run); nothing above them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

from harness.errors import HarnessError

if TYPE_CHECKING:
    from harness.net import Network, Topology
    from harness.traffic import FlowRun

__all__ = ["Policy", "SwitchPolicy", "PolicyViolation", "FlowPlan", "RunContext", "NodePair"]

#: (node, peer) by name: a sender and its receiver, or a node and the destination of a route.
NodePair = Tuple[str, str]


class PolicyViolation(HarnessError):
    """A policy did not hold during the run (e.g. cwnd above its clamp): the run is invalid."""


@dataclass
class FlowPlan:
    """One iperf3 flow as the policies see it: who sends data and who receives it."""

    index: int                  # position in the run's flow list
    src: str                    # iperf3 client node
    dst: str                    # iperf3 server node
    reverse: bool               # True: dst sends (iperf3 -R)
    congestion: Optional[str]
    protocol: str = "tcp"
    port: int = 5201

    @property
    def sender(self) -> str:
        return self.dst if self.reverse else self.src

    @property
    def receiver(self) -> str:
        return self.src if self.reverse else self.dst


@dataclass
class RunContext:
    """The started network, the run's flows, and route metrics the policies collect.

    Route metrics are collected first and installed once (``policies.routes``): two policies
    on the same route (rwnd clamp + quickack on the receiver) must share one ``ip route``.
    """

    net: Network                                # started
    flows: List[FlowPlan]
    route_metrics: Dict[NodePair, Dict[str, str]] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)

    def add_route_metric(self, node: str, dst_node: str, key: str, value: str) -> None:
        """Ask for ``ip route ... <key> <value>`` on ``node`` towards ``dst_node``."""
        self.route_metrics.setdefault((node, dst_node), {})[key] = value

    def tcp_flows(self) -> List[FlowPlan]:
        return [f for f in self.flows if f.protocol == "tcp"]

    def pairs(self) -> List[NodePair]:
        """Distinct (sender, receiver) node pairs of the TCP flows, in flow order."""
        out: List[NodePair] = []
        for f in self.tcp_flows():
            if (f.sender, f.receiver) not in out:
                out.append((f.sender, f.receiver))
        return out


class Policy:
    """Base: every hook does nothing; subclasses override the ones they need."""

    name = "policy"

    def __init__(self, value: Any):
        self.value = value

    def prepare(self, topo: Topology) -> None:
        """Before ``Network.start()``: change the topology description."""

    def apply(self, ctx: RunContext) -> None:
        """After start, before traffic."""

    def prime(self, ctx: RunContext) -> None:
        """After every policy applied and routes installed, before the measured flows."""

    def verify(self, ctx: RunContext, flow: FlowPlan, run: FlowRun) -> Dict[str, Any]:
        """After a flow (``run``: its iperf3 result and ``ss`` samples): check the policy held;
        return what was checked (stored with the flow)."""
        return {}

    def record(self) -> Dict[str, Any]:
        """What this policy set, for the run's record."""
        return {"value": self.value}

    @property
    def active(self) -> bool:
        """False when the value means "leave Linux as it is" (e.g. ``cwnd_clamp: null``)."""
        return self.value is not None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}={self.value!r}>"


class SwitchPolicy(Policy):
    """A policy switched on by ``true`` and off by ``false`` (``meaning``: what ``true`` does,
    for the error message)."""

    meaning = "on"

    def __init__(self, value: bool):
        if not isinstance(value, bool):
            raise HarnessError(f"{self.name} {value!r} is invalid: allowed true ({self.meaning}) "
                               "or false")
        super().__init__(value)

    @property
    def active(self) -> bool:
        return self.value is True
