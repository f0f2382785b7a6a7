"""``Network``: realise a ``Topology`` as namespaces, hwsim radios, veths and routes.

Each node of the topology becomes an object of the class its kind maps to
(``harness.net.nodes.NODE_CLASSES``: ``Station``, ``MeshPoint``, ``Host``, ``Switch``,
``AccessPoint``, ``ManagedStation``), each link one of ``harness.net.links.LINK_CLASSES``
(``WirelessLink``, ``AssociationLink``, ``VethLink``); ``node_classes=`` and
``link_classes=`` replace entries, as Mininet's ``Mininet(topo, host=..., switch=...)`` does.

``start()`` runs each step of the node classes (``harness.net.nodes``: ``check``, then
namespaces, ``add_radios``, ``setup``, ``join``, ``connect``) on every node before the next
step begins: a bad topology fails in ``check``, before anything exists; the links are made
after ``setup`` and the medium starts before ``join`` (it must register with hwsim before
any interface transmits); last, relays forward (``ip_forward=1``, ``send_redirects=0``) and
the static routes go in.
``stop()`` undoes all of it, keeps going past errors, is idempotent, and also runs when
``start()`` fails halfway, on Ctrl-C or SIGTERM inside ``with Network(...)``, and at
interpreter exit.
"""
from __future__ import annotations

import atexit
import os
import shlex
import signal
import sys
import threading
from types import FrameType
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Tuple, Type, Union

from harness.errors import HarnessError
from harness.kernel import hwsim, naming, netns, tcp
from harness.medium import daemon
from harness.medium.spec import MediumSpec, medium_with_defaults, spec_of
from harness.net import routing, switch, wifi  # noqa: F401 - their node classes join NODE_CLASSES
from harness.net.coverage import medium_for
from harness.net.links import LINK_CLASSES, Link
from harness.net.nodes import NODE_CLASSES, NetworkNode, Radio
from harness.net.topo import LinkSpec, RouteSpec, Topology, WallSpec

#: What ``Network(medium=...)`` takes (the ``Network`` docstring says what each means).
MediumArg = Union[None, str, Mapping[str, Any], MediumSpec]


