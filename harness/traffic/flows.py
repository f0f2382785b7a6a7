"""Traffic inside the namespaces: iperf3 flows, ping RTT, TCP socket sampling.

One iperf3 server per flow (``harness.traffic.servers``: serves one test then exits) in the
receiver's namespace; the client runs with ``-J`` and its report becomes a ``FlowResult``
(``harness.traffic.iperf``). While a flow runs, a thread samples the *sender's* TCP sockets the way
``ss -ti`` shows them (sock_diag, ``harness.kernel.tcp_diag``: no process per sample, which under
TCG would cost ~60 ms of guest CPU each) so cwnd, RTT, unacked and the congestion module
can be checked during the run (docs/kernel.md, 'Verify, do not assume').
"""
from __future__ import annotations

import json
import re
import subprocess
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple, TypeVar, Union

from harness.errors import CommandTimeout, HarnessError
from harness.kernel.host import in_virtual_time
from harness.kernel.netns import Node
from harness.kernel.tcp_diag import CLOSING_STATES, TCP_ESTABLISHED, DiagSocket, TcpSocket
from harness.traffic import iperf
from harness.traffic.iperf import FlowResult
from harness.traffic.servers import bulk_sender_args, flow_servers, iperf_servers
from harness.traffic.servers import stop as stop_process

T = TypeVar("T")

DEFAULT_PORT = 5201
PROTOCOLS = ("tcp", "udp")


# -- ss sampling ------------------------------------------------------------------------
@dataclass
class SsSample:
    """One TCP socket as ``ss -ti`` saw it at time ``t`` (seconds since sampling began)."""

    t: float
    local: str
    peer: str
    congestion: Optional[str]
    cwnd: Optional[int]                 # segments
    rtt_ms: Optional[float]
    rttvar_ms: Optional[float]
    unacked: int
    bytes_acked: int
    retrans_total: Optional[int]
    mss: Optional[int]
    #: Segments the window governs: unacked - sacked - lost + retransmitted (the kernel's
    #: tcp_packets_in_flight). Unlike unacked it leaves out segments already marked lost.
    in_flight: Optional[int] = None
    #: tcpi_ca_state: 0 open, 1 disorder, 2 CWR, 3 recovery, 4 loss.
    ca_state: Optional[int] = None
    #: The retransmission timeout and its backoffs (tcpi_rto, tcpi_backoff), the pending
    #: timer (inet_diag: 1 retransmission/probe, 0 none) and ms until it fires, and ms since
    #: data was last sent and an ACK last arrived: whether a silent flow waits on its timer.
    rto_ms: Optional[float] = None
    backoff: Optional[int] = None
    timer: Optional[int] = None
    timer_ms: Optional[int] = None
    since_send_ms: Optional[int] = None
    since_ack_ms: Optional[int] = None

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


def sample_of(sock: TcpSocket, t: float) -> SsSample:
    """An ``SsSample`` from a sock_diag socket (the fields ``ss -ti`` prints)."""
    info = sock.info

    def ms(us: Optional[int]) -> Optional[float]:
        return us / 1000.0 if us is not None else None

    return SsSample(t=t, local=sock.local, peer=sock.peer, congestion=sock.congestion,
                    cwnd=info.get("snd_cwnd"), rtt_ms=ms(info.get("rtt_us")),
                    rttvar_ms=ms(info.get("rttvar_us")), unacked=info.get("unacked") or 0,
                    bytes_acked=info.get("bytes_acked") or 0,
                    retrans_total=info.get("total_retrans"), mss=info.get("snd_mss"),
                    in_flight=in_flight(info), ca_state=info.get("ca_state"),
                    rto_ms=ms(info.get("rto_us")), backoff=info.get("backoff"),
                    timer=sock.timer, timer_ms=sock.timer_ms,
                    since_send_ms=info.get("last_data_sent_ms"),
                    since_ack_ms=info.get("last_ack_recv_ms"))


def in_flight(info: Dict[str, Optional[int]]) -> Optional[int]:
    """tcp_packets_in_flight from tcp_info, or None when a field is missing."""
    unacked, sacked, lost, retrans = (info.get(k) for k in ("unacked", "sacked", "lost", "retrans"))
    if unacked is None or sacked is None or lost is None or retrans is None:
        return None
    return max(0, unacked - sacked - lost + retrans)


