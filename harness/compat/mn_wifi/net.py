"""``mn_wifi.net.Mininet_wifi`` on the harness: a script's nodes, links and propagation model
become a harness ``Topology`` and medium settings, and ``build()`` starts a ``Network``.

Written from Mininet-WiFi's documentation and observed behaviour, not its code. What a
script says is checked as it says it: a parameter or method the harness cannot honour is one
``HarnessError`` naming what is supported (docs/mininet-wifi.md has the full table). How the
physics maps (stated assumptions, not Mininet-WiFi's internals: propagation models, power
and gain, range, modes, addresses, nodes without a position) is that document's "The
physics of a script"; the constants below and ``medium_settings`` carry it.
"""
from __future__ import annotations

import io
import ipaddress
import math
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, TypeVar

from harness.compat.mininet import node as mn_node
from harness.compat.mn_wifi import _PROMPTS, mobility
from harness.compat.mn_wifi import link as links
from harness.compat.mn_wifi import node as nodes
from harness.errors import HarnessError
from harness.medium.mobility.traces import write_csv

#: ``Mininet_wifi(...)`` keywords, and what each may be.
INIT_KEYS = ("link", "wmediumd_mode", "controller", "accessPoint", "station", "switch", "host",
             "ipBase", "autoSetMacs", "topo")
STATION_KEYS = ("position", "ip", "mac", "range", "txpower", "antennaGain", "antennaHeight",
                "mode", "channel", "ip6", "wlans", "min_z", "max_z", "passwd",
                "encrypt") + mobility.STATION_KEYS
ADHOC_KEYS = ("ssid", "mode", "channel", "intf", "ht_cap", "proto")
#: ``addLink(..., cls=adhoc, proto=...)``: Mininet-WiFi's routing daemons, as the harness runs
#: them (``Topology.set_routing``; docs/routing.md); the others are refused with the reason.
PROTOS = {"batman_adv": "batman-adv", "babeld": "babel"}
PROTOS_MISSING = {"olsrd": "no maintained OLSR daemon is packaged for Debian",
                  "batmand": "batmand, batman-adv's user-space predecessor, is unmaintained"}
AP_KEYS = ("ssid", "mode", "channel", "position", "range", "failMode", "passwd", "encrypt",
           "mac", "datapath", "protocols", "txpower", "antennaGain", "antennaHeight", "ip")
SWITCH_KEYS = ("failMode", "protocols", "dpid", "datapath", "mac")
#: ``addLink`` parameters of a wire (``TCLink``): ``bw`` Mbit/s and its queue in packets.
WIRE_KEYS = {"bw": "bw", "max_queue_size": "queue"}
#: The switch an access point's wired side is (Mininet-WiFi's access point is a switch).
AP_SWITCH_SUFFIX = "_sw"
PROPAGATION = {"friis": "free_space", "logDistance": "log_distance",
               "logNormalShadowing": "log_distance", "twoRayGround": "two_ray", "ITU": "indoor"}
PROPAGATION_KEYS = ("model", "exp", "sL", "variance", "lF", "pL", "nFloors", "gRandom")
MODES = {"g": "g", "b": "b", "n": "g"}
#: Mininet-WiFi's defaults a node has when a script gives none.
DEFAULT_TXPOWER_DBM = 14.0
DEFAULT_GAIN_DBI = 5.0
DEFAULT_EXPONENT = 3.0
#: Spacing of nodes a script gives no position (metres).
UNPLACED_SPACING = 1.0
N = TypeVar("N", bound=nodes.Node)


def _note(text: str) -> None:
    print(f"*** harness: {text}", file=sys.stderr, flush=True)


def _refuse_unknown(params: Iterable[str], allowed: Sequence[str], call: str) -> None:
    """The first keyword ``call`` (``"addSwitch('s1', "``) does not take: one clear error."""
    unknown = [k for k in params if k not in allowed]
    if unknown:
        raise HarnessError(f"{call}{unknown[0]}=...) is not supported; allowed: "
                           + ", ".join(allowed))


