"""Two stations on one hop: radios, IBSS join, ping, iperf3 TCP; and a clean stop."""
from __future__ import annotations

import re

import pytest

from harness.errors import HarnessError
from harness.kernel.cleanup import harness_objects_left
from harness.net.network import Network
from harness.traffic.flows import ping, run_iperf

pytestmark = pytest.mark.emulation


def test_two_stations_ping_and_tcp(make_network, pair):
    net = make_network(pair())
    sta1, sta2 = net["sta1"], net["sta2"]
    assert sta1.ip == "10.0.0.1" and sta2.ip == "10.0.0.2"
    assert [r.mac for r in net.radios] == ["02:68:78:00:00:00", "02:68:78:00:01:00"]
    link = sta1.cmd(["iw", "dev", "wlan0", "link"]).stdout
    assert "Joined IBSS" in link, link
    p = ping(net, "sta1", "sta2", count=10)
    print(f"\n1 hop ping: {p.received}/{p.sent}, rtt avg {p.avg_ms} ms (min {p.min_ms}, max {p.max_ms})")
    assert p.received >= 9, p
    assert p.ttls and p.ttls[0] == 64
    # paced: without a medium hwsim is an unshaped path (zero time in a UML guest)
    flow = run_iperf(net, "sta1", "sta2", duration=5, bitrate="20M")
    print(f"1 hop iperf3 TCP: {flow.throughput_mbps:.1f} Mbit/s, retransmits {flow.retransmits}")
    assert flow.throughput_bps > 1e6, flow
    assert len(flow.intervals) >= 4


def test_fixed_rate_and_phy_settings(make_network, pair):
    net = make_network(pair(rate=54, rts=True, retry_limit=3, txpower_dbm=10))
    sta1 = net["sta1"]
    radio = net.radios[0]
    assert radio.phy == radio.name, "hwsim names the wiphy after RADIO_NAME"
    info = sta1.cmd(["iw", "phy", radio.phy, "info"]).stdout
    assert "RTS threshold: 0" in info
    assert re.search(r"Retry short (long )?limit: 3", info), info  # iw merges equal limits
    ping(net, "sta1", "sta2", count=5)
    station = sta1.cmd(["iw", "dev", "wlan0", "station", "dump"]).stdout
    assert "54.0 MBit/s" in station, station


def test_stop_is_idempotent_and_leaves_nothing(pair):
    net = Network(pair(), medium="none")
    with net:
        tag = net.tag
        net["sta1"].popen(["sleep", "600"])
        assert harness_objects_left(tag)
    net.stop()
    assert harness_objects_left(tag) == []


def test_failed_start_tears_down(pair):
    t = pair()
    t.add_route("sta1", "10.9.0.0/24", via="10.0.0.77")  # gateway nobody has: kernel accepts it
    t.add_route("sta2", "10.9.0.0/24", via="192.168.99.1")  # not on link: ip route fails
    net = Network(t, medium="none")
    with pytest.raises(HarnessError):
        net.start()
    assert harness_objects_left(net.tag) == []
