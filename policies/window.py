"""Window limits in segments, by either mechanism (docs/kernel.md, 'cwnd lock'):

- ``cwnd_clamp``: the *sender's* congestion window, route metric ``cwnd lock N``. The kernel
  takes the clamp from the tcp_metrics cache, not from the route, and the cache entry is
  created when a connection to that destination closes normally. So: set the route, delete the
  cached entry, keep ``tcp_no_metrics_save=0``, make one complete priming connection from the
  same source, then run the flow, and verify from ``ss`` that cwnd and unacked stayed <= N.
- ``rwnd_clamp``: the *receiver's* advertised window, route metric ``window N*MSS`` on the
  receiver with ``tcp_moderate_rcvbuf=0`` there (else autotuning overrides it). It holds from
  the first connection.

They are not the same experiment: with a sender clamp of 1 segment and a receiver that delays
ACKs, every segment waits for the delayed-ACK timer; a receiver window of 1 segment does not
(the receiver sends a window update as soon as the application reads). See docs/policies.md.
"""
from __future__ import annotations

import subprocess
import time
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Sequence

from harness.errors import HarnessError
from harness.kernel.tcp import WINDOW_CLAMP
from harness.traffic.servers import iperf_servers
from policies import FlowPlan, NodePair, Policy, PolicyViolation, RunContext
from policies.routes import node_ip

if TYPE_CHECKING:
    from harness.net import Network
    from harness.traffic.flows import FlowRun, SsSample
    from harness.traffic.iperf import FlowResult

#: Payload bytes per segment on a 1500-byte MTU with TCP timestamps (1500 - 20 - 20 - 12).
SEGMENT_BYTES = 1448
#: New segments Linux may send beyond cwnd on the first duplicate ACKs (RFC 3042).
LIMITED_TRANSMIT = 2
#: tcpi_ca_state values in which Linux sets cwnd by proportional rate reduction (RFC 6937).
PRR_STATES = (2, 3)  # CWR, Recovery
#: Port of the priming connection (before the measured flows, so it never collides).
PRIME_PORT = 5101
#: Bytes the priming connection carries: enough for a complete exchange, short under TCG.
PRIME_BYTES = "16K"
#: Seconds to wait for the priming connection's tcp_metrics entry: the kernel writes it when
#: the socket reaches TIME_WAIT, which can be after the iperf3 client has exited.
METRICS_WAIT_S = 10.0


