"""``medium.mobility``: the key checked (errors name the key and what is allowed, in a
``Network``'s medium and in an experiment file, at the file's line), the trajectories of a
run made from it with the run's seed and the topology's positions, the ``waypoint`` lines of
mediumd's config, the record's copy of the trajectories and its replay.

Pure logic, but for one test that hands the generated config to the real mediumd parser.
"""
from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.experiment import realise, schema
from harness.medium.config import config_text, run_trajectories
from harness.medium.mobility import models, record
from harness.medium.mobility.setting import Mobility
from harness.medium.mobility.trajectory import Area, Trajectory, Waypoint
from harness.medium.spec import MediumSpec
from harness.params import SchemaError


def row(node, index, mac, pos):
    return {"name": f"hx-0001-{node}-{index}", "node": node, "index": index, "mac": mac,
            "position": pos, "mode": "ibss", "channel": 1, "freq": 2412, "phy_mode": "g",
            "rate": None, "rts": None, "txpower_dbm": None, "retry_limit": None}


#: sta2 has two radios: both must move together
RADIOS = [row("sta1", 0, "02:68:78:00:00:00", (0.0, 0.0, 0.0)),
          row("sta2", 0, "02:68:78:00:01:00", (200.0, 10.0, 0.0)),
          row("sta2", 1, "02:68:78:00:01:01", (200.0, 10.0, 0.0))]
AREA = {"x": [0, 1000], "y": [-50, 50]}


def spec_of(**mobility) -> MediumSpec:
    return MediumSpec.from_dict({"mobility": mobility})


# -- the key -------------------------------------------------------------------------------
@pytest.mark.parametrize("mobility, message", [
    ("fast", "medium.mobility: 'fast' is not allowed; expected a mapping with model, area"),
    ({"area": AREA}, "medium.mobility.model: missing (required); expected one of "
                     "random_waypoint, random_walk, gauss_markov, constant_velocity, ns2, csv"),
    ({"model": "levy", "area": AREA}, "medium.mobility.model: levy (str) is not allowed; "
                                      "expected one of random_waypoint, random_walk"),
    ({"model": "constant_velocity", "vx": 1}, "medium.mobility.area: missing (required); "
                                              "expected {x: [min, max], y: [min, max]}"),
    ({"model": "constant_velocity", "area": {"x": [5, 5], "y": [0, 1]}},
     "medium.mobility.area.x: [5, 5] has no extent; expected x_min < x_max"),
    ({"model": "constant_velocity", "area": {"x": [0, 5], "w": [0, 1]}},
     "medium.mobility.area.w: unknown key; allowed x, y, z"),
    ({"model": "constant_velocity", "area": {"x": [0, 5]}},
     "medium.mobility.area.y: missing (required); expected [min, max] in metres"),
    ({"model": "constant_velocity", "area": {"x": [0, 5], "y": "wide"}},
     "medium.mobility.area.y: 'wide' is not allowed; expected [min, max] in metres"),
    ({"model": "random_waypoint", "area": AREA, "speed": 3},
     "medium.mobility.speed: unknown for model random_waypoint; allowed min_speed, "
     "max_speed, pause"),
    ({"model": "random_waypoint", "area": AREA, "min_speed": 5, "max_speed": 1},
     "medium.mobility.min_speed: 5 is above max_speed 1; expected min_speed <= max_speed"),
    ({"model": "gauss_markov", "area": AREA, "alpha": 2, "mean_speed": 1},
     "medium.mobility.alpha: 2.0 is out of range; expected a number in [0, 1]"),
    ({"model": "constant_velocity", "area": AREA, "nodes": []},
     "medium.mobility.nodes: [] is not allowed; expected a non-empty list of node names"),
    ({"model": "constant_velocity", "area": AREA, "nodes": ["sta1", "sta1"]},
     "medium.mobility.nodes: sta1 is named twice"),
    ({"model": "constant_velocity", "area": AREA, "duration": 0},
     "medium.mobility.duration: 0.0 is out of range; expected a number > 0"),
    ({"model": "constant_velocity", "area": AREA, "seed": -1},
     "medium.mobility.seed: -1 is not allowed; expected an integer >= 0"),
    ({"model": "constant_velocity", "area": AREA, "seed": "a"},
     "medium.mobility.seed: 'a' is not allowed; expected an integer >= 0"),
])
def test_bad_keys_name_the_key_and_the_allowed_values(mobility, message):
    with pytest.raises(HarnessError) as info:
        MediumSpec.from_dict({"mobility": mobility})
    print(info.value)
    assert str(info.value).startswith(message)
    assert isinstance(info.value, SchemaError) and str(info.value).startswith(info.value.path)


