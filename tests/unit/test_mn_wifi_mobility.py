"""Mininet-WiFi's mobility calls (harness.compat.mn_wifi.mobility): what trajectories a
script's calls describe, before anything starts, and one clear error for what is not
supported. The script of tests/compat/scripts/mobility.py runs end to end in
tests/emulation/test_mn_wifi.py."""
from __future__ import annotations

import math
import runpy
import sys
from pathlib import Path

import pytest

from harness.compat import mn_wifi
from harness.compat.mn_wifi import mobility
from harness.compat.mn_wifi.net import Mininet_wifi
from harness.errors import HarnessError
from harness.medium.mobility.trajectory import Area
from harness.medium.mobility.walks import gauss_markov, random_walk
from harness.medium.mobility.waypoint import random_waypoint

SCRIPT = Path(__file__).resolve().parents[1] / "compat" / "scripts" / "mobility.py"


def replay_net(**start_kw):
    """The replay of Mininet-WiFi's mobility example: sta1 and sta2 move, sta3 stands."""
    net = Mininet_wifi()
    sta1, sta2 = net.addStation("sta1"), net.addStation("sta2")
    net.addStation("sta3", position="50,50,0")
    net.startMobility(time=0, **start_kw)
    net.mobility(sta1, "start", time=1, position="10,30,0")
    net.mobility(sta2, "start", time=2, position="10,40,0")
    net.mobility(sta1, "stop", time=12, position="60,30,0")
    net.mobility(sta2, "stop", time=22, position="25,40,0")
    return net


def test_replay_moves_each_node_in_a_straight_line_between_its_start_and_stop():
    net = replay_net()
    net.stopMobility(time=17)
    got = net.trajectories()
    assert set(got) == {"sta1", "sta2"}  # sta3 has no replay: it stands
    sta1, sta2 = got["sta1"], got["sta2"]
    assert sta1.position_at(0.0) == (10.0, 30.0, 0.0)  # at its start position until t=1
    assert sta1.position_at(6.5) == (35.0, 30.0, 0.0)  # halfway, constant speed
    assert sta1.position_at(100.0) == (60.0, 30.0, 0.0)
    assert sta1.speed_at(5.0) == pytest.approx(50.0 / 11.0)
    assert sta2.end == 17.0 and sta2.position_at(30.0) == (21.25, 40.0, 0.0)  # stopMobility cuts it
    topo = net.topology()  # a moving node stands where its motion begins
    assert {n: s.position for n, s in topo.stations.items()} == {
        "sta1": (10.0, 30.0, 0.0), "sta2": (10.0, 40.0, 0.0), "sta3": (50.0, 50.0, 0.0)}


def test_replay_follows_coord_at_constant_speed_and_repeats_backwards():
    net = Mininet_wifi()
    sta1 = net.addStation("sta1")
    sta1.coord = ["0,0,0", "30,0,0", "30,10,0"]  # 40 m in 8 s: 5 m/s
    net.startMobility(time=0, repetitions=3, reverse=True)
    net.mobility(sta1, "start", time=2)
    net.mobility(sta1, "stop", time=10)
    net.stopMobility(time=10)
    traj = net.trajectories()["sta1"]
    assert traj.position_at(8.0) == (30.0, 0.0, 0.0)  # the corner after 30 m
    assert traj.position_at(10.0) == (30.0, 10.0, 0.0)
    assert traj.position_at(12.0) == (30.0, 10.0, 0.0)  # the second time: backwards from t=12
    assert traj.position_at(13.0) == (30.0, 5.0, 0.0)
    assert traj.position_at(14.0) == (30.0, 0.0, 0.0)
    assert traj.position_at(20.0) == (0.0, 0.0, 0.0)
    assert traj.position_at(20.0 + 1e-9) == (0.0, 0.0, 0.0)  # the third: forwards again
    assert traj.position_at(28.0) == (30.0, 0.0, 0.0) and traj.end == 30.0


