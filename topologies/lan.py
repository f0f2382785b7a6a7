"""A LAN: server - switch - client, wired or with a wireless last hop (paper 003's testbed).

``wireless: false`` (the control): hosts ``server`` and ``client`` on an Open vSwitch ``sw1``,
each by a veth link shaped to ``bw`` Mbit/s (100: Fast Ethernet, as the paper's switch).
``wireless: true`` (the hybrid): ``server`` - ``sw1`` - access point ``ap1`` (its wired side a
``bw`` link to the switch), and ``client`` a station in managed mode ``distance`` metres from
the access point, with ``walls`` walls between them (evenly spaced, each ``wall_loss`` dB or
the geometry's), associated through the medium. Everyone is on one layer-2 LAN
(10.0.0.0/24): server 10.0.0.1, client 10.0.0.2. Flows name the nodes ``server``/``client``.
"""
from __future__ import annotations

from typing import Optional

from harness.kernel import shaping
from harness.kernel.hostapd import SECURITY
from harness.kernel.wireless import CHANNEL, PHY_MODES, RATE_CHOICES, TXPOWER_DBM
from harness.net.topo import Topology
from harness.params import Builder, ParamSpec
from topologies.geometry import GEOMETRIES

#: Half the length of each wall (m): long enough that the line of sight always crosses it.
WALL_HALF_LENGTH = 20.0


def build(wireless: bool = False, distance: float = 15.0, walls: int = 2,
          wall_loss: Optional[float] = None, rate: Optional[float] = 54.0, phy: str = "g",
          channel: int = 1, security: str = "open", passphrase: Optional[str] = None,
          txpower_dbm: Optional[float] = None, bw: float = 100.0,
          queue: int = shaping.DEFAULT_QUEUE) -> Topology:
    """The wired control (``wireless`` false) or the hybrid LAN; see the module docstring."""
    wireless, walls = BUILDER.argument("wireless", wireless), BUILDER.argument("walls", walls)
    topo = Topology("lan-hybrid" if wireless else "lan-wired")
    topo.add_host("server")
    if not wireless:
        topo.add_host("client")
    topo.add_switch("sw1")
    topo.add_link("server", "sw1", bw=bw, queue=queue)
    if not wireless:
        topo.add_link("client", "sw1", bw=bw, queue=queue)
        return topo
    distance = BUILDER.argument("distance", distance)
    topo.add_access_point("ap1", (0.0, 0.0, 0.0), channel=channel, rate=rate, phy=phy,
                          security=security, passphrase=passphrase, txpower_dbm=txpower_dbm)
    topo.add_link("ap1", "sw1", bw=bw, queue=queue)
    topo.add_station("client", (float(distance), 0.0, 0.0), mode="managed", channel=channel,
                     rate=rate, phy=phy, txpower_dbm=txpower_dbm)
    topo.add_link("client", "ap1")
    for k in range(walls):
        x = float(distance) * (k + 1) / (walls + 1)
        topo.add_wall(x, -WALL_HALF_LENGTH, x, WALL_HALF_LENGTH, wall_loss)
    return topo


BUILDER = Builder(
    name="lan",
    build=build,
    doc="server - switch - client, wired or through an access point (paper 003).",
    params=(
        ParamSpec("wireless", "bool", "false: server - switch - client (all wired); true: "
                  "server - switch - access point ~ client", default=False),
        ParamSpec("distance", "float", "metres between the access point and the client",
                  default=15.0, min=0.1, max=10000.0),
        ParamSpec("walls", "int", "walls between the access point and the client", default=2,
                  min=0, max=50),
        ParamSpec("wall_loss", "float", "dB per wall", default=None, min=0.0, max=100.0,
                  nullable=True, null_label="the geometry's"),
        ParamSpec("geometry", "choice", "propagation preset (topologies/geometry.py)",
                  default="office-003", choices=GEOMETRIES),
        ParamSpec("rate", "choice", "fixed PHY rate in Mbit/s, or auto (minstrel)", default=54,
                  choices=RATE_CHOICES),
        ParamSpec("phy", "choice", "802.11b or g", default="g", choices=PHY_MODES),
        CHANNEL,
        ParamSpec("security", "choice", "open, or WPA2-PSK (needs passphrase)", default="open",
                  choices=SECURITY),
        ParamSpec("passphrase", "str", "WPA2 passphrase (8..63 characters)", default=None,
                  nullable=True, null_label="none"),
        TXPOWER_DBM.variant(doc="transmit power of the access point and the client",
                            nullable=True, null_label="medium default"),
        ParamSpec("bw", "float", "Mbit/s of every wired link (netem rate)", default=100.0,
                  min=shaping.MIN_MBIT, max=shaping.MAX_MBIT),
        ParamSpec("queue", "int", "packets in front of each shaped wired link", default=1000,
                  min=1, max=shaping.MAX_QUEUE),
    ),
)


def wired_goodput_limit_mbps(bw: float = 100.0) -> float:
    """The most TCP goodput a wired link of ``bw`` Mbit/s carries (1448-byte payloads in
    1538-byte Ethernet frames on the wire: ``harness.kernel.shaping``)."""
    return shaping.goodput_limit_mbps(bw)