def test_the_key_round_trips_canonical():
    spec = spec_of(model="random_waypoint", min_speed=1, max_speed=10, area=AREA,
                   nodes=["sta2"], duration=30)
    assert spec.mobility is not None
    data = spec.to_dict()["mobility"]
    assert data == {"model": "random_waypoint", "min_speed": 1.0, "max_speed": 10.0,
                    "area": {"x": [0.0, 1000.0], "y": [-50.0, 50.0], "z": [0.0, 0.0]},
                    "nodes": ["sta2"], "duration": 30.0}
    assert MediumSpec.from_dict(spec.to_dict()) == spec


# -- a run's trajectories and the config -----------------------------------------------------
def test_models_with_a_start_begin_where_the_topology_puts_the_nodes():
    spec = spec_of(model="constant_velocity", vx=10, area=AREA, duration=20)
    got = run_trajectories(RADIOS, spec, seed=3)
    assert list(got) == ["sta1", "sta2"]  # one per node, not per radio
    assert got["sta2"].position_at(0) == (200.0, 10.0, 0.0)
    assert got["sta2"].position_at(5) == (250.0, 10.0, 0.0)
    assert got["sta1"].position_at(20) == (200.0, 0.0, 0.0)
    # a start given for a node wins over the topology's position
    spec = spec_of(model="constant_velocity", vx=10, area=AREA, duration=20,
                   start=[{"node": "sta1", "x": 500, "y": 0}])
    assert run_trajectories(RADIOS, spec, seed=3)["sta1"].position_at(0) == (500.0, 0.0, 0.0)


def test_the_runs_seed_makes_the_trajectories():
    spec = spec_of(model="random_waypoint", min_speed=1, max_speed=10, area=AREA, duration=30)
    a = run_trajectories(RADIOS, spec, seed=1)
    assert a == run_trajectories(RADIOS, spec, seed=1)
    assert a != run_trajectories(RADIOS, spec, seed=2)
    assert a == models.generate("random_waypoint", {"min_speed": 1, "max_speed": 10},
                                ["sta1", "sta2"], Area(0, 1000, -50, 50), 30, 1)
    # medium.seed, when given, is the seed of the medium's draws and of the motion
    fixed = MediumSpec.from_dict({"seed": 9, "mobility": spec.mobility})
    assert run_trajectories(RADIOS, fixed, seed=1) == run_trajectories(RADIOS, spec, seed=9)
    # mobility.seed is the motion's alone: runs with other seeds move alike (paired runs)
    own = spec_of(model="random_waypoint", min_speed=1, max_speed=10, area=AREA, duration=30,
                  seed=9)
    assert run_trajectories(RADIOS, own, seed=1) == run_trajectories(RADIOS, own, seed=5) \
        == run_trajectories(RADIOS, spec, seed=9)
    assert own.to_dict()["mobility"]["seed"] == 9 and MediumSpec.from_dict(own.to_dict()) == own


def test_nodes_that_move_and_what_is_refused():
    spec = spec_of(model="constant_velocity", vy=1, area=AREA, duration=5, nodes=["sta2"])
    assert list(run_trajectories(RADIOS, spec)) == ["sta2"]
    with pytest.raises(SchemaError, match=r"^medium.mobility.nodes: sta9 is not a node with a "
                                          r"radio here; allowed sta1, sta2$"):
        run_trajectories(RADIOS, spec_of(model="constant_velocity", area=AREA, duration=5,
                                         nodes=["sta9"]))
    with pytest.raises(SchemaError, match=r"^medium.mobility.area: node sta2 starts at \(200, "
                                          r"10, 0\) \(the topology's position\), outside"):
        run_trajectories(RADIOS, spec_of(model="constant_velocity", duration=5,
                                         area={"x": [0, 100], "y": [-50, 50]}))
    with pytest.raises(SchemaError, match=r"^medium.mobility.duration: missing: required "
                                          r"outside an experiment"):
        run_trajectories(RADIOS, spec_of(model="constant_velocity", area=AREA))


def test_config_has_a_waypoint_line_per_waypoint_and_radio():
    traj = {"sta2": Trajectory("sta2", (Waypoint(0, 200, 10, 0), Waypoint(0.1, 200.5, 10, 0),
                                        Waypoint(2.5, 1 / 3, -0.0625, 1.5)))}
    text = config_text(RADIOS, MediumSpec(), seed=1, trajectories=traj)
    lines = [line for line in text.splitlines() if line.startswith("waypoint")]
    assert lines == ["waypoint sta2 0.0 200.0 10.0 0.0",
                     "waypoint sta2 0.1 200.5 10.0 0.0",
                     "waypoint sta2 2.5 0.3333333333333333 -0.0625 1.5",
                     "waypoint sta2-1 0.0 200.0 10.0 0.0",
                     "waypoint sta2-1 0.1 200.5 10.0 0.0",
                     "waypoint sta2-1 2.5 0.3333333333333333 -0.0625 1.5"]
    assert text.index("radio 02:68:78:00:01:01") < text.index("waypoint")  # radios first
    assert not any(line.startswith("waypoint") for line in
                   config_text(RADIOS, MediumSpec(), seed=1).splitlines())
    with pytest.raises(HarnessError, match="node sta7 has a trajectory but no radio"):
        config_text(RADIOS, MediumSpec(), trajectories={"sta7": traj["sta2"]})