class SsSampler:
    """Samples the established TCP sockets on ``port`` in a node's namespace every
    ``interval`` seconds from a thread (sock_diag: no process per sample, as the module says).
    ``stop()`` returns the samples; ``t`` counts from the sampler's start."""

    def __init__(self, node: Node, port: int, *, interval: float = 0.2, closing: bool = False):
        self.node = node
        self.port = port
        self.interval = interval
        #: Also sockets the sender closed with data still in flight (a bulk transfer's last
        #: bytes are acknowledged after iperf3 closed its socket).
        states = (TCP_ESTABLISHED, *CLOSING_STATES) if closing else (TCP_ESTABLISHED,)
        self.states = sum(1 << state for state in states)
        self.samples: List[SsSample] = []
        self.error: Optional[BaseException] = None
        self._diag = DiagSocket(node.netns)
        self._stop = threading.Event()
        #: When sampling began (``time.monotonic()``): every sample's ``t`` counts from it.
        self.t0 = time.monotonic()
        self._thread = threading.Thread(target=self._loop, daemon=True,
                                        name=f"ss-{node.name}-{port}")
        self._thread.start()

    def _loop(self) -> None:
        while True:
            t = time.monotonic() - self.t0
            try:
                socks = self._diag.sockets(self.states)
            except (OSError, HarnessError) as err:
                self.error = err
                return
            self.samples += [sample_of(s, round(t, 3)) for s in socks if self.port in s.ports]
            if self._stop.wait(self.interval):
                return

    def stop(self) -> List[SsSample]:
        self._stop.set()
        self._thread.join(10)
        self._diag.close()
        if self.error is not None:
            raise HarnessError(f"[{self.node.name}] sampling TCP sockets failed: {self.error}")
        return self.samples


def client_data_port(iperf_json: str) -> Optional[int]:
    """The client's local port of iperf3's data connection (``start.connected``)."""
    try:
        connected = json.loads(iperf_json)["start"]["connected"]
        return int(connected[0]["local_port"])
    except (ValueError, KeyError, IndexError, TypeError):
        return None


def flow_samples(samples: List[SsSample], client_port: Optional[int]) -> List[SsSample]:
    """The samples of the data connection: the socket whose client end is ``client_port``
    (iperf3's control connection, also open, uses the namespace's default congestion module)."""
    suffix = f":{client_port}"
    mine = [s for s in samples if s.local.endswith(suffix) or s.peer.endswith(suffix)]
    return mine if client_port is not None and mine else data_samples(samples)


def data_samples(samples: List[SsSample]) -> List[SsSample]:
    """The samples of the one connection that moved the most data (the flow, not iperf3's
    control connection), in time order.

    A fallback when iperf3 did not report its ports (a client killed before its report).
    The connection is chosen once, by the bytes it had acknowledged at its last sample: per
    sample time the control connection may lead (it has sent the test's parameters while the
    data connection has sent nothing yet), and a choice per time would mix the two."""
    by_connection: Dict[Tuple[str, str], List[SsSample]] = {}
    for s in samples:
        by_connection.setdefault((s.local, s.peer), []).append(s)
    if not by_connection:
        return []
    mine = max(by_connection.values(), key=lambda group: max(s.bytes_acked for s in group))
    return sorted(mine, key=lambda s: s.t)


# -- iperf3 -----------------------------------------------------------------------------
@dataclass
class Flow:
    """What to run: one iperf3 test from ``src`` to ``dst`` (node names)."""

    src: str
    dst: str
    duration: float = 10.0
    protocol: str = "tcp"
    congestion: Optional[str] = None    # iperf3 -C
    window: Optional[str] = None        # iperf3 -w, e.g. "64K"
    reverse: bool = False               # -R: dst sends to src
    bitrate: Optional[str] = None       # UDP target rate, e.g. "5M"
    port: int = DEFAULT_PORT
    interval: float = 1.0
    extra: List[str] = field(default_factory=list)
    #: A bulk transfer of this many bytes (iperf3 ``-n``); ``duration`` then only bounds it.
    bytes: Optional[int] = None


