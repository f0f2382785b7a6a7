"""A chain: ``hops + 1`` stations on a line, equally spaced, each hearing only its neighbours.

The classic multihop TCP geometry (e.g. 200 m spacing with a 250 m transmission range).
Stations ``sta1 .. sta{hops+1}`` at x = 0, spacing, 2*spacing, ...; consecutive stations are
declared wireless neighbours. IBSS: static /32 routes hop by hop (every station can reach every
other). 802.11s mesh: peer links only between neighbours, HWMP finds the path, no IP routes.
"""
from __future__ import annotations

from typing import Optional

from harness.kernel.wireless import CHANNEL, MODES, PHY_MODES, RATE_CHOICES, RETRY_LIMIT, TXPOWER_DBM
from harness.net.topo import Topology
from harness.params import Builder, ParamSpec
from topologies.geometry import DEFAULT as DEFAULT_GEOMETRY
from topologies.geometry import GEOMETRIES


def station_name(i: int) -> str:
    """Name of the i-th station (0-based): sta1, sta2, ..."""
    return f"sta{i + 1}"


def build(hops: int = 3, spacing: float = 200.0, mode: str = "ibss",
          rate: Optional[float] = None, rts: bool = False, channel: int = 1,
          phy: str = "g", txpower_dbm: Optional[float] = None,
          retry_limit: Optional[int] = None) -> Topology:
    """Chain of ``hops`` hops. ``rate`` in Mbit/s or None (auto); ``rts`` True = RTS/CTS always."""
    hops, spacing = BUILDER.argument("hops", hops), BUILDER.argument("spacing", spacing)
    mode, rts = BUILDER.argument("mode", mode), BUILDER.argument("rts", rts)
    topo = Topology(f"chain{hops}-{mode}")
    n = hops + 1
    for i in range(n):
        topo.add_station(station_name(i), (i * float(spacing), 0.0, 0.0), mode=mode,
                         channel=channel, rate=rate, rts=rts, phy=phy,
                         txpower_dbm=txpower_dbm, retry_limit=retry_limit)
    for i in range(hops):
        topo.add_link(station_name(i), station_name(i + 1))
    if mode == "ibss":
        for i in range(n):
            for j in range(n):
                if abs(i - j) >= 2:
                    nxt = i + 1 if j > i else i - 1
                    topo.add_route(station_name(i), station_name(j), station_name(nxt))
    return topo


#: What ``topology: {builder: chain, ...}`` accepts; ``geometry`` is read by the experiment
#: layer (``topologies.geometry``), the others are arguments of ``build``.
BUILDER = Builder(
    name="chain",
    build=build,
    doc="Stations sta1 .. sta<hops+1> on a line; static routes (ibss) or HWMP (mesh).",
    params=(
        ParamSpec("hops", "int", "links between the end stations", default=3, min=1, max=64),
        ParamSpec("spacing", "float", "metres between neighbours", default=None, min=0.1,
                  nullable=True, null_label="from the geometry preset"),
        ParamSpec("geometry", "choice", "geometry preset", default=DEFAULT_GEOMETRY,
                  choices=GEOMETRIES),
        ParamSpec("mode", "choice", "802.11 mode of the radios", default="ibss", choices=MODES),
        ParamSpec("rate", "choice", "fixed PHY rate in Mbit/s, or auto (minstrel)",
                  default="auto", choices=RATE_CHOICES),
        ParamSpec("rts", "bool", "RTS/CTS before every data frame", default=False),
        ParamSpec("phy", "choice", "802.11b (DSSS/CCK) or g (OFDM)", default="g",
                  choices=PHY_MODES),
        CHANNEL,
        TXPOWER_DBM.variant(nullable=True, null_label="radio default"),
        RETRY_LIMIT.variant(nullable=True, null_label="kernel default"),
    ),
)
