"""``Network``: realise a ``Topology`` as namespaces, hwsim radios, veths and routes.

Order of ``start()`` (docs/kernel.md, 'Setup order'):
  1. one namespace per node (``hx-<tag>-<node>``);
  2. radios created over generic netlink in the root namespace (that fixes their medium
     group), moved into their node, interface created there, phy settings applied;
  3. veth links created directly inside the two namespaces (the root namespace never sees them);
  4. ``_start_medium()``: the medium daemon registers before any interface transmits;
  5. interfaces up and joined (IBSS cell or 802.11s mesh), bitrates pinned, addresses;
  6. mesh peer links opened to declared neighbours only; without a medium, IBSS frames are
     filtered to declared neighbours;
  7. relays get ``ip_forward=1`` and ``send_redirects=0``; static routes.
``stop()`` undoes all of it, is idempotent, and also runs when ``start()`` fails halfway,
on Ctrl-C inside ``with Network(...)``, and at interpreter exit.
"""
from __future__ import annotations

import atexit
import os
import shlex
import signal
import sys
import threading
from dataclasses import asdict, dataclass
from typing import Any, Dict, Iterable, List, Optional, Union

from harness.errors import HarnessError
from harness.kernel import cpu_layout, hwsim, naming, netns, tcp, wireless
from harness.kernel.netns import Node, run
from harness.medium import daemon
from harness.net.topo import LinkSpec, Position, Topology

WLAN = "wlan0"


@dataclass
class Radio:
    """One hwsim radio as realised: what the medium needs to simulate it."""

    name: str                 # hwsim radio name = wiphy name, hx-<tag>-<node>-<n>
    node: str
    index: int                # radio number on its node
    mac: str
    phy: str                  # wiphy name (equals ``name`` on current kernels)
    intf: str                 # interface inside the node's namespace
    hwsim_id: int
    position: Position
    mode: str                 # ibss | mesh
    channel: int
    freq: int
    phy_mode: str             # b | g
    rate: Optional[float]     # Mbit/s, None = auto
    rts: wireless.Rts
    txpower_dbm: Optional[float]
    retry_limit: Optional[int]

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


class Station(Node):
    """A node with radios."""

    def __init__(self, name: str, netns: str, run_tag: str):
        super().__init__(name, netns, run_tag)
        self.radios: List[Radio] = []


class Host(Node):
    """A wired node (veth links only)."""


@dataclass
class VethLink:
    spec: LinkSpec
    intf_a: str
    intf_b: str


MediumArg = Union[None, str, Any]