def client_args(flow: Flow, dst_ip: str) -> List[str]:
    """The iperf3 client command line of a flow (pure)."""
    if flow.protocol not in PROTOCOLS:
        raise HarnessError(f"protocol {flow.protocol!r} is invalid: allowed {', '.join(PROTOCOLS)}")
    length = ["-n", str(int(flow.bytes))] if flow.bytes else ["-t", f"{flow.duration:g}"]
    args = ["iperf3", "-c", dst_ip, "-p", str(flow.port), *length,
            "-i", f"{flow.interval:g}", "-J"]
    if flow.protocol == "udp":
        args += ["-u", "-b", flow.bitrate or "1M"]
    if flow.congestion:
        args += ["-C", flow.congestion]
    if flow.window:
        args += ["-w", str(flow.window)]
    if flow.reverse:
        args.append("-R")
    return args + list(flow.extra)


@dataclass
class FlowRun:
    """A flow and, if sampled, the ``ss`` samples of its data socket. ``incomplete`` says why
    the result was taken from those samples instead of iperf3's report."""

    result: FlowResult
    ss: List[SsSample] = field(default_factory=list)
    incomplete: Optional[str] = None
    #: When the samples' clock started (``time.monotonic()``), to put flows on one time axis.
    t0: Optional[float] = None
    #: A bulk transfer's own reports: ``{"receiver": {...}, "sender": {...}}`` (bulk_agent).
    bulk: Optional[Dict[str, Any]] = None


#: Seconds an iperf3 client may take past its test duration: its setup and end-of-test
#: exchanges (on a long congested chain retransmissions back off for seconds), and iperf3
#: 3.12 waits 30 s for the reply to a UDP stream's connect datagram before it reports the
#: datagram lost (measured in the guest: 32 s), which ``retry_setup`` then retries.
CLIENT_GRACE_S = 60.0
#: ... in a network whose routes move (a MANET): a client whose path broke mid-test cannot
#: finish its end-of-test exchange and waits out its grace (its goodput then comes from the
#: sender's socket samples), and 50 moving nodes cost wall time every guest second.
MANET_GRACE_S = 10.0


def result_from_samples(flow: Flow, samples: List[SsSample]) -> FlowResult:
    """A TCP flow's result from its sender's socket samples, for a client that never reported.

    Bytes the sender saw acknowledged are bytes the receiver got in order, so goodput over
    the test's duration is the same measure iperf3 reports (without per-second intervals).
    Only samples up to ``duration`` after the connection's first acknowledged byte count:
    iperf3 stops writing then, but what it wrote is still in the socket buffer and keeps
    being delivered while the report hangs (6 flows on 7 hops: 1-25 % more by the time the
    client was killed). The window starts at most one sampling interval late."""
    if not samples:
        raise ValueError("no samples of the data connection")
    started = [s.t for s in samples if s.bytes_acked > 0]
    if started:
        in_test = [s for s in samples if s.t <= started[0] + flow.duration]
        samples = in_test or samples
    last = max(samples, key=lambda s: s.bytes_acked)
    acked = int(last.bytes_acked)
    return FlowResult(protocol="TCP", duration=flow.duration, throughput_bps=acked * 8 / flow.duration,
                      bytes=acked, bytes_sent=acked + int(last.unacked or 0) * int(last.mss or 0),
                      retransmits=last.retrans_total, congestion=last.congestion,
                      reverse=flow.reverse, src=flow.src, dst=flow.dst)


def check_paced(net, flow: Flow) -> None:
    """In virtual time, radios without a medium are an unshaped wire: hwsim hands each frame
    over at once, so an unpaced flow keeps every process busy, the guest's clock hardly moves
    and a 5 s flow moved tens of gigabytes for many wall minutes. Refused, with the two ways
    out; a paced flow (``bitrate``) sleeps between its packets and is fine."""
    if in_virtual_time() and flow.bitrate is None and net.radios and net.without_medium():
        raise HarnessError(
            f"flow {flow.src}->{flow.dst}: radios without a medium move data in zero virtual "
            "time (an unshaped path; the guest's clock would hardly advance): give the flow "
            "a bitrate (bitrate='20M') or start the network with a medium (medium=None for "
            "the default one)")


def run_flow(net, flow: Flow, *, sample_ss: bool = False, ss_interval: float = 0.2) -> FlowRun:
    """Run one flow to completion (its server started first, stopped after); optionally
    sample ``ss`` in the sender's namespace (``run_client``)."""
    dst = net[flow.dst]
    if dst.ip is None:
        raise HarnessError(f"flow {flow.src}->{flow.dst}: {flow.dst} has no IP address")
    with flow_servers([(dst, flow.port, bool(flow.bytes))]) as procs:
        return run_client(net, flow, server=procs[0], sample_ss=sample_ss,
                          ss_interval=ss_interval)


