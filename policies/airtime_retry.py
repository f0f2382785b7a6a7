"""The retry limit chosen at run time from the mesh's airtime metric: paper 002's Eq. 5,
which the paper proposes and never evaluates.

The rule (docs/papers.md, "Paper 002"): keep the retry limit as high as possible while a frame
that needs every allowed retry on every hop of the network's diameter still arrives within
RTO_min (200 ms), so that MAC retries hide transient loss without making TCP time out.

How each mesh point applies it, from what its own kernel reports:
- its path table (``iw dev X mpath dump``, every path it knows, active or not) gives the
  diameter as the paper estimates it: the two largest path metrics towards destinations behind different next
  hops, added (``policies.frame_travel.diameter``), with their hop counts;
- the airtime metric says how long a test frame takes per link; scaled to a 1500-byte frame
  it replaces Table III's fixed frame airtime in Eq. 4, with the case's back-off (``normal``:
  half the window, ``worst``: all of it, ``best``: none) and Table II's timing
  (``frame_travel.t_multihop_from_metric``);
- the largest limit 1..31 whose T_MultiHop over that diameter stays under RTO_min is set on
  the node's radios (``iw phy X set retry`` and the medium, which enforces it).

It runs before the flows (after pings have resolved the paths), then again every
``UPDATE_S`` seconds while they run (the metric follows minstrel's view of the links under
load), and the history is recorded. Our limit is iw's: maximum transmissions; Eq. 1 counts R
retransmissions after the first, so the time a frame can really take is T(R - 1) < T(R):
the rule stays on the safe side.
"""
from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from harness.errors import HarnessError
from harness.kernel import mesh
from harness.net.nodes import WirelessNode
from policies import FlowPlan, Policy, PolicyViolation, RunContext
from policies import frame_travel as ft

if TYPE_CHECKING:
    from harness.net import Network
    from harness.traffic import FlowRun

#: Seconds between re-evaluations while the flows run.
UPDATE_S = 5.0
#: Pings that resolve the paths when nothing else did (HWMP is reactive).
PROBE_PINGS = 5


#: The metric the kernel gives a path it cannot use (iw prints it as -1), and a next hop
#: not yet resolved.
UNUSABLE_METRIC = 0xFFFFFFFF
NO_NEXT_HOP = "00:00:00:00:00:00"


def known(path: mesh.MeshPath) -> bool:
    """A path with a next hop, a hop count and a finite metric, active or not. A path HWMP
    is refreshing or has just let expire is still part of the network: counting only active
    paths made a chain's sender see a 1-hop diameter for one decision and set 22 instead of
    10 (measured, 3 hops, the quick Eq. 5 run at 5 s)."""
    return (path.hops > 0 and 0 < path.metric < UNUSABLE_METRIC
            and path.next_hop.lower() != NO_NEXT_HOP)


def limit_for_paths(paths: List[mesh.MeshPath], case: ft.Case) -> Dict[str, Any]:
    """One node's decision from its path table: the diameter it sees over the paths it
    knows (``known``) and the limit (None when it knows none: nothing to bound, the limit
    stays as it is)."""
    metric, hops, used = ft.diameter([p for p in paths if known(p)])
    if hops == 0:
        return {"diameter_metric": 0, "diameter_hops": 0, "via": [], "limit": None,
                "t_multihop_ms": None}
    limit = ft.retry_limit_for(metric, hops, case)
    return {"diameter_metric": metric, "diameter_hops": hops,
            "via": [p.next_hop for p in used], "limit": limit,
            "t_multihop_ms": round(ft.t_multihop_from_metric(limit, metric, hops, case) / 1e3, 2)}


