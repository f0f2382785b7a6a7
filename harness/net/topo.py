"""Topology description: pure data, no root, no kernel (like Mininet's ``Topo``).

A ``Topology`` names stations (nodes with a radio), hosts (wired nodes), switches, access
points, links, static routes and walls, and validates them as they are added.
``harness.net.network.Network`` realises it. It can be printed, compared and stored with
results (``to_dict``).

Every node has a *kind* (``node_kind``): ``"station"`` (an IBSS station), ``"mesh_point"``
(a station with ``mode="mesh"``), ``"managed_station"`` (``mode="managed"``: it associates
with an access point), ``"host"``, ``"switch"`` (Open vSwitch) or ``"access_point"``
(hostapd). ``Network`` realises each kind with a class (``harness.net.nodes``,
``harness.net.switch``, ``harness.net.wifi``); a new kind of node is a new kind here and a
new class there.

Links: between two stations, ``add_link`` declares a *wireless neighbour* (802.11s peer links
are opened only between declared neighbours; with no medium, IBSS frames are filtered to
them). Between a managed station and an access point it declares the *association* (which AP
the station joins). Any other link is a veth pair; ``bw=`` (Mbit/s) shapes it
(``harness.kernel.shaping``). Switches and access points are layer-2 nodes: their link ends
carry no address, and hosts on them share the LAN subnet with the stations (10.0.0.0/24).

Walls (``add_wall``) are segments the medium's ``indoor`` model charges a loss for crossing.
"""
from __future__ import annotations

import ipaddress
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar, Dict, List, Optional, Set, Tuple, Union

from harness.errors import HarnessError
from harness.kernel import hostapd, shaping, wireless
from harness.kernel.naming import check_node_name
from harness.params import ParamSpec

Position = Tuple[float, float, float]
IPNetwork = Union[ipaddress.IPv4Network, ipaddress.IPv6Network]

#: Stations get 10.0.0.<n>/24 in the order they were added, unless ``ip=`` says otherwise.
STATION_SUBNET = ipaddress.ip_network("10.0.0.0/24")
#: veth links without addresses get 10.<200+k>.0.1/24 and .2/24.
VETH_BASE = 200
#: A station's 802.11 ``mode`` -> its kind of node.
STATION_KINDS = {"ibss": "station", "mesh": "mesh_point", "managed": "managed_station"}
HOST_KIND = "host"
SWITCH_KIND = "switch"
AP_KIND = "access_point"
#: Kinds that forward frames at layer 2: their link ends have no address.
L2_KINDS = (SWITCH_KIND, AP_KIND)
#: What ``add_link(a, b, ...)`` accepts for a veth link.
VETH_PARAMS = ("bw", "queue")
#: How IP finds multi-hop paths between stations (``Topology.set_routing``, docs/routing.md):
#: ``static`` the builder's routes; ``batman-adv`` and ``babel`` proactive protocols on IBSS
#: stations; ``hwmp`` 802.11s's reactive path selection (the harness's AODV-like choice).
ROUTING = ("static", "batman-adv", "babel", "hwmp")
#: The kind an IBSS station becomes under a routing protocol run by a class of its own.
ROUTED_KINDS = {"batman-adv": "batman_station", "babel": "babel_station"}
#: Names other tools use for a protocol here, and protocols that are not available.
ROUTING_ALIASES = {"batman_adv": "batman-adv", "batman": "batman-adv", "babeld": "babel"}
ROUTING_MISSING = {"olsr": "no maintained OLSR daemon is packaged for Debian (olsrd left it "
                           "after Debian 10)"}
#: ``topology.routing`` of an experiment, beside every builder's own parameters.
ROUTING_PARAM = ParamSpec("routing", "choice", "how stations find multi-hop paths",
                          default="static", choices=ROUTING, omit_default=True)


@dataclass
class StationSpec:
    name: str
    position: Position = (0.0, 0.0, 0.0)
    mode: str = "ibss"
    channel: int = 1
    rate: Optional[float] = None          # Mbit/s legacy rate, None = auto (minstrel)
    rts: wireless.Rts = None              # None leave, True always, False off, int threshold
    txpower_dbm: Optional[float] = None
    retry_limit: Optional[int] = None
    ip: Optional[str] = None              # "10.0.0.1/24"; assigned if None
    phy: str = "g"                        # "b" or "g"
    antenna_gain_dbi: Optional[float] = None  # on transmit and receive; None = the medium's 0

    @property
    def kind(self) -> str:
        return STATION_KINDS[self.mode]


