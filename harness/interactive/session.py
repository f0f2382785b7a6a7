"""One running network and what the prompt's commands do on it.

A ``Session`` owns (or, for a Mininet-WiFi script, borrows) a started ``Network``. Each
command is a method that checks its arguments first (a bad node name or value raises
``HarnessError`` naming the allowed values, and nothing is changed), then acts on the kernel
or the medium and returns the text to print. Node commands run attached to the terminal, as
in Mininet: their output appears as it comes and Ctrl-C stops them, not the prompt.

What each command touches: ``move`` and ``capture`` the medium's control socket (the medium
takes a new position at once, mid-flow); ``rts`` the node's radio (``iw phy ... set rts``:
mac80211 then asks for RTS/CTS per frame and the medium honours it); ``cwnd`` the sender's
routes (``cwnd lock N``, primed before the next ``iperf`` from that sender, as the
``cwnd_clamp`` policy does); ``links`` and ``medium`` read the medium's counters.
"""
from __future__ import annotations

import importlib.util
import os
import re
import shlex
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

from harness.errors import HarnessError
from harness.kernel import mesh, naming
from harness.kernel.tcp import CONGESTION_MODULES, WINDOW_SEGMENTS
from harness.kernel.wireless import RTS_THRESHOLD, rts_arg
from harness.medium import counters, daemon
from harness.medium.control import MediumControlError
from harness.medium.mobility import record
from harness.medium.mobility.trajectory import Position, Trajectory
from harness.medium.spec import PER
from harness.net import scene as scenes
from harness.net.network import Network
from harness.net.nodes import Radio
from harness.traffic.flows import Flow, FlowRun, answered_ping, ping, run_flow, run_together

if TYPE_CHECKING:
    from harness.interactive.sources import Setup
    from harness.medium.daemon import MediumHandle
    from harness.traffic.iperf import FlowResult
    from policies import FlowPlan, Policy, RunContext

#: Seconds of an ``iperf`` unless ``-t`` says otherwise.
IPERF_SECONDS = 10.0
#: First iperf3 port the prompt uses (the experiment's flows use 5201...).
PROMPT_PORT = 5301
#: Bytes of payload a full-sized TCP segment carries (1500-byte MTU, timestamps).
SEGMENT_PAYLOAD = 1448
RTS_WORDS = {"on": True, "off": False}


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Columns padded to their widest cell, numbers right-aligned."""
    cells = [[str(h) for h in header]] + [["-" if v is None else str(v) for v in r] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]

    def fmt(row: Sequence[str], raw: Sequence[Any]) -> str:
        numeric = [isinstance(v, (int, float)) and not isinstance(v, bool) for v in raw]
        return "  ".join(cell.rjust(w) if n else cell.ljust(w)
                         for cell, n, w in zip(row, numeric, widths)).rstrip()

    lines = [fmt(cells[0], header), "  ".join("-" * w for w in widths)]
    lines += [fmt(c, r) for c, r in zip(cells[1:], rows)]
    return "\n".join(lines)


def pct(x: Optional[float]) -> Optional[str]:
    return None if x is None else f"{100.0 * x:.0f}%"


def _moves(traj: Optional[Trajectory], t: float) -> str:
    """``nodes``' moves column: no, or yes with when, and its speed while it moves."""
    if traj is None:
        return "no"
    if t < traj.start:
        return f"yes, from {traj.start:g} s to {traj.end:g} s"
    return (f"yes, {traj.speed_at(t):.1f} m/s now, until {traj.end:g} s" if t < traj.end
            else f"yes, stopped at {traj.end:g} s")