def test_random_waypoint_is_our_model_in_each_stations_own_area_and_speeds():
    net = Mininet_wifi()
    net.addStation("sta1", min_x=10, max_x=30, min_y=50, max_y=70, min_v=5, max_v=10)
    net.addStation("sta2", min_wt=2, max_wt=4)
    net.addStation("sta3", position="50,50,0")  # a position: it stands
    net.setMobilityModel(time=5, model="RandomWayPoint", max_x=200, max_y=100, seed=20)
    net.stopMobility(time=65)
    got = net.trajectories()
    assert set(got) == {"sta1", "sta2"}
    own = random_waypoint(["sta1"], Area(10, 30, 50, 70), 60.0, 20, min_speed=5, max_speed=10,
                          pause=3.0)["sta1"]  # Mininet-WiFi's waits 1..5 s: 3 s each
    assert got["sta1"] == mobility.shifted(own, 5.0)  # from time=5 on
    assert got["sta1"].position_at(0.0) == own.position_at(0.0)  # until then where it starts
    assert not got["sta1"].outside(Area(10, 30, 50, 70))
    speeds = {round(got["sta1"].speed_at(w.t), 9) for w in got["sta1"].waypoints[:-1]}
    assert 0.0 in speeds and all(s == 0 or 5 <= s <= 10 for s in speeds), speeds  # pauses, legs
    sta2 = random_waypoint(["sta2"], Area(0, 200, 0, 100), 60.0, 20, min_speed=5, max_speed=5,
                           pause=3.0)["sta2"]  # the call's area, the documented 5 m/s
    assert got["sta2"] == mobility.shifted(sta2, 5.0)
    assert net.topology().stations["sta1"].position == own.position_at(0.0)


def test_random_walk_and_gauss_markov_map_to_our_models():
    net = Mininet_wifi()
    net.addStation("sta1", constantDistance=2, constantVelocity=3)
    net.addStation("sta2", speed=4, max_x=50)
    net.setMobilityModel(model="RandomWalk", seed=7)
    net.stopMobility(time=30)
    got = net.trajectories()
    assert got["sta1"] == random_walk(["sta1"], Area(0, 100, 0, 100), 30.0, 7, min_speed=3,
                                      max_speed=3, distance=2)["sta1"]
    assert got["sta2"] == random_walk(["sta2"], Area(0, 50, 0, 100), 30.0, 7, min_speed=4,
                                      max_speed=4, distance=1)["sta2"]
    net.setMobilityModel(model="GaussMarkov", alpha=0.5, velocity_mean=2, variance=0.25, seed=7)
    sd = 0.5
    assert net.trajectories()["sta1"] == gauss_markov(
        ["sta1"], Area(0, 100, 0, 100), 30.0, 7, alpha=0.5, mean_speed=2, speed_sd=sd,
        direction_sd=math.degrees(sd))["sta1"]


def test_without_stop_a_model_moves_nodes_for_ten_minutes_and_one_seed_repeats():
    net = Mininet_wifi()
    net.addStation("sta1")
    net.setMobilityModel(model="RandomWaypoint", seed=3)
    first = net.trajectories()["sta1"]
    assert first.end == mobility.DEFAULT_MOTION_S and first == net.trajectories()["sta1"]
    net.setMobilityModel(model="RandomWaypoint", seed=4)
    assert net.trajectories()["sta1"] != first


def test_the_medium_key_replays_the_trajectories_inside_its_area():
    net = replay_net()
    got = net.trajectories()
    key = mobility.medium_key(got, "/tmp/motion.csv")
    assert key == {"model": "csv", "file": "/tmp/motion.csv", "nodes": ["sta1", "sta2"],
                   "area": {"x": [9.0, 61.0], "y": [29.0, 41.0], "z": [0.0, 0.0]},
                   "duration": 22.0}


def _replay_then(call):
    net = replay_net()
    call(net)
    return net.trajectories()