def run_client(net, flow: Flow, *, server: Optional[subprocess.Popen] = None,
               sample_ss: bool = False, ss_interval: float = 0.2) -> FlowRun:
    """The client side of one flow whose server (``server``) already listens: iperf3, or for
    a bulk transfer (``bytes``) ``bulk_agent.py send`` (``run_bulk``).

    A sampled TCP client that does not finish within ``CLIENT_GRACE_S`` of its duration is
    killed, and its result is taken from the samples (``FlowRun.incomplete`` says so): its data
    ran its full time, only the report was lost, and one stuck report should not void a run.
    A bulk transfer (``bytes``) still running then was cut at its time limit: the same."""
    check_paced(net, flow)
    if flow.congestion:
        net.ensure_congestion([flow.congestion])
    src, dst = net[flow.src], net[flow.dst]
    if dst.ip is None:
        raise HarnessError(f"flow {flow.src}->{flow.dst}: {flow.dst} has no IP address")
    if flow.bytes:
        if server is None:
            raise HarnessError(f"bulk transfer {flow.src}->{flow.dst}: no receiver was started")
        return run_bulk(net, flow, server, sample_ss=sample_ss, ss_interval=ss_interval)
    argv = client_args(flow, dst.ip)
    sampler = (SsSampler(dst if flow.reverse else src, flow.port, interval=ss_interval)
               if sample_ss and flow.protocol == "tcp" else None)
    grace = CLIENT_GRACE_S if getattr(net.topo, "routing", "static") == "static" else MANET_GRACE_S
    ran = _sampled_client(src, argv, flow, sampler, grace)
    if isinstance(ran, FlowRun):
        return ran
    proc, samples = ran
    try:
        if not proc.stdout.strip():
            raise HarnessError(f"iperf3 {flow.src}->{flow.dst} printed nothing "
                               f"(exit {proc.returncode}): {proc.stderr.strip()}")
        result = iperf.parse(proc.stdout)
    except HarnessError as err:
        if getattr(net.topo, "routing", "static") == "static" or flow.protocol != "tcp":
            raise
        return no_path(flow, samples, err, sampler.t0 if sampler else None)
    result.src, result.dst = flow.src, flow.dst
    return FlowRun(result, flow_samples(samples, client_data_port(proc.stdout)),
                   t0=sampler.t0 if sampler else None)


def _sampled_client(node: Node, argv: List[str], flow: Flow, sampler: Optional[SsSampler],
                    grace: float = CLIENT_GRACE_S
                    ) -> Union[FlowRun, Tuple[subprocess.CompletedProcess, List[SsSample]]]:
    """A flow's client ``argv`` run in ``node`` while ``sampler`` (if any) samples the sender,
    which is stopped after: the client's process and the samples, or the flow cut short
    (``cut_short``) when the client outlived its time (``grace`` s past its duration)."""
    try:
        proc = node.cmd(argv, check=False, timeout=flow.duration + grace)
    except CommandTimeout as err:
        return cut_short(flow, sampler, err, sampler.t0 if sampler else None)
    except BaseException:
        if sampler is not None:
            sampler.stop()
        raise
    return proc, sampler.stop() if sampler else []


def cut_short(flow: Flow, sampler: Optional[SsSampler], err: CommandTimeout,
              t0: Optional[float]) -> FlowRun:
    """A flow whose client outlived its time: its goodput from the sender's socket samples
    (marked ``incomplete``), or the timeout itself when there are none."""
    samples = data_samples(sampler.stop()) if sampler else []
    if not samples:
        raise err
    return FlowRun(result_from_samples(flow, samples), samples,
                   incomplete=f"{err}; goodput from the sender's socket samples", t0=t0)


def no_path(flow: Flow, samples: List[SsSample], err: HarnessError, t0: Optional[float]
            ) -> FlowRun:
    """A TCP flow of a MANET whose iperf3 failed (no path to connect over, or its control
    connection broke as nodes moved): what its sender's socket acknowledged, 0 if nothing;
    a static network's failure stays an error (a broken setup, not a result)."""
    data = data_samples(samples) if samples else []
    result = (result_from_samples(flow, data) if data else
              FlowResult(protocol="TCP", duration=flow.duration, throughput_bps=0.0, bytes=0,
                         bytes_sent=0, src=flow.src, dst=flow.dst))
    return FlowRun(result, data, incomplete=f"{err}; goodput from the sender's socket samples "
                   "(0 without)", t0=t0)