# -- verification from ss samples (pure) --------------------------------------------------
def check_window(samples: Sequence[SsSample], limit: int, *, what: str, check_cwnd: bool,
                 window_bytes: Optional[int] = None) -> Dict[str, Any]:
    """Check cwnd (if ``check_cwnd``) and unacked against ``limit`` segments in every sample.

    ``window_bytes`` (receiver window): the bound on unacked is the window in segments of the
    size the sender actually uses (``window_bytes // mss``): Linux bounds the MSS to half the
    largest window the peer ever advertised, so a 1-segment receiver window is sent as two
    half-size segments.

    For a cwnd clamp the count judged is the sample's ``in_flight`` (unacked - sacked - lost +
    retransmitted: what the kernel holds to cwnd; a tail-loss probe may add one), when the
    sample has it, with no excuse for loss recovery but PRR's (below). ``unacked`` also
    counts segments the sender has written off: in NewReno's fast recovery each duplicate ACK
    counts as a segment that left the network and lets a new one out, and after a timeout every
    outstanding segment is marked lost. So unacked legitimately exceeds the window (the
    adaptive runs on 12- and 14-hop chains saw 10 with cwnd never above 4 and 5). A receiver
    window bounds unacked itself, so that check keeps it.

    One exception holds for cwnd and in_flight alike: in fast recovery (or CWR), Linux sets
    cwnd by proportional rate reduction (``tcp_cwnd_reduction``: cwnd = in_flight + sndcnt,
    where sndcnt is at least one, and after a partial ACK that marks a new loss as large as
    the data it acknowledged) without looking at the clamp, which only caps cwnd where it
    grows (slow start, congestion avoidance). So samples whose ``ca_state`` is CWR or Recovery
    are not held to the limit; how many went above it and by how much is recorded
    (``excused_in_prr``, ``max_over_in_prr``). Paper-001 sweep runs failed on it before
    (docs/policies.md: e.g. 5 hops at limit 20, cwnd = in_flight = 21 for 1.5 s).

    Samples without ``in_flight`` (older records): one whose retransmission count grew since
    the previous sample is excused for ``unacked``, never for ``cwnd``. So is, for a cwnd clamp,
    one whose cwnd held and whose unacked is at most ``limit + 2``: on the first duplicate ACKs
    Linux sends up to two new segments beyond cwnd (limited transmit, RFC 3042) before any
    retransmission (measured on 4-hop chains with NewReno: unacked 4-5 with cwnd 3 held). Raises
    ``PolicyViolation`` with the offending samples; returns the summary stored with the run.
    """
    if not samples:
        raise PolicyViolation(f"{what} {limit}: no ss samples of the data socket, so the limit "
                              "could not be verified (flow too short or ss sampling failed)")
    bad: List[str] = []
    excused = 0
    excused_lt = 0
    excused_prr = 0
    max_over_prr = 0
    prev_retrans = 0
    max_cwnd = 0
    max_unacked = 0
    max_in_flight: Optional[int] = None
    for s in samples:
        retrans = s.retrans_total or 0
        in_recovery = retrans > prev_retrans
        prev_retrans = retrans
        if s.cwnd is not None:
            max_cwnd = max(max_cwnd, s.cwnd)
        max_unacked = max(max_unacked, s.unacked)
        flight = getattr(s, "in_flight", None)
        if flight is not None:
            max_in_flight = max(max_in_flight or 0, flight)
        judged, name = ((flight, "in_flight") if check_cwnd and flight is not None
                        else (s.unacked, "unacked"))
        bound = limit
        if window_bytes is not None:
            bound = max(1, window_bytes // (s.mss or SEGMENT_BYTES))
        over = max((s.cwnd or 0) - limit, judged - bound)
        if over > 0 and check_cwnd and getattr(s, "ca_state", None) in PRR_STATES:
            excused_prr += 1
            max_over_prr = max(max_over_prr, over)
            continue
        if check_cwnd and s.cwnd is not None and s.cwnd > limit:
            bad.append(f"t={s.t:.1f}s cwnd={s.cwnd}")
        if judged > bound:
            limited_transmit = (check_cwnd and s.cwnd is not None and s.cwnd <= limit
                                and judged <= bound + LIMITED_TRANSMIT)
            if in_recovery and name == "unacked":
                excused += 1
            elif limited_transmit:
                excused_lt += 1
            else:
                bad.append(f"t={s.t:.1f}s {name}={judged}" +
                           (f" (mss {s.mss})" if window_bytes is not None else ""))
    summary: Dict[str, Any] = {"limit": limit, "samples": len(samples), "max_cwnd": max_cwnd,
                               "max_unacked": max_unacked, "max_in_flight": max_in_flight,
                               "unacked_excused_in_recovery": excused,
                               "unacked_excused_limited_transmit": excused_lt,
                               "excused_in_prr": excused_prr, "max_over_in_prr": max_over_prr,
                               "held": not bad}
    if window_bytes is not None:
        summary["window_bytes"] = window_bytes
        summary["mss_seen"] = sorted({s.mss for s in samples if s.mss})
    if bad:
        raise PolicyViolation(
            f"{what} {limit} did not hold: {len(bad)} of {len(samples)} ss samples above it "
            f"({', '.join(bad[:6])}{' ...' if len(bad) > 6 else ''}); max cwnd {max_cwnd}, "
            f"max unacked {max_unacked}, max in flight {max_in_flight}")
    return summary


def check_iperf_cwnd(result: Optional[FlowResult], limit: int, *, over_in_recovery: int = 0,
                     mss: int = SEGMENT_BYTES) -> Dict[str, Any]:
    """iperf3's per-second ``snd_cwnd`` (bytes; only when the client sends) <= limit * MSS.

    iperf3 does not say whether the sender was in fast recovery, so it may go as far above the
    limit as the state-aware ``ss`` check saw in recovery (``over_in_recovery``, its
    ``max_over_in_prr``) and no further.
    """
    if result is None or getattr(result, "reverse", False):
        return {}
    cwnds = [iv.snd_cwnd for iv in result.intervals if iv.snd_cwnd]
    if not cwnds:
        return {}
    worst = max(cwnds)
    allowed = limit + over_in_recovery
    if worst > allowed * mss:
        raise PolicyViolation(f"cwnd clamp {limit} did not hold: iperf3 reported snd_cwnd "
                              f"{worst} bytes (> ({limit} + {over_in_recovery} seen in recovery) "
                              f"x {mss}); per second: {cwnds}")
    return {"iperf3_max_snd_cwnd_bytes": worst}


# -- priming ----------------------------------------------------------------------------
def priming_connection(net: Network, flow: FlowPlan, *, port: int = PRIME_PORT,
                       nbytes: str = PRIME_BYTES, timeout: float = 60.0) -> None:
    """One complete TCP exchange in the flow's direction, so the sender's tcp_metrics entry
    for the receiver is created from the clamped route (a refused connection does not count:
    the client retries until the server listens)."""
    client, server = net[flow.src], net[flow.dst]
    ip = node_ip(net, flow.dst, "the priming connection's server")
    with iperf_servers([(server, port)]) as (srv,):
        reverse = " -R" if flow.reverse else ""
        script = (f"for i in $(seq 100); do iperf3 -c {ip} -p {port} -n {nbytes}{reverse} "
                  f">/dev/null 2>&1 && exit 0; sleep 0.1; done; exit 1")
        done = client.cmd(["sh", "-c", script], check=False, timeout=timeout)
        if done.returncode != 0:
            raise HarnessError(f"cwnd clamp: the priming connection {flow.src} -> {flow.dst} "
                               "did not complete; without it the clamp does not apply")
        try:
            srv.wait(10)
        except subprocess.TimeoutExpired:
            pass


def prime_cwnd_locks(ctx: RunContext, pairs: Iterable[NodePair], metrics: Dict[str, str]
                     ) -> Dict[NodePair, str]:
    """The recipe that makes a route's ``cwnd lock`` reach the flow (docs/kernel.md).

    Linux takes the locked cwnd from the tcp_metrics cache, filled when a connection to the
    destination closes normally: so drop any cached entry, make one complete priming
    connection from the same source, and keep what the cache then says as evidence.

    In a routed network (a MANET) a pair may have no working path for a while: there a pair
    that cannot be primed is returned with the reason (its flow runs without the limit, and
    its check says so) instead of failing the run. Elsewhere it fails the run.
    """
    unprimed: Dict[NodePair, str] = {}
    for sender, receiver in pairs:
        flow = next(f for f in ctx.tcp_flows() if (f.sender, f.receiver) == (sender, receiver))
        peer_ip = node_ip(ctx.net, receiver, "cwnd clamp")
        ctx.net[sender].cmd(f"ip tcp_metrics delete {peer_ip} 2>/dev/null || true")
        try:
            priming_connection(ctx.net, flow)
            metrics[f"{sender}->{receiver}"] = cached_metrics(ctx.net, sender, peer_ip)
        except HarnessError as err:
            if ctx.net.topo.routing == "static":
                raise
            unprimed[(sender, receiver)] = str(err)
            ctx.notes.append(f"{sender}->{receiver}: not primed, its flow runs without the "
                             f"window limit: {err}")
    return unprimed


def cached_metrics(net: Network, sender: str, peer_ip: str,
                   timeout: float = METRICS_WAIT_S) -> str:
    """The sender's tcp_metrics entry for ``peer_ip``, once the kernel has written it.

    The entry appears when the priming socket closes, which may be after iperf3 has exited; a
    flow started before then would run unclamped, so wait for it and fail if it never comes.
    """
    deadline = time.monotonic() + timeout
    while True:
        shown = net[sender].cmd(["ip", "tcp_metrics", "show", peer_ip],
                                check=False).stdout.strip()
        if "cwnd" in shown:
            return shown
        if time.monotonic() > deadline:
            raise HarnessError(f"cwnd clamp: no tcp_metrics entry with a cwnd on {sender} for "
                               f"{peer_ip} {timeout:.0f} s after the priming connection "
                               f"(ip tcp_metrics show: {shown or 'empty'}); the clamp would "
                               "not apply")
        time.sleep(0.1)


class CwndClamp(Policy):
    """Sender congestion-window clamp (route ``cwnd lock N``, primed, verified with ss)."""

    name = "cwnd_clamp"

    def __init__(self, value: Optional[int]):
        super().__init__(WINDOW_CLAMP.validate(value, "cwnd_clamp"))
        self.metrics: Dict[str, str] = {}

    def apply(self, ctx: RunContext) -> None:
        if not self.active:
            return
        for sender, receiver in ctx.pairs():
            ctx.add_route_metric(sender, receiver, "cwnd", f"lock {self.value}")
            ctx.net[sender].set_sysctls({"net.ipv4.tcp_no_metrics_save": 0})

    def prime(self, ctx: RunContext) -> None:
        if self.active:
            prime_cwnd_locks(ctx, ctx.pairs(), self.metrics)

    def verify(self, ctx: RunContext, flow: FlowPlan, run: FlowRun) -> Dict[str, Any]:
        if not self.active or flow.protocol != "tcp":
            return {}
        found = check_window(run.ss, self.value, what="cwnd clamp", check_cwnd=True)
        found.update(check_iperf_cwnd(run.result, self.value,
                                      over_in_recovery=found["max_over_in_prr"]))
        return found

    def record(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"value": self.value, "mechanism": "route cwnd lock (sender)"}
        if self.metrics:
            out["tcp_metrics"] = self.metrics
        return out


class RwndClamp(Policy):
    """Receiver window clamp (route ``window N*MSS`` with ``tcp_moderate_rcvbuf=0``)."""

    name = "rwnd_clamp"

    def __init__(self, value: Optional[int]):
        super().__init__(WINDOW_CLAMP.validate(value, "rwnd_clamp"))

    @property
    def window_bytes(self) -> Optional[int]:
        return None if self.value is None else self.value * SEGMENT_BYTES

    def apply(self, ctx: RunContext) -> None:
        if not self.active:
            return
        for sender, receiver in ctx.pairs():
            ctx.net[receiver].set_sysctls({"net.ipv4.tcp_moderate_rcvbuf": 0})
            ctx.add_route_metric(receiver, sender, "window", str(self.window_bytes))

    def verify(self, ctx: RunContext, flow: FlowPlan, run: FlowRun) -> Dict[str, Any]:
        if not self.active or flow.protocol != "tcp":
            return {}
        return check_window(run.ss, self.value, what="rwnd clamp", check_cwnd=False,
                            window_bytes=self.window_bytes)

    def record(self) -> Dict[str, Any]:
        return {"value": self.value, "window_bytes": self.window_bytes,
                "mechanism": "route window (receiver), tcp_moderate_rcvbuf=0"}


def cwnd_clamp(value: Optional[int]) -> CwndClamp:
    """Factory named in the catalog (``policies.window:cwnd_clamp``)."""
    return CwndClamp(value)


def rwnd_clamp(value: Optional[int]) -> RwndClamp:
    """Factory named in the catalog (``policies.window:rwnd_clamp``)."""
    return RwndClamp(value)
