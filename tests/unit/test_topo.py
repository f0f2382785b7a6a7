"""Topology descriptions, wireless command lines, naming: pure, no root."""
from __future__ import annotations

import pytest

from harness.errors import HarnessError
from harness.kernel import naming, tcp, wireless
from harness.net.topo import Topology
from topologies import build, chain


def test_station_defaults_and_addresses():
    t = Topology("t")
    t.add_station("sta1", (0, 0))
    t.add_station("sta2", (100, 0, 1), rate=11, phy="b", rts=True, retry_limit=4)
    assert t.stations["sta1"].ip == "10.0.0.1/24"
    assert t.stations["sta2"].ip == "10.0.0.2/24"
    assert t.stations["sta1"].position == (0.0, 0.0, 0.0)
    assert t.stations["sta2"].rate == 11.0
    assert "sta2" in str(t) and "802.11b" in str(t)


@pytest.mark.parametrize("kwargs, match", [
    ({"mode": "adhoc"}, "allowed ibss, mesh"),
    ({"channel": 15}, r"channel: 15 is out of range; expected an integer in \[1, 14\]"),
    ({"phy": "n"}, "allowed b, g"),
    ({"rate": 54, "phy": "b"}, "allowed None .auto. or 1, 2, 5.5, 11"),
    ({"rate": 7}, "Mbit/s"),
    ({"rts": "yes"}, "threshold"),
    ({"retry_limit": 0}, r"retry_limit of 'sta1': 0 is out of range; expected an integer in "
                         r"\[1, 31\]"),
    # mac80211 refuses more than 31 (IEEE80211_MAX_TX_RETRY): so does the description
    ({"retry_limit": 32}, r"retry_limit of 'sta1': 32 is out of range"),
    ({"retry_limit": True}, r"retry_limit of 'sta1': true \(bool\) is not allowed"),
    ({"rts": 2348}, r"threshold in bytes, an integer in \[0, 2347\]"),
    ({"antenna_gain_dbi": 41}, r"antenna_gain_dbi of 'sta1': 41.0 is out of range; expected a "
                               r"number in \[-20.0, 40.0\]"),
    ({"ip": "10.0.0.300"}, "not an IP"),
])
def test_bad_station_parameters(kwargs, match):
    with pytest.raises(HarnessError, match=match):
        Topology().add_station("sta1", **kwargs)


def test_duplicates_and_bad_names():
    t = Topology("t")
    t.add_station("sta1")
    with pytest.raises(HarnessError, match="used twice"):
        t.add_host("sta1")
    with pytest.raises(HarnessError, match="used twice"):
        t.add_station("sta2", ip="10.0.0.1")
    with pytest.raises(HarnessError, match="invalid"):
        t.add_station("Sta-1")
    with pytest.raises(HarnessError, match="unknown node 'nope'"):
        t.add_link("sta1", "nope")


def test_links_and_routes():
    t = Topology("t")
    for i in range(3):
        t.add_station(f"sta{i + 1}", (i * 100, 0))
    t.add_host("srv", ip="192.168.5.1/24")
    t.add_link("sta1", "sta2")
    t.add_link("sta2", "sta3")
    veth = t.add_link("sta3", "srv")
    assert veth.kind == "veth" and veth.ip_b == "192.168.5.1/24"
    assert veth.ip_a == "192.168.5.2/24"
    with pytest.raises(HarnessError, match="declared twice"):
        t.add_link("sta2", "sta1")
    assert t.wireless_neighbours("sta2") == ["sta1", "sta3"]
    r = t.add_route("sta1", "sta3", via="sta2")
    assert t.resolve_route(r) == ("10.0.0.3/32", "10.0.0.2")
    r = t.add_route("srv", "10.0.0.0/24", via="sta3")
    assert t.resolve_route(r) == ("10.0.0.0/24", "192.168.5.2")
    with pytest.raises(HarnessError, match="share no subnet"):
        t.add_route("sta1", "srv", via="srv")
    auto = t.add_link("sta1", t.add_host("h2"))
    assert (auto.ip_a, auto.ip_b) == ("10.201.0.1/24", "10.201.0.2/24")
    with pytest.raises(HarnessError, match="neither a node nor a CIDR"):
        t.add_route("sta1", "far", via="sta2")
    d = t.to_dict()
    assert len(d["stations"]) == 3 and len(d["routes"]) == 2


