"""Mininet-WiFi's API on the harness (harness.compat): what a script's calls describe, before
anything starts, and one clear error for what is not supported. Scripts in the style of
Mininet-WiFi's examples are run end to end in tests/emulation/test_mn_wifi.py."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.compat import mn_wifi
from harness.compat.mininet.node import RemoteController
from harness.compat.mn_wifi.link import ITSLink, adhoc, mesh, wmediumd
from harness.compat.mn_wifi.net import Mininet_wifi
from harness.compat.mn_wifi.wmediumdConnector import error_prob, interference
from harness.errors import HarnessError

SCRIPTS = Path(__file__).resolve().parents[1] / "compat" / "scripts"


def adhoc_net(**station_kw):
    net = Mininet_wifi(link=wmediumd, wmediumd_mode=interference)
    stations = [net.addStation(f"sta{i}", position=f"{10 + 40 * (i - 1)},10,0", **station_kw)
                for i in (1, 2, 3)]
    return net, stations


def test_adhoc_script_describes_ibss_stations_with_mininet_wifi_defaults():
    net, (sta1, sta2, sta3) = adhoc_net()
    net.setPropagationModel(model="logDistance", exp=4)
    net.configureNodes()
    for sta in (sta1, sta2, sta3):
        net.addLink(sta, cls=adhoc, intf=f"{sta.name}-wlan0", ssid="adhocNet", mode="g", channel=5)
    topo = net.topology()
    spec = topo.stations["sta2"]
    assert (spec.mode, spec.channel, spec.phy, spec.position) == ("ibss", 5, "g", (50.0, 10.0, 0.0))
    assert spec.txpower_dbm == 24.0  # 14 dBm + 5 dBi at each end
    assert [topo.stations[n].ip for n in ("sta1", "sta2", "sta3")] == [
        "10.0.0.1/8", "10.0.0.2/8", "10.0.0.3/8"]
    assert net.medium_settings() == {"propagation": "log_distance", "exponent": 4.0}
    assert net["sta1"] is sta1 and "sta3" in net and net.get("sta1", "sta2") == [sta1, sta2]
    assert sta1.IP() == "10.0.0.1" and sta1.position == [10.0, 10.0, 0.0]


def test_mesh_range_and_propagation_models_map_to_medium_keys():
    net, stations = adhoc_net(range=100)
    for sta in stations:
        net.addLink(sta, cls=mesh, ssid="meshNet", channel=5)
    assert {s.mode for s in net.topology().stations.values()} == {"mesh"}
    assert net.medium_settings() == {"propagation": "log_distance", "exponent": 3.0,
                                     "tx_range": 100.0}
    cases = [({"model": "friis", "sL": 2}, {"propagation": "free_space", "system_loss": 3.0103}),
             ({"model": "logNormalShadowing", "exp": 3.5, "variance": 4},
              {"propagation": "log_distance", "exponent": 3.5, "shadowing": 2.0}),
             ({"model": "twoRayGround"}, {"propagation": "two_ray"}),
             ({"model": "ITU", "pL": 28, "lF": 4}, {"propagation": "indoor", "exponent": 2.8,
                                                    "floor_loss": 4.0})]
    for params, expected in cases:
        net.setPropagationModel(**params)
        got = {k: round(v, 4) if isinstance(v, float) else v
               for k, v in net.medium_settings().items() if k != "tx_range"}
        assert got == expected, params


def test_unplaced_nodes_stand_a_metre_apart_and_hosts_wire_to_stations():
    net = Mininet_wifi()
    a, b = net.addStation("sta1"), net.addStation("sta2", ip="192.168.0.9/24")
    h1 = net.addHost("h1")
    net.addLink(a, h1)
    topo = net.topology()
    assert [s.position for s in topo.stations.values()] == [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0)]
    assert topo.stations["sta2"].ip == "192.168.0.9/24" and topo.hosts["h1"].ip == "10.0.0.2/8"
    assert [(l.a, l.b, l.kind) for l in topo.links] == [("sta1", "h1", "veth")]
    c0 = net.addController("c0")
    c0.start()  # a script's call: nothing to start, the switches are standalone
    assert net.controllers == [c0] and c0.name == "c0"
    with pytest.raises(HarnessError, match="an external OpenFlow controller"):
        net.addController("c1", controller=RemoteController)
    assert net.controllers == [c0]
    assert b.IP() == "192.168.0.9"


@pytest.mark.parametrize("call, message", [
    (lambda: Mininet_wifi(autoAssociation=True), r"Mininet_wifi\(autoAssociation=...\) is not supported; allowed: link"),
    (lambda: Mininet_wifi(wmediumd_mode=error_prob), "wmediumd_mode=error_prob: allowed interference"),
    (lambda: Mininet_wifi(controller=RemoteController), "an external OpenFlow controller"),
    (lambda: Mininet_wifi().addStation("sta1", wlans=2), "one radio per station"),
    (lambda: Mininet_wifi().addStation("sta1", mode="a"), "mode='a' is not supported; allowed g, b, n"),
    (lambda: Mininet_wifi().addStation("sta1", voltage=3), r"addStation\('sta1', voltage=...\) is not supported"),
    (lambda: Mininet_wifi().addStation("sta1", position="ten,0"), "position 'ten,0' is invalid"),
    (lambda: Mininet_wifi().addCar("car1"), "vehicles"),
    (lambda: Mininet_wifi().setPropagationModel(model="youngModel"), "model='youngModel'"),
    (lambda: Mininet_wifi().setPropagationModel(model="ITU", nFloors=2), "nFloors"),
    (lambda: Mininet_wifi().setMobilityModels(), "Mininet_wifi.setMobilityModels is not supported by the harness; supported: addAccessPoint, addCar"),
])
def test_what_is_not_supported_is_one_clear_error(call, message):
    with pytest.raises(HarnessError, match=message):
        call()


def test_a_routing_protocol_on_the_adhoc_links_becomes_the_topologys():
    net, (sta1, sta2, sta3) = adhoc_net()
    for sta in (sta1, sta2):
        net.addLink(sta, cls=adhoc, ssid="a", proto="batman_adv")
    with pytest.raises(HarnessError, match="another station runs 'batman_adv'"):
        net.addLink(sta3, cls=adhoc, ssid="a", proto="babeld")
    net.addLink(sta3, cls=adhoc, ssid="a", proto="batman_adv")
    topo = net.topology()
    assert topo.routing == "batman-adv" and topo.node_kind("sta1") == "batman_station"


def test_link_refusals_name_what_is_allowed():
    net, (sta1, sta2, sta3) = adhoc_net()
    with pytest.raises(HarnessError, match="proto='olsrd'.*allowed: batman_adv, babeld.*OLSR"):
        net.addLink(sta1, cls=adhoc, ssid="a", proto="olsrd")
    with pytest.raises(HarnessError, match="allowed cls=adhoc"):
        net.addLink(sta1, cls=mesh, ssid="m", proto="babeld")
    with pytest.raises(HarnessError, match="allowed sta1-wlan0"):
        net.addLink(sta1, cls=adhoc, ssid="a", intf="sta1-wlan1")
    with pytest.raises(HarnessError, match=r"cls=ITSLink\) is not supported; allowed: adhoc, mesh"):
        net.addLink(sta1, cls=ITSLink)
    net.addLink(sta1, cls=adhoc, ssid="a")
    with pytest.raises(HarnessError, match="ssid 'b' differs from 'a'"):
        net.addLink(sta2, cls=adhoc, ssid="b")
    with pytest.raises(HarnessError, match="an ad hoc and a mesh network in one script"):
        net.addLink(sta3, cls=mesh, ssid="m")
    with pytest.raises(HarnessError, match="link end 'sta9' is not a node"):
        net.addLink("sta9", cls=adhoc)
    other = Mininet_wifi()
    other.addStation("sta1", range=50)
    other.addStation("sta2", range=80)
    with pytest.raises(HarnessError, match=r"range: \[50.0, 80.0\] m: one transmission range"):
        other.medium_settings()
    with pytest.raises(HarnessError, match="not built: call net.build"):
        sta1.cmd("true")


def test_published_style_script_runs_with_its_own_imports_until_what_is_refused(tmp_path):
    """The mesh script with -m asks for a mobility model the harness does not have: under
    ``harness cli`` one line names the allowed ones, before anything starts."""
    done = subprocess.run([sys.executable, "-m", "harness", "cli", "--engine", "native",
                           str(SCRIPTS / "mesh_chain.py"), "-m"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(SCRIPTS.parents[2])})
    assert done.returncode != 0
    assert "*** Creating nodes" in done.stdout
    assert done.stderr.splitlines() == [
        "*** harness: plotGraph: no live window here; type plot at the prompt to write the "
        "picture", "harness cli: error: startMobility(model='RandomDirection') is not "
        "supported; allowed RandomWayPoint, RandomWaypoint, RandomWalk, GaussMarkov"]
    mn_wifi.install_aliases()
    import mn_wifi.link as aliased  # type: ignore[import-not-found]
    assert aliased.adhoc is adhoc  # the alias is the module itself, not a copy


class Described(Exception):
    """Stops a script at build(), carrying what it described."""


def describe(script: str, *args: str, monkeypatch):
    """Run a script until its build(): the Topology and medium settings it describes."""
    import runpy
    mn_wifi.install_aliases()

    def build(self):
        raise Described(self.topology(), self.medium_settings())

    monkeypatch.setattr(Mininet_wifi, "build", build)
    monkeypatch.setattr(sys, "argv", [str(SCRIPTS / script), *args])
    with pytest.raises(Described) as got:
        runpy.run_path(str(SCRIPTS / script), run_name="__main__")
    return got.value.args


def test_access_point_script_describes_ap_switch_managed_stations_and_a_wired_host(monkeypatch):
    topo, medium = describe("ap_wired.py", "-p", monkeypatch=monkeypatch)
    assert topo.access_points["ap1"].position == (50.0, 50.0, 0.0)
    assert topo.access_points["ap1"].ssid == "new-ssid" and topo.access_points["ap1"].security == "open"
    assert {n: (s.mode, s.channel, s.ip) for n, s in topo.stations.items()} == {
        "sta1": ("managed", 1, "10.0.0.1/8"), "sta2": ("managed", 1, "10.0.0.2/8")}
    assert [(l.a, l.b, l.kind) for l in topo.links] == [("ap1", "ap1_sw", "veth"),
                                                       ("ap1_sw", "h1", "veth")]
    assert topo.hosts["h1"].ip == "10.0.0.3/8"
    assert medium == {"propagation": "log_distance", "exponent": 4.5}


def test_wpa2_access_point_behind_a_switch(monkeypatch):
    topo, _ = describe("ap_switch_wpa2.py", monkeypatch=monkeypatch)
    ap = topo.access_points["ap1"]
    assert (ap.security, ap.passphrase, ap.channel) == ("wpa2", "123456789a", 5)
    assert (topo.stations["sta1"].mode, topo.stations["sta1"].channel) == ("managed", 5)
    assert [(l.a, l.b, l.kind, l.params) for l in topo.links] == [
        ("ap1", "ap1_sw", "veth", {}), ("sta1", "ap1", "association", {}),
        ("ap1_sw", "s1", "veth", {}), ("s1", "h1", "veth", {"bw": 10.0})]


def test_access_point_refusals():
    net = Mininet_wifi()
    with pytest.raises(HarnessError, match="encrypt='wep' is not supported; allowed 'wpa2'"):
        net.addAccessPoint("ap1", encrypt="wep", passwd="x")
    ap = net.addAccessPoint("ap2", ssid="s", encrypt="wpa2", passwd="123456789a")
    sta = net.addStation("sta1", position="1,0,0")
    net.addLink(sta, ap)
    with pytest.raises(HarnessError, match="sta1 associates with ap2, which is WPA2"):
        net.topology()
    with pytest.raises(HarnessError, match="a wire takes bw, max_queue_size"):
        net.addLink(ap, net.addHost("h1"), delay="5ms")
    with pytest.raises(HarnessError, match=r"addSwitch\('s1', listenPort=...\) is not supported"):
        net.addSwitch("s1", listenPort=6673)
