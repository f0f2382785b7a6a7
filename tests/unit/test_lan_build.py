"""Switches, access points, managed stations, shaped links and walls: the descriptions, the
configs and the checks made before anything starts (pure, no root)."""
from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.kernel import cleanup, hostapd, naming, shaping
from harness.medium import propagation
from harness.medium.spec import MediumSpec, Wall
from harness.net import AccessPoint, ManagedStation, Network, Switch, check_topology
from harness.net.coverage import medium_for, serving_ap
from harness.net.topo import Topology
from topologies import build
from topologies.geometry import medium_defaults

OFFICE = MediumSpec.from_dict(medium_defaults("office-003"))


def hybrid(distance: float = 15.0, **kw) -> Topology:
    return build("lan", wireless=True, distance=distance, **kw)


def test_wired_and_hybrid_lans_from_one_builder():
    wired = build("lan")
    assert [wired.node_kind(n) for n in wired.node_names()] == ["host", "host", "switch"]
    assert wired.primary_ip("server") == "10.0.0.1" and wired.primary_ip("client") == "10.0.0.2"
    assert all(l.params == {"bw": 100.0, "queue": 1000} for l in wired.links)
    assert all((l.ip_b is None) for l in wired.links)  # the switch's ports have no address
    t = hybrid()
    assert {n: t.node_kind(n) for n in t.node_names()} == {
        "client": "managed_station", "server": "host", "sw1": "switch", "ap1": "access_point"}
    assert t.primary_ip("client") == "10.0.0.2" and t.primary_ip("server") == "10.0.0.1"
    assert t.association("client") == "ap1" and t.addresses("ap1") == []
    assert [l.kind for l in t.links] == ["veth", "veth", "association"]
    assert [w.x1 for w in t.walls] == [5.0, 10.0]
    net = Network(t)
    assert net._node_class("sw1") is Switch and net._node_class("ap1") is AccessPoint
    assert net._node_class("client") is ManagedStation
    assert "switch  sw1" in str(t) and "wall    (5,-20)-(5,20)" in str(t)
    assert t.to_dict()["access_points"][0]["rate"] == 54.0
    assert "switches" not in Topology("plain").to_dict()  # old descriptions unchanged


def test_mininet_style_api_and_link_kinds():
    t = Topology("m")
    t.add_host("h1")
    t.add_switch("s1")
    t.add_access_point("ap1", (0, 0), security="wpa2", passphrase="a secret!")
    t.add_station("sta1", (5, 0), mode="managed")
    t.add_link("h1", "s1", bw=10)
    t.add_link("ap1", "s1", bw=100)
    t.add_link("sta1", "ap1")
    assert t.links[0].params == {"bw": 10.0} and t.links[0].ip_a == "10.0.0.2/24"
    assert t.stations["sta1"].ip == "10.0.0.1/24"  # the host took the next free LAN address
    t.add_station("ibss1", (1, 1))
    with pytest.raises(HarnessError, match="stations in mode managed"):
        t.add_link("ibss1", "ap1")
    with pytest.raises(HarnessError, match="a switch's ports are wired"):
        t.add_link("ibss1", "s1")
    with pytest.raises(HarnessError, match="one access point per station"):
        t.add_access_point("ap2", (9, 9))
        t.add_link("sta1", "ap2")
    with pytest.raises(HarnessError, match="its ports have no address"):
        t.add_link("h1", "s1", ip_b="10.0.0.9/24")


@pytest.mark.parametrize("params, match", [
    ({"bw": 0}, "not a bandwidth the shaper can do: allowed 0.001..1000 Mbit/s"),
    ({"bw": 5000}, "not a bandwidth the shaper can do"),
    ({"bw": "fast"}, "not a bandwidth the shaper can do"),
    ({"queue": 10}, "queue needs bw"),
    ({"bw": 10, "queue": 0}, "allowed an integer 1..100000"),
    ({"delay": 5}, "parameter 'delay' is unknown: allowed bw, queue"),
])
def test_bad_link_parameters(params, match):
    t = Topology("b")
    t.add_host("h1")
    t.add_switch("s1")
    with pytest.raises(HarnessError, match=match):
        t.add_link("h1", "s1", **params)


def test_bad_access_points():
    with pytest.raises(HarnessError, match="security 'wep' is invalid: allowed open, wpa2"):
        Topology().add_access_point("ap1", security="wep")
    with pytest.raises(HarnessError, match="needs a passphrase of 8..63"):
        Topology().add_access_point("ap1", security="wpa2", passphrase="short")
    with pytest.raises(HarnessError, match="a passphrase needs security: wpa2"):
        Topology().add_access_point("ap1", passphrase="long enough")
    with pytest.raises(HarnessError, match="ssid"):
        Topology().add_access_point("ap1", ssid="x" * 33)


def test_an_access_point_without_a_switch_fails_before_anything_starts():
    t = Topology("noswitch")
    t.add_host("h1")
    t.add_access_point("ap1")
    t.add_link("h1", "ap1")
    t.add_station("sta1", (5, 0), mode="managed")
    with pytest.raises(HarnessError, match="access point 'ap1' has no switch: link it to one"):
        check_topology(t, OFFICE)
    with pytest.raises(HarnessError, match="has no switch"):
        Network(t).check()  # the first thing start() does


def test_a_station_with_no_access_point_in_range_fails_before_anything_starts():
    far = hybrid(distance=5000.0)
    with pytest.raises(HarnessError, match=r"station 'client' has no access point in range: "
                                           r"ap1 at 5000.0 m through 2 wall\(s\)"):
        check_topology(far, medium_for(far, OFFICE))
    t = Topology("none")
    t.add_station("sta1", mode="managed")
    with pytest.raises(HarnessError, match="no access point on channel 1: add_access_point"):
        check_topology(t, None)
    t.add_access_point("ap1", channel=6)
    with pytest.raises(HarnessError, match=r"no access point on channel 1 \(access points: ap1\)"):
        check_topology(t, None)


