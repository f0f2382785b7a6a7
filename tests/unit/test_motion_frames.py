"""Frames of moving nodes (harness.analysis.motion, harness.experiment.run_scene): the routes
in force at a time, the scene at a time, the frames a stored run's record gives through
``harness draw --frames``."""
from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from harness.analysis.motion import frame_times, routes_in_force
from harness.analysis.topology_figure import draw_scene
from harness.errors import HarnessError
from harness.experiment.run_scene import motion_scenes, scene_of_params, trajectories_of_record
from harness.interactive import sources
from harness.medium.mobility import record
from harness.medium.mobility.trajectory import Trajectory, Waypoint
from harness.net import scene as scenes
from harness.net.topo import Topology

LOG = [{"t": 0.0, "node": "sta1", "dst": "sta3", "via": "sta2"},
       {"t": 0.0, "node": "sta2", "dst": "sta3", "via": "sta3"},
       {"t": 4.0, "node": "sta3", "dst": "sta1", "via": "sta2"},
       {"t": 6.0, "node": "sta1", "dst": "sta3", "via": "sta3"},
       {"t": 6.0, "node": "sta2", "dst": "sta3", "via": None},
       {"t": 6.0, "node": "sta2", "dst": "sta3", "via": "sta1"}]  # same time: the later wins


def test_routes_in_force_are_the_latest_entry_per_node_and_destination():
    assert routes_in_force(LOG, -1.0) == []
    assert routes_in_force(LOG, 0.0) == [("sta1", "sta2", "sta3"), ("sta2", "sta3", "sta3")]
    assert routes_in_force(LOG, 5.9) == [("sta1", "sta2", "sta3"), ("sta2", "sta3", "sta3"),
                                         ("sta3", "sta2", "sta1")]
    assert routes_in_force(LOG, 6.0) == [("sta1", "sta3", "sta3"), ("sta2", "sta1", "sta3"),
                                         ("sta3", "sta2", "sta1")]
    lost = LOG + [{"t": 9.0, "node": "sta1", "dst": "sta3", "via": None}]
    assert routes_in_force(lost, 9.0) == [("sta2", "sta1", "sta3"), ("sta3", "sta2", "sta1")]
    assert routes_in_force(reversed(LOG[:4]), 7.0) == routes_in_force(LOG[:4], 7.0)  # by time


def test_frame_times_cover_the_motion_to_its_end():
    assert frame_times(10.0, 4.0) == [0.0, 4.0, 8.0, 10.0]
    assert frame_times(0.3, 0.1) == [0.0, 0.1, 0.2, 0.3]
    assert frame_times(250.0) == [3.0 * i for i in range(84)] + [250.0]  # ~100, whole seconds
    with pytest.raises(HarnessError, match="allowed at most 1000"):
        frame_times(600.0, 0.5)
    with pytest.raises(HarnessError, match="allowed a number of seconds > 0"):
        frame_times(10.0, 0.0)


def test_a_scene_at_a_time_moves_nodes_and_redraws_pairs_in_range():
    topo = Topology("free")
    for name, pos in (("a", (0, 0)), ("b", (100, 0)), ("c", (300, 0))):
        topo.add_station(name, pos)
    scene = scenes.with_routes(scenes.scene_of(topo, {"tx_range": 150}), [["a", "b"]])
    path = {"c": Trajectory("c", (Waypoint(0, 300, 0, 0), Waypoint(10, 200, 50, 0)))}
    (t0, first), (t1, last) = motion_scenes(scene, path, [0.0, 10.0])
    assert (t0, [(n["name"], n["x"], n["y"]) for n in first["nodes"]]) == (
        0.0, [("a", 0.0, 0.0), ("b", 100.0, 0.0), ("c", 300.0, 0.0)])
    assert [(n["x"], n["y"]) for n in last["nodes"]][2] == (200.0, 50.0)
    assert [(l["a"], l["b"]) for l in first["links"]] == [("a", "b")]
    assert [(l["a"], l["b"]) for l in last["links"]] == [("a", "b"), ("b", "c")]
    assert first["routes"] == []  # the whole run's routes are not a frame's


def test_next_hops_are_drawn_as_one_arrow_each(tmp_path):
    setup = sources.from_builder("chain", ["hops=2"])
    plain = scene_of_params(setup.params).to_dict() | {"routes": []}

    def patches(hops):
        svg = draw_scene(plain, tmp_path / f"h{len(hops)}.svg", formats=("svg",), hops=hops,
                         hop_targets=["sta3", "sta1"])[0]
        root = ET.parse(svg).getroot()
        ids = [e.get("id") or "" for e in root.iter()]
        return sum(i.startswith("patch_") for i in ids), " ".join(root.itertext())

    none, text = patches([])
    two, _ = patches([("sta1", "sta2", "sta3"), ("sta3", "sta2", "sta1")])
    assert two == none + 2
    assert "next hop toward sta3" in text and "next hop toward sta1" in text


def test_draw_frames_of_a_stored_run_with_its_route_log(tmp_path):
    setup = sources.from_builder("chain", ["hops=2"])
    moving = {"sta3": Trajectory("sta3", (Waypoint(0, 400, 0, 0), Waypoint(10, 100, 50, 0)))}
    run = {"experiment": "moving", "run_id": "abc", "status": "ok", "point": {},
           "params": setup.params, "medium": {"mobility": record.entry(moving, "csv", 1, 10.0)},
           "network": {"route_log": LOG}}
    assert trajectories_of_record(run) == moving
    with pytest.raises(HarnessError, match="run abc: no node moved in it"):
        trajectories_of_record({**run, "medium": {}})
    (tmp_path / "res" / "runs").mkdir(parents=True)
    (tmp_path / "res" / "runs" / "abc.json").write_text(json.dumps(run))
    done = subprocess.run([sys.executable, "-m", "harness", "draw", "res", "--frames", "fr",
                           "--step", "5"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [f"fr/frame-000{i}.png" for i in range(3)] + ["fr/motion.gif"]
    from PIL import Image
    with Image.open(tmp_path / "fr" / "motion.gif") as gif:
        assert gif.n_frames == 3
    bad = subprocess.run([sys.executable, "-m", "harness", "draw", "chain", "--frames", "x"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "--frames and --step apply to a results directory" in bad.stderr


def test_frames_need_a_run_that_moved(tmp_path):
    setup = sources.from_builder("chain", ["hops=1"])
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "r.json").write_text(json.dumps(
        {"experiment": "still", "run_id": "r", "status": "ok", "params": setup.params}))
    done = subprocess.run([sys.executable, "-m", "harness", "draw", str(tmp_path), "--frames",
                           str(tmp_path / "f")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert done.stderr.strip() == ("harness draw: error: run r: no node moved in it (its record "
                                   "keeps no medium.mobility)")
    assert not Path(tmp_path / "f").exists()
