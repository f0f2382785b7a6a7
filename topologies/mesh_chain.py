"""An enforced-path IEEE 802.11s chain in one room: paper 002's testbed (docs/papers.md).

Mesh points ``sta1 .. sta{hops+1}`` stand ``spacing`` metres apart on a line (1 m: six nodes
span 5 m), all inside each other's range and carrier sense, so no two hops can send at once.
The path is enforced as the paper did it: each mesh point opens peer links to its
predecessor and successor only and blocks every other (``plink_action block``, by the
``MeshPoint`` node class of ``harness.net``), and HWMP finds the path over what is left with
the airtime link metric. 802.11g with minstrel by default (``rate: auto``), RTS/CTS off.

``nodes`` larger than ``hops + 1`` adds bystanders (``idle1`` ...) one metre beside the line:
mesh points that peer with nobody but beacon and sense the channel, like spare testbed nodes.
They are added before the path's last node, so ``first`` and ``last`` stay the path's ends.
The channel (propagation, fading, shadowing) is the experiment's ``medium`` section; the
path in force is checked and recorded by the ``mesh_path`` policy (``policies/mesh_path.py``).
"""
from __future__ import annotations

from typing import Optional

from harness.errors import HarnessError
from harness.kernel.wireless import CHANNEL, RATE_CHOICES, RETRY_LIMIT, TXPOWER_DBM
from harness.net.topo import Topology
from harness.params import Builder, ParamSpec
from topologies.chain import station_name

#: The most mesh points a room holds here (a 15-hop line at 1 m is 15 m long already).
MAX_NODES = 16


def bystander_name(i: int) -> str:
    """Name of the i-th bystander (0-based): idle1, idle2, ..."""
    return f"idle{i + 1}"


def build(hops: int = 3, nodes: Optional[int] = None, spacing: float = 1.0,
          rate: Optional[float] = None, rts: bool = False, channel: int = 1,
          txpower_dbm: Optional[float] = None, retry_limit: Optional[int] = None) -> Topology:
    """``hops``-hop enforced mesh path of ``hops + 1`` mesh points (plus bystanders up to
    ``nodes``); ``rate`` in Mbit/s or None (minstrel)."""
    hops = BUILDER.argument("hops", hops, "topology.hops")
    nodes = BUILDER.argument("nodes", nodes, "topology.nodes", null_ok=True)
    total = hops + 1 if nodes is None else nodes
    if hops + 1 > total:
        raise HarnessError(f"topology.hops {hops} needs {hops + 1} mesh points but "
                           f"topology.nodes is {total}: a path cannot be longer than the "
                           f"nodes; allowed hops 1..{total - 1} (or nodes >= {hops + 1})")
    spacing = BUILDER.argument("spacing", spacing, "topology.spacing")
    rts = BUILDER.argument("rts", rts, "topology.rts")
    topo = Topology(f"mesh{hops}-{total}")
    def add(name: str, x: float, y: float) -> None:
        topo.add_station(name, (x, y, 0.0), mode="mesh", channel=channel, rate=rate, rts=rts,
                         phy="g", txpower_dbm=txpower_dbm, retry_limit=retry_limit)

    path = [station_name(i) for i in range(hops + 1)]
    for i, name in enumerate(path[:-1]):
        add(name, i * float(spacing), 0.0)
    for j in range(total - hops - 1):
        add(bystander_name(j), j * float(spacing), 1.0)
    add(path[-1], hops * float(spacing), 0.0)
    for a, b in zip(path, path[1:]):
        topo.add_link(a, b)
    return topo


#: What ``topology: {builder: mesh_chain, ...}`` accepts.
BUILDER = Builder(
    name="mesh_chain",
    build=build,
    doc="802.11s mesh points in one room; peer links only along the chain sta1 .. "
        "sta<hops+1> (plink_action block), HWMP with the airtime metric finds the path.",
    params=(
        ParamSpec("hops", "int", "hops of the enforced path", default=3, min=1,
                  max=MAX_NODES - 1),
        ParamSpec("nodes", "int", "mesh points in the room (the path's, plus bystanders)",
                  default=None, min=2, max=MAX_NODES, nullable=True, null_label="hops + 1"),
        ParamSpec("spacing", "float", "metres between neighbours on the line", default=1.0,
                  min=0.1),
        ParamSpec("rate", "choice", "fixed PHY rate in Mbit/s, or auto (minstrel)",
                  default="auto", choices=RATE_CHOICES),
        ParamSpec("rts", "bool", "RTS/CTS before every data frame", default=False),
        CHANNEL,
        TXPOWER_DBM.variant(nullable=True, null_label="radio default"),
        RETRY_LIMIT.variant(doc="short and long retry limit of every radio", nullable=True,
                            null_label="kernel default"),
    ),
)