class Network:
    """Owns nodes, radios, links and the medium of one run.

    ``medium``: None = the default medium (mediumd with default settings);
    ``'none'`` = plain hwsim (every radio on a channel hears every other, instantly);
    a mapping of medium keys or a ``MediumSpec`` = those settings (``harness.medium.spec``).
    """

    def __init__(self, topo: Optional[Topology] = None, *, name: str = "net",
                 medium: MediumArg = None, seed: int = 0, tag: Optional[str] = None):
        self.topo = topo if topo is not None else Topology(name)
        self.name = name
        self.medium = medium
        self.seed = seed
        self.tag = naming.check_tag(tag) if tag else naming.new_tag()
        self.nodes: Dict[str, Node] = {}
        self.radios: List[Radio] = []
        self.veths: List[VethLink] = []
        self.medium_handle: Any = None
        self.started = False
        self._hwsim: Optional[hwsim.Hwsim] = None
        self._allow = tcp.AllowListGuard()
        self._atexit = False
        self._old_sigterm: Any = None

    # -- description (Mininet style, delegated to the Topology) ---------------------------
    def _describing(self) -> Topology:
        if self.started:
            raise HarnessError("the network is running: change the topology before start()")
        return self.topo

    def add_station(self, name: str, position=(0.0, 0.0, 0.0), **kw) -> str:
        return self._describing().add_station(name, position, **kw)

    def add_host(self, name: str, **kw) -> str:
        return self._describing().add_host(name, **kw)

    def add_link(self, a: str, b: str, **kw) -> LinkSpec:
        return self._describing().add_link(a, b, **kw)

    def add_route(self, node: str, dst: str, via: str):
        return self._describing().add_route(node, dst, via)

    # -- access ----------------------------------------------------------------------------
    def __getitem__(self, name: str) -> Node:
        try:
            return self.nodes[name]
        except KeyError:
            state = "" if self.started else " (the network is not started)"
            raise HarnessError(f"no node {name!r}{state}; nodes: "
                               + ", ".join(self.nodes or self.topo.node_names())) from None

    def __enter__(self) -> "Network":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def radio_table(self) -> List[Dict[str, Any]]:
        """Every radio's MAC, position and PHY settings: the input of the medium config."""
        return [r.to_dict() for r in self.radios]

    def medium_stats(self) -> Optional[Dict[str, Any]]:
        """The medium's counters (per link, per radio, lag): live while running, final after
        ``stop()``; None without a medium."""
        if self.medium == "none":
            return None
        return daemon.stats_for(self)

    def describe(self) -> Dict[str, Any]:
        return {"tag": self.tag, "name": self.name, "seed": self.seed,
                "medium": self.medium if isinstance(self.medium, (str, type(None))) else repr(self.medium),
                "topology": self.topo.to_dict(), "radios": self.radio_table()}

    # -- start -----------------------------------------------------------------------------
    def start(self) -> "Network":
        if self.started:
            return self
        if os.geteuid() != 0:
            raise HarnessError("starting a network needs root (namespaces, hwsim radios)",
                               hint="run as root natively, or in the guest: harness vm run -- ...")
        self.started = True
        if not self._atexit:
            atexit.register(self.stop)
            self._atexit = True
        self._trap_sigterm()
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self) -> None:
        topo = self.topo
        if topo.stations:
            hwsim.load_module()
            self._hwsim = hwsim.Hwsim()
        nodes = [(Station if name in topo.stations else Host)(
            name, naming.netns_name(self.tag, name), self.tag) for name in topo.node_names()]
        try:
            netns.each(Node.create, nodes)
        finally:  # what was created is ours to delete, also when another node failed
            self.nodes.update((node.name, node) for node in nodes if node.created)
        for name in topo.stations:
            self._create_radio(name)  # one hwsim socket: one radio at a time
        netns.each(self._prepare_radios, [self.nodes[n] for n in topo.stations])
        for link in topo.veth_links():
            self._create_veth(link)
        self._start_medium()
        self._join_all()
        self._configure_ip()

    def _create_radio(self, name: str) -> None:
        spec = self.topo.stations[name]
        node = self.nodes[name]
        assert isinstance(node, Station) and self._hwsim is not None
        index = len(node.radios)
        rname = naming.radio_name(self.tag, name, index)
        mac = naming.radio_mac(self.topo.node_index(name), index)
        rid = self._hwsim.new_radio(rname, mac, channels=1, no_vif=True, destroy_on_close=True)
        phy = hwsim.phy_of(rname, mac)
        radio = Radio(rname, name, index, mac, phy, WLAN if index == 0 else f"wlan{index}", rid,
                      spec.position, spec.mode, spec.channel, wireless.channel_freq(spec.channel),
                      spec.phy, spec.rate, spec.rts, spec.txpower_dbm, spec.retry_limit)
        node.radios.append(radio)
        self.radios.append(radio)
        node.intfs.append(radio.intf)

    def _prepare_radios(self, node: "Station") -> None:
        """Move a node's radios into its namespace; then interface type, RTS, retry limit,
        power and RPS in one process."""
        spec = self.topo.stations[node.name]
        lines: List[str] = []
        for radio in node.radios:
            hwsim.move_phy(radio.phy, node.netns)
            lines += wireless.prepare_lines(radio.phy, radio.intf, spec.mode, rts=spec.rts,
                                            retry_limit=spec.retry_limit,
                                            txpower_dbm=spec.txpower_dbm)
            lines += cpu_layout.rps_lines(radio.intf)
        node.script(lines)

    def _create_veth(self, link: LinkSpec) -> None:
        a, b = self.nodes[link.a], self.nodes[link.b]
        ia = f"eth{sum(1 for i in a.intfs if i.startswith('eth'))}"
        ib = f"eth{sum(1 for i in b.intfs if i.startswith('eth'))}"
        run(["ip", "link", "add", ia, "netns", a.netns, "type", "veth",
             "peer", "name", ib, "netns", b.netns])
        a.intfs.append(ia)
        b.intfs.append(ib)
        self.veths.append(VethLink(link, ia, ib))
        for node, intf, ip in ((a, ia, link.ip_a), (b, ib, link.ip_b)):
            node.script([f"ip addr add {ip} dev {intf}", f"ip link set {intf} up"])
            node.ips.append(ip)

    def _start_medium(self) -> None:
        """Start the medium after radios exist and before any interface joins (it must
        register with hwsim before the first frame)."""
        if self.medium == "none" or not self.radios:
            return
        self.medium_handle = daemon.start_for(self)

    def _stop_medium(self) -> None:
        handle, self.medium_handle = self.medium_handle, None
        if handle is not None:
            handle.stop()

    def _join_all(self) -> None:
        ssid = f"hx-{self.tag}"
        bssid = "02:68:78:ff:ff:%02x" % int(self.tag[:2], 16)
        scripts: Dict[str, List[str]] = {}
        for radio in self.radios:
            node = self.nodes[radio.node]
            declared = bool(self.topo.wireless_neighbours(radio.node))
            lines = wireless.join_lines(radio.intf, radio.mode, network_id=ssid, freq=radio.freq,
                                        phy=radio.phy_mode, rate=radio.rate, bssid=bssid,
                                        auto_open_plinks=not declared)
            lines.append(f"ip addr add {self.topo.stations[radio.node].ip} dev {radio.intf}")
            if radio.mode == "ibss" and declared and self._no_medium():
                lines += wireless.neighbour_filter_lines(
                    radio.intf, "hxfilter", self._neighbour_macs(radio.node))
            scripts.setdefault(radio.node, []).extend(lines)
        netns.each(lambda name: self.nodes[name].script(scripts[name]), list(scripts))
        for name in scripts:
            self.nodes[name].ips.insert(0, self.topo.stations[name].ip)
        for radio in self.radios:
            if radio.mode != "mesh" or not self.topo.wireless_neighbours(radio.node):
                continue
            node = self.nodes[radio.node]
            peers = self._neighbour_macs(radio.node)
            others = [r.mac for r in self.radios
                      if r.mode == "mesh" and r.channel == radio.channel
                      and r.node != radio.node and r.mac not in peers]
            wireless.wait_for_peers(node, radio.intf, peers)
            node.script(wireless.plink_lines(radio.intf, peers, others), check=False)

    def _no_medium(self) -> bool:
        return self.medium == "none" or self.medium_handle is None

    def _neighbour_macs(self, name: str) -> List[str]:
        return [r.mac for n in self.topo.wireless_neighbours(name)
                for r in self.radios if r.node == n]

    def relays(self) -> List[str]:
        """Nodes that forward: route gateways, nodes with 2+ neighbours, radio+veth nodes."""
        out = set()
        for route in self.topo.routes:
            _dst, via = self.topo.resolve_route(route)
            for name in self.topo.node_names():
                if via in [a.split("/")[0] for a in self.topo.addresses(name)]:
                    out.add(name)
        for name in self.topo.stations:
            if len(self.topo.wireless_neighbours(name)) >= 2:
                out.add(name)
            if any(name in (l.a, l.b) for l in self.topo.veth_links()):
                out.add(name)
        return sorted(out)

    def _configure_ip(self) -> None:
        relays = set(self.relays())
        scripts: Dict[str, List[str]] = {}
        for name, node in self.nodes.items():
            lines = []
            if name in relays:
                for key in ["net.ipv4.ip_forward", *(f"net.ipv4.conf.{c}.send_redirects"
                                                      for c in ("all", "default", *node.intfs))]:
                    value = "1" if key.endswith("ip_forward") else "0"
                    lines.append(f"echo {value} > /proc/sys/{key.replace('.', '/')}")
            for route in self.topo.routes:
                if route.node == name:
                    dst, via = self.topo.resolve_route(route)
                    lines.append(f"ip route replace {shlex.quote(dst)} via {shlex.quote(via)}")
            if lines:
                scripts[name] = lines
        netns.each(lambda name: self.nodes[name].script(scripts[name]), list(scripts))

    # -- TCP -------------------------------------------------------------------------------
    def ensure_congestion(self, names: Iterable[str]) -> None:
        """Load and allow congestion modules (root allow-list restored at stop)."""
        self._allow.ensure(names)

    def set_congestion(self, node: str, name: str) -> None:
        """Default congestion control of one node's namespace."""
        self.ensure_congestion([name])
        tcp.set_default_congestion(self[node], name)

    # -- signals ---------------------------------------------------------------------------
    def _trap_sigterm(self) -> None:
        """SIGTERM unwinds like Ctrl-C (``with`` blocks and atexit run), so the run cleans up."""
        if threading.current_thread() is not threading.main_thread():
            return
        if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            self._old_sigterm = signal.SIG_DFL
            signal.signal(signal.SIGTERM, _raise_exit)

    def _untrap_sigterm(self) -> None:
        if self._old_sigterm is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self._old_sigterm)
            self._old_sigterm = None

    # -- stop ------------------------------------------------------------------------------
    def stop(self) -> None:
        """Remove processes, medium, radios, namespaces; safe to call twice or after a failed start."""
        if not self.started:
            return
        errors: List[str] = []

        def attempt(what: str, fn, *args) -> None:
            try:
                fn(*args)
            except BaseException as err:  # keep tearing down, report at the end
                errors.append(f"{what}: {err}")

        for node in self.nodes.values():
            attempt(f"stop processes of {node.name}", node.stop_processes)
        attempt("stop medium", self._stop_medium)
        for node in self.nodes.values():
            if isinstance(node, Station) and node.radios:
                attempt(f"delete radios of {node.name}", _delete_radios_in, node)
        netns.each(lambda node: attempt(f"delete namespace {node.netns}", node.destroy),
                   list(self.nodes.values()))
        if self._hwsim is not None:
            attempt("close hwsim socket", self._hwsim.close)  # destroy-on-close: any radio left dies
            self._hwsim = None
        attempt("delete radios returned to the root namespace", _delete_root_radios, self.tag)
        attempt("restore tcp_allowed_congestion_control", self._allow.restore)
        self.nodes.clear()
        self.radios.clear()
        self.veths.clear()
        self.started = False
        if self._atexit:
            atexit.unregister(self.stop)
            self._atexit = False
        self._untrap_sigterm()
        if errors:
            print("harness: clean-up problems:\n  " + "\n  ".join(errors), file=sys.stderr)


def _raise_exit(signum, _frame) -> None:
    raise SystemExit(128 + signum)


def _delete_radios_in(node: Station) -> None:
    """DEL_RADIO only sees radios in the caller's namespace: ask from inside the node."""
    with hwsim.Hwsim(netns=node.netns) as conn:
        for radio in node.radios:
            conn.del_radio(name=radio.name, missing_ok=True)


def _delete_root_radios(tag: str) -> None:
    if not hwsim.module_loaded():
        return
    with hwsim.Hwsim() as conn:
        for info in conn.list_radios():
            parsed = naming.parse_radio(info.name)
            if parsed and parsed.tag == tag:
                conn.del_radio(radio_id=info.id, missing_ok=True)
