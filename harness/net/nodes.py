"""Node classes: what each kind of node adds to its namespace, and how it starts and stops.

``Network`` makes one object per node, of the class ``NODE_CLASSES`` has for the node's kind
(``Network(node_classes=...)`` replaces one). A new kind of node is a new class and a new
kind in the topology; classes in their own modules register with ``register_node_class``
(``harness.net.switch``, ``harness.net.wifi``).

Every node is a namespace (``harness.kernel.netns.Node``). ``Network.start()`` runs each step
below on every node before the next step, because the order across nodes matters: every
radio exists before the medium starts, the medium runs before any interface joins, and peer
links are opened once every node has joined.

  check(topo, name, medium)  before anything is created: the node's description against the
                   topology and the medium (pure; one clear error)
  add_radios(net)  in the root namespace, node by node (one hwsim socket): create radios
  setup(net)       all nodes at once: radios moved into the node, interfaces, phy settings
  join(net)        all nodes at once, the medium running: interfaces up, join, addresses
  connect(net)     node by node, after every node joined: peer links
  stop(net)        in ``Network.stop()``, after the node's processes were stopped and before
                   its namespace is deleted: radios deleted from inside

Links (veths) are made between ``setup`` and the medium (``harness.net.links``); each end is
handed to its node's ``attach_lines`` (an address by default, a port of a switch's or an
access point's bridge); forwarding and routes are the network's (``Network``). A step a kind
does not need is the base class's: nothing, without starting a process (under TCG each costs
~60 ms).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Dict, List, Optional, Type, TypeVar, Union

from harness.kernel import cpu_layout, hwsim, mesh, naming, netns, wireless
from harness.net.topo import AccessPointSpec, NodeSpec, Position, StationSpec, Topology

if TYPE_CHECKING:
    from harness.medium.spec import MediumSpec
    from harness.net.network import Network

#: What a node with radios is described by (a station or an access point).
RadioSpec = Union[StationSpec, AccessPointSpec]


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
    antenna_gain_dbi: Optional[float] = None

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


class NetworkNode(netns.Node):
    """A namespace a ``Network`` starts and stops; the base of every kind of node."""

    #: The topology's name for this kind of node (the key in ``NODE_CLASSES``).
    kind: ClassVar[str] = "node"
    #: True if ``Network`` must load mac80211_hwsim and open a radio socket for it.
    has_radios: ClassVar[bool] = False

    def __init__(self, name: str, netns_name: str, run_tag: str, spec: NodeSpec):
        super().__init__(name, netns_name, run_tag)
        self.spec = spec
        #: What starting this node took beyond its plan (a peer link opened again), in words:
        #: a run's record keeps them (``network.start_notes``).
        self.start_notes: List[str] = []

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} netns={self.netns}>"

    @classmethod
    def check(cls, topo: Topology, name: str, medium: Optional[MediumSpec]) -> None:
        """Refuse a description this class cannot realise (pure: before anything starts)."""

    def add_radios(self, net: Network) -> None:
        """Create this node's radios (root namespace)."""

    def setup(self, net: Network) -> None:
        """Prepare the node's interfaces before links and the medium exist."""

    def join(self, net: Network) -> None:
        """Bring wireless interfaces up and join their network (the medium is running)."""

    def connect(self, net: Network) -> None:
        """Open links that need every node joined (802.11s peer links, associations)."""

    def stop(self, net: Network) -> None:
        """Undo what must go before the namespace is deleted."""

    def attach_lines(self, intf: str, ip: Optional[str]) -> List[str]:
        """Shell lines for this node's end ``intf`` of a veth link (run by the link in one
        process): its address, up."""
        return ([f"ip addr add {ip} dev {intf}"] if ip else []) + [f"ip link set {intf} up"]

    def queue_interfaces(self) -> List[str]:
        """Interfaces whose transmit queues a run samples (where packets wait for the air)."""
        return []


class Host(NetworkNode):
    """A wired node: a namespace with veth links only."""

    kind = "host"