class Session:
    """A started network and the state the prompt adds to it (clamps, capture, pairs used)."""

    def __init__(self, net: Network, *, name: str = "", owns_network: bool = True,
                 flows: Sequence[Dict[str, Any]] = (), plans: Sequence[FlowPlan] = (),
                 policies: Sequence[Policy] = (), context: Optional[RunContext] = None,
                 out_dir: Optional[Path] = None):
        self.net = net
        self.name = name or net.topo.name
        self.owns_network = owns_network
        self.flows = list(flows)
        self.plans = list(plans)
        self.policies = list(policies)
        self.context = context
        self.out_dir = Path(out_dir) if out_dir else Path.cwd()
        #: cwnd clamps set at the prompt: sender -> segments; and the pairs already primed
        self.clamps: Dict[str, int] = {}
        self.primed: set = set()
        #: (src, dst) pairs the user has sent traffic between: their routes go in the picture
        self.pairs: List[Tuple[str, str]] = []
        self.capture_path: Optional[str] = None
        self.plots = 0
        self.background = 0
        self.ports = 0
        self.closed = False
        self.extra_names: Dict[str, Any] = {}
        self._motion: Optional[Dict[str, Trajectory]] = None

    # -- lifetime ------------------------------------------------------------------------
    @classmethod
    def start(cls, setup: Setup, **kw: Any) -> Session:
        """Start the setup's network with its policies applied and primed, as a run would."""
        from harness.experiment.execute import apply_policies, plan_flows
        net = Network(setup.topo, name=f"cli-{setup.name}", medium=setup.medium, seed=setup.seed)
        net.start()
        try:
            _instances, plans = (plan_flows(setup.params, setup.topo.node_names())
                                 if setup.params else ([], []))
            ctx, _cmds = apply_policies(net, setup.policies, plans)
            for policy in setup.policies:
                policy.prime(ctx)
        except BaseException:
            net.stop()
            raise
        return cls(net, name=setup.name, flows=setup.flows, plans=plans,
                   policies=setup.policies, context=ctx, **kw)

    def close(self) -> List[str]:
        """Stop a running capture and, if the session started it, the network. Idempotent;
        returns what it did (lines to print)."""
        if self.closed:
            return []
        self.closed = True
        lines = []
        if self.capture_path is not None:
            try:
                lines.append(self.capture("off"))
            except HarnessError as err:
                lines.append(f"capture: {err}")
        if self.owns_network:
            self.net.stop()
            lines.append(f"*** network {self.name} stopped: namespaces, radios, medium removed")
        return lines

    # -- lookups -------------------------------------------------------------------------
    def py_names(self) -> Dict[str, Any]:
        """What ``py`` sees besides ``net`` and ``session``: every node by name (a
        Mininet-WiFi script's prompt adds its own node objects)."""
        return {**self.net.nodes, **self.extra_names}

    @property
    def node_names(self) -> List[str]:
        return list(self.net.nodes)

    def node(self, name: str) -> Any:
        if name not in self.net.nodes:
            raise HarnessError(f"no node {name!r}; nodes: {', '.join(self.node_names)}")
        return self.net.nodes[name]

    def radios_of(self, name: str) -> List[Radio]:
        self.node(name)
        radios = [r for r in self.net.radios if r.node == name]
        if not radios:
            raise HarnessError(f"{name} has no radio; nodes with radios: "
                               + ", ".join(dict.fromkeys(r.node for r in self.net.radios)))
        return radios

    def medium(self) -> MediumHandle:
        handle = self.net.medium_handle
        if handle is None or not handle.running:
            raise HarnessError("no medium runs in this network (medium: none): every hwsim "
                               "radio hears every other, and there is nothing to ask")
        return handle

    def ip(self, name: str) -> str:
        ip = self.node(name).ip
        if ip is None:
            raise HarnessError(f"{name} has no IP address")
        return str(ip)

    def _node_of_ip(self, ip: str) -> Optional[str]:
        return next((name for name, node in self.net.nodes.items()
                     if any(a.split("/")[0] == ip for a in node.ips)), None)

    def _node_of_mac(self, mac: str) -> Optional[str]:
        return next((r.node for r in self.net.radios if r.mac.lower() == mac.lower()), None)

    def _note_pair(self, src: str, dst: str) -> None:
        if (src, dst) not in self.pairs:
            self.pairs.append((src, dst))

    # -- moving nodes ---------------------------------------------------------------------
    def motion(self) -> Dict[str, Trajectory]:
        """The trajectories of the nodes that follow one (medium.mobility; none: empty)."""
        handle = self.net.medium_handle
        if self._motion is None:
            kept = handle.mobility if handle is not None else None
            self._motion = record.trajectories_of(kept) if kept else {}
        return self._motion

    def motion_time(self) -> float:
        """Seconds on the trajectories' clock now: since the nodes started moving (flows, a
        script's build), or since the medium started if they have not yet."""
        handle = self.medium()
        started = (handle.mobility or {}).get("started_at_uptime_s") or 0.0
        return float(handle.control.stats()["uptime_s"]) - float(started)

    def positions(self, at: Optional[float] = None) -> Dict[str, Position]:
        """Where each moving node is at ``at`` s on that clock (default: now)."""
        motion = self.motion()
        if not motion:
            return {}
        t = self.motion_time() if at is None else at
        return {name: traj.position_at(t) for name, traj in motion.items()}

    # -- nodes and links -----------------------------------------------------------------
    def nodes(self) -> str:
        """Each node's kind, address, position (a moving node's now), radio and interfaces."""
        motion = self.motion()
        t = self.motion_time() if motion else 0.0
        rows = []
        for name, node in self.net.nodes.items():
            radios = [r for r in self.net.radios if r.node == name]
            pos = radios[0].position if radios else None
            where = f"({pos[0]:g}, {pos[1]:g})" if pos else None
            if name in motion:
                x, y, _z = motion[name].position_at(t)
                where = f"({x:.1f}, {y:.1f})"
            rows.append([name, node.kind, ", ".join(a for a in node.ips) or None, where,
                         ", ".join(r.mac for r in radios) or None, ", ".join(node.intfs) or None]
                        + ([_moves(motion.get(name), t)] if motion else []))
        head = ["node", "kind", "address", "position (m)", "radio MAC", "interfaces"]
        text = table(head + (["moves"] if motion else []), rows)
        if not motion:
            return text
        started = "started_at_uptime_s" in (self.medium().mobility or {})
        return text + (f"\n(moving nodes at t = {t:.1f} s since " + (
            "they started moving)" if started else "the medium started; flows starts them "
            "over with the flows)"))

    def scene(self, at: Optional[float] = None) -> scenes.Scene:
        """The picture's data now: positions (moving nodes at ``at`` s, default now), ranges,
        links with the medium's delivery ratios, the routes in force between the pairs used
        so far (first -> last if none)."""
        scene = scenes.scene_of(self.net.topo, self.net.medium)
        scene = scenes.with_positions(scene, {n: p[:2] for n, p in self.positions(at).items()})
        handle = self.net.medium_handle
        if handle is not None and handle.running:
            scene = scenes.with_counters(scene, handle.stats())
        pairs = self.pairs or self._default_pairs()
        return scenes.with_routes(scene, (self.path_in_force(a, b) for a, b in pairs))

    def _default_pairs(self) -> List[Tuple[str, str]]:
        if self.plans:
            return [(p.sender, p.receiver) for p in self.plans]
        names = [n for n in self.node_names if self.net.nodes[n].ip]
        return [(names[0], names[-1])] if len(names) > 1 else []

    def _rate_text(self, a: str, b: str) -> Optional[str]:
        """The rate a's radio sends to b with: pinned, or what rate control uses now."""
        radios = [r for r in self.net.radios if r.node == a]
        if not radios:
            return None
        if radios[0].rate is not None:
            return f"{radios[0].rate:g} (fixed)"
        macs = {r.mac.lower() for r in self.net.radios if r.node == b}
        out = self.node(a).cmd(["iw", "dev", radios[0].intf, "station", "dump"], check=False).stdout
        rate = next((p.tx_bitrate_mbps for mac, p in mesh.parse_station_dump(out).items()
                     if mac in macs and p.tx_bitrate_mbps is not None), None)
        return "auto" if rate is None else f"{rate:.1f} (auto)"  # as iw prints it: one decimal

    def links(self) -> str:
        scene = self.scene()
        handle = self.net.medium_handle
        mac = {r.node: r.mac for r in self.net.radios if r.index == 0}
        rows = []
        for link in scene.links:
            a, b = link.a, link.b
            dist = None if link.kind == "veth" else round(scenes.link_distance(scene, link), 1)
            snr = None
            if link.kind != "veth" and handle is not None and handle.running and {a, b} <= set(mac):
                got = handle.control.get_link(mac[a], mac[b])
                if got.get("rx_power_dbm") is not None:
                    snr = f"{got['rx_power_dbm'] - got['noise_dbm']:.1f}"
            ab, ba = f"{a}>{b}", f"{b}>{a}"
            rows.append([f"{a} - {b}", link.kind, dist, snr,
                         pct(link.delivery.get(ab)), link.attempts.get(ab, 0),
                         pct(link.delivery.get(ba)), link.attempts.get(ba, 0),
                         self._rate_text(a, b) if link.kind != "veth" else None])
        if not rows:
            return "no links: the topology declares none and no pair is within range"
        return table(["link", "kind", "distance (m)", "SNR a>b (dB)", "delivered a>b",
                      "attempts a>b", "delivered b>a", "attempts b>a", "rate a>b (Mbit/s)"],
                     rows) + "\n(delivered: frames decoded / attempts, counted by the medium since start)"

    def medium_counters(self) -> str:
        stats = self.medium().stats()
        rows = []
        for l in stats.get("links", []):
            att = int(l.get("attempts") or 0)
            rows.append([f"{l.get('tx_node') or l['tx']} > {l.get('rx_node') or l['rx']}", att,
                         l.get("successes"), pct(l["successes"] / att) if att else None,
                         l.get("collisions"), l.get("retry_drops"),
                         f"{(l.get('airtime_us') or 0) / 1e6:.3f}", l.get("delivered")])
        radios = [[r.get("node") or r["mac"], r.get("tx_frames"), r.get("acked"),
                   r.get("queue_drops"), r.get("retry_drops"),
                   pct(r.get("busy_fraction"))] for r in stats.get("radios", [])]
        lag = stats.get("lag_us") or {}
        head = (f"medium counters since start ({stats.get('uptime_s', 0):.1f} s); delivery lag "
                f"p50 {lag.get('p50', 0):.0f} us, p99 {lag.get('p99', 0):.0f} us")
        out = [head, "", table(["link", "attempts", "successes", "delivered", "collisions",
                                "retry drops", "airtime (s)", "frames up"], rows) if rows
               else "no frame has been sent yet",
               "", table(["radio", "tx frames", "acked", "queue drops", "retry drops", "busy"],
                         radios)]
        return "\n".join(out)

    # -- commands in nodes ---------------------------------------------------------------
    def substitute(self, words: str) -> str:
        """Node names after the command word become their addresses (``ping sta4``)."""
        first, _, rest = words.strip().partition(" ")
        for name, node in self.net.nodes.items():
            if node.ip:
                rest = re.sub(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])", node.ip, rest)
        return f"{first} {rest}".strip()

    def run_in_node(self, name: str, command: str, *, stdin_tty: bool = True) -> int:
        """Run a shell command in the node attached to this terminal; its exit code.
        A command ending in ``&`` runs in the background (stopped at exit), its output in a
        file."""
        node = self.node(name)
        command = self.substitute(command)
        if not command:
            raise HarnessError(f"usage: {name} COMMAND (e.g. {name} ping -c3 ...)")
        if command.endswith("&") and not command.endswith("&&"):
            return self._background(node, command[:-1].strip())
        env = dict(os.environ, **{naming.RUN_ENV: self.net.tag})
        argv = ["ip", "netns", "exec", node.netns, "sh", "-c", command]
        proc = subprocess.Popen(argv, env=env, stdin=None if stdin_tty else subprocess.DEVNULL)
        interrupts = 0
        while True:
            try:
                return proc.wait()
            except KeyboardInterrupt:  # the command got the same Ctrl-C from the terminal
                interrupts += 1
                sig = signal.SIGTERM if interrupts == 1 else signal.SIGKILL
                try:
                    proc.wait(2.0)
                except subprocess.TimeoutExpired:
                    proc.send_signal(sig)
                except KeyboardInterrupt:
                    proc.kill()

    def _background(self, node: Any, command: str) -> int:
        self.background += 1
        log = Path(tempfile.gettempdir()) / f"{naming.PREFIX}{self.net.tag}-{node.name}-bg{self.background}.log"
        with open(log, "wb") as fh:
            proc = node.popen(["sh", "-c", command], stdout=fh, stderr=subprocess.STDOUT)
        print(f"[{self.background}] {node.name}: {command}: pid {proc.pid}, output in {log} "
              "(stopped at exit)", flush=True)
        return 0

    # -- traffic -------------------------------------------------------------------------
    def _port(self) -> int:
        self.ports += 1
        return PROMPT_PORT + self.ports % 500

    def iperf(self, pairs: Sequence[Tuple[str, str]], *, seconds: float = IPERF_SECONDS,
              udp_rate: Optional[str] = None, congestion: Optional[str] = None) -> str:
        """iperf3 between each (src, dst), all started together; TCP flows alone are sampled
        (cwnd, RTT) from the sender's socket."""
        if not pairs:
            raise HarnessError("usage: iperf [-t SECONDS] [-u RATE] [-C MODULE] SRC DST [SRC DST ...]")
        for src, dst in pairs:
            self.ip(src), self.ip(dst)
            if src == dst:
                raise HarnessError(f"iperf {src} {src}: source and destination are the same node")
        if congestion is not None and congestion not in CONGESTION_MODULES:
            raise HarnessError(f"-C {congestion}: allowed " + ", ".join(CONGESTION_MODULES))
        for src, dst in pairs:
            self._warm(src, dst)
            self._prime(src, dst)
            self._note_pair(src, dst)
        flows = [Flow(src, dst, duration=seconds, protocol="udp" if udp_rate else "tcp",
                      congestion=congestion, bitrate=udp_rate, port=self._port())
                 for src, dst in pairs]
        if len(flows) == 1:
            run = run_flow(self.net, flows[0], sample_ss=not udp_rate, ss_interval=0.5)
            return self._flow_line(run.result, run)
        handle = self.net.medium_handle
        if handle is None or not handle.running:
            return "\n".join(self._flow_line(r, None) for r in run_together(self.net, flows))
        results, samples = counters.sampled(handle, lambda: run_together(self.net, flows))
        lines = [self._flow_line(r, None) for r in results]
        hops = [self.air_hops(src, dst) for src, dst in pairs]
        if all(hops) and counters.last_hops_carry_only_data(hops):
            mbps, seconds = counters.together_goodput_mbps(
                samples, [h[0] for h in hops], [h[-1] for h in hops], SEGMENT_PAYLOAD)
            lines.append(f"together: {mbps:.3f} Mbit/s over the {seconds:.1f} s in which every "
                         "sender got frames through (the medium's counters, 1448-byte segments; "
                         "the first and last sampling interval of each such spell left out)"
                         if seconds > 0 else
                         "together: the senders never got frames through at the same time for "
                         "three sampling intervals in a row (each ran alone; try a longer -t)")
        return "\n".join(lines)

    def air_hops(self, src: str, dst: str) -> List[Tuple[str, str]]:
        """The radio-to-radio hops of the path from src to dst in force (through the access
        point a managed station is associated with, where the path's ends are wired)."""
        path = self.path_in_force(src, dst) or [src, dst]
        radios = {r.node for r in self.net.radios}
        hops = [(a, b) for a, b in zip(path, path[1:]) if a in radios and b in radios]
        if hops:
            return hops
        from harness.net import coverage
        for end, first in ((src, True), (dst, False)):
            if self.net.topo.node_kind(end) == "managed_station":
                ap = coverage.serving_ap(self.net.topo, end, self.net.medium_spec())
                return [(end, ap)] if first else [(ap, end)]
        return []

    def _flow_line(self, r: FlowResult, run: Optional[FlowRun]) -> str:
        text = f"{r.src} -> {r.dst}: {r.throughput_mbps:.3f} Mbit/s over {r.duration:g} s"
        if r.protocol == "UDP":
            return text + f" (UDP, {r.lost_percent or 0:.1f} % lost, jitter {r.jitter_ms or 0:.2f} ms)"
        text += f", {r.retransmits or 0} retransmissions"
        if run is not None and run.ss:
            rtts = [s.rtt_ms for s in run.ss if s.rtt_ms is not None]
            cwnds = [s.cwnd for s in run.ss if s.cwnd is not None]
            if rtts:
                text += f", RTT mean {sum(rtts) / len(rtts):.1f} ms"
            if cwnds:
                text += f", cwnd max {max(cwnds)} segments"
        clamp = self.clamps.get(str(r.src))
        return text + (f" (clamp {clamp})" if clamp else "")

    def ping(self, src: str, dst: str, count: int = 3) -> int:
        self._note_pair(src, dst)
        return self.run_in_node(src, f"ping -c{count} {dst}")

    def pingall(self) -> str:
        names = [n for n in self.node_names if self.net.nodes[n].ip]
        lost = sent = 0
        lines = []
        for a in names:
            got = []
            for b in [n for n in names if n != a]:
                p = ping(self.net, a, b, count=1, timeout_s=2)
                sent += 1
                lost += p.sent - p.received
                got.append(b if p.received else "X")
            lines.append(f"{a} -> {' '.join(got)}")
        return "\n".join(lines + [f"*** {100.0 * lost / sent if sent else 0:.0f}% dropped "
                                  f"({sent - lost}/{sent} received)"])

    def run_flows(self) -> str:
        """The experiment file's flows, as one run of it would start them."""
        if not self.flows:
            raise HarnessError("this network has no flows of an experiment file to run; "
                               "use iperf SRC DST")
        from harness.experiment.execute import run_flows
        for p in self.plans:
            self._note_pair(p.sender, p.receiver)
        daemon.start_mobility(self.net)  # moving nodes start over with the flows, as in a run
        runs = run_flows(self.net, self.flows, self.plans)
        return "\n".join(f"flow {i} ({f.get('congestion') or f['protocol']}): "
                         + self._flow_line(run.result, run) for i, (f, run) in
                         enumerate(zip(self.flows, runs)))

    # -- radios and the medium ---------------------------------------------------------
    def move(self, name: str, x: float, y: float, z: Optional[float] = None) -> str:
        radios = self.radios_of(name)
        handle = self.medium()
        if handle.moving(name):  # mediumd refuses too; this names the node and the key
            raise HarnessError(f"move {name}: {name} follows a trajectory (medium.mobility, "
                               f"model {handle.mobility['model'] if handle.mobility else '?'}):"
                               " the medium puts it where the trajectory says at every frame; "
                               "allowed: move a node that does not move")
        z = radios[0].position[2] if z is None else z
        for radio in radios:
            handle.control.set_position(radio.mac, x, y, z)
            radio.position = (float(x), float(y), float(z))
        spec = self.net.topo.spec(name)
        if hasattr(spec, "position"):
            spec.position = (float(x), float(y), float(z))
        scene = self.scene()
        me = scene.node(name)
        near = []
        for other in [o for o in scene.nodes if o.name != name and not o.placed]:
            d = ((other.x - me.x) ** 2 + (other.y - me.y) ** 2) ** 0.5
            state = ""
            if me.tx_range:
                state = " in range" if d <= me.tx_range else (
                    " carrier sense only" if me.cs_range and d <= me.cs_range else " out of range")
            near.append(f"{other.name} {d:.0f} m{state}")
        return f"{name} now at ({x:g}, {y:g}, {z:g}); " + "; ".join(near)

    def loss(self, a: str, b: str, value: str) -> str:
        """Every frame between a and b (both ways) also lost with probability P on top of the
        propagation model's losses (``off``: the model alone): transient loss the retry
        limit has to hide."""
        try:
            per = None if value == "off" else float(value)
        except ValueError:
            per = -1.0  # refused below
        if per is not None and not PER.accepts(per):
            raise HarnessError(f"loss {a} {b} {value}: allowed off or a probability, "
                               f"{PER.allowed()}")
        ra, rb = self.radios_of(a)[0], self.radios_of(b)[0]
        if a == b:
            raise HarnessError(f"loss {a} {b}: a node has no link to itself")
        self.medium().control.set_link(ra.mac, rb.mac, model=True, per=per)
        return (f"{a} <-> {b}: the propagation model alone" if per is None else
                f"{a} <-> {b}: every frame attempt also lost with probability {per:g}")

    def rts(self, name: str, value: str) -> str:
        """``on`` (RTS/CTS before every frame), ``off``, or a threshold in bytes."""
        if value not in RTS_WORDS and not (value.isdigit() and RTS_THRESHOLD.accepts(int(value))):
            raise HarnessError(f"rts {name} {value}: allowed on, off or a threshold in bytes, "
                               f"{RTS_THRESHOLD.allowed()}")
        rts: Any = RTS_WORDS[value] if value in RTS_WORDS else int(value)
        arg = rts_arg(rts)
        radios = self.radios_of(name)
        node = self.node(name)
        node.script([f"iw phy {shlex.quote(r.phy)} set rts {arg}" for r in radios])
        for radio in radios:
            radio.rts = rts
        shown = node.cmd(["iw", "phy", radios[0].phy, "info"], check=False).stdout
        got = re.search(r"RTS threshold: (\S+)", shown)
        return f"{name}: RTS threshold {got.group(1) if got else arg} (" + (
            "RTS/CTS before every frame" if rts is True else "no RTS/CTS" if rts is False
            else f"RTS/CTS for frames over {rts} bytes") + ")"

    def cwnd(self, name: str, value: str) -> str:
        """Clamp the sender's congestion window to N segments towards every other node (route
        ``cwnd lock N``), or ``off``. The kernel reads the clamp from its tcp_metrics cache, so
        the next ``iperf`` from this node first makes one short priming connection."""
        from policies.routes import install
        if value != "off" and not (value.isdigit() and WINDOW_SEGMENTS.accepts(int(value))):
            raise HarnessError(f"cwnd {name} {value}: allowed off or a number of segments, "
                               f"{WINDOW_SEGMENTS.allowed()}")
        segments = None if value == "off" else int(value)
        node = self.node(name)
        peers = [n for n in self.node_names if n != name and self.net.nodes[n].ip]
        metrics = {} if segments is None else {"cwnd": f"lock {segments}"}
        install(self.net, {(name, peer): dict(metrics) for peer in peers})
        node.set_sysctls({"net.ipv4.tcp_no_metrics_save": 0})
        node.cmd("ip tcp_metrics flush all 2>/dev/null || true", check=False)
        self.primed = {p for p in self.primed if p[0] != name}
        if segments is None:
            self.clamps.pop(name, None)
            return f"{name}: congestion window unclamped (routes to {', '.join(peers)})"
        self.clamps[name] = segments
        return (f"{name}: congestion window clamped to {segments} segments towards "
                f"{', '.join(peers)} (primed before the next iperf from {name})")

    def _warm(self, src: str, dst: str) -> None:
        """An answered ping (up to three tries) before a pair's first flow: the neighbour (ARP)
        entries exist before the flows start. ARP asks by broadcast, one try and no RTS/CTS,
        and two flows started together from hidden senders collide so often that iperf3's
        setup can fail with "No route to host" (the medium's end-to-end test pings first for
        the same reason). No answer is not an error here: iperf3 then says what failed."""
        if (src, dst) not in self.pairs:
            answered_ping(self.net, src, self.ip(dst))

    def _prime(self, src: str, dst: str) -> None:
        if src not in self.clamps or (src, dst) in self.primed:
            return
        from policies import FlowPlan
        from policies.window import priming_connection
        priming_connection(self.net, FlowPlan(index=0, src=src, dst=dst, reverse=False,
                                              congestion=None))
        self.primed.add((src, dst))

    def capture(self, state: str, path: Optional[str] = None) -> str:
        """``on [FILE]``: the medium writes every attempt to a pcap (Wireshark reads it);
        ``off``: close it and say what it holds."""
        handle = self.medium()
        if state == "on":
            if self.capture_path is not None:
                raise HarnessError(f"a capture is already running ({self.capture_path}); "
                                   "capture off first")
            # an absolute path stays as given (``/`` drops out_dir)
            target = self.out_dir / (path or f"capture-{time.strftime('%H%M%S')}.pcap")
            if target.suffix != ".pcap":
                raise HarnessError(f"capture on {target}: the file name must end in .pcap")
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                self.capture_path = handle.control.start_capture(str(target.resolve()))
            except MediumControlError as err:
                raise HarnessError(f"capture on: {err}") from None
            return f"capturing every transmission attempt to {self.capture_path}"
        if state != "off":
            raise HarnessError(f"capture {state}: allowed on [FILE.pcap] or off")
        if self.capture_path is None:
            raise HarnessError("no capture is running (capture on [FILE.pcap] starts one)")
        try:
            written = handle.control.stop_capture()
        finally:
            self.capture_path = None
        from harness.medium.pcap import read_attempts
        attempts = read_attempts(written)
        data = [a for a in attempts if a.kind == "data"]
        failed = sum(1 for a in data if a.failed)
        return (f"capture written to {written}: {len(attempts)} attempts, "
                f"{len(data)} data ({failed} failed), "
                f"{sum(1 for a in attempts if a.kind == 'rts')} RTS; open it in Wireshark")

    # -- routes --------------------------------------------------------------------------
    def next_hop_in_force(self, node: str, dst: str) -> Optional[str]:
        """The next node on the way from ``node`` to ``dst`` by the node's tables now: the
        kernel's route (IBSS, wired) or the 802.11s path table (mesh points)."""
        from policies.routes import parse_route_get
        radios = [r for r in self.net.radios if r.node == node]
        if radios and radios[0].mode == "mesh":
            dst_macs = [r.mac.lower() for r in self.net.radios if r.node == dst]
            out = self.node(node).cmd(["iw", "dev", radios[0].intf, "mpath", "dump"],
                                      check=False).stdout
            return next((self._node_of_mac(p.next_hop) for p in mesh.parse_mpath_dump(out)
                         if p.destination.lower() in dst_macs), None)
        got = self.node(node).cmd(["ip", "-o", "route", "get", self.ip(dst)], check=False)
        if got.returncode != 0:
            return None
        via, _dev = parse_route_get(got.stdout)
        return self._node_of_ip(via) if via else dst

    def path_in_force(self, src: str, dst: str) -> Optional[List[str]]:
        """The nodes a packet crosses now, switches and access points included."""
        path = scenes.path_of(self.next_hop_in_force, src, dst)
        return scenes.through_bridges(self.net.topo, path) if path else None

    def routes(self, name: Optional[str] = None) -> str:
        names = [self.node(name).name] if name else self.node_names  # node() refuses a bad name
        lines = []
        for n in names:
            radios = [r for r in self.net.radios if r.node == n]
            if radios and radios[0].mode == "mesh":
                out = self.node(n).cmd(["iw", "dev", radios[0].intf, "mpath", "dump"],
                                       check=False).stdout.strip()
                lines.append(f"{n} (802.11s paths):\n{out or '  none yet'}")
            else:
                out = self.node(n).cmd(["ip", "route"], check=False).stdout.strip()
                lines.append(f"{n}:\n" + "\n".join(f"  {l}" for l in out.splitlines()))
        return "\n".join(lines)

    def distance(self, a: str, b: str) -> str:
        scene = self.scene()
        self.node(a), self.node(b)
        na, nb = scene.node(a), scene.node(b)
        return f"distance {a} - {b}: {((na.x - nb.x) ** 2 + (na.y - nb.y) ** 2) ** 0.5:.1f} m"

    # -- the picture ---------------------------------------------------------------------
    def plot(self, path: Optional[str] = None, *, ranges_of: Sequence[str] = (),
             pairs: Sequence[Tuple[str, str]] = (), at: Optional[float] = None,
             frames: Optional[str] = None, step: Optional[float] = None) -> str:
        """The picture now, or with the moving nodes at ``at`` s; or ``frames``: a folder of
        the whole motion, a frame every ``step`` s."""
        if importlib.util.find_spec("matplotlib") is None:
            raise HarnessError("the picture needs matplotlib, which is not installed here",
                               hint="pip install matplotlib")
        if (at is not None or frames is not None) and not self.motion():
            raise HarnessError("plot --at/--frames: no node moves in this network (allowed "
                               "with medium.mobility, or a Mininet-WiFi script's mobility)")
        if step is not None and frames is None or frames is not None and at is not None:
            raise HarnessError("usage: plot [FILE] --at SECONDS, or plot --frames FOLDER "
                               "[--step SECONDS]")
        if frames is not None:
            return self._frames(frames, step)
        from harness.analysis.topology_figure import draw_scene
        for name in list(ranges_of) + [n for p in pairs for n in p]:
            self.node(name)
        for src, dst in pairs:
            self._note_pair(src, dst)
        self.plots += 1
        target = self.out_dir / (path or f"{self.name}-{self.plots}.png")
        when = f" at t = {at:g} s" if at is not None else ""
        written = draw_scene(self.scene(at).to_dict(), target, ranges_of=list(ranges_of) or None,
                             title=f"{self.name}{when}: nodes, ranges, links by delivery ratio, "
                                   "routes")
        return "picture written: " + ", ".join(str(p) for p in written)

    def _frames(self, folder: str, step: Optional[float]) -> str:
        from harness.analysis.motion import draw_frames, frame_times
        from harness.experiment.run_scene import motion_scenes
        motion = self.motion()
        times = frame_times(max(t.end for t in motion.values()), step)
        scene = scenes.scene_of(self.net.topo, self.net.medium)
        written = draw_frames(motion_scenes(scene, motion, times), self.out_dir / folder,
                              title=self.name)
        pngs = [p for p in written if p.suffix == ".png"]
        gif = [str(p) for p in written if p.suffix == ".gif"]
        return (f"{len(pngs)} frames, t = 0 to {times[-1]:g} s: {pngs[0]} ... {pngs[-1].name}"
                + (f"; animation: {gif[0]}" if gif else " (no GIF: Pillow is not installed)"))
