"""Traffic inside the namespaces: iperf3 flows, ping RTT, ``ss -ti`` sampling.

One iperf3 server per flow (``-s -1``: serves one test then exits) in the receiver's
namespace; the client runs with ``-J`` and its report becomes a ``FlowResult``
(``harness.iperf``). While a flow runs, one shell loop in the *sender's* namespace samples
``ss -tinH state established`` (one process for the whole flow, not one per sample: each
process costs ~60 ms under TCG) so cwnd, RTT, unacked and the congestion module can be
checked during the run (design.md §3: clamps are verified, not assumed).
"""
from __future__ import annotations

import json
import os
import re
import select
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional

from harness import iperf
from harness.errors import HarnessError
from harness.iperf import FlowResult
from harness.netns import Node

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

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


_KNOWN_CC = ("reno", "cubic", "bic", "htcp", "vegas", "veno", "westwood", "illinois", "bbr",
             "dctcp", "hybla", "scalable", "lp", "yeah", "nv", "cdg", "highspeed")
_MARK = "@@t "


def parse_ss(text: str, t: float = 0.0) -> List[SsSample]:
    """Parse ``ss -tinH state established`` output (socket line + indented info line)."""
    samples = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        head = lines[i]
        if not head.strip() or head[0].isspace():
            i += 1
            continue
        info = lines[i + 1] if i + 1 < len(lines) and lines[i + 1][:1].isspace() else ""
        i += 2 if info else 1
        cols = head.split()
        if len(cols) < 4:
            continue
        local, peer = cols[2], cols[3]
        words = info.split()
        cc = words[0] if words and words[0] in _KNOWN_CC else None
        kv = dict(w.split(":", 1) for w in words if ":" in w and not w.startswith("bbr:"))
        rtt = kv.get("rtt", "")
        rtt_ms, _, rttvar_ms = rtt.partition("/")
        retrans = kv.get("retrans", "")
        samples.append(SsSample(
            t=t, local=local, peer=peer, congestion=cc, cwnd=_int(kv.get("cwnd")),
            rtt_ms=_float(rtt_ms), rttvar_ms=_float(rttvar_ms),
            unacked=_int(kv.get("unacked")) or 0, bytes_acked=_int(kv.get("bytes_acked")) or 0,
            retrans_total=_int(retrans.partition("/")[2]) if "/" in retrans else None,
            mss=_int(kv.get("mss"))))
    return samples


def _int(v: Optional[str]) -> Optional[int]:
    try:
        return int(v) if v is not None else None
    except ValueError:
        return None


def _float(v: Optional[str]) -> Optional[float]:
    try:
        return float(v) if v else None
    except ValueError:
        return None


def parse_ss_log(text: str) -> List[SsSample]:
    """Parse the sampler's log: blocks headed by ``@@t <seconds>``."""
    out: List[SsSample] = []
    t0: Optional[float] = None
    for block in text.split(_MARK)[1:]:
        stamp, _, body = block.partition("\n")
        try:
            now = float(stamp.strip())
        except ValueError:
            continue
        t0 = now if t0 is None else t0
        out.extend(parse_ss(body, now - t0))
    return out


class SsSampler:
    """Background ``ss`` loop in a namespace; ``stop()`` returns the samples."""

    def __init__(self, node: Node, port: int, *, interval: float = 0.2):
        self.node = node
        self._log = tempfile.TemporaryFile(mode="w+")
        filt = f"( dport = :{port} or sport = :{port} )"
        script = (f"while :; do echo \"{_MARK}$(date +%s.%N)\"; "
                  f"ss -tinH state established '{filt}'; sleep {interval}; done")
        self._proc = node.popen(["sh", "-c", script], stdout=self._log,
                                stderr=subprocess.DEVNULL)

    def stop(self) -> List[SsSample]:
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(3)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(3)
        if self._proc in self.node.procs:
            self.node.procs.remove(self._proc)
        self._log.seek(0)
        text = self._log.read()
        self._log.close()
        return parse_ss_log(text)


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
    """Per sample time, the socket that moved the most data (the flow, not iperf3's control).

    A fallback when iperf3 did not report its ports: at the first samples the control
    connection may still have moved more bytes than the data connection."""
    best: Dict[float, SsSample] = {}
    for s in samples:
        if s.t not in best or s.bytes_acked > best[s.t].bytes_acked:
            best[s.t] = s
    return [best[t] for t in sorted(best)]


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