class Mininet_wifi:  # noqa: N801 - Mininet-WiFi's name
    """A script's network: nodes and links described, then ``build()`` starts it."""

    def __init__(self, **kwargs: Any):
        _refuse_unknown(kwargs, INIT_KEYS, "Mininet_wifi(")
        if kwargs.get("topo") is not None:
            raise HarnessError("Mininet_wifi(topo=...): Topo classes are not supported; add "
                               "the nodes and links in the script")
        link = kwargs.get("link")
        if link is not None and link is not links.wmediumd:
            raise HarnessError(f"Mininet_wifi(link={getattr(link, '__name__', link)}): allowed "
                               "wmediumd (the harness always runs its own medium)")
        mode = kwargs.get("wmediumd_mode")
        if mode is not None and not getattr(mode, "supported", False):
            raise HarnessError(f"wmediumd_mode={getattr(mode, '__name__', mode)}: allowed "
                               "interference (the medium decodes frames by their SINR)")
        if kwargs.get("controller") is mn_node.RemoteController:
            mn_node.RemoteController()  # raises its own explanation
        self.ip_base = ipaddress.ip_interface(kwargs.get("ipBase", "10.0.0.0/8"))
        self._next_ip = 1
        self.nodes: Dict[str, nodes.Node] = {}
        self.stations: List[nodes.Station] = []
        self.aps: List[nodes.AP] = []
        self.hosts: List[nodes.Node] = []
        self.switches: List[nodes.Node] = []
        self.controllers: List[mn_node.Controller] = []
        self.link_mode: Dict[str, Tuple[str, Dict[str, Any]]] = {}
        self.associations: Dict[str, str] = {}
        self.wired: List[Tuple[str, str, Dict[str, Any]]] = []
        self.propagation: Dict[str, Any] = {}
        self.graph: Dict[str, Any] = {}
        self.started = False
        self._net: Any = None
        self._positions: Dict[str, Tuple[float, float, float]] = {}
        self.motion = mobility.Motion()

    # -- nodes -------------------------------------------------------------------------------
    def _check_new(self, name: str) -> None:
        from harness.kernel.naming import check_node_name
        if self.started:
            raise HarnessError(f"{name}: nodes are added before build()")
        check_node_name(name)
        if name in self.nodes:
            raise HarnessError(f"node name {name!r} is used twice")

    def _ip(self, given: Optional[str]) -> str:
        if given:
            return given if "/" in given else f"{given}/{self.ip_base.network.prefixlen}"
        address = self.ip_base.network.network_address + self._next_ip
        self._next_ip += 1
        return f"{address}/{self.ip_base.network.prefixlen}"

    def addStation(self, name: str, cls: Any = None, **params: Any) -> nodes.Station:  # noqa: N802
        self._check_new(name)
        nodes.refuse_class(cls, f"addStation({name!r})", [nodes.Station])
        _refuse_unknown(params, STATION_KEYS, f"addStation({name!r}, ")
        if int(params.get("wlans", 1)) != 1:
            raise HarnessError(f"addStation({name!r}, wlans={params['wlans']}): one radio per "
                               "station here")
        self._radio_node(name, params)
        params["ip"] = self._ip(params.get("ip"))
        return self._add(nodes.Station(name, self, params), self.stations)

    def addCar(self, name: str, **params: Any) -> Any:  # noqa: N802
        raise HarnessError(f"addCar({name!r}): vehicles (SUMO, 802.11p) are not supported; "
                           "move stations with setMobilityModel or mobility()")

    def addHost(self, name: str, cls: Any = None, **params: Any) -> nodes.Node:  # noqa: N802
        self._check_new(name)
        nodes.refuse_class(cls, f"addHost({name!r})", [mn_node.Host])
        _refuse_unknown(params, ("ip", "mac"), f"addHost({name!r}, ")
        params["ip"] = self._ip(params.get("ip"))
        return self._add(nodes.Node(name, self, params), self.hosts, "host")

    def addAccessPoint(self, name: str, cls: Any = None, **params: Any) -> nodes.AP:  # noqa: N802
        """An access point: hostapd on a radio, its wired side a switch of its own
        (``<name>_sw``) that ``addLink(ap, host)`` and ``addLink(ap, switch)`` wire to."""
        self._check_new(name)
        self._check_new(name + AP_SWITCH_SUFFIX)
        nodes.refuse_class(cls, f"addAccessPoint({name!r})", [nodes.OVSKernelAP])
        _refuse_unknown(params, AP_KEYS, f"addAccessPoint({name!r}, ")
        self._security(name, params)
        self._radio_node(name, params)
        return self._add(nodes.OVSKernelAP(name, self, params), self.aps)

    def _radio_node(self, name: str, params: Dict[str, Any]) -> None:
        """What a station and an access point check alike: position, mode and mac."""
        if "position" in params:
            self._positions[name] = nodes.parse_position(params["position"], name)
        self._mode(name, params.get("mode", "g"))
        if params.get("mac"):
            _note(f"{name}: mac={params['mac']} noted; radios get the harness's MAC addresses")

    def _add(self, node: N, group: List[N], kind: Optional[str] = None) -> N:
        if kind is not None:  # a plain Node stands for a host or a switch
            node.kind = kind
        self.nodes[node.name] = node
        group.append(node)
        return node

    def _security(self, name: str, params: Dict[str, Any]) -> Optional[str]:
        """``encrypt='wpa2'`` with ``passwd`` -> WPA2-PSK; open without; others refused."""
        encrypt = params.get("encrypt")
        if encrypt in (None, ""):
            if params.get("passwd"):
                raise HarnessError(f"{name}: passwd without encrypt: give encrypt='wpa2'")
            return None
        if encrypt != "wpa2":
            raise HarnessError(f"{name}: encrypt={encrypt!r} is not supported; allowed 'wpa2' "
                               "(WPA2-PSK) or none (open)")
        if not params.get("passwd"):
            raise HarnessError(f"{name}: encrypt='wpa2' needs passwd= (8..63 characters)")
        return str(params["passwd"])

    def addSwitch(self, name: str, cls: Any = None, **params: Any) -> nodes.Node:  # noqa: N802
        """A switch: an Open vSwitch bridge in standalone mode (a learning switch)."""
        self._check_new(name)
        nodes.refuse_class(cls, f"addSwitch({name!r})", [mn_node.OVSKernelSwitch])
        _refuse_unknown(params, SWITCH_KEYS, f"addSwitch({name!r}, ")
        return self._add(nodes.Node(name, self, params), self.switches, "switch")

    def addController(self, name: str = "c0", controller: Any = None, **params: Any  # noqa: N802
                      ) -> mn_node.Controller:
        cls = controller or mn_node.Controller
        if not (isinstance(cls, type) and issubclass(cls, mn_node.Controller)):
            raise HarnessError(f"addController({name!r}, controller={cls!r}): allowed "
                               "Controller (switches here are standalone)")
        made = cls(name, **params)
        self.controllers.append(made)
        return made

    def _mode(self, name: str, mode: Any) -> str:
        mode = str(mode)
        if mode not in MODES:
            raise HarnessError(f"{name}: mode={mode!r} is not supported; allowed "
                               + ", ".join(MODES) + " (2.4 GHz legacy rates; n runs as g)")
        if mode == "n":
            _note(f"{name}: mode n runs as 802.11g (the medium has no 802.11n rates)")
        return MODES[mode]

    # -- links ---------------------------------------------------------------------------------
    def addLink(self, node1: Any, node2: Any = None, port1: Any = None, port2: Any = None,  # noqa: N802
                cls: Any = None, **params: Any) -> None:
        if self.started:
            raise HarnessError("links are added before build()")
        a = self._named(node1)
        if cls in links.SUPPORTED:
            if node2 is not None:
                raise HarnessError(f"addLink({a}, {node2}, cls={cls.__name__}): an ad hoc or mesh "
                                   "link names one station (it joins the network)")
            self._wireless_link(a, cls, params)
            return
        if cls is not None and isinstance(cls, type) and issubclass(cls, links.WirelessLink):
            raise HarnessError(f"addLink(cls={cls.__name__}) is not supported; allowed: adhoc, "
                               "mesh, or two nodes for an association or a wire")
        if node2 is None:
            raise HarnessError(f"addLink({a}): give a second node, or cls=adhoc / cls=mesh")
        self._node_link(a, self._named(node2), cls, params)

    def _named(self, node: Any) -> str:
        name = node if isinstance(node, str) else getattr(node, "name", None)
        if name not in self.nodes:
            raise HarnessError(f"link end {node!r} is not a node of this network; nodes: "
                               + ", ".join(self.nodes))
        return str(name)

    def _wireless_link(self, name: str, cls: Any, params: Dict[str, Any]) -> None:
        if name not in {s.name for s in self.stations}:
            raise HarnessError(f"addLink({name}, cls={cls.__name__}): only stations join ad hoc "
                               "or mesh networks")
        _refuse_unknown(params, ADHOC_KEYS, f"addLink({name}, cls={cls.__name__}, ")
        if params.get("proto") is not None:
            proto = params["proto"]
            if proto not in PROTOS:
                raise HarnessError(f"addLink({name}, proto={proto!r}) is not supported; allowed: "
                                   + ", ".join(PROTOS) + (f" ({PROTOS_MISSING[proto]})"
                                                          if proto in PROTOS_MISSING else ""))
            if cls is not links.adhoc:
                raise HarnessError(f"addLink({name}, cls={cls.__name__}, proto={proto!r}): a "
                                   "routing protocol runs on an ad hoc network: allowed cls=adhoc")
            given = {p.get("proto") for _n, (_m, p) in self.link_mode.items()}
            if given - {proto}:
                raise HarnessError(f"addLink({name}, proto={proto!r}): another station runs "
                                   f"{sorted(map(str, given))[0]!r}: one protocol per network")
        intf = params.get("intf")
        if intf not in (None, f"{name}-wlan0"):
            raise HarnessError(f"addLink({name}, intf={intf!r}): one radio per station: "
                               f"allowed {name}-wlan0")
        if params.get("ht_cap"):
            _note(f"{name}: ht_cap={params['ht_cap']} ignored (legacy 802.11b/g rates only)")
        kind = "ibss" if cls is links.adhoc else "mesh"
        others = {m for n, (m, p) in self.link_mode.items()}
        ssids = {p.get("ssid") for n, (m, p) in self.link_mode.items() if m == kind}
        if name in self.link_mode or name in self.associations:
            raise HarnessError(f"{name} is already in a network: one network per station")
        if others - {kind}:
            raise HarnessError(f"{name}: an ad hoc and a mesh network in one script are not "
                               "supported (one kind of wireless network per run)")
        if ssids and params.get("ssid") not in ssids:
            raise HarnessError(f"{name}: ssid {params.get('ssid')!r} differs from "
                               f"{sorted(map(str, ssids))[0]!r}: one {kind} network per script")
        self.link_mode[name] = (kind, dict(params))

    def _node_link(self, a: str, b: str, cls: Any, params: Dict[str, Any]) -> None:
        kinds = sorted((self.nodes[a].kind, self.nodes[b].kind))
        if kinds == ["access_point", "station"]:
            if params:
                raise HarnessError(f"addLink({a}, {b}, {next(iter(params))}=...): an "
                                   "association takes no parameters")
            sta, ap = (a, b) if self.nodes[a].kind == "station" else (b, a)
            if sta in self.link_mode or sta in self.associations:
                raise HarnessError(f"{sta} is already in a network: one per station")
            self.associations[sta] = ap
            return
        if "station" in kinds and kinds != ["host", "station"]:
            raise HarnessError(f"addLink({a}, {b}): a station links to an access point "
                               "(association), a host (a wire), or cls=adhoc / cls=mesh")
        from harness.compat.mininet.link import Link
        if cls is not None and not (isinstance(cls, type) and issubclass(cls, Link)):
            raise HarnessError(f"addLink({a}, {b}, cls={getattr(cls, '__name__', cls)}): a wire "
                               "takes cls=TCLink, Link or none")
        bad = [k for k in params if k not in WIRE_KEYS]
        if bad:
            raise HarnessError(f"addLink({a}, {b}, {bad[0]}=...) is not supported; a wire "
                               f"takes {', '.join(WIRE_KEYS)} (delay, loss and jitter are not "
                               "modelled on wires here)")
        self.wired.append((a, b, {WIRE_KEYS[k]: v for k, v in params.items() if v is not None}))

    # -- the medium -----------------------------------------------------------------------------
    def setPropagationModel(self, **params: Any) -> None:  # noqa: N802
        _refuse_unknown(params, PROPAGATION_KEYS, "setPropagationModel(")
        model = params.get("model", "logDistance")
        if model not in PROPAGATION:
            raise HarnessError(f"setPropagationModel(model={model!r}): allowed "
                               + ", ".join(PROPAGATION))
        if params.get("nFloors"):
            raise HarnessError("setPropagationModel(nFloors=...): floors come from the nodes' "
                               "heights here (floor_height); allowed nFloors=0")
        if params.get("gRandom"):
            raise HarnessError("setPropagationModel(gRandom=...): per-frame randomness is "
                               "fading here; not supported as a parameter")
        self.propagation = dict(params, model=model)

    def medium_settings(self) -> Dict[str, Any]:
        """The harness medium's keys for this script."""
        p = self.propagation or {"model": "logDistance"}
        model = p["model"]
        out: Dict[str, Any] = {"propagation": PROPAGATION[model]}
        if model in ("logDistance", "logNormalShadowing"):
            out["exponent"] = float(p.get("exp", DEFAULT_EXPONENT))
        if model == "logNormalShadowing" and p.get("variance"):
            out["shadowing"] = math.sqrt(float(p["variance"]))
        if model == "ITU":
            out["exponent"] = float(p.get("pL", 30.0)) / 10.0
            if p.get("lF") is not None:
                out["floor_loss"] = float(p["lF"])
        if p.get("sL") not in (None, 1, 1.0):
            factor = float(p["sL"])
            if factor <= 0:
                raise HarnessError(f"setPropagationModel(sL={p['sL']}): a loss factor > 0")
            out["system_loss"] = 10.0 * math.log10(factor)
        for key, medium_key, only_one in (
                ("range", "tx_range", " m: one transmission range for every radio here (the "
                                      "medium's tx_range)"),
                ("antennaHeight", "height", ": one height for every radio here")):
            values = {float(n.params[key]) for n in self.nodes.values() if key in n.params}
            if len(values) > 1:
                raise HarnessError(f"{key}: {sorted(values)}{only_one}")
            if values:
                out[medium_key] = values.pop()
        return out

    def configureWifiNodes(self) -> None:  # noqa: N802
        """Mininet-WiFi creates radios here; the harness creates them in ``build()``."""

    configureNodes = configureWifiNodes  # noqa: N815

    def plotGraph(self, **params: Any) -> None:  # noqa: N802
        """No live window here: the prompt's ``plot`` writes the picture (PNG and SVG)."""
        self.graph = dict(params)
        _note("plotGraph: no live window here; type plot at the prompt to write the picture")

    # -- moving nodes (mobility.py) ---------------------------------------------------------
    def setMobilityModel(self, **params: Any) -> None:  # noqa: N802
        """The model that moves every station added without a position (from ``time``)."""
        self._before_build("setMobilityModel")
        self.motion.set_model(params)

    def startMobility(self, **params: Any) -> None:  # noqa: N802
        """When motion starts (s after build); a model's keywords set the model too."""
        self._before_build("startMobility")
        self.motion.start_mobility(params)

    def stopMobility(self, **params: Any) -> None:  # noqa: N802
        """When motion ends: every moving node stays where it is then."""
        self._before_build("stopMobility")
        self.motion.stop_mobility(params)

    def mobility(self, node: Any, stage: str, **params: Any) -> None:
        """A node's replay: ``'start'`` (time, position) and ``'stop'`` (time, position)."""
        self._before_build("mobility")
        name = node if isinstance(node, str) else getattr(node, "name", None)
        if name not in self.nodes or self.nodes[name].kind not in ("station", "access_point"):
            raise HarnessError(f"mobility({node!r}, ...): not a station or access point; "
                               "allowed " + ", ".join(n for n, v in self.nodes.items()
                                                      if v.kind in ("station", "access_point")))
        self.motion.node(str(name), stage, params)

    def _before_build(self, call: str) -> None:
        if self.started:
            raise HarnessError(f"{call}: motion is set before build() (the medium replays it)")

    def trajectories(self) -> Dict[str, Any]:
        """The moving nodes' trajectories (``Trajectory``), seconds since ``build()``."""
        if not self.motion.active:
            return {}
        radios = {n: v.params for n, v in self.nodes.items()
                  if v.kind in ("station", "access_point")}
        coords = {n: v.coord for n, v in self.nodes.items() if hasattr(v, "coord")}
        return self.motion.trajectories(radios, coords)

    # -- the network -----------------------------------------------------------------------------
    def topology(self) -> Any:
        """The harness Topology this script describes (pure: nothing starts); a moving node
        stands where its trajectory begins."""
        from harness.net.topo import Topology
        topo = Topology(Path(sys.argv[0]).stem or "mn_wifi")
        for name, traj in self.trajectories().items():
            self._positions[name] = traj.position_at(0.0)
        unplaced = 0
        for name, node in self.nodes.items():
            if node.kind in ("station", "access_point") and name not in self._positions:
                self._positions[name] = (unplaced * UNPLACED_SPACING, 0.0, 0.0)
                unplaced += 1
        for name, node in self.nodes.items():
            if node.kind == "access_point":
                topo.add_access_point(name, self._positions[name], **self._radio(name, node.params))
                topo.add_switch(name + AP_SWITCH_SUFFIX)
            elif node.kind == "switch":
                topo.add_switch(name)
            elif node.kind == "host":
                topo.add_host(name, ip=node.params["ip"])
        for name, node in self.nodes.items():
            if isinstance(node, nodes.Station):
                kind, lp = self.link_mode.get(name, ("managed" if self.aps else "ibss", {}))
                params = {**node.params, **{k: v for k, v in lp.items() if k in ("mode", "channel")}}
                radio = self._radio(name, params)
                if kind == "managed":
                    ap = self._ap_for(name)
                    radio["channel"] = int(ap.params.get("channel", 1))
                    wanted = self._security(ap.name, ap.params)
                    given = self._security(name, node.params)
                    if wanted != given:
                        raise HarnessError(
                            f"{name} associates with {ap.name}, which is "
                            + (f"WPA2: give {name} encrypt='wpa2' and the same passwd"
                               if wanted else f"open: {name} takes no passwd/encrypt"))
                topo.add_station(name, self._positions[name], mode=kind, ip=node.params["ip"],
                                 **radio)
        for ap in self.aps:
            topo.add_link(ap.name, ap.name + AP_SWITCH_SUFFIX)
        for sta, ap_name in self.associations.items():
            topo.add_link(sta, ap_name)
        for a, b, params in self.wired:
            topo.add_link(self._wired_end(a), self._wired_end(b), **params)
        protos = {p["proto"] for _m, p in self.link_mode.values() if p.get("proto")}
        if protos:
            topo.set_routing(PROTOS[protos.pop()], "addLink(proto=...)")
        return topo

    def _wired_end(self, name: str) -> str:
        return name + AP_SWITCH_SUFFIX if self.nodes[name].kind == "access_point" else name

    def _ap_for(self, station: str) -> nodes.Node:
        """The access point a station associates with: the one linked to it, else the nearest
        (the strongest at equal power; Mininet-WiFi associates by signal too)."""
        if station in self.associations:
            return self.nodes[self.associations[station]]
        here = self._positions[station]
        return min(self.aps, key=lambda ap: sum((p - q) ** 2 for p, q in
                                                zip(self._positions[ap.name], here)))

    def _radio(self, name: str, params: Dict[str, Any]) -> Dict[str, Any]:
        """A station's or access point's radio keywords for the Topology; its antenna gain
        counts at both ends of a link, so it enters as txpower + 2 x gain."""
        power = float(params.get("txpower", DEFAULT_TXPOWER_DBM)) \
            + 2.0 * float(params.get("antennaGain", DEFAULT_GAIN_DBI))
        out: Dict[str, Any] = {"channel": int(params.get("channel", 1)),
                               "phy": self._mode(name, params.get("mode", "g")),
                               "txpower_dbm": power}
        if self.nodes[name].kind == "access_point":
            passphrase = self._security(name, params)
            out.update(ssid=params.get("ssid"), security="wpa2" if passphrase else "open",
                       passphrase=passphrase)
            if params.get("ip"):
                out["ip"] = self._ip(str(params["ip"]))
        return out

    def build(self) -> None:
        """Start the network (radios, the medium, joins, addresses), then the IPv6 addresses
        given to ``addStation``."""
        if self.started:
            return
        from harness.medium.daemon import start_mobility
        from harness.net.network import Network
        topo = self.topology()
        medium = self.medium_settings()
        moving = self.trajectories()
        if self.motion.model and not moving:
            _note("setMobilityModel: every station has a position, so none moves (a model "
                  "moves the stations added without one)")
        with tempfile.TemporaryDirectory(prefix="mnwifi-motion-") as folder:
            if moving:  # the medium reads the file as it starts, then keeps the trajectories
                csv = Path(folder) / "motion.csv"
                write_csv(moving, csv)
                medium["mobility"] = mobility.medium_key(moving, str(csv))
            net = Network(topo, name=f"mnwifi-{topo.name}", medium=medium)
            net.start()
        if moving and net.medium_handle is not None and net.medium_handle.mobility:
            net.medium_handle.mobility["model"] = (  # what messages name, not "csv"
                f"Mininet-WiFi {self.motion.model['model']}" if self.motion.model
                else "Mininet-WiFi mobility() replays")
        start_mobility(net)  # the script's times count from here
        self._net = net
        self.started = True
        for node in self.nodes.values():
            if node.params.get("ip6"):
                node.setIP6(str(node.params["ip6"]))

    def start(self) -> None:
        """``build()`` if not yet built; controllers and access points need nothing more."""
        self.build()

    def stop(self) -> None:
        """Tear everything down (namespaces, radios, the medium)."""
        if self._net is not None:
            self._net.stop()
        self.started = False

    # -- access ------------------------------------------------------------------------------------
    def network(self) -> Any:
        if self._net is None or not self.started:
            raise HarnessError("the network is not built: call net.build() first")
        return self._net

    def running_node(self, name: str) -> Any:
        return self.network()[name]

    def get(self, *names: str) -> Any:
        found = [self.nodes[n] if n in self.nodes else self._missing(n) for n in names]
        return found[0] if len(found) == 1 else found

    getNodeByName = get  # noqa: N815

    def _missing(self, name: str) -> Any:
        raise HarnessError(f"no node {name!r}; nodes: {', '.join(self.nodes)}")

    def __getitem__(self, name: str) -> nodes.Node:
        return self.get(name)

    def __contains__(self, name: str) -> bool:
        return name in self.nodes

    def position_of(self, name: str) -> Tuple[float, float, float]:
        """Where the node is now: on its trajectory if it moves, else where its radio is."""
        if not self.started:
            return self._positions.get(name, (0.0, 0.0, 0.0))
        from harness.interactive.session import Session
        moving = Session(self.network(), owns_network=False).positions()
        radios = [r for r in self.network().radios if r.node == name]
        return moving.get(name) or (radios[0].position if radios else (0.0, 0.0, 0.0))

    def move(self, name: str, x: float, y: float, z: float) -> None:
        if not self.started:
            self._positions[name] = (x, y, z)
            return
        from harness.interactive.session import Session
        Session(self.network(), owns_network=False).move(name, x, y, z)

    def set_txpower(self, name: str, dbm: float) -> None:
        net = self.network()
        handle = net.medium_handle
        if handle is None:
            raise HarnessError("no medium runs: transmit power has nothing to change")
        for radio in [r for r in net.radios if r.node == name]:
            handle.control.set_txpower(radio.mac, dbm)
            radio.txpower_dbm = dbm

    def pingAll(self, timeout: Any = None) -> float:  # noqa: N802
        """One ping between every two nodes; the percentage lost (Mininet's return value)."""
        from harness.interactive.session import Session
        text = Session(self.network(), owns_network=False).pingall()
        print(text)
        return float(text.rsplit("***", 1)[1].split("%")[0])

    def open_prompt(self, script: Optional[str] = None) -> None:
        """The harness prompt on this network (``CLI(net)``); returns at ``exit``."""
        from harness.interactive.prompt import Prompt
        from harness.interactive.session import Session
        session = Session(self.network(), owns_network=False)
        session.extra_names = dict(self.nodes)
        _PROMPTS[0] += 1
        if script is not None:
            Prompt(session, stdin=io.StringIO(Path(script).read_text())).run()
            return
        Prompt(session).run(f"*** {len(self.nodes)} nodes ({', '.join(self.nodes)}). Type help "
                            "for the commands, exit to return to the script.")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        supported = sorted(n for n in dir(type(self)) if not n.startswith("_") and n[0].islower())
        raise HarnessError(f"Mininet_wifi.{name} is not supported by the harness; supported: "
                           + ", ".join(supported) + " (docs/mininet-wifi.md)")