class WirelessNode(NetworkNode):
    """A node with hwsim radios (one per node today): created in the root namespace (that
    fixes their medium group), moved into the node, joined by the subclass's ``mode``."""

    has_radios = True
    #: ``wireless`` mode of the radios: ``ibss``, ``mesh``, ``ap`` or ``managed``.
    mode: ClassVar[str]

    def __init__(self, name: str, netns_name: str, run_tag: str, spec: RadioSpec):
        super().__init__(name, netns_name, run_tag, spec)
        self.station = spec
        self.radios: List[Radio] = []

    def add_radios(self, net: Network) -> None:
        spec = self.station
        index = len(self.radios)
        rname = naming.radio_name(net.tag, self.name, index)
        mac = naming.radio_mac(net.topo.node_index(self.name), index)
        rid = net.hwsim_socket().new_radio(rname, mac, channels=1, no_vif=True,
                                           destroy_on_close=True)
        phy = hwsim.phy_of(rname, mac)
        radio = Radio(rname, self.name, index, mac, phy, naming.wlan_name(index),
                      rid, spec.position, self.mode, spec.channel,
                      wireless.channel_freq(spec.channel), spec.phy, spec.rate, spec.rts,
                      spec.txpower_dbm, spec.retry_limit, spec.antenna_gain_dbi)
        self.radios.append(radio)
        net.radios.append(radio)
        self.intfs.append(radio.intf)

    def setup(self, net: Network) -> None:
        """Move the radios in; then interface type, RTS, retry limit, power and RPS in one
        process."""
        spec = self.station
        lines: List[str] = []
        for radio in self.radios:
            hwsim.move_phy(radio.phy, self.netns)
            lines += wireless.prepare_lines(radio.phy, radio.intf, self.mode, rts=spec.rts,
                                            retry_limit=spec.retry_limit,
                                            txpower_dbm=spec.txpower_dbm)
            lines += cpu_layout.rps_lines(radio.intf)
        self.script(lines + self.setup_lines(net))

    def setup_lines(self, net: Network) -> List[str]:
        """More shell lines for ``setup``'s one process (a subclass's own interfaces)."""
        return []

    def join(self, net: Network) -> None:
        lines = [line for radio in self.radios for line in self.join_lines(net, radio)]
        if lines:
            self.script(lines)
            if self.station.ip:  # always: add_station assigns one
                self.ips.insert(0, self.station.ip)

    def join_lines(self, net: Network, radio: Radio) -> List[str]:
        """Up, join, bitrates, the station's address."""
        assert isinstance(self.station, StationSpec)
        lines = wireless.join_lines(radio.intf, self.mode, network_id=net.ssid, freq=radio.freq,
                                    phy=radio.phy_mode, rate=radio.rate, bssid=net.bssid,
                                    auto_open_plinks=not declares_peering(net),
                                    beacon_tu=self.beacon_tu(net),
                                    mesh_params=HWMP_MANET if net.topo.routing == "hwmp" else None)
        return lines + self.address_lines(radio)

    def beacon_tu(self, net: Network) -> Optional[int]:
        """Beacon interval of the radio's mesh, TU; None = the kernel's (100)."""
        return None

    def address_lines(self, radio: Radio) -> List[str]:
        """The station's address, on its radio (a routing protocol's class may move it)."""
        return [f"ip addr add {self.station.ip} dev {radio.intf}"]

    def set_retry_limit(self, net: Network, limit: int) -> None:
        """Change the retry limit of this node's radios while the network runs: the kernel's
        setting (``iw phy X set retry``) and the medium's, which enforces it (hwsim does not:
        docs/kernel.md, "iw"). One process for the node, one control request per radio."""
        self.script([line for radio in self.radios for line in wireless.retry_lines(radio.phy, limit)])
        handle = net.medium_handle
        for radio in self.radios:
            if handle is not None:
                handle.control.set_retry(radio.mac, limit)
            radio.retry_limit = limit

    def stop(self, net: Network) -> None:
        """DEL_RADIO only sees radios in the caller's namespace: ask from inside the node."""
        if not self.radios:
            return
        with hwsim.Hwsim(netns=self.netns) as conn:
            for radio in self.radios:
                conn.del_radio(name=radio.name, missing_ok=True)


