"""A mobile ad hoc network: ``nodes`` IBSS stations spread over a ``width`` x ``height`` area.

The ns-2 MANET scenario (paper 001's E9: 50 nodes on 1500 x 300 m). Stations
``sta1 .. sta<nodes>`` start at uniform points of the area drawn from ``layout_seed``; with
``medium.mobility`` (random waypoint over the same area) the medium moves them from there on,
each by its own trajectory. No neighbours are declared and no routes are built: a MANET needs
``topology.routing`` (``hwmp``, ``batman-adv`` or ``babel``), which finds paths as the nodes
move. 802.11b at a fixed rate (2 Mbit/s, ns-2's default) unless ``rate`` says otherwise.
"""
from __future__ import annotations

import random
from typing import Optional

from harness.kernel.wireless import CHANNEL, PHY_MODES, RATE_CHOICES, RETRY_LIMIT
from harness.net.topo import Topology
from harness.params import Builder, ParamSpec
from topologies.chain import station_name
from topologies.geometry import GEOMETRIES


def build(nodes: int = 50, width: float = 1500.0, height: float = 300.0, layout_seed: int = 1,
          rate: Optional[float] = 2.0, rts: bool = False, phy: str = "b", channel: int = 1,
          retry_limit: Optional[int] = None) -> Topology:
    """``nodes`` stations at uniform points of [0, width] x [0, height] (``layout_seed``)."""
    nodes = BUILDER.argument("nodes", nodes)
    width, height = BUILDER.argument("width", width), BUILDER.argument("height", height)
    draw = random.Random(BUILDER.argument("layout_seed", layout_seed))
    topo = Topology(f"manet{nodes}")
    for i in range(nodes):
        x, y = round(width * draw.random(), 3), round(height * draw.random(), 3)
        topo.add_station(station_name(i), (x, y, 0.0), channel=channel, rate=rate, rts=rts,
                         phy=phy, retry_limit=retry_limit)
    return topo


#: What ``topology: {builder: manet, ...}`` accepts; ``geometry`` is the experiment layer's.
BUILDER = Builder(
    name="manet",
    build=build,
    doc="IBSS stations sta1 .. sta<nodes> at uniform points of an area; no routes: pair it "
        "with topology.routing and medium.mobility.",
    params=(
        ParamSpec("nodes", "int", "stations", default=50, min=2, max=128),
        ParamSpec("width", "float", "metres along x", default=1500.0, min=1),
        ParamSpec("height", "float", "metres along y", default=300.0, min=1),
        ParamSpec("layout_seed", "int", "seed of the starting positions", default=1, min=0),
        ParamSpec("geometry", "choice", "geometry preset (ranges, propagation, queue)",
                  default="ns2-001", choices=GEOMETRIES),
        ParamSpec("rate", "choice", "fixed PHY rate in Mbit/s, or auto (minstrel)",
                  default=2, choices=RATE_CHOICES),
        ParamSpec("rts", "bool", "RTS/CTS before every data frame", default=False),
        ParamSpec("phy", "choice", "802.11b (DSSS/CCK) or g (OFDM)", default="b",
                  choices=PHY_MODES),
        CHANNEL,
        RETRY_LIMIT.variant(nullable=True, null_label="kernel default"),
    ),
)