class Network:
    """Owns nodes, radios, links and the medium of one run.

    ``medium``: None = the default medium (mediumd with default settings);
    ``'none'`` = plain hwsim (every radio on a channel hears every other, instantly);
    a mapping of medium keys or a ``MediumSpec`` = those settings (``harness.medium.spec``).
    ``node_classes`` / ``link_classes``: classes replacing the default of a kind of node or link.
    """

    def __init__(self, topo: Optional[Topology] = None, *, name: str = "net",
                 medium: MediumArg = None, seed: int = 0, tag: Optional[str] = None,
                 node_classes: Optional[Mapping[str, Type[NetworkNode]]] = None,
                 link_classes: Optional[Mapping[str, Type[Link]]] = None):
        self.topo = topo if topo is not None else Topology(name)
        self.name = name
        # the place the topology describes (walls, floors, propagation) under what the caller says
        self.medium = medium_with_defaults(self.topo.medium, medium)
        self.seed = seed
        self.tag = naming.check_tag(tag) if tag else naming.new_tag()
        self.node_classes: Dict[str, Type[NetworkNode]] = {**NODE_CLASSES, **(node_classes or {})}
        self.link_classes: Dict[str, Type[Link]] = {**LINK_CLASSES, **(link_classes or {})}
        self.nodes: Dict[str, NetworkNode] = {}
        self.radios: List[Radio] = []
        self.links: List[Link] = []
        #: The medium of the last start: running, or stopped with its final counters.
        self.medium_handle: Optional[daemon.MediumHandle] = None
        self.started = False
        self._hwsim: Optional[hwsim.Hwsim] = None
        self._allow = tcp.AllowListGuard()
        self._atexit = False
        self._old_sigterm: Optional[signal.Handlers] = None

    # -- description (Mininet style, delegated to the Topology) ---------------------------
    def _describing(self) -> Topology:
        if self.started:
            raise HarnessError("the network is running: change the topology before start()")
        return self.topo

    def add_station(self, name: str, position: Tuple[float, ...] = (0.0, 0.0, 0.0),
                    **kw: Any) -> str:
        return self._describing().add_station(name, position, **kw)

    def add_host(self, name: str, **kw: Any) -> str:
        return self._describing().add_host(name, **kw)

    def add_switch(self, name: str) -> str:
        return self._describing().add_switch(name)

    def add_access_point(self, name: str, position: Tuple[float, ...] = (0.0, 0.0, 0.0),
                         **kw: Any) -> str:
        return self._describing().add_access_point(name, position, **kw)

    def add_wall(self, x1: float, y1: float, x2: float, y2: float,
                 loss: Optional[float] = None) -> WallSpec:
        return self._describing().add_wall(x1, y1, x2, y2, loss)

    def add_link(self, a: str, b: str, **kw: Any) -> LinkSpec:
        return self._describing().add_link(a, b, **kw)

    def add_route(self, node: str, dst: str, via: str) -> RouteSpec:
        return self._describing().add_route(node, dst, via)

    # -- access ----------------------------------------------------------------------------
    def __getitem__(self, name: str) -> NetworkNode:
        try:
            return self.nodes[name]
        except KeyError:
            state = "" if self.started else " (the network is not started)"
            raise HarnessError(f"no node {name!r}{state}; nodes: "
                               + ", ".join(self.nodes or self.topo.node_names())) from None

    def __enter__(self) -> Network:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def radio_table(self) -> List[Dict[str, Any]]:
        """Every radio's MAC, position and PHY settings: the input of the medium config."""
        return [r.to_dict() for r in self.radios]

    def medium_stats(self) -> Optional[Dict[str, Any]]:
        """The medium's counters (per link, per radio, lag): live while running, final after
        ``stop()``; None without a medium."""
        return self.medium_handle.stats() if self.medium_handle is not None else None

    def describe(self) -> Dict[str, Any]:
        return {"tag": self.tag, "name": self.name, "seed": self.seed,
                "medium": self.medium if isinstance(self.medium, (str, type(None))) else repr(self.medium),
                "topology": self.topo.to_dict(), "radios": self.radio_table()}

    # -- start -----------------------------------------------------------------------------
    def start(self) -> Network:
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

    def check(self) -> None:
        """Every node's class checks its description (pure; nothing is created)."""
        check_topology(self.topo, self.medium_spec(), self.node_classes)

    def medium_spec(self) -> Optional[MediumSpec]:
        """The medium this network runs (``medium`` with the topology's walls); None without."""
        return medium_for(self.topo, spec_of(self.medium))

    def _start(self) -> None:
        topo = self.topo
        self.medium_handle = None
        self.check()
        nodes = [self._node_class(name)(name, naming.netns_name(self.tag, name), self.tag,
                                        topo.spec(name)) for name in topo.node_names()]
        if any(node.has_radios for node in nodes):
            hwsim.load_module(topo.mac80211)
            self._hwsim = hwsim.Hwsim()
        try:
            netns.each(NetworkNode.create, nodes)
        finally:  # what was created is ours to delete, also when another node failed
            self.nodes.update((node.name, node) for node in nodes if node.created)
        for node in nodes:
            node.add_radios(self)  # one hwsim socket: one node at a time
        netns.each(lambda node: node.setup(self), nodes)
        for spec in topo.links:
            link = self._link_class(spec)(spec)
            link.create(self)
            self.links.append(link)
        self._start_medium()
        netns.each(lambda node: node.join(self), nodes)
        for node in nodes:
            node.connect(self)
        self._configure_ip()

    def _node_class(self, name: str) -> Type[NetworkNode]:
        kind = self.topo.node_kind(name)
        if kind not in self.node_classes:
            raise HarnessError(f"node {name!r} is of kind {kind!r}, which no node class "
                               f"realises: node_classes has {', '.join(self.node_classes)}")
        return self.node_classes[kind]

    def _link_class(self, spec: LinkSpec) -> Type[Link]:
        if spec.kind not in self.link_classes:
            raise HarnessError(f"link {spec.a}-{spec.b} is of kind {spec.kind!r}, which no link "
                               f"class realises: link_classes has {', '.join(self.link_classes)}")
        return self.link_classes[spec.kind]

    # -- what the nodes ask of the network -------------------------------------------------
    def hwsim_socket(self) -> hwsim.Hwsim:
        """The root-namespace hwsim connection radios are created on (destroy-on-close: it
        lives as long as the network)."""
        if self._hwsim is None:
            raise HarnessError("no hwsim connection: no node class of this network has radios")
        return self._hwsim

    @property
    def ssid(self) -> str:
        """The IBSS / mesh id every wireless node joins."""
        return naming.network_ssid(self.tag)

    @property
    def bssid(self) -> str:
        """The fixed IBSS BSSID (no cell splits while stations start one by one)."""
        return naming.network_bssid(self.tag)

    def without_medium(self) -> bool:
        """True if no medium runs (every hwsim radio on a channel hears every other)."""
        return self.medium == "none" or self.medium_handle is None

    def neighbour_macs(self, name: str) -> List[str]:
        """MACs of the radios of a node's declared wireless neighbours."""
        return [r.mac for n in self.topo.wireless_neighbours(name)
                for r in self.radios if r.node == n]

    # -- the medium ------------------------------------------------------------------------
    def _start_medium(self) -> None:
        """Start the medium after radios exist and before any interface joins (it must
        register with hwsim before the first frame)."""
        if self.medium == "none" or not self.radios:
            return
        self.medium_handle = daemon.start_for(self, self.medium_spec())

    def _stop_medium(self) -> None:
        """Stop the daemon; the handle stays, holding the final counters."""
        if self.medium_handle is not None:
            self.medium_handle.stop()

    # -- IP --------------------------------------------------------------------------------
    def relays(self) -> List[str]:
        """Nodes that forward: route gateways, nodes with 2+ neighbours, radio+veth nodes, and
        every babel station (any may become a relay as nodes move)."""
        topo = self.topo
        out = {name for name in topo.stations
               if len(topo.wireless_neighbours(name)) >= 2 or topo.wired_neighbours(name)
               or topo.routing == "babel"}
        for route in topo.routes:
            _dst, via = topo.resolve_route(route)
            out.update(name for name in topo.node_names()
                       if via in [a.split("/")[0] for a in topo.addresses(name)])
        return sorted(out)

    def _configure_ip(self) -> None:
        relays = set(self.relays())
        scripts: Dict[str, List[str]] = {}
        for name, node in self.nodes.items():
            lines = (["echo 1 > /proc/sys/net/ipv4/ip_forward"]
                     + [f"echo 0 > /proc/sys/net/ipv4/conf/{c}/send_redirects"
                        for c in ("all", "default", *node.intfs)] if name in relays else [])
            for dst, via in (self.topo.resolve_route(r) for r in self.topo.routes if r.node == name):
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
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL):
            self._old_sigterm = signal.SIG_DFL
            signal.signal(signal.SIGTERM, _raise_exit)

    def _untrap_sigterm(self) -> None:
        if self._old_sigterm is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self._old_sigterm)
            self._old_sigterm = None

    # -- stop ------------------------------------------------------------------------------
    def stop(self) -> None:
        """Remove processes, medium, radios, namespaces; safe to call twice or after a failed
        start; every step runs even if one before it failed (problems are printed at the end)."""
        if not self.started:
            return
        errors: List[str] = []

        def attempt(what: str, fn: Callable[..., object], *args: Any) -> None:
            try:
                fn(*args)
            except BaseException as err:  # keep tearing down, report at the end
                errors.append(f"{what}: {err}")

        for node in self.nodes.values():
            attempt(f"stop processes of {node.name}", node.stop_processes)
        attempt("stop medium", self._stop_medium)
        for node in self.nodes.values():
            attempt(f"stop {node.kind} {node.name}", node.stop, self)
        netns.each(lambda node: attempt(f"delete namespace {node.netns}", node.destroy),
                   list(self.nodes.values()))
        if self._hwsim is not None:
            attempt("close hwsim socket", self._hwsim.close)  # destroy-on-close: any radio left dies
            self._hwsim = None
        attempt("delete radios returned to the root namespace", _delete_root_radios, self.tag)
        attempt("restore tcp_allowed_congestion_control", self._allow.restore)
        self.nodes.clear()
        self.radios.clear()
        self.links.clear()
        self.started = False
        if self._atexit:
            atexit.unregister(self.stop)
            self._atexit = False
        self._untrap_sigterm()
        if errors:
            print("harness: clean-up problems:\n  " + "\n  ".join(errors), file=sys.stderr)


def check_topology(topo: Topology, medium: Optional[MediumSpec],
                   node_classes: Optional[Mapping[str, Type[NetworkNode]]] = None) -> None:
    """Each node's class checks its description against the topology and the medium (pure:
    what ``Network.start`` does first, and what experiment validation calls)."""
    classes = {**NODE_CLASSES, **(node_classes or {})}
    for name in topo.node_names():
        kind = topo.node_kind(name)
        if kind in classes:
            classes[kind].check(topo, name, medium)


def _raise_exit(signum: int, _frame: Optional[FrameType]) -> None:
    raise SystemExit(128 + signum)


def _delete_root_radios(tag: str) -> None:
    if not hwsim.module_loaded():
        return
    with hwsim.Hwsim() as conn:
        for info in conn.list_radios():
            parsed = naming.parse_radio(info.name)
            if parsed and parsed.tag == tag:
                conn.del_radio(radio_id=info.id, missing_ok=True)