def test_chain_builder():
    t = chain.build(hops=3, spacing=150)
    assert list(t.stations) == ["sta1", "sta2", "sta3", "sta4"]
    assert t.stations["sta4"].position == (450.0, 0.0, 0.0)
    routes = {(r.node, r.dst): r.via for r in t.routes}
    assert routes[("sta1", "sta4")] == "sta2"
    assert routes[("sta4", "sta1")] == "sta3"
    assert routes[("sta2", "sta4")] == "sta3"
    assert ("sta1", "sta2") not in routes
    mesh = build("chain", hops=2, mode="mesh", rate=54, rts=True)
    assert not mesh.routes and mesh.stations["sta1"].rts is True
    # build() from Python follows the rules an experiment file's topology keys follow
    with pytest.raises(HarnessError, match=r"^hops: 0 is out of range; expected an integer in "
                                           r"\[1, 64\]$"):
        chain.build(hops=0)
    with pytest.raises(HarnessError, match=r"^spacing: 0.05 is out of range"):
        chain.build(spacing=0.05)
    with pytest.raises(HarnessError, match=r"^mode: adhoc \(str\) is not allowed; expected one "
                                           r"of ibss, mesh$"):
        chain.build(mode="adhoc")
    with pytest.raises(HarnessError, match=r"^walls: 51 is out of range"):
        build("lan", wireless=True, walls=51)
    with pytest.raises(HarnessError, match="allowed campus, chain"):
        build("ring")


def test_wireless_lines():
    assert wireless.channel_freq(1) == 2412 and wireless.channel_freq(11) == 2462
    lines = wireless.join_lines("wlan0", "ibss", network_id="hx-1", freq=2412, phy="g", rate=54.0,
                                bssid="02:68:78:ff:ff:00", auto_open_plinks=False)
    assert "basic-rates 6,54 mcast-rate 6" in lines[1] and "NOHT" in lines[1]
    assert lines[2] == "iw dev wlan0 set bitrates legacy-2.4 54 ht-mcs-2.4"
    mesh = wireless.join_lines("wlan0", "mesh", network_id="m", freq=2437, phy="b", rate=None,
                               bssid="", auto_open_plinks=False)
    assert "mesh join m freq 2437 NOHT basic-rates 1,2,5.5,11" in mesh[1]
    assert mesh[1].endswith("mesh_auto_open_plinks=0")
    assert mesh[2].endswith("legacy-2.4 1 2 5.5 11 ht-mcs-2.4")
    prep = wireless.prepare_lines("hx-1", "wlan0", "mesh", rts=True, retry_limit=7, txpower_dbm=15)
    assert prep == ["iw phy hx-1 interface add wlan0 type mp", "iw phy hx-1 set rts 0",
                    "iw phy hx-1 set retry short 7 long 7", "iw phy hx-1 set txpower fixed 1500"]
    assert wireless.prepare_lines("p", "w", "ibss", rts=False)[1] == "iw phy p set rts off"


def test_naming_roundtrip():
    tag = naming.new_tag()
    assert naming.parse_netns(naming.netns_name(tag, "sta1")) == naming.ParsedName(tag, "sta1")
    assert naming.parse_radio(naming.radio_name(tag, "sta1", 2)).radio == 2
    assert naming.parse_netns("hx-zzzz-sta1") is None
    assert naming.parse_radio("phy0") is None
    assert naming.is_harness_bridge(naming.ovs_bridge_name(tag, "s1"))


def test_unknown_congestion_module_names_allowed_values():
    with pytest.raises(HarnessError, match="allowed reno, cubic, bic, htcp, vegas"):
        tcp.check_congestion("newreno")


def test_node_kinds_pick_the_node_and_link_classes():
    from harness.net import Host, MeshPoint, Network, Station, VethLink, WirelessLink
    t = Topology("kinds")
    t.add_station("sta1")
    t.add_station("mp1", mode="mesh")
    t.add_host("srv")
    t.add_link("sta1", "mp1")
    veth = t.add_link("mp1", "srv")
    assert [t.node_kind(n) for n in ("sta1", "mp1", "srv")] == ["station", "mesh_point", "host"]
    assert "kind" not in t.to_dict()["stations"][0]  # derived from mode: stored results unchanged
    net = Network(t)
    assert [net._node_class(n) for n in ("sta1", "mp1", "srv")] == [Station, MeshPoint, Host]
    assert net._link_class(t.links[0]) is WirelessLink and net._link_class(veth) is VethLink
    assert (Station.mode, MeshPoint.mode) == ("ibss", "mesh")

    class QuietStation(Station):
        pass

    assert Network(t, node_classes={"station": QuietStation})._node_class("sta1") is QuietStation
    without_hosts = Network(t)
    del without_hosts.node_classes["host"]
    with pytest.raises(HarnessError, match="kind 'host', which no node class realises: "
                                           "node_classes has station, mesh_point"):
        without_hosts._node_class("srv")
    with pytest.raises(HarnessError, match="no node 'nope'"):
        t.node_kind("nope")