def run_bulk(net, flow: Flow, receiver: subprocess.Popen, *, sample_ss: bool = False,
             ss_interval: float = 0.2) -> FlowRun:
    """A bulk transfer of ``flow.bytes`` to a listening ``bulk_agent.py receive``: the sender
    writes them, the receiver reads to the end and reports the seconds from its accept to the
    last byte (the transfer's completion), the sender's socket is sampled throughout. A
    transfer not done within ``duration`` (+ ``CLIENT_GRACE_S``) is cut: its result comes
    from the samples, marked ``incomplete``."""
    if flow.reverse or flow.protocol != "tcp":
        raise HarnessError(f"bulk transfer {flow.src}->{flow.dst}: only TCP from src to dst "
                           "(give src and dst the other way round instead of reverse)")
    src, dst = net[flow.src], net[flow.dst]
    assert dst.ip is not None  # run_client checked
    argv = bulk_sender_args(dst.ip, flow.port, int(flow.bytes or 0), flow.congestion or "")
    sampler = SsSampler(src, flow.port, interval=ss_interval, closing=True) if sample_ss else None
    ran = _sampled_client(src, argv, flow, sampler)
    if isinstance(ran, FlowRun):
        return ran
    proc, samples = ran
    sent = _agent_json(proc.stdout, f"bulk sender {flow.src}->{flow.dst}", proc.stderr)
    try:
        out, err_text = receiver.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        raise HarnessError(f"bulk receiver on {flow.dst} did not report within 30 s of "
                           "the sender's end") from None
    got = _agent_json(out, f"bulk receiver {flow.dst}", err_text)
    seconds = float(got["seconds"])
    mine = flow_samples(samples, int(sent["local_port"]))
    result = FlowResult(protocol="TCP", duration=seconds,
                        throughput_bps=got["bytes"] * 8 / seconds if seconds > 0 else 0.0,
                        bytes=int(got["bytes"]), bytes_sent=int(sent["bytes"]),
                        retransmits=mine[-1].retrans_total if mine else None,
                        congestion=sent.get("congestion"), src=flow.src, dst=flow.dst)
    if got["bytes"] != flow.bytes:
        raise HarnessError(f"bulk transfer {flow.src}->{flow.dst}: {got['bytes']} of "
                           f"{flow.bytes} bytes arrived")
    return FlowRun(result, mine, t0=sampler.t0 if sampler else None,
                   bulk={"receiver": got, "sender": sent})


def _agent_json(text: str, what: str, stderr: str = "") -> Dict[str, Any]:
    lines = [l for l in (text or "").splitlines() if l.startswith("{")]
    if not lines:
        raise HarnessError(f"{what} printed no result: {(stderr or text or '').strip()[-300:]}")
    data = json.loads(lines[-1])
    if "error" in data:
        raise HarnessError(f"{what} failed: {data['error']}")
    return data


def completion_s(samples: List[SsSample], nbytes: int) -> Optional[float]:
    """Seconds from the data connection's first sample until the sender saw ``nbytes``
    acknowledged (linear between the two samples around that moment); None if no sample
    shows it (a transfer cut at its time limit). Bytes the sender saw acknowledged are bytes
    the receiver got in order."""
    if not samples:
        return None
    if samples[0].bytes_acked >= nbytes:
        return 0.0
    for prev, s in zip(samples, samples[1:]):
        if s.bytes_acked >= nbytes:
            span = s.bytes_acked - prev.bytes_acked
            frac = (nbytes - prev.bytes_acked) / span if span > 0 else 1.0
            return prev.t + frac * (s.t - prev.t) - samples[0].t
    return None