class Station(WirelessNode):
    """An IBSS (ad hoc) station. Without a medium every hwsim radio hears every other, so
    frames are filtered to the declared wireless neighbours (if any are declared)."""

    kind = "station"
    mode = "ibss"

    def join_lines(self, net: Network, radio: Radio) -> List[str]:
        lines = super().join_lines(net, radio)
        if net.topo.wireless_neighbours(self.name) and net.without_medium():
            lines += wireless.neighbour_filter_lines(radio.intf, "hxfilter",
                                                     net.neighbour_macs(self.name))
        return lines


class MeshPoint(WirelessNode):
    """An 802.11s mesh point. When the topology declares wireless neighbours, peering is
    enforced: every mesh point joins without opening peer links by itself, opens them to its
    declared neighbours only and blocks every other mesh point on the channel (one with no
    declared neighbour peers with nobody: a bystander that still beacons and senses the
    channel); HWMP finds paths over the links left. Without declarations mesh points peer
    freely."""

    kind = "mesh_point"
    mode = "mesh"

    def beacon_tu(self, net: Network) -> Optional[int]:
        """Under ``routing: hwmp`` (a MANET) mesh points beacon once a second, AODV's hello
        interval (RFC 3561), not ten times: at 1 Mbit/s the default's beacons of 50 mesh
        points took a large share of the air (paper 001's E9, docs/routing.md)."""
        return HWMP_BEACON_TU if net.topo.routing == "hwmp" else None

    def join(self, net: Network) -> None:
        """Under ``routing: hwmp`` the radios carry no IPv6. Mesh points that start together
        number their broadcasts alike (each counter from 0), and the kernel's cache of seen
        broadcasts keeps 3 per sequence number: the autoconfiguration multicasts (MLD, router
        solicitation, DAD) of 50 nodes passed it as new again and again, up to the mesh TTL
        of 31 hops, and filled the air (paper 001's E9, docs/routing.md). The MANET's
        routing and traffic are IPv4."""
        if net.topo.routing == "hwmp":
            self.set_sysctls({f"net.ipv6.conf.{radio.intf}.disable_ipv6": 1
                              for radio in self.radios})
        super().join(net)

    def connect(self, net: Network) -> None:
        if not declares_peering(net):
            return
        for radio in self.radios:
            peers = net.neighbour_macs(self.name)
            others = [r.mac for r in net.radios
                      if r.mode == "mesh" and r.channel == radio.channel
                      and r.node != self.name and r.mac not in peers]
            wireless.wait_for_peers(self, radio.intf, peers)
            self.script(wireless.plink_lines(radio.intf, peers, others), check=False)
            node_of = {r.mac.lower(): r.node for r in net.radios}
            for mac, times in mesh.establish_peer_links(self, radio.intf, peers).items():
                self.start_notes.append(f"{radio.intf}: peer link to {node_of.get(mac, mac)} "
                                        f"opened again {times}x (it fell back to LISTEN)")


#: Beacon interval of MANET mesh points, TU (1024 us): about AODV's 1 s hello interval.
HWMP_BEACON_TU = 1000
#: HWMP of MANET mesh points: at most 10 path requests a second from a node (AODV's
#: RREQ_RATELIMIT, RFC 3561) instead of the kernel's 100.
HWMP_MANET = {"mesh_hwmp_preq_min_interval": 100}


def declares_peering(net: Network) -> bool:
    """Whether the topology declares wireless neighbours: then mesh peer links are only those
    (see ``MeshPoint``); not under ``routing: hwmp``, where mesh points peer as they meet."""
    return net.topo.routing != "hwmp" and any(link.kind == "wireless" for link in net.topo.links)


#: The class of each kind of node (``Network(node_classes=...)`` overrides entries); classes
#: of other modules add themselves with ``register_node_class``.
NODE_CLASSES: Dict[str, Type[NetworkNode]] = {
    Station.kind: Station,
    MeshPoint.kind: MeshPoint,
    Host.kind: Host,
}

N = TypeVar("N", bound=Type[NetworkNode])


def register_node_class(cls: N) -> N:
    """Class decorator: ``cls`` realises the nodes of kind ``cls.kind``."""
    NODE_CLASSES[cls.kind] = cls
    return cls