@pytest.mark.parametrize("call, message", [
    (lambda: Mininet_wifi().setMobilityModel(model="RandomDirection"),
     r"model='RandomDirection'\) is not supported; allowed RandomWayPoint, RandomWaypoint, "
     "RandomWalk, GaussMarkov"),
    (lambda: Mininet_wifi().startMobility(time=0, ac_method="ssf"),
     r"startMobility\(ac_method=...\) is not supported; allowed: time, model"),
    (lambda: Mininet_wifi().setMobilityModel(model="RandomWalk", n_groups=2),
     r"setMobilityModel\(n_groups=...\) is not supported; allowed: time, model"),
    (lambda: Mininet_wifi().startMobility(time=0, repetitions=0), "allowed a whole number >= 1"),
    (lambda: Mininet_wifi().stopMobility(time=-1), r"stopMobility\(time=-1: allowed a number >= 0"),
    (lambda: replay_net().mobility("sta1", "pause", time=3), "allowed 'start' or 'stop'"),
    (lambda: replay_net().mobility("sta1", "start", position="1,1,0"), "give time="),
    (lambda: replay_net().mobility("h1", "start", time=1), "not a station or access point; allowed sta1"),
    (lambda: _replay_then(lambda n: n.mobility("sta3", "start", time=1, position="0,0,0")),
     r"mobility\(sta3, ...\): no 'stop'; give both"),
    (lambda: _replay_then(lambda n: n.mobility("sta1", "stop", time=1, position="0,0,0")),
     r"mobility\(sta1, 'stop', time=1\) is not after its start"),
    (lambda: _replay_then(lambda n: n.startMobility(time=5)), r"before startMobility\(time=5\)"),
    (lambda: _replay_then(lambda n: n.setMobilityModel(model="RandomWalk")),
     "setMobilityModel and mobility"),
    (lambda: _replay_then(lambda n: n.stopMobility(time=0)), r"stopMobility\(time=0\) is not after"),
])
def test_what_is_not_supported_is_one_clear_error(call, message):
    with pytest.raises(HarnessError, match=message):
        call()


@pytest.mark.parametrize("station, message", [
    ({"min_v": 8, "max_v": 2}, "sta1: min_v=8 is above max_v=2"),
    ({"min_v": 0}, "sta1: min_v=0: the random waypoint needs min_v > 0"),
    ({"min_x": 40, "max_x": 40}, "sta1: mobility area min_x..max_x, min_y..max_y: area.x"),
    ({"max_v": "fast"}, "sta1: max_v='fast': allowed a number >= 0"),
])
def test_station_bounds_that_cannot_move_a_node_name_it(station, message):
    net = Mininet_wifi()
    net.addStation("sta1", **station)
    net.setMobilityModel(model="RandomWayPoint")
    with pytest.raises(HarnessError, match=message):
        net.trajectories()


class Built(Exception):
    """Stops a script at build(), carrying the trajectories it described."""


@pytest.mark.parametrize("args", [[], ["-m"]])
def test_the_example_script_describes_its_motion(args, monkeypatch):
    def build(self):
        raise Built(self.trajectories(), self.topology())

    mn_wifi.install_aliases()
    monkeypatch.setattr(Mininet_wifi, "build", build)
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *args])
    with pytest.raises(Built) as got:
        runpy.run_path(str(SCRIPT), run_name="__main__")
    moving, topo = got.value.args
    assert set(moving) == {"sta1", "sta2"} and topo.stations["sta3"].position == (50, 50, 0)
    if not args:
        assert moving["sta1"].position_at(6.5) == (35.0, 30.0, 0.0)
        assert moving["sta2"].end == 22.0
    else:
        assert not moving["sta1"].outside(Area(10, 30, 50, 70))
        assert not moving["sta2"].outside(Area(60, 70, 10, 20))
        assert moving["sta1"].end == mobility.DEFAULT_MOTION_S