@dataclass
class HostSpec:
    name: str
    ip: Optional[str] = None              # address of the host's first veth link
    kind: ClassVar[str] = HOST_KIND


@dataclass
class SwitchSpec:
    name: str
    kind: ClassVar[str] = SWITCH_KIND


@dataclass
class AccessPointSpec:
    """An access point: a radio (the fields a station has) running hostapd, bridged to its
    wired side. ``ssid`` None = one named after the run and the node; ``ip`` an optional
    address of its own on its bridge."""

    name: str
    position: Position = (0.0, 0.0, 0.0)
    ssid: Optional[str] = None
    channel: int = 1
    rate: Optional[float] = None
    rts: wireless.Rts = None
    txpower_dbm: Optional[float] = None
    retry_limit: Optional[int] = None
    phy: str = "g"
    security: str = "open"
    passphrase: Optional[str] = None
    ip: Optional[str] = None
    antenna_gain_dbi: Optional[float] = None  # as a station's
    kind: ClassVar[str] = AP_KIND


@dataclass
class WallSpec:
    """A wall segment (metres, 2-D); ``loss`` dB, None = the medium's ``wall_loss``."""

    x1: float
    y1: float
    x2: float
    y2: float
    loss: Optional[float] = None


NodeSpec = Union[StationSpec, HostSpec, SwitchSpec, AccessPointSpec]


@dataclass
class LinkSpec:
    a: str
    b: str
    kind: str                             # "wireless" (neighbours), "association" or "veth"
    ip_a: Optional[str] = None
    ip_b: Optional[str] = None
    params: Dict[str, Any] = field(default_factory=dict)


@dataclass
class RouteSpec:
    node: str
    dst: str                              # node name or CIDR
    via: str                              # node name or IP


def _position(position: Tuple[float, ...], name: str) -> Position:
    pos = tuple(float(v) for v in position)
    if len(pos) == 2:
        pos = (*pos, 0.0)
    if len(pos) != 3:
        raise HarnessError(f"position of {name!r} must be (x, y) or (x, y, z) in metres")
    return (pos[0], pos[1], pos[2])


def _check_radio(name: str, channel: int, phy: str, rate: Optional[float], rts: wireless.Rts,
                 retry_limit: Optional[int]) -> Tuple[Optional[float], Optional[int]]:
    """A radio's settings (station or access point); returns the rate and the retry limit in
    canonical form."""
    wireless.channel_freq(channel)
    wireless.check_phy_mode(phy)
    rate = wireless.check_rate(rate, phy)
    wireless.check_rts(rts)
    if retry_limit is not None:
        retry_limit = wireless.RETRY_LIMIT.validate(retry_limit, f"retry_limit of {name!r}")
    return rate, retry_limit


def _check_veth_params(a: str, b: str, params: Dict[str, Any]) -> Dict[str, Any]:
    """``bw`` (Mbit/s the shaper does) and ``queue`` (packets, needs ``bw``); nothing else."""
    unknown = [k for k in params if k not in VETH_PARAMS]
    if unknown:
        raise HarnessError(f"link {a}-{b}: parameter {unknown[0]!r} is unknown: allowed "
                           + ", ".join(VETH_PARAMS))
    out: Dict[str, Any] = {}
    if params.get("bw") is not None:
        out["bw"] = shaping.check_bandwidth(params["bw"], f"link {a}-{b}: bw")
    if params.get("queue") is not None:
        if "bw" not in out:
            raise HarnessError(f"link {a}-{b}: queue needs bw (the queue is the shaper's)")
        out["queue"] = shaping.check_queue(params["queue"], f"link {a}-{b}: queue")
    return out


def _check_ip(value: str, key: str) -> str:
    """Normalise an IPv4 address with prefix (default /24)."""
    text = value if "/" in str(value) else f"{value}/24"
    try:
        iface = ipaddress.ip_interface(text)
    except ValueError:
        raise HarnessError(f"{key} {value!r} is not an IP address (e.g. '10.0.0.1/24')") from None
    if iface.version != 4:
        raise HarnessError(f"{key} {value!r}: only IPv4 is supported")
    return str(iface)


