"""MANET routing converges on a chain and re-converges when a relay leaves and another
arrives, for each protocol ``topology.routing`` offers::

    sta1 ---- sta2 ---- sta3 ---- sta4          200 m apart, 250 m range (ns-2 geometry)
                        sta5 (400, 400)         out of everyone's range

    then sta3 -> (400, 400) and sta5 -> (400, 0): sta2 must reach sta4 through sta5, and
    sta4 reach sta1 through sta5; then a ping crosses the new path.

No route is declared: the protocol finds them (HWMP when traffic asks, so a ping per
reading). The route log of the move must show sta2's next hop to sta4 turn to sta5.
"""
from __future__ import annotations

import time
from typing import Any, Dict, List

import pytest

from harness.medium.spec import MediumSpec
from harness.net import routing
from harness.net.network import Network
from harness.net.topo import Topology
from harness.traffic.flows import ping
from topologies.chain import build

pytestmark = pytest.mark.emulation

PROTOCOLS = ["batman-adv", "babel", "hwmp"]
#: Guest seconds a protocol may take to find the new relay (babel notices a lost neighbour
#: after a few missed 4 s hellos).
RECONVERGE_S = 90.0


def chain_with_spare(protocol: str) -> Topology:
    topo = build(hops=3, spacing=200, phy="b", rate=2)
    topo.add_station("sta5", (400, 400, 0), phy="b", rate=2)
    topo.set_routing(protocol)
    return topo


def medium() -> MediumSpec:
    return MediumSpec.from_dict({"tx_range": 250, "cs_range": 550})


def move(net: Network, name: str, x: float, y: float) -> None:
    assert net.medium_handle is not None
    for radio in net.radios:
        if radio.node == name:
            net.medium_handle.control.set_position(radio.mac, x, y, 0.0)


def wait_for_next_hop(net: Network, node: str, dst: str, via: str) -> float:
    """Guest seconds until ``node`` routes ``dst`` via ``via`` (pinging, for HWMP)."""
    start = time.monotonic()
    while time.monotonic() - start < RECONVERGE_S:
        if net.topo.routing == "hwmp":
            ping(net, node, dst, count=1)
        if routing.table(net, node).get(dst) == via:
            return time.monotonic() - start
        time.sleep(1.0)
    raise AssertionError(f"{node} does not route {dst} via {via} after {RECONVERGE_S:g} s: "
                         f"{routing.table(net, node)}")


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_routes_converge_on_a_chain_and_follow_a_relay_that_moves(make_network, protocol):
    net = make_network(chain_with_spare(protocol), medium=medium())
    found = routing.converge(net, [("sta1", "sta4")])
    print(f"\n{protocol}: converged in {found['converged_s']} s")
    assert found["without_route"] == [], found
    assert routing.table(net, "sta1")["sta4"] == "sta2"
    assert routing.table(net, "sta2")["sta4"] == "sta3"
    assert ping(net, "sta1", "sta4", count=3).received >= 1

    log = routing.RouteLog(net, interval=1.0)
    move(net, "sta3", 400, 400)
    move(net, "sta5", 400, 0)
    took = wait_for_next_hop(net, "sta2", "sta4", "sta5")
    back = wait_for_next_hop(net, "sta4", "sta1", "sta5")
    entries: List[Dict[str, Any]] = log.stop()
    print(f"{protocol}: re-converged in {took:.1f} s (and {back:.1f} s more the way back); log: "
          + "; ".join(f"{e['t']}s {e['node']}->{e['dst']} via {e['via']}" for e in entries
                      if e["dst"] == "sta4"))
    assert any(e["node"] == "sta2" and e["dst"] == "sta4" and e["via"] == "sta5"
               and e["t"] > 0 for e in entries), entries
    assert ping(net, "sta1", "sta4", count=5).received >= 1


def test_hwmp_mesh_points_forward_each_broadcast_once(make_network, tmp_path):
    """Twelve mesh points in one another's range, started together: each forwards every
    mesh broadcast once, so none goes on the air more than 12 times.

    With IPv6 on, their autoconfiguration multicasts carried the same mesh sequence numbers
    (every counter starts at 0) and the kernel's cache of seen broadcasts, 3 per sequence
    number, missed them: they were forwarded as new up to the mesh TTL (a 50-node run put
    one of them on the air 8204 times). Under ``routing: hwmp`` the radios carry IPv4 only."""
    from harness.medium.pcap import mesh_broadcast_copies
    from topologies.manet import build as manet
    topo = manet(nodes=12, width=150, height=150)
    topo.set_routing("hwmp")
    pcap = tmp_path / "medium.pcap"
    net = make_network(topo, medium=MediumSpec.from_dict(
        {"tx_range": 250, "cs_range": 550, "pcap": str(pcap)}))
    pairs = [("sta1", "sta2"), ("sta3", "sta4"), ("sta5", "sta6"), ("sta7", "sta8")]
    found = routing.converge(net, pairs)             # pings: ARP requests, flooded
    assert found["without_route"] == [], found
    addresses = net["sta1"].cmd(["ip", "-6", "addr", "show", "dev", "wlan0"]).stdout
    time.sleep(5)
    net.stop()
    copies = mesh_broadcast_copies(pcap)
    print(f"\n{len(copies)} mesh broadcasts: copies {sorted(copies.values())}")
    assert len(copies) >= len(pairs), copies          # the ARP requests at least
    assert max(copies.values()) <= 12, copies
    assert not [k for k in copies if k[2] == 0x86DD], copies
    assert addresses.strip() == "", addresses