def test_walls_need_indoor_propagation_and_reach_the_medium():
    t = hybrid()
    with pytest.raises(HarnessError, match="has 2 wall.s.: they need medium propagation: indoor"):
        medium_for(t, MediumSpec())
    spec = medium_for(t, OFFICE)
    assert spec is not None and [w.x1 for w in spec.walls] == [5.0, 10.0]
    assert medium_for(t, None) is None
    assert Network(t, medium=medium_defaults("office-003")).medium_spec().walls == spec.walls


def test_propagation_matches_the_medium_formulas():
    spec = MediumSpec(propagation="indoor", exponent=2.0, wall_loss=6.9,
                      walls=[Wall(5, -1, 5, 1), Wall(8, -1, 8, 1, 3.0), Wall(20, -1, 20, 1)])
    friis_1m = 20 * math.log10(4 * math.pi * 2412e6 / 299792458.0)
    loss = propagation.path_loss_db(spec, 2412, (0, 0, 0), (10, 0, 0))
    assert loss == pytest.approx(friis_1m + 20 + 6.9 + 3.0)  # the wall at x=20 is not crossed
    assert propagation.noise_floor_dbm("g") == pytest.approx(-174 + 73.0103 + 6, abs=1e-3)
    ns2 = MediumSpec(propagation="two_ray", tx_range=250.0)
    # the sensitivity is the power at the transmission range: a radio there is just in range
    sens = propagation.rx_sensitivity_dbm(ns2, 2412)
    assert propagation.rx_power_dbm(ns2, 2412, (0, 0, 0), (250, 0, 0)) == pytest.approx(sens)
    assert propagation.rx_sensitivity_dbm(MediumSpec(), 2412) == -90.0


def test_the_paper_geometry_is_in_range_with_a_wide_snr_margin():
    t = hybrid()
    spec = medium_for(t, OFFICE)
    assert serving_ap(t, "client", spec) == "ap1"
    from harness.net.coverage import reception
    r = reception(t.stations["client"], t.access_points["ap1"], spec)
    assert r.walls == 2 and r.down_dbm == pytest.approx(15 - (40.05 + 23.52 + 13.8), abs=0.05)
    assert 32 < r.snr_db < 33


def test_hostapd_and_supplicant_configs():
    conf = hostapd.hostapd_conf(intf="wlan0", bridge="br0", ctrl_dir="/tmp/x/ctrl", ssid="net",
                                channel=6, phy="g", rate=54.0)
    assert "hw_mode=g" in conf and "channel=6" in conf and "bridge=br0" in conf
    assert "basic_rates=60 540" in conf and "wpa=" not in conf and "ieee80211n=0" in conf
    wpa = hostapd.hostapd_conf(intf="wlan0", bridge="br0", ctrl_dir="/c", ssid="net", channel=1,
                               phy="g", rate=None, security="wpa2", passphrase="12345678")
    assert "wpa_passphrase=12345678" in wpa and "rsn_pairwise=CCMP" in wpa
    assert "basic_rates=10 20 55 110" in wpa
    sup = hostapd.supplicant_conf(ctrl_dir="/c", ssid="net", freq=2437, security="wpa2",
                                  passphrase="12345678")
    assert 'ssid="net"' in sup and "scan_freq=2437" in sup and 'psk="12345678"' in sup
    assert "key_mgmt=NONE" in hostapd.supplicant_conf(ctrl_dir="/c", ssid="n", freq=2412)


def test_shaping_lines_and_the_ethernet_goodput_limit():
    lines = shaping.shape_lines("eth0", 100.0, 1000)
    assert lines[-1] == "tc qdisc replace dev eth0 root netem rate 100000000bit 24 limit 1000"
    assert "tso off gso off gro off" in lines[0]
    assert shaping.goodput_limit_mbps(100.0) == pytest.approx(94.15, abs=0.01)


def test_daemon_run_directories_of_a_killed_run_are_cleaned(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    tag = naming.new_tag()
    mine = cleanup.new_run_dir(naming.daemon_dir_prefix(tag, "ovs", "sw1"))
    assert mine.name.startswith(f"hx-{tag}-ovs-sw1-")
    dead = tmp_path / f"hx-{tag}-hostapd-ap1-abc"
    dead.mkdir()
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    (dead / cleanup.OWNER_FILE).write_text(f"{child.pid} 1\n")  # an owner that is gone
    left = cleanup.harness_objects_left(tag)
    assert f"OVS run directory {mine}" in left and f"hostapd run directory {dead}" in left
    report = cleanup.clean(tag)
    assert report.of("hostapd run directory") == [str(dead)] and mine.exists()
    assert not dead.exists()
    os.utime(mine, (time.time(), time.time()))
    cleanup.remove_dir(mine)
    assert Path(tmp_path).exists()


@pytest.mark.parametrize("topology, match", [
    ("{builder: lan, wireless: true, distance: 3000}",
     "topology: station 'client' has no access point in range: ap1 at 3000.0 m"),
    ("{builder: lan, bw: 2000}", "topology.bw: 2000.0 is out of range"),
    ("{builder: lan, wireless: true, security: wpa2}", "security wpa2 needs a passphrase"),
])
def test_experiment_files_with_a_network_that_cannot_start_fail_at_validation(topology, match):
    from harness.experiment import schema
    text = f"name: bad\ntopology: {topology}\nflows: [{{src: server, dst: client}}]\n"
    with pytest.raises(HarnessError, match=match) as err:
        schema.loads(text, source=Path("bad.yaml"))
    assert str(err.value).startswith("bad.yaml:2: topology")