class AirtimeRetry(Policy):
    """``airtime_retry: normal | worst | best``: Eq. 5 on every mesh point (see above)."""

    name = "airtime_retry"

    def __init__(self, value: Optional[str]):
        if value is not None and value not in ft.CASES:
            raise HarnessError(f"airtime_retry {value!r} is invalid: allowed "
                               f"{', '.join(ft.CASES)} or null (off)")
        super().__init__(value)
        self.history: List[Dict[str, Any]] = []
        self.limits: Dict[str, int] = {}
        self.errors: List[str] = []
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._t0 = 0.0

    def apply(self, ctx: RunContext) -> None:
        if not self.active:
            return
        net = ctx.net
        if not any(r.mode == "mesh" for r in net.radios):
            raise HarnessError("airtime_retry needs an 802.11s mesh (builder mesh_chain, or "
                               "chain with mode: mesh): it reads the mesh's airtime metric")
        from harness.traffic.flows import ping
        for sender, receiver in ctx.pairs():
            if not self._has_path(net, sender, receiver):
                ping(net, sender, receiver, count=PROBE_PINGS)
        self._t0 = time.monotonic()
        self.update(net)

    def prime(self, ctx: RunContext) -> None:
        if not self.active:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, args=(ctx.net,), daemon=True,
                                        name="airtime_retry")
        self._thread.start()

    def update(self, net: Network) -> None:
        """Every mesh point decides from its own path table; changed limits are set."""
        case = ft.case(str(self.value))
        step: Dict[str, Any] = {"t": round(time.monotonic() - self._t0, 2), "nodes": {}}
        for radio in net.radios:
            if radio.mode != "mesh":
                continue
            decision = limit_for_paths(mesh.read_paths(net[radio.node], radio.intf), case)
            if decision["limit"] is not None and self.limits.get(radio.node) != decision["limit"]:
                node = net[radio.node]
                if not isinstance(node, WirelessNode):
                    raise HarnessError(f"airtime_retry: node {radio.node} has no radios to set")
                node.set_retry_limit(net, decision["limit"])
                self.limits[radio.node] = decision["limit"]
            step["nodes"][radio.node] = decision
        self.history.append(step)

    def _loop(self, net: Network) -> None:
        while not self._stop.wait(UPDATE_S):
            try:
                self.update(net)
            except Exception as err:  # noqa: BLE001 - reported by verify(), the run goes on
                self.errors.append(f"{type(err).__name__}: {err}")
                return

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None

    def verify(self, ctx: RunContext, flow: FlowPlan, run: FlowRun) -> Dict[str, Any]:
        if not self.active:
            return {}
        self.stop()
        if self.errors:
            raise PolicyViolation("airtime_retry: updating the retry limit failed during the "
                                  f"flows: {self.errors[0]}")
        in_force = {}
        for radio in (ctx.net.medium_stats() or {}).get("radios", []):
            node = radio.get("node")
            if node in self.limits:
                in_force[node] = radio.get("retry_short")
        wrong = {n: v for n, v in in_force.items() if v is not None and v != self.limits[n]}
        if wrong:
            raise PolicyViolation(f"airtime_retry: the medium enforces {wrong}, the policy set "
                                  f"{self.limits}")
        return {"held": True, "limits": dict(self.limits), "updates": len(self.history)}

    def record(self) -> Dict[str, Any]:
        return {"value": self.value, "mechanism": "Eq. 5: largest retry limit with T_MultiHop "
                "over the diameter's airtime metric < RTO_min; iw phy set retry + the medium, "
                f"before the flows and every {UPDATE_S:g} s", "limits": dict(self.limits),
                "history": self.history, "errors": self.errors}

    @staticmethod
    def _has_path(net: Network, src: str, dst: str) -> bool:
        radio = next(r for r in net.radios if r.node == src)
        dst_mac = next(r.mac for r in net.radios if r.node == dst)
        return any(p.destination == dst_mac.lower() and p.active
                   for p in mesh.read_paths(net[src], radio.intf))


def airtime_retry(value: Optional[str]) -> AirtimeRetry:
    """Factory named in the catalog (``policies.airtime_retry:airtime_retry``)."""
    return AirtimeRetry(value)