class Topology:
    """Stations, hosts, links and routes of one experiment network, validated as added."""

    def __init__(self, name: str = "topo"):
        self.name = name
        self.stations: Dict[str, StationSpec] = {}
        self.hosts: Dict[str, HostSpec] = {}
        self.switches: Dict[str, SwitchSpec] = {}
        self.access_points: Dict[str, AccessPointSpec] = {}
        self.links: List[LinkSpec] = []
        self.routes: List[RouteSpec] = []
        self.walls: List[WallSpec] = []
        #: Medium settings the place this topology describes implies (propagation model,
        #: walls, floors, shadowing; keys of ``harness.medium.spec.MediumSpec``): the medium
        #: starts with them, and settings a caller gives win (``harness.medium.spec.merged``).
        self.medium: Dict[str, Any] = {}
        #: Other names a flow may give for a node (a campus router's ID ``"5"`` for ``r5``).
        self.aliases: Dict[str, str] = {}
        #: The mac80211 build the radios run on: None for the kernel's own, else one of
        #: ``harness.kernel.mac80211.VARIANTS`` (set by the ``mac80211`` policy).
        self.mac80211: Optional[str] = None
        #: One of ``ROUTING`` (``set_routing``).
        self.routing = "static"

    # -- building ----------------------------------------------------------------------
    def _check_new_name(self, name: str) -> None:
        check_node_name(name)
        if name in self.node_names():
            raise HarnessError(f"node name {name!r} is used twice in topology {self.name!r}")

    def add_station(self, name: str, position: Tuple[float, ...] = (0.0, 0.0, 0.0), *,
                    mode: str = "ibss", channel: int = 1, rate: Optional[float] = None,
                    rts: wireless.Rts = None, txpower_dbm: Optional[float] = None,
                    retry_limit: Optional[int] = None, ip: Optional[str] = None,
                    phy: str = "g", antenna_gain_dbi: Optional[float] = None) -> str:
        self._check_new_name(name)
        pos = _position(position, name)
        if mode not in STATION_KINDS:
            raise HarnessError(f"mode {mode!r} is invalid: allowed {', '.join(STATION_KINDS)}")
        rate, retry_limit = _check_radio(name, channel, phy, rate, rts, retry_limit)
        if antenna_gain_dbi is not None:
            antenna_gain_dbi = wireless.ANTENNA_GAIN_DBI.validate(
                antenna_gain_dbi, f"antenna_gain_dbi of {name!r}")
        if ip is None:
            index = len(self.stations) + 1
            if index > 254:
                raise HarnessError("more than 254 stations: give ip= explicitly")
            ip = f"{STATION_SUBNET.network_address + index}/{STATION_SUBNET.prefixlen}"
            if ip.split("/")[0] in self._used_addresses():  # a host on a switch has it:
                ip = self._free_lan_address()                 # the lowest free one instead
        ip = _check_ip(ip, f"ip of {name!r}")
        self._check_unique_ip(ip)
        self.stations[name] = StationSpec(name, pos, mode, channel, rate, rts, txpower_dbm,
                                          retry_limit, ip, phy, antenna_gain_dbi)
        return name

    def add_host(self, name: str, *, ip: Optional[str] = None) -> str:
        self._check_new_name(name)
        if ip is not None:
            ip = _check_ip(ip, f"ip of {name!r}")
            self._check_unique_ip(ip)
        self.hosts[name] = HostSpec(name, ip)
        return name

    def add_switch(self, name: str) -> str:
        """An Open vSwitch bridge in standalone mode (a learning switch, no controller)."""
        self._check_new_name(name)
        self.switches[name] = SwitchSpec(name)
        return name

    def add_access_point(self, name: str, position: Tuple[float, ...] = (0.0, 0.0, 0.0), *,
                         ssid: Optional[str] = None, channel: int = 1,
                         rate: Optional[float] = None, rts: wireless.Rts = None,
                         txpower_dbm: Optional[float] = None, retry_limit: Optional[int] = None,
                         phy: str = "g", security: str = "open",
                         passphrase: Optional[str] = None, ip: Optional[str] = None) -> str:
        """An access point (hostapd on a radio), 802.11g and open unless told otherwise; link
        it to a switch (its wired side) and link managed stations to it."""
        self._check_new_name(name)
        pos = _position(position, name)
        rate, retry_limit = _check_radio(name, channel, phy, rate, rts, retry_limit)
        if ssid is not None:
            hostapd.check_ssid(ssid, f"access point {name!r}")
        hostapd.check_security(security, passphrase, f"access point {name!r}")
        if ip is not None:
            ip = _check_ip(ip, f"ip of {name!r}")
            self._check_unique_ip(ip)
        self.access_points[name] = AccessPointSpec(name, pos, ssid, channel, rate, rts,
                                                   txpower_dbm, retry_limit, phy, security,
                                                   passphrase, ip)
        return name

    def add_wall(self, x1: float, y1: float, x2: float, y2: float,
                 loss: Optional[float] = None) -> WallSpec:
        """A wall segment between radios: the medium's ``indoor`` propagation charges ``loss``
        dB (None: its ``wall_loss``) for every wall a line of sight crosses."""
        values = [x1, y1, x2, y2] + ([] if loss is None else [loss])
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            raise HarnessError(f"wall {values!r} is invalid: allowed x1, y1, x2, y2 in metres "
                               "and an optional loss in dB")
        if (x1, y1) == (x2, y2):
            raise HarnessError(f"wall ({x1}, {y1})-({x2}, {y2}) has no length")
        wall = WallSpec(float(x1), float(y1), float(x2), float(y2),
                        None if loss is None else float(loss))
        self.walls.append(wall)
        return wall

    def add_link(self, a: str, b: str, *, ip_a: Optional[str] = None,
                 ip_b: Optional[str] = None, **params: Any) -> LinkSpec:
        """Wireless neighbours (two stations), an association (a managed station and an access
        point) or a veth pair (anything else; ``bw`` Mbit/s and ``queue`` packets shape it)."""
        names = self.node_names()
        for end in (a, b):
            if end not in names:
                raise HarnessError(f"link {a}-{b}: unknown node {end!r}; known: "
                                   + ", ".join(names))
        if a == b:
            raise HarnessError(f"link {a}-{b}: a node cannot link to itself")
        kind = self._link_kind(a, b)
        if kind in ("wireless", "association"):
            if ip_a or ip_b or params:
                raise HarnessError(f"link {a}-{b} is a wireless {'neighbour' if kind == 'wireless' else 'association'} "
                                   "declaration: it takes no ip_a/ip_b/parameters")
            if any({l.a, l.b} == {a, b} for l in self.links if l.kind == kind):
                raise HarnessError(f"wireless link {a}-{b} declared twice")
            station = a if a in self.stations else b
            if kind == "association" and self.association(station):
                raise HarnessError(f"station {station!r} is already associated with "
                                   f"{self.association(station)!r}: one access point per station")
        elif any(self.node_kind(end) in L2_KINDS for end in (a, b)):
            params = _check_veth_params(a, b, params)
            ip_a, ip_b = (self._lan_end(a, b, ip_a), self._lan_end(b, a, ip_b))
        else:
            params = _check_veth_params(a, b, params)
            k = sum(1 for l in self.links if l.kind == "veth")
            if VETH_BASE + k > 254:
                raise HarnessError("too many veth links for automatic addressing")
            ip_a = ip_a or self._first_link_ip(a)
            ip_b = ip_b or self._first_link_ip(b)
            if ip_a and not ip_b:
                ip_b = self._free_address_beside(ip_a)
            elif ip_b and not ip_a:
                ip_a = self._free_address_beside(ip_b)
            elif not ip_a and not ip_b:
                ip_a, ip_b = f"10.{VETH_BASE + k}.0.1/24", f"10.{VETH_BASE + k}.0.2/24"
            assert ip_a is not None and ip_b is not None  # one branch above set both
            ip_a = _check_ip(ip_a, f"ip_a of link {a}-{b}")
            ip_b = _check_ip(ip_b, f"ip_b of link {a}-{b}")
            for ip in (ip_a, ip_b):
                if ip not in (self._host_ip(a), self._host_ip(b)):
                    self._check_unique_ip(ip)
        link = LinkSpec(a, b, kind, ip_a, ip_b, dict(params))
        self.links.append(link)
        return link

    def _link_kind(self, a: str, b: str) -> str:
        kinds = {self.node_kind(a), self.node_kind(b)}
        joining = {STATION_KINDS["ibss"], STATION_KINDS["mesh"]}
        if kinds <= joining:
            return "wireless"
        if kinds == {STATION_KINDS["managed"], AP_KIND}:
            return "association"
        if AP_KIND in kinds and kinds & (joining | {STATION_KINDS["managed"]}):
            raise HarnessError(f"link {a}-{b}: an access point's wireless links are to stations "
                               "in mode managed (add_station(..., mode='managed'))")
        if STATION_KINDS["managed"] in kinds and kinds & joining:
            raise HarnessError(f"link {a}-{b}: a station in mode managed joins an access point, "
                               "not an IBSS or mesh station")
        if kinds & joining and SWITCH_KIND in kinds:
            raise HarnessError(f"link {a}-{b}: a switch's ports are wired; stations reach it "
                               "through an access point or a host")
        return "veth"

    def _lan_end(self, end: str, other: str, ip: Optional[str]) -> Optional[str]:
        """The address of one end of a link to a switch or access point: none on a layer-2
        node; on another node the one given, its ip= (first link), or a free LAN address."""
        if self.node_kind(end) in L2_KINDS:
            if ip:
                raise HarnessError(f"link {end}-{other}: {end!r} is a "
                                   f"{self.node_kind(end).replace('_', ' ')}: its ports have "
                                   "no address")
            return None
        ip = ip or self._first_link_ip(end) or self._free_lan_address()
        ip = _check_ip(ip, f"ip of {end!r} on link {end}-{other}")
        if ip != self._host_ip(end):
            self._check_unique_ip(ip)
        return ip

    def _free_lan_address(self) -> str:
        return self._free_address(STATION_SUBNET, f"the LAN {STATION_SUBNET} has no free address")

    def add_route(self, node: str, dst: str, via: str) -> RouteSpec:
        if node not in self.node_names():
            raise HarnessError(f"route on unknown node {node!r}; known: " + ", ".join(self.node_names()))
        route = RouteSpec(node, dst, via)
        self.resolve_route(route)  # validates dst and via now, not at start()
        self.routes.append(route)
        return route

    def add_alias(self, alias: str, node: str) -> None:
        """Let flows name ``node`` as ``alias`` too (e.g. a router's number)."""
        if node not in self.stations and node not in self.hosts:
            raise HarnessError(f"alias {alias!r}: unknown node {node!r}")
        if alias in self.stations or alias in self.hosts or alias in self.aliases:
            raise HarnessError(f"alias {alias!r} is already a node name or an alias")
        self.aliases[str(alias)] = node

    # -- queries -----------------------------------------------------------------------
    def node_names(self) -> List[str]:
        """Every node, stations first (their order fixes MACs: ``node_index``)."""
        return [n for t in (self.stations, self.hosts, self.switches, self.access_points) for n in t]

    def node_for(self, name: str) -> Optional[str]:
        """The node a flow's endpoint names (a node name or an alias), or None."""
        if name in self.stations or name in self.hosts:
            return name
        return self.aliases.get(name)

    def check_flow(self, src: str, dst: str) -> None:
        """Raise ``HarnessError`` (saying why) if this topology cannot carry a flow between
        the nodes ``src`` and ``dst``. A plain topology trusts its builder's routes; a builder
        that knows its links (``topologies.campus``) refuses pairs its routes do not join."""

    def spec(self, name: str) -> NodeSpec:
        """The description of one node (its ``NodeSpec``)."""
        for table in (self.stations, self.hosts, self.switches, self.access_points):
            if name in table:
                return table[name]
        raise HarnessError(f"no node {name!r} in topology {self.name!r}; nodes: "
                           + ", ".join(self.node_names()))

    def node_kind(self, name: str) -> str:
        """The node's kind (the module docstring lists them): which class realises it."""
        kind = self.spec(name).kind
        return ROUTED_KINDS.get(self.routing, kind) if kind == "station" else kind

    def set_routing(self, routing: str, key: str = "routing") -> None:
        """Route between stations with ``routing`` (one of ``ROUTING``) instead of the
        builder's static routes, which are dropped: ``hwmp`` makes IBSS stations 802.11s mesh
        points that peer with whoever they hear; ``batman-adv`` and ``babel`` stations run
        the protocol (``harness.net.routing``). ``key`` names the setting in errors."""
        name = ROUTING_ALIASES.get(routing, routing) if isinstance(routing, str) else routing
        if name in ROUTING_MISSING:
            raise HarnessError(f"{key}: {routing!r} is not available: {ROUTING_MISSING[name]}; "
                               "allowed: " + ", ".join(ROUTING))
        if name not in ROUTING:
            raise HarnessError(f"{key}: {routing!r} is unknown; allowed: " + ", ".join(ROUTING))
        self.routing = name
        if name == "static":
            return
        self.routes.clear()
        if name == "hwmp":
            for spec in self.stations.values():
                if spec.mode == "ibss":
                    spec.mode = "mesh"

    def node_index(self, name: str) -> int:
        """Stable index of a node (order added), used for deterministic MACs."""
        return self.node_names().index(name)

    def neighbours(self, name: str, kind: Optional[str] = None) -> List[str]:
        """The nodes at the other end of a node's links (of one kind, if given), in the order
        the links were added."""
        return [l.b if l.a == name else l.a for l in self.links
                if kind in (None, l.kind) and name in (l.a, l.b)]

    def wireless_neighbours(self, name: str) -> List[str]:
        return self.neighbours(name, "wireless")

    def veth_links(self) -> List[LinkSpec]:
        return [l for l in self.links if l.kind == "veth"]

    def wired_neighbours(self, name: str) -> List[str]:
        """Nodes at the other end of a node's veth links."""
        return self.neighbours(name, "veth")

    def association(self, station: str) -> Optional[str]:
        """The access point a managed station was linked to, if any."""
        return next(iter(self.neighbours(station, "association")), None)

    def addresses(self, name: str) -> List[str]:
        """All IPv4 interface addresses of a node (station radio first, then veths)."""
        out = [table[name].ip for table in (self.stations, self.access_points) if name in table]
        for l in self.veth_links():
            out += [ip for end, ip in ((l.a, l.ip_a), (l.b, l.ip_b)) if end == name]
        return [ip for ip in out if ip]  # all set: add_station and add_link assign them

    def primary_ip(self, name: str) -> Optional[str]:
        addrs = self.addresses(name)
        if not addrs and name in self.hosts:
            return self.hosts[name].ip
        return addrs[0].split("/")[0] if addrs else None

    def resolve_route(self, route: RouteSpec) -> Tuple[str, str]:
        """(destination CIDR, gateway IP) of a route; node names resolved to addresses."""
        if route.dst in self.node_names():
            ip = self.primary_ip(route.dst)
            if ip is None:
                raise HarnessError(f"route dst {route.dst!r} has no address yet: add its link first")
            dst = f"{ip}/32"
        else:
            try:
                dst = str(ipaddress.ip_network(route.dst, strict=False))
            except ValueError:
                raise HarnessError(f"route dst {route.dst!r} is neither a node nor a CIDR; nodes: "
                                   + ", ".join(self.node_names())) from None
        if route.via in self.node_names():
            via = self._address_facing(route.via, route.node)
        else:
            try:
                via = str(ipaddress.ip_address(route.via))
            except ValueError:
                raise HarnessError(f"route via {route.via!r} is neither a node nor an IP; nodes: "
                                   + ", ".join(self.node_names())) from None
        return dst, via

    def _address_facing(self, gateway: str, node: str) -> str:
        """The gateway's address in a subnet the node shares with it."""
        mine = [ipaddress.ip_interface(a).network for a in self.addresses(node)]
        for addr in self.addresses(gateway):
            iface = ipaddress.ip_interface(addr)
            if iface.network in mine:
                return str(iface.ip)
        raise HarnessError(f"route on {node!r} via {gateway!r}: they share no subnet")

    def _host_ip(self, name: str) -> Optional[str]:
        return self.hosts[name].ip if name in self.hosts else None

    def _first_link_ip(self, name: str) -> Optional[str]:
        """A host's ip= goes on its first veth link."""
        return self.hosts[name].ip if name in self.hosts and not self.wired_neighbours(name) else None

    def _free_address_beside(self, ip: str) -> str:
        """The lowest unused address in the subnet of ``ip`` (the other end of a veth)."""
        iface = ipaddress.ip_interface(_check_ip(ip, "ip"))
        return self._free_address(iface.network, f"subnet {iface.network} has no free address "
                                  "for the other link end", str(iface.ip))

    def _free_address(self, network: IPNetwork, error: str, *taken: str) -> str:
        """The lowest address of ``network`` that no node (nor ``taken``) has."""
        used = self._used_addresses() | set(taken)
        for host in network.hosts():
            if str(host) not in used:
                return f"{host}/{network.prefixlen}"
        raise HarnessError(error)

    def _used_addresses(self) -> Set[str]:
        """Every address given so far, without its prefix length."""
        ips = [n.ip for table in (self.stations, self.hosts, self.access_points)
               for n in table.values()]
        for l in self.veth_links():
            ips += [l.ip_a, l.ip_b]
        return {ip.split("/")[0] for ip in ips if ip}

    def _check_unique_ip(self, ip: str) -> None:
        addr = ip.split("/")[0]
        if addr in self._used_addresses():
            raise HarnessError(f"IP address {addr} is used twice in topology {self.name!r}")

    # -- output ------------------------------------------------------------------------
    def to_dict(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {
            "name": self.name,
            "stations": [asdict(s) for s in self.stations.values()],
            "hosts": [asdict(h) for h in self.hosts.values()],
            "links": [asdict(l) for l in self.links],
            "routes": [asdict(r) for r in self.routes],
            "medium": dict(self.medium),
            "aliases": dict(self.aliases),
        }
        # only when present: the description of a topology without them is unchanged
        for key, table in (("switches", self.switches), ("access_points", self.access_points)):
            if table:
                out[key] = [asdict(v) for v in table.values()]
        if self.walls:
            out["walls"] = [asdict(w) for w in self.walls]
        if self.routing != "static":
            out["routing"] = self.routing
        return out

    def __str__(self) -> str:
        lines = [f"Topology {self.name}: {len(self.stations)} stations, {len(self.hosts)} hosts, "
                 f"{len(self.links)} links, {len(self.routes)} routes"
                 + ("" if self.routing == "static" else f", routing {self.routing}")]
        for s in self.stations.values():
            x, y, z = s.position
            rate = "auto" if s.rate is None else f"{s.rate:g}M"
            lines.append(f"  station {s.name:<8} {s.ip:<16} ({x:g},{y:g},{z:g}) {s.mode} "
                         f"ch{s.channel} 802.11{s.phy} rate={rate} rts={s.rts} "
                         f"txpower={s.txpower_dbm} retry={s.retry_limit}")
        lines += [f"  host    {h.name:<8} {h.ip or '-'}" for h in self.hosts.values()]
        lines += [f"  switch  {sw:<8} Open vSwitch, standalone" for sw in self.switches]
        for ap in self.access_points.values():
            x, y, z = ap.position
            rate = "auto" if ap.rate is None else f"{ap.rate:g}M"
            lines.append(f"  ap      {ap.name:<8} {ap.ip or '-':<16} ({x:g},{y:g},{z:g}) "
                         f"ch{ap.channel} 802.11{ap.phy} rate={rate} {ap.security}")
        for l in self.links:
            extra = f" {l.ip_a or '-'} <-> {l.ip_b or '-'}" if l.kind == "veth" else ""
            shaped = "".join(f" {k}={v:g}" for k, v in l.params.items())
            lines.append(f"  link    {l.a}-{l.b} ({l.kind}){extra}{shaped}")
        for w in self.walls:
            loss = "wall_loss" if w.loss is None else f"{w.loss:g} dB"
            lines.append(f"  wall    ({w.x1:g},{w.y1:g})-({w.x2:g},{w.y2:g}) {loss}")
        for r in self.routes:
            dst, via = self.resolve_route(r)
            lines.append(f"  route   {r.node}: {dst} via {via}")
        return "\n".join(lines)
