"""MANET routing's pure parts: the topology's ``routing`` setting, the parsers of each
protocol's table, the route log's changes, the ``manet`` builder and ``max_rto``."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.experiment.schema import SchemaError, from_dict
from harness.kernel import routing as proto
from harness.net.routing import batman_mac, changes
from policies.tcp import MaxRto
from topologies.chain import build as chain
from topologies.manet import build as manet

#: ``batctl meshif bat0 originators -H`` of B.A.T.M.A.N. IV (batctl 2023.0): two routes to
#: the second originator, the best marked.
ORIGINATORS = """\
 * 02:68:78:00:01:00    0.384s   (255) 02:68:78:00:01:00 [     wlan0]
   02:68:78:00:02:00    0.132s   (181) 02:68:78:00:03:00 [     wlan0]
 * 02:68:78:00:02:00    0.132s   (207) 02:68:78:00:01:00 [     wlan0]
   02:68:78:00:04:00    3.200s   ( 12) 02:68:78:00:01:00 [     wlan0]
"""


def test_the_best_batman_route_per_originator():
    assert proto.parse_originators(ORIGINATORS) == {
        "02:68:78:00:01:00": "02:68:78:00:01:00", "02:68:78:00:02:00": "02:68:78:00:01:00"}
    assert proto.parse_originators("") == {}


def test_babel_host_routes_from_ip_json():
    text = json.dumps([
        {"dst": "10.0.0.4", "gateway": "10.0.0.2", "dev": "wlan0", "protocol": "babel"},
        {"dst": "10.0.0.2", "dev": "wlan0", "protocol": "babel", "scope": "link"},
        {"dst": "10.0.0.0/24", "dev": "wlan0", "protocol": "kernel"},
        {"dst": "10.9.0.0/16", "gateway": "10.0.0.2", "protocol": "babel"}])
    assert proto.parse_ip_routes(text) == {"10.0.0.4": "10.0.0.2", "10.0.0.2": None}


def test_babeld_announces_only_its_own_address(tmp_path: Path):
    args = proto.babeld_args(tmp_path, "wlan0", "10.0.0.3/24", "02:68:78:00:02:00")
    assert args[0] == "babeld" and args[-1] == "wlan0"
    rules = [args[i + 1] for i, a in enumerate(args) if a == "-C"]
    assert rules[0] == "router-id 02:68:78:ff:fe:00:02:00"
    assert rules[1] == "redistribute local ip 10.0.0.3/32 allow"
    assert rules[-1] == "redistribute deny"
    assert all(str(tmp_path) in args[i + 1] for i, a in enumerate(args) if a in ("-I", "-S", "-L"))


def test_batman_keeps_a_fixed_unicast_address_and_room_for_its_header():
    mac = batman_mac("02:68:78:00:01:00")
    assert mac == "06:68:78:00:01:00" and int(mac[:2], 16) & 1 == 0
    lines = proto.batman_setup_lines("wlan0", mac)
    assert f"mtu {proto.BATMAN_MTU}" in lines[0] and proto.BATMAN_MTU == 1532
    assert proto.batman_join_lines("10.0.0.1/24")[-1] == "ip addr add 10.0.0.1/24 dev bat0"


@pytest.mark.parametrize("protocol,kind", [("batman-adv", "batman_station"),
                                           ("babel", "babel_station"), ("hwmp", "mesh_point")])
def test_a_protocol_replaces_the_builders_routes(protocol, kind):
    topo = chain(hops=3)
    assert topo.routes and topo.node_kind("sta1") == "station"
    topo.set_routing(protocol)
    assert topo.routes == [] and topo.node_kind("sta1") == kind
    assert topo.to_dict()["routing"] == protocol


def test_unknown_and_missing_protocols_are_refused_with_the_allowed_ones():
    topo = chain(hops=2)
    with pytest.raises(HarnessError, match="allowed: static, batman-adv, babel, hwmp"):
        topo.set_routing("aodv")
    with pytest.raises(HarnessError, match="olsr.*not available.*Debian"):
        topo.set_routing("olsr")
    topo.set_routing("batman_adv")  # Mininet-WiFi's spelling
    assert topo.routing == "batman-adv"
    static = chain(hops=2)
    static.set_routing("static")
    assert static.routes and "routing" not in static.to_dict()


def test_the_experiment_key_is_checked_and_left_out_when_static():
    base = {"name": "r", "flows": [{"src": "first", "dst": "last", "duration": 5}]}
    plain = from_dict({**base, "topology": {"builder": "chain", "hops": 2}})
    assert "routing" not in plain.base["topology"]
    routed = from_dict({**base, "topology": {"builder": "chain", "routing": "babel"}})
    assert routed.base["topology"]["routing"] == "babel"
    with pytest.raises(SchemaError) as err:
        from_dict({**base, "topology": {"builder": "chain", "routing": "dsr"}})
    assert "topology.routing" in str(err.value) and "hwmp" in str(err.value)


def test_the_log_keeps_new_changed_and_lost_next_hops():
    before = {"sta2": {"sta4": "sta3", "sta1": "sta1"}}
    after = {"sta2": {"sta4": "sta5", "sta3": "sta5"}}
    assert changes(before, after, 7.0) == [
        {"t": 7.0, "node": "sta2", "dst": "sta1", "via": None},
        {"t": 7.0, "node": "sta2", "dst": "sta3", "via": "sta5"},
        {"t": 7.0, "node": "sta2", "dst": "sta4", "via": "sta5"}]
    assert changes(after, after, 8.0) == []


def test_manet_nodes_start_inside_the_area_the_same_way_each_time():
    topo = manet(nodes=50, width=1500, height=300, layout_seed=4)
    positions = [s.position for s in topo.stations.values()]
    assert len(positions) == 50 and topo.routes == [] and topo.links == []
    assert all(0 <= x <= 1500 and 0 <= y <= 300 for x, y, _ in positions)
    assert positions == [s.position for s in manet(nodes=50, layout_seed=4).stations.values()]
    assert positions != [s.position for s in manet(nodes=50, layout_seed=5).stations.values()]


def test_max_rto_is_checked_in_seconds():
    assert MaxRto(2).value == 2.0 and not MaxRto(None).active
    with pytest.raises(HarnessError, match="max_rto"):
        MaxRto(0.1)


def test_queue_use_over_the_flows_from_the_medium_counters():
    from harness.medium.counters import queue_snapshot, queue_use
    start = queue_snapshot({"radios": [
        {"node": "sta1", "queue_wait_us": 1e6, "queue_drops": 3},
        {"node": "sta2", "queue_wait_us": 0.0, "queue_drops": 0}]})
    end = {"sta1": {"queue_wait_us": 1e6 + 50e6, "queue_drops": 13},
           "sta2": {"queue_wait_us": 10e6, "queue_drops": 0}}
    use = queue_use(start, end, 10.0)   # 50 frame-s over 10 s: 5 frames waiting on average
    assert use["per_radio"] == {"sta1": 5.0, "sta2": 1.0}
    assert use["mean_queue"] == 3.0 and use["max_queue"] == 5.0 and use["overflow_drops"] == 10
    with pytest.raises(HarnessError):
        queue_use({}, end, 10.0)