def _wait_listening(proc: subprocess.Popen, timeout: float = 10.0) -> None:
    """Block until the iperf3 server prints that it listens (no polling processes)."""
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None
    fd = proc.stdout.fileno()  # raw reads: the text wrapper would buffer past select()
    buf = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            buf += chunk
            if b"listening" in buf.lower():
                return
        elif proc.poll() is not None:
            break
    err = proc.stderr.read() if proc.stderr and proc.poll() is not None else ""
    raise HarnessError("iperf3 server did not start listening: "
                       f"{(buf.decode(errors='replace') + err).strip()[-300:]}")


def client_args(flow: Flow, dst_ip: str) -> List[str]:
    """The iperf3 client command line of a flow (pure)."""
    if flow.protocol not in PROTOCOLS:
        raise HarnessError(f"protocol {flow.protocol!r} is invalid: allowed {', '.join(PROTOCOLS)}")
    args = ["iperf3", "-c", dst_ip, "-p", str(flow.port), "-t", f"{flow.duration:g}",
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
    """A flow and, if sampled, the ``ss`` samples of its data socket."""

    result: FlowResult
    ss: List[SsSample] = field(default_factory=list)


def run_flow(net, flow: Flow, *, sample_ss: bool = False, ss_interval: float = 0.2) -> FlowRun:
    """Run one iperf3 flow to completion; optionally sample ``ss`` in the sender's namespace."""
    if flow.congestion:
        net.ensure_congestion([flow.congestion])
    src, dst = net[flow.src], net[flow.dst]
    if dst.ip is None:
        raise HarnessError(f"flow {flow.src}->{flow.dst}: {flow.dst} has no IP address")
    server = dst.popen(["iperf3", "-s", "-1", "-p", str(flow.port), "-B", dst.ip, "--forceflush"])
    sampler: Optional[SsSampler] = None
    try:
        _wait_listening(server)
        if sample_ss and flow.protocol == "tcp":
            sender = dst if flow.reverse else src
            sampler = SsSampler(sender, flow.port, interval=ss_interval)
        proc = src.cmd(client_args(flow, dst.ip), check=False, timeout=flow.duration + 30)
        samples = sampler.stop() if sampler else []
        sampler = None
        if not proc.stdout.strip():
            raise HarnessError(f"iperf3 {flow.src}->{flow.dst} printed nothing "
                               f"(exit {proc.returncode}): {proc.stderr.strip()}")
        result = iperf.parse(proc.stdout)
        result.src, result.dst = flow.src, flow.dst
        return FlowRun(result, flow_samples(samples, client_data_port(proc.stdout)))
    finally:
        if sampler is not None:
            sampler.stop()
        if server.poll() is None:
            server.terminate()
            try:
                server.wait(3)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(3)
        if server in dst.procs:
            dst.procs.remove(server)


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
    vals = [float(v) for v in rtt.groups()] if rtt else [None] * 4
    return PingResult(sent, received, 100.0 * (sent - received) / sent if sent else 100.0,
                      *vals, ttls=[int(t) for t in _PING_TTL.findall(text)])


def ping(net, src: str, dst: str, *, count: int = 10, interval: float = 0.2,
         timeout_s: int = 2) -> PingResult:
    """``ping -c N -i 0.2`` from node ``src`` to node ``dst`` (or an IP)."""
    target = net[dst].ip if dst in net.nodes else dst
    proc = net[src].cmd(["ping", "-n", "-c", str(count), "-i", f"{interval:g}",
                         "-W", str(timeout_s), target],
                        check=False, timeout=count * interval + timeout_s + 10)
    return parse_ping(proc.stdout)