def test_mediumd_reads_the_generated_waypoints(tmp_path):
    """mediumsim --links parses the config as mediumd does and places the radios at time 0."""
    from harness.medium.build import ensure_mediumd
    spec = spec_of(model="random_waypoint", min_speed=1, max_speed=10, area=AREA, duration=30)
    trajectories = run_trajectories(RADIOS, spec, seed=4)
    conf = tmp_path / "medium.conf"
    conf.write_text(config_text(RADIOS, spec, seed=4, trajectories=trajectories))
    proc = subprocess.run([str(ensure_mediumd("mediumsim")), str(conf), "--links"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    bad = tmp_path / "bad.conf"
    bad.write_text(conf.read_text() + "waypoint sta1 0.0 1 2\n")
    proc = subprocess.run([str(ensure_mediumd("mediumsim")), str(bad), "--links"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "waypoint: expected waypoint RADIO T X Y Z" in proc.stderr


# -- the record --------------------------------------------------------------------------------
def test_record_keeps_the_csv_and_replays_it(tmp_path):
    spec = spec_of(model="gauss_markov", alpha=0.5, mean_speed=3, area=AREA, duration=12)
    trajectories = run_trajectories(RADIOS, spec, seed=5)
    kept = record.entry(trajectories, "gauss_markov", 5, 12.0)
    assert kept["nodes"] == ["sta1", "sta2"] and kept["seed"] == 5
    assert kept["waypoints"] == sum(len(t.waypoints) for t in trajectories.values())
    assert record.trajectories_of(kept) == trajectories
    path = record.export(kept, tmp_path / "moves.csv")
    replay = spec_of(model="csv", file=str(path), area=AREA, duration=12)
    assert run_trajectories(RADIOS, replay, seed=99) == trajectories  # exactly, any seed
    changed = dict(kept, csv=kept["csv"].replace("sta1", "sta3"))
    with pytest.raises(HarnessError, match="does not match its sha256"):
        record.trajectories_of(changed)


# -- experiment files --------------------------------------------------------------------------
EXPERIMENT = """\
name: moving
topology: {builder: chain, hops: 2}
medium:
  tx_range: 250
  mobility:
    model: constant_velocity
    vx: 5
    area: {x: [0, 800], y: [-20, 20]}
    nodes: [sta3]
flows:
  - {src: first, dst: last, duration: 30, start: 5}
"""


def load(tmp_path: Path, text: str) -> schema.Experiment:
    path = tmp_path / "exp.yaml"
    path.write_text(textwrap.dedent(text))
    return schema.load(path)


def test_experiment_key_resolves_and_moves_until_the_last_flow_ends(tmp_path):
    exp = load(tmp_path, EXPERIMENT)
    mobility = exp.base["medium"]["mobility"]
    assert mobility["model"] == "constant_velocity" and mobility["vx"] == 5.0
    settings = realise.medium_settings(exp.base)
    assert settings["mobility"]["duration"] == 35.0  # start 5 + 30 s
    spec = MediumSpec.from_dict(settings)
    assert isinstance(spec.mobility, Mobility) and spec.mobility.duration == 35.0
    # an experiment without the key keeps its parameters (and so its run ids) as they were
    plain = load(tmp_path, "name: still\ntopology: {builder: chain, hops: 2}\n"
                           "flows:\n  - {src: first, dst: last}\n")
    assert "mobility" not in plain.base["medium"]
    assert "mobility" not in realise.medium_settings(plain.base)


@pytest.mark.parametrize("old, new, message", [
    ("vx: 5", "vx: fast", ":7: medium.mobility.vx: fast (str) is not allowed; expected a number"),
    ("nodes: [sta3]", "nodes: [sta9]", ":9: medium.mobility.nodes: sta9 is not a node with a "
                                       "radio here; allowed sta1, sta2, sta3"),
    ("x: [0, 800]", "x: [500, 800]", ":8: medium.mobility.area: node sta3 starts at (400, 0, 0) "
                                     "(the topology's position), outside the area"),
    ("model: constant_velocity", "model: brownian", ":6: medium.mobility.model: brownian (str) "
                                                    "is not allowed; expected one of"),
])
def test_experiment_errors_name_file_line_and_key(tmp_path, old, new, message):
    assert old in EXPERIMENT
    with pytest.raises(HarnessError) as info:
        load(tmp_path, EXPERIMENT.replace(old, new))
    print(info.value)
    assert message in str(info.value)