def run_together(net, flows: List[Flow], timeout_extra: Optional[float] = None) -> List[FlowResult]:
    """Run iperf3 flows that start at the same moment (servers first, then every client
    launched back to back): run_flow in threads would start each client only after its
    own server listens, seconds apart under TCG, and the flows would partly run alone.
    Each result keeps iperf3's whole report in ``raw`` (the receiver's intervals with
    ``--get-server-output``: ``iperf.receiver_mbps``)."""
    extra = CLIENT_GRACE_S if timeout_extra is None else timeout_extra
    clients: List[Tuple[Flow, Node, subprocess.Popen]] = []
    with iperf_servers([(net[f.dst], f.port) for f in flows]):
        try:
            for f in flows:
                src = net[f.src]
                clients.append((f, src, src.popen(client_args(f, net[f.dst].ip))))
            results = []
            for f, _, proc in clients:
                out, err = proc.communicate(timeout=f.duration + extra)
                if not out.strip():
                    raise HarnessError(f"iperf3 {f.src}->{f.dst} printed nothing: {err.strip()}")
                result = iperf.parse(out)
                result.src, result.dst = f.src, f.dst
                result.raw = json.loads(out)  # type: ignore[attr-defined]
                results.append(result)
            return results
        finally:
            for _, src, proc in clients:
                stop_process(src, proc)


#: iperf3's UDP stream setup is one unacknowledged datagram each way (esnet/iperf#862): on a
#: lossy or colliding link it can be lost and iperf3 gives up before measuring anything.
SETUP_LOST = "unable to read from stream socket"


def retry_setup(fn: Callable[[], T], attempts: int = 3) -> T:
    """Call ``fn`` again when iperf3's UDP setup datagram was lost (nothing was measured)."""
    for i in range(attempts):
        try:
            return fn()
        except HarnessError as err:
            if SETUP_LOST not in str(err) or i == attempts - 1:
                raise
    raise ValueError(f"retry_setup: attempts must be >= 1, got {attempts}")


def run_iperf(net, src: str, dst: str, *, duration: float = 10.0, protocol: str = "tcp",
              congestion: Optional[str] = None, window: Optional[str] = None,
              reverse: bool = False, bitrate: Optional[str] = None,
              port: int = DEFAULT_PORT, interval: float = 1.0) -> FlowResult:
    """One iperf3 test ``src`` -> ``dst`` (node names) in a started ``Network``."""
    flow = Flow(src, dst, duration, protocol, congestion, window, reverse, bitrate, port, interval)
    return run_flow(net, flow).result


# -- ping -------------------------------------------------------------------------------
@dataclass
class PingResult:
    sent: int
    received: int
    loss_percent: float
    min_ms: Optional[float]
    avg_ms: Optional[float]
    max_ms: Optional[float]
    mdev_ms: Optional[float]
    ttls: List[int] = field(default_factory=list)

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


_PING_COUNTS = re.compile(r"(\d+) packets transmitted, (\d+) (?:packets )?received")
_PING_RTT = re.compile(r"= ([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+) ms")
_PING_TTL = re.compile(r"ttl=(\d+)")


def parse_ping(text: str) -> PingResult:
    counts = _PING_COUNTS.search(text)
    if not counts:
        raise HarnessError(f"ping output not understood: {text.strip()[-200:]!r}")
    sent, received = int(counts[1]), int(counts[2])
    rtt = _PING_RTT.search(text)
    vals: List[Optional[float]] = [float(v) for v in rtt.groups()] if rtt else [None] * 4
    return PingResult(sent, received, 100.0 * (sent - received) / sent if sent else 100.0,
                      vals[0], vals[1], vals[2], vals[3],
                      ttls=[int(t) for t in _PING_TTL.findall(text)])


def answered_ping(net, src: str, dst_ip: str, attempts: int = 3) -> bool:
    """Up to ``attempts`` single pings (3 s each) from node ``src`` until one is answered.

    Why: it resolves every neighbour (ARP) entry and, on an 802.11s mesh, the HWMP path along
    the way right before a flow. With a retry limit of 1 one ping can be lost, and a flow
    whose source's entry failed starts with "No route to host" instead of measuring.
    """
    script = (f"for i in $(seq {attempts}); do ping -n -c1 -W3 {dst_ip} >/dev/null && exit 0; "
              "done; exit 1")
    return net[src].cmd(["sh", "-c", script], check=False,
                        timeout=attempts * 3 + 30).returncode == 0


def ping(net, src: str, dst: str, *, count: int = 10, interval: float = 0.2,
         timeout_s: int = 2) -> PingResult:
    """``ping -c N -i 0.2`` from node ``src`` to node ``dst`` (or an IP)."""
    target = net[dst].ip if dst in net.nodes else dst
    proc = net[src].cmd(["ping", "-n", "-c", str(count), "-i", f"{interval:g}",
                         "-W", str(timeout_s), target],
                        check=False, timeout=count * interval + timeout_s + 10)
    return parse_ping(proc.stdout)
