"""harness.medium.mobility: trajectories, the mobility models, traces and their checks.

Pure logic: no files but pytest's tmp_path, no processes. Statistical tests run with fixed
seeds, so they are deterministic; their tolerances are stated in standard errors measured
on the same runs, and each is shown to fail on what it guards against where that is cheap.
"""
from __future__ import annotations

import math
import statistics
from typing import Dict, List

import pytest

from harness.errors import HarnessError
from harness.medium.mobility import traces
from harness.medium.mobility.models import MODELS, check, generate
from harness.medium.mobility.trajectory import Area, Trajectory, Waypoint, build, node_random
from harness.medium.mobility.walks import bounce, constant_velocity, gauss_markov, random_walk
from harness.medium.mobility.waypoint import (
    inverse_speed_mean,
    random_waypoint,
    stationary_speed_mean,
)
from harness.params import ParamSpec

AREA = Area(0, 100, 0, 50)
AREA_3D = Area(-20, 20, 0, 30, 1, 11)
NODES = ["sta1", "sta2", "sta3", "sta4"]
#: E[L] of two uniform points in a unit square (Ghosh 1951); scales with the side.
MEAN_LEG_UNIT_SQUARE = (2 + math.sqrt(2) + 5 * math.log(1 + math.sqrt(2))) / 15

#: model -> parameters that make it move (the random models)
RANDOM = {
    "random_waypoint": {"min_speed": 1, "max_speed": 10, "pause": 2},
    "random_walk": {"min_speed": 0, "max_speed": 10, "interval": 3},
    "gauss_markov": {"alpha": 0.75, "mean_speed": 5, "mean_direction": 30, "speed_sd": 2,
                     "direction_sd": 40, "time_step": 1},
    "constant_velocity": {"vx": 7, "vy": -3},
}


def sample(traj: Trajectory, end: float, n: int = 2000) -> List[float]:
    return [end * k / n for k in range(n + 1)]


def leg_speeds(traj: Trajectory) -> List[float]:
    """The speed of every leg of non-zero duration (at its midpoint)."""
    w = traj.waypoints
    return [traj.speed_at((a.t + b.t) / 2) for a, b in zip(w, w[1:]) if b.t > a.t]


# -- Trajectory ----------------------------------------------------------------------------
def test_position_is_linear_between_waypoints_and_held_outside_them():
    traj = Trajectory("a", (Waypoint(1, 0, 0, 0), Waypoint(3, 10, 20, 2),
                            Waypoint(5, 10, 20, 2), Waypoint(6, 13, 16, 2)))
    assert traj.position_at(0) == (0, 0, 0)              # before the first: the first
    assert traj.position_at(2) == (5, 10, 1)
    assert traj.position_at(2.5) == (7.5, 15, 1.5)
    assert traj.position_at(4) == (10, 20, 2)            # a pause
    assert traj.position_at(5.5) == (11.5, 18, 2)
    assert traj.position_at(6) == traj.position_at(99) == (13, 16, 2)
    assert traj.speed_at(0.5) == 0 and traj.speed_at(6) == 0 and traj.speed_at(4) == 0
    assert traj.speed_at(2) == pytest.approx(math.sqrt(100 + 400 + 4) / 2)
    assert traj.speed_at(5) == pytest.approx(5.0)        # 3-4-5 in one second
    assert (traj.start, traj.end) == (1, 6)


def test_waypoints_at_one_time_jump_and_the_last_one_holds():
    traj = Trajectory("a", (Waypoint(0, 0, 0, 0), Waypoint(2, 0, 0, 0), Waypoint(2, 8, 0, 0),
                            Waypoint(4, 8, 4, 0)))
    assert traj.position_at(1.999) == (0, 0, 0)
    assert traj.position_at(2) == (8, 0, 0)
    assert traj.speed_at(2) == 2.0


def test_interpolation_never_steps_past_a_leg_end():
    traj = Trajectory("a", (Waypoint(0, 0.1, 0.1, 0.1), Waypoint(0.3, 0.3, 100, 1e-9)))
    for t in sample(traj, 0.3, 5000):
        x, y, z = traj.position_at(t)
        assert 0.1 <= x <= 0.3 and 0.1 <= y <= 100 and 1e-9 <= z <= 0.1


def test_until_cuts_the_running_leg_where_the_node_is():
    traj = Trajectory("a", (Waypoint(0, 0, 0, 0), Waypoint(10, 100, 0, 0), Waypoint(20, 0, 0, 0)))
    cut = traj.until(15)
    assert cut.waypoints == (Waypoint(0, 0, 0, 0), Waypoint(10, 100, 0, 0), Waypoint(15, 50, 0, 0))
    assert traj.until(10).waypoints[-1] == Waypoint(10, 100, 0, 0)
    assert traj.until(30) is traj


@pytest.mark.parametrize("points,words", [
    ((), "no waypoints"),
    (((0, 0, 0, 0), (2, 1, 1, 0), (1, 2, 2, 0)), "waypoint 2 has time 1, before the previous"),
    (((0, 0, 0, 0), (1, math.nan, 0, 0)), "expected four finite numbers"),
    (((0, 0, 0, 0), (1, 0, math.inf, 0)), "expected four finite numbers"),
    (((0, 0, 0),), "expected four finite numbers"),
    (((-1, 0, 0, 0),), "expected a time >= 0"),
])
def test_bad_trajectories_are_refused(points, words):
    with pytest.raises(HarnessError, match="trajectory n: ") as err:
        Trajectory("n", points)
    assert words in str(err.value)


@pytest.mark.parametrize("bounds,words", [
    ((0, 0, 0, 10), "area.x: [0, 0] has no extent; expected x_min < x_max"),
    ((0, 10, 5, 1), "area.y: [5, 1] has no extent; expected y_min < y_max"),
    ((0, 10, 0, 10, 3, 2), "area.z: [3, 2] has no extent; expected z_min <= z_max (equal: a plane)"),
    ((0, math.inf, 0, 10), "area.x: [0, inf] is not allowed; expected two finite numbers"),
])
def test_areas_without_extent_are_refused(bounds, words):
    with pytest.raises(HarnessError) as err:
        Area(*bounds)
    assert words in str(err.value)


def test_a_flat_area_is_a_plane():
    assert Area(0, 1, 0, 1, 1.5, 1.5).uniform(node_random(1, "a"))[2] == 1.5


# -- every random model --------------------------------------------------------------------
@pytest.mark.parametrize("model", sorted(RANDOM))
def test_the_same_seed_gives_the_same_trajectories_and_another_seed_others(model):
    one = generate(model, RANDOM[model], NODES, AREA, 60, seed=5)
    assert one == generate(model, RANDOM[model], NODES, AREA, 60, seed=5)
    other = generate(model, RANDOM[model], NODES, AREA, 60, seed=6)
    assert all(one[n] != other[n] for n in NODES)
    assert all(len(t.waypoints) >= 2 for t in one.values())


@pytest.mark.parametrize("model", sorted(RANDOM))
def test_adding_a_node_leaves_the_others_as_they_were(model):
    few = generate(model, RANDOM[model], NODES[:2], AREA, 60, seed=5)
    more = generate(model, RANDOM[model], ["zeta", *NODES], AREA, 60, seed=5)
    assert few == {n: more[n] for n in NODES[:2]}
    assert more["zeta"].waypoints != more["sta1"].waypoints


@pytest.mark.parametrize("model", sorted(RANDOM))
def test_a_longer_run_extends_a_shorter_one(model):
    """Exact for the models that draw legs and cut the last (the same arithmetic); constant
    velocity computes its end at 40 s from the last face, hence approx."""
    short = generate(model, RANDOM[model], NODES, AREA, 40, seed=3)
    long = generate(model, RANDOM[model], NODES, AREA, 90, seed=3)
    cut = {n: t.until(40) for n, t in long.items()}
    if model != "constant_velocity":
        assert short == cut
    for n in NODES:
        flat = [v for w in short[n].waypoints for v in w]
        assert flat == pytest.approx([v for w in cut[n].waypoints for v in w], rel=1e-12)
    assert all(t.start == 0 and t.end == 40 for t in short.values())


@pytest.mark.parametrize("area", [AREA, AREA_3D], ids=["flat", "3d"])
@pytest.mark.parametrize("model", sorted(RANDOM))
def test_nodes_stay_inside_the_area(model, area):
    params = dict(RANDOM[model], vz=-2) if model == "constant_velocity" and area is AREA_3D \
        else RANDOM[model]
    trajs = generate(model, params, [f"n{i}" for i in range(20)], area, 300, seed=11)
    for traj in trajs.values():
        assert not traj.outside(area)
        assert all(area.contains(traj.position_at(t)) for t in sample(traj, 300))
    if area is AREA_3D and model in ("random_walk", "gauss_markov"):   # they keep their height
        assert all(len({w.z for w in t.waypoints}) == 1 for t in trajs.values())
    moved = {w.position for t in trajs.values() for w in t.waypoints}
    assert len(moved) > 40


# -- random waypoint -----------------------------------------------------------------------
def test_random_waypoint_speeds_are_within_the_range_or_paused():
    trajs = random_waypoint([f"n{i}" for i in range(30)], AREA, 500, 2, min_speed=2,
                            max_speed=6, pause=3)
    speeds = [s for t in trajs.values() for s in leg_speeds(t)]
    moving = [s for s in speeds if s > 0]
    assert min(moving) >= 2 * (1 - 1e-9) and max(moving) <= 6 * (1 + 1e-9)
    assert len(moving) > 300 and len(speeds) - len(moving) > 300       # legs and pauses
    assert max(moving) > 5.8 and min(moving) < 2.2


def _uniform_start_rwp(seed: int, node: str, area: Area, end: float) -> Trajectory:
    """The textbook start (uniform position and speed): not stationary, for contrast."""
    rng = node_random(seed, node)
    here, t = area.uniform(rng), 0.0
    points = [Waypoint(0.0, *here)]
    while t < end:
        there = area.uniform(rng)
        t += math.dist(here, there) / (1 + 18 * rng.random())
        points.append(Waypoint(t, *there))
        here = there
    return build(node, points, end)


def _mean_speed(trajs: Dict[str, Trajectory], lo: float, hi: float) -> float:
    return statistics.mean(t.speed_at(lo + (hi - lo) * k / 100) for t in trajs.values()
                           for k in range(100))


def test_random_waypoint_mean_speed_does_not_decay():
    """1000 nodes, 1 km square, speeds 1..19 m/s, no pause, 1000 s. A leg is 521 m on
    average, so slow legs last minutes: started uniformly, the mean speed falls from 10
    m/s toward the stationary (19 - 1) / ln 19 = 6.11 m/s over the whole run (measured
    below: 8.3 m/s in the first tenth, 6.1 in the last). Started in steady state, both
    tenths are at 6.11. Each window's mean over nodes has a standard error of 0.13 m/s
    (sd of the per-node window means / sqrt(1000), measured), the difference of two 0.18:
    0.6 m/s is 3.3 standard errors, a tenth of the mean, and a quarter of the decay."""
    nodes = [f"n{i}" for i in range(1000)]
    area = Area(0, 1000, 0, 1000)
    stationary = 1 / inverse_speed_mean(1, 19)
    assert stationary == pytest.approx(6.113, abs=1e-3)
    trajs = random_waypoint(nodes, area, 1000, 7, min_speed=1, max_speed=19)
    first, last = _mean_speed(trajs, 0, 100), _mean_speed(trajs, 900, 1000)
    assert abs(first - last) < 0.6
    assert abs(first - stationary) < 0.5 and abs(last - stationary) < 0.5
    naive = {n: _uniform_start_rwp(7, n, area, 1000) for n in nodes}
    assert _mean_speed(naive, 0, 100) - _mean_speed(naive, 900, 1000) > 1.5


def test_random_waypoint_starts_with_the_stationary_share_of_paused_nodes():
    """P(paused) = pause / (pause + E[L] E[1/V]) = 10 / (10 + 52.14 * 0.1636) = 0.540 in a
    100 m square; over 1000 nodes its binomial standard error is 0.016 (tolerance 3 SE).
    The time-average speed matches E[L] / (E[L] E[1/V] + pause) likewise."""
    area = Area(0, 100, 0, 100)
    mean_leg = 100 * MEAN_LEG_UNIT_SQUARE
    share = 10 / (10 + mean_leg * inverse_speed_mean(1, 19))
    assert share == pytest.approx(0.5397, abs=1e-4)
    trajs = random_waypoint([f"n{i}" for i in range(1000)], area, 400, 1, min_speed=1,
                            max_speed=19, pause=10)
    for t in (0.0, 399.0):
        paused = statistics.mean(tr.speed_at(t) == 0 for tr in trajs.values())
        assert abs(paused - share) < 0.05
    expected = stationary_speed_mean(1, 19, 10, mean_leg)
    assert _mean_speed(trajs, 0, 40) == pytest.approx(expected, rel=0.1)
    assert _mean_speed(trajs, 360, 400) == pytest.approx(expected, rel=0.1)


# -- reflection ----------------------------------------------------------------------------
def test_bounce_reflects_at_a_face_and_at_a_corner():
    area = Area(0, 100, 0, 100)
    legs, end, vel = bounce(area, (90, 50, 0), (20, 0, 0), 4, 1)
    assert legs == [Waypoint(4.5, 100, 50, 0), Waypoint(5, 90, 50, 0)]
    assert (end, vel) == ((90, 50, 0), (-20, 0, 0))
    legs, end, vel = bounce(area, (90, 90, 0), (10, 10, 0), 0, 2)
    assert legs == [Waypoint(1, 100, 100, 0), Waypoint(2, 90, 90, 0)] and vel == (-10, -10, 0)
    legs, end, vel = bounce(area, (90, 50, 0), (20, 0, 0), 0, 1, stop=True)
    assert legs == [Waypoint(0.5, 100, 50, 0), Waypoint(1, 100, 50, 0)] and vel == (0, 0, 0)
    legs, end, _ = bounce(area, (10, 10, 0), (-30, 0, 0), 0, 10)   # 300 m: 3 faces
    assert [w.x for w in legs[:3]] == [0, 100, 0] and legs[3].t == 10
    assert legs[3].x == pytest.approx(300 - 10 - 100 - 100)


def test_the_random_walk_reflects_at_the_borders():
    """Every waypoint on a face is a reflection: the speed is the same on both sides and
    the component normal to the face changes sign (angle of incidence = of reflection)."""
    trajs = random_walk(NODES, AREA, 600, 9, min_speed=5, max_speed=15, interval=20)
    hits = 0
    for traj in trajs.values():
        w = traj.waypoints
        for a, b, c in zip(w, w[1:], w[2:]):
            on_x, on_y = b.x in (AREA.x_min, AREA.x_max), b.y in (AREA.y_min, AREA.y_max)
            if not (on_x or on_y) or c.t == 600:
                continue
            hits += 1
            before = [(q - p) / (b.t - a.t) for p, q in zip(a.position, b.position)]
            after = [(q - p) / (c.t - b.t) for p, q in zip(b.position, c.position)]
            for axis, on in ((0, on_x), (1, on_y)):
                want = -before[axis] if on else before[axis]
                assert after[axis] == pytest.approx(want, rel=1e-6, abs=1e-9)
    assert hits > 50


@pytest.mark.parametrize("legs", [{"interval": 4.0}, {"distance": 28.0}])
def test_the_random_walk_changes_course_at_each_interval_or_distance(legs):
    """At 7 m/s, 4 s and 28 m are the same leg: waypoints off the faces fall on multiples
    of 4 s, and within a leg the speed is the one chosen for it."""
    trajs = random_walk(NODES, AREA, 200, 4, min_speed=7, max_speed=7, **legs)
    for traj in trajs.values():
        for w in traj.waypoints:
            if AREA.x_min < w.x < AREA.x_max and AREA.y_min < w.y < AREA.y_max:
                assert w.t / 4 == pytest.approx(round(w.t / 4), abs=1e-9)
        assert all(s == pytest.approx(7) for s in leg_speeds(traj))


# -- Gauss-Markov --------------------------------------------------------------------------
def test_gauss_markov_with_alpha_1_is_a_constant_velocity():
    area = Area(-5000, 5000, -5000, 5000)
    start = [{"node": "sta1", "x": 10, "y": -20}]
    traj = gauss_markov(["sta1"], area, 300, 3, alpha=1, mean_speed=4, mean_direction=120,
                        speed_sd=3, direction_sd=50, start=start)["sta1"]
    v = (4 * math.cos(math.radians(120)), 4 * math.sin(math.radians(120)))
    for t in sample(traj, 300, 600):
        x, y, _ = traj.position_at(t)
        assert (x, y) == (pytest.approx(10 + v[0] * t, abs=1e-9),
                          pytest.approx(-20 + v[1] * t, abs=1e-9))
    assert all(s == pytest.approx(4) for s in leg_speeds(traj))


def test_gauss_markov_turns_back_in_the_margin():
    """alpha = 0 and no noise: the node heads for the mean direction (+x) until it is
    within the margin of x_max, where the mean direction points back (-x): it never gets
    further than one step past the margin, and never reflects."""
    traj = gauss_markov(["sta1"], AREA, 200, 1, alpha=0, mean_speed=3, margin=10,
                        start=[{"node": "sta1", "x": 20, "y": 25}])["sta1"]
    xs = [w.x for w in traj.waypoints]
    assert 90 <= max(xs) <= 90 + 3
    assert all(w.y == pytest.approx(25, abs=1e-9) for w in traj.waypoints)
    assert xs[-1] > 80


def test_gauss_markov_speed_follows_the_mean_and_never_reverses():
    trajs = gauss_markov([f"n{i}" for i in range(40)], AREA, 300, 8, alpha=0.5, mean_speed=2,
                         speed_sd=3, direction_sd=30)
    speeds = [s for t in trajs.values() for s in leg_speeds(t)]
    assert min(speeds) >= 0 and 0 in [round(s, 12) for s in speeds]
    assert 1.5 < statistics.mean(speeds) < 3.5


# -- constant velocity ---------------------------------------------------------------------
def test_constant_velocity_reflects_or_stops_at_the_border():
    start = [{"node": "a", "x": 95, "y": 10}]
    bounced = constant_velocity(["a"], AREA, 10, 0, vx=10, start=start)["a"]
    assert bounced.waypoints == (Waypoint(0, 95, 10, 0), Waypoint(0.5, 100, 10, 0),
                                 Waypoint(10, 5, 10, 0))
    stopped = constant_velocity(["a"], AREA, 10, 0, vx=10, border="stop", start=start)["a"]
    assert stopped.waypoints == (Waypoint(0, 95, 10, 0), Waypoint(0.5, 100, 10, 0),
                                 Waypoint(10, 100, 10, 0))
    still = constant_velocity(["a"], AREA, 10, 0, start=start)["a"]
    assert still.waypoints == (Waypoint(0, 95, 10, 0), Waypoint(10, 95, 10, 0))


# -- ns-2 traces ---------------------------------------------------------------------------
NS2 = """\
# nodes: 3, pause: 2.00, max speed: 5.00, max x: 100.00, max y: 50.00
$node_(0) set X_ 10.0
$node_(0) set Y_ 10.0
$node_(0) set Z_ 1.5
$node_(1) set X_ 50.0
$node_(1) set Y_ 40.0
$node_(1) set Z_ 0.000000000000
$node_(2) set X_ 1
$node_(2) set Y_ 2
$god_ set-dist 0 1 2
$ns_ at 2.0 "$node_(0) setdest 40.0 50.0 5.0"
$ns_ at 6.0 "$node_(0) setdest 10.0 50.0 2.0"
$ns_ at 1.0 "$node_(1) setdest 90.0 10.0 10.0"
$ns_ at 30.0 "$god_ set-dist 0 1 1"
$ns_ at 10.0 "$node_(1) setdest 90.0 40.0 1.5e1"
"""


def test_ns2_setdest_with_an_interrupted_leg_and_a_wait():
    trajs = traces.parse_ns2(NS2)
    assert list(trajs) == ["sta1", "sta2", "sta3"]
    # node 0: leaves (10, 10) at 2 s for (40, 50), 50 m at 5 m/s; at 6 s, 20 m along (x 22,
    # y 26), it turns to (10, 50): 26.83 m at 2 m/s
    assert trajs["sta1"].waypoints == (
        Waypoint(0, 10, 10, 1.5), Waypoint(2, 10, 10, 1.5), Waypoint(6, 22, 26, 1.5),
        Waypoint(6 + math.hypot(12, 24) / 2, 10, 50, 1.5))
    assert trajs["sta1"].position_at(4) == (16, 18, 1.5)
    # node 1: 50 m at 10 m/s arrives at 6 s, waits until 10 s, then 30 m at 15 m/s
    assert trajs["sta2"].waypoints == (
        Waypoint(0, 50, 40, 0), Waypoint(1, 50, 40, 0), Waypoint(6, 90, 10, 0),
        Waypoint(10, 90, 10, 0), Waypoint(12, 90, 40, 0))
    assert trajs["sta3"].waypoints == (Waypoint(0, 1, 2, 0),)


def test_ns2_names_from_a_mapping_and_commands_in_time_order(tmp_path):
    text = ('$node_(7) set X_ 0\n$node_(7) set Y_ 0\n'
            '$ns_ at 5 "$node_(7) setdest 0 10 1"\n$ns_ at 1 "$node_(7) setdest 10 0 1"\n'
            '$ns_ at 5 "$node_(7) setdest 0 0 0"\n')
    path = tmp_path / "scen.ns2"
    path.write_text(text)
    traj = traces.read_ns2(path, {7: "car"})["car"]
    # 1 s: east; 5 s: north from (4, 0), then at once (same time, later line) speed 0: stop
    assert traj.waypoints == (Waypoint(0, 0, 0, 0), Waypoint(1, 0, 0, 0), Waypoint(5, 4, 0, 0))


@pytest.mark.parametrize("text,words", [
    ('$node_(0) set X_ 1\n$node_(0) set Y_ 1\n$ns_ at 1.0 "$node_(0) setdest 1 2"\n',
     'line 3: cannot parse \'$ns_ at 1.0 "$node_(0) setdest 1 2"\'; expected one of '
     '`$node_(i) set X_|Y_|Z_ <m>`, `$ns_ at <s> "$node_(i) setdest <x> <y> <m/s>"`'),
    ('\n# ok\n$node_(0) set W_ 1\n', "line 3: cannot parse"),
    ('$node_(0) set X_ abc\n', "line 1: cannot parse"),
    ('$node_(0) set X_ 1\n$ns_ at 1 "$node_(0) setdest 5 5 2"\n',
     "line 1: node 0 has no initial position"),
    ('$node_(0) set X_ 1\n$node_(0) set Y_ 1\n$ns_ at 1 "$node_(0) setdest 5 5 -2"\n',
     "line 3: speed -2 m/s is negative; expected a number >= 0"),
])
def test_ns2_lines_that_do_not_parse_name_the_file_and_line(tmp_path, text, words):
    path = tmp_path / "bad.ns2"
    path.write_text(text)
    with pytest.raises(HarnessError) as err:
        traces.read_ns2(path)
    assert str(err.value).startswith(f"{path}, line ") and words in str(err.value)


def test_ns2_node_without_a_name_in_the_mapping():
    with pytest.raises(HarnessError, match=r"scen, line 3: node 2 has no name; the mapping "
                                           r"names nodes 0, 1"):
        traces.parse_ns2("$node_(0) set X_ 1\n\n$node_(2) set X_ 1\n", "scen",
                         {0: "a", 1: "b"})


# -- CSV -----------------------------------------------------------------------------------
def test_csv_round_trip_gives_the_same_trajectories(tmp_path):
    trajs = random_waypoint(NODES, AREA_3D, 120, 4, min_speed=0.3, max_speed=7, pause=1.5)
    trajs.update(gauss_markov(["gm,1"], AREA_3D, 50, 4, alpha=0.3, mean_speed=2, speed_sd=1,
                              direction_sd=90, time_step=0.1))   # a name that needs quoting
    path = tmp_path / "moves.csv"
    traces.write_csv(trajs, path)
    back = traces.read_csv(path)
    assert back == trajs and list(back) == list(trajs)
    assert traces.format_csv(back) == path.read_text()
    replayed = generate("csv", {"file": str(path)}, list(trajs), AREA_3D, 120, 0)
    assert replayed == trajs


def test_csv_without_z_interleaved_and_commented():
    text = "# moves\ntime, node, x, y\n0,a,0,0\n0,b,5,5\n\n10,a,10,0\n"
    trajs = traces.parse_csv(text)
    assert trajs["a"].position_at(5) == (5, 0, 0)
    assert trajs["b"].waypoints == (Waypoint(0, 5, 5, 0),)


@pytest.mark.parametrize("text,words", [
    ("t,node,x,y\n", "f.csv, line 1: header 't,node,x,y' is not allowed; expected "
                     "time,node,x,y or time,node,x,y,z"),
    ("# nothing\n", "f.csv: no header; expected time,node,x,y or time,node,x,y,z"),
    ("time,node,x,y\n0,a,1\n", "f.csv, line 2: 3 fields; expected 4 (time,node,x,y)"),
    ("time,node,x,y\n0,a,1,nan\n", "f.csv, line 2: y 'nan' is not a number"),
    ("time,node,x,y,z\n5,a,1,1,1\n0,b,1,1,1\n4,a,1,1,1\n",
     "f.csv, line 4: time 4 s of a is before its previous row's 5 s; a node's rows must be in "
     "time order"),
    ("time,node,x,y\n-1,a,1,1\n", "f.csv, line 2: time -1 s is negative"),
])
def test_csv_errors_name_the_file_and_line(text, words):
    with pytest.raises(HarnessError) as err:
        traces.parse_csv(text, "f.csv")
    assert words in str(err.value)


# -- the table and its checks --------------------------------------------------------------
def test_the_table_declares_every_model_with_documented_parameters():
    assert set(MODELS) == {"random_waypoint", "random_walk", "gauss_markov",
                           "constant_velocity", "ns2", "csv"}
    for name, model in MODELS.items():
        assert model.name == name and model.doc
        assert all(isinstance(p, ParamSpec) and p.doc for p in model.params)
        assert len({p.name for p in model.params}) == len(model.params)


def test_every_model_runs_from_its_declared_defaults_plus_the_required_keys(tmp_path):
    traces.write_csv(random_waypoint(["sta1"], AREA, 5, 0, min_speed=1, max_speed=2),
                     tmp_path / "t.csv")
    (tmp_path / "t.ns2").write_text("$node_(0) set X_ 1\n$node_(0) set Y_ 1\n")
    required = {"random_waypoint": {"min_speed": 1, "max_speed": 2},
                "random_walk": {"min_speed": 1, "max_speed": 2, "interval": 1},
                "gauss_markov": {"alpha": 0.5, "mean_speed": 1}, "constant_velocity": {},
                "ns2": {"file": str(tmp_path / "t.ns2")}, "csv": {"file": str(tmp_path / "t.csv")}}
    for name in MODELS:
        assert list(generate(name, required[name], ["sta1"], AREA, 5, 0)) == ["sta1"]


@pytest.mark.parametrize("model,params,words", [
    ("levy_walk", {}, "mobility.model: levy_walk (str) is not allowed; expected one of "
                      "random_waypoint, random_walk, gauss_markov, constant_velocity, ns2, csv"),
    ("random_waypoint", {"min_speed": 1, "max_speed": 2, "interval": 3},
     "mobility.interval: unknown for model random_waypoint; allowed min_speed, max_speed, pause"),
    ("random_waypoint", {"max_speed": 2},
     "mobility.min_speed is required by model random_waypoint: a number > 0"),
    ("random_waypoint", {"min_speed": 0, "max_speed": 2},
     "mobility.min_speed: 0.0 is out of range; expected a number > 0"),
    ("random_waypoint", {"min_speed": 1, "max_speed": -2},
     "mobility.max_speed: -2.0 is out of range; expected a number > 0"),
    ("random_waypoint", {"min_speed": 3, "max_speed": 2},
     "mobility.min_speed: 3 is above max_speed 2; expected min_speed <= max_speed"),
    ("random_waypoint", {"min_speed": 1, "max_speed": 2, "pause": -1},
     "mobility.pause: -1.0 is out of range; expected a number >= 0"),
    ("random_waypoint", {"min_speed": "fast", "max_speed": 2},
     "mobility.min_speed: fast (str) is not allowed; expected a number > 0"),
    ("random_walk", {"min_speed": -1, "max_speed": 2, "interval": 1},
     "mobility.min_speed: -1.0 is out of range; expected a number >= 0"),
    ("random_walk", {"min_speed": 1, "max_speed": 2},
     "mobility.interval: give exactly one of interval (s) or distance (m) per leg (got "
     "neither)"),
    ("random_walk", {"min_speed": 1, "max_speed": 2, "interval": 1, "distance": 3},
     "(got interval and distance)"),
    ("random_walk", {"min_speed": 0, "max_speed": 2, "distance": 3},
     "mobility.min_speed: 0 with distance legs is not allowed"),
    ("gauss_markov", {"alpha": 1.5, "mean_speed": 1},
     "mobility.alpha: 1.5 is out of range; expected a number in [0, 1]"),
    ("gauss_markov", {"alpha": -0.1, "mean_speed": 1},
     "mobility.alpha: -0.1 is out of range; expected a number in [0, 1]"),
    ("gauss_markov", {"alpha": 0.5, "mean_speed": -1},
     "mobility.mean_speed: -1.0 is out of range; expected a number >= 0"),
    ("gauss_markov", {"alpha": 0.5, "mean_speed": 1, "time_step": 0},
     "mobility.time_step: 0.0 is out of range; expected a number > 0"),
    ("constant_velocity", {"vz": 1},
     "mobility.vz: 1 m/s in a flat area (z_min = z_max = 0) is not allowed; expected 0"),
    ("constant_velocity", {"border": "wrap"},
     "mobility.border: wrap (str) is not allowed; expected one of reflect, stop"),
    ("constant_velocity", {"start": [{"node": "sta1", "x": 101, "y": 3}]},
     "mobility.start[0]: node sta1 at (101, 3, 0) is outside the area (x [0, 100], "
     "y [0, 50], z [0, 0]); expected a position inside it"),
    ("constant_velocity", {"start": [{"node": "sta9", "x": 1, "y": 3}]},
     "mobility.start[0].node: sta9 is not one of the moving nodes; expected one of sta1, sta2"),
    ("constant_velocity", {"start": [{"node": "sta1", "x": 1}]},
     "mobility.start[0].y is required: a number (m)"),
    ("constant_velocity", {"start": [{"node": "sta1", "x": 1, "y": 1, "w": 1}]},
     "mobility.start[0].w: unknown key; allowed node, x, y, z"),
    ("ns2", {}, "mobility.file is required by model ns2: a string"),
    ("ns2", {"file": "/nonexistent/scen.ns2"}, "mobility.file: cannot read /nonexistent/scen"),
])
def test_bad_input_is_refused_with_the_key_and_what_is_allowed(model, params, words):
    with pytest.raises(HarnessError) as err:
        generate(model, params, ["sta1", "sta2"], AREA, 10, 0)
    assert words in str(err.value)


def test_a_mobility_mapping_is_checked_whole():
    model, args = check({"model": "random_walk", "min_speed": 1, "max_speed": 2,
                         "distance": 5}, AREA)
    assert model is MODELS["random_walk"]
    assert args == {"min_speed": 1.0, "max_speed": 2.0, "interval": None, "distance": 5.0,
                    "start": ()}
    with pytest.raises(HarnessError, match=r"^mobility.model is required: one of "
                                           r"random_waypoint, random_walk"):
        check({"min_speed": 1}, AREA)
    with pytest.raises(HarnessError, match=r"^mobility: \[1, 2\] is not allowed; expected a "
                                           r"mapping with a model key"):
        check([1, 2], AREA)
    with pytest.raises(HarnessError, match=r"^mobility: 'fast' is not allowed; expected a "
                                           r"mapping of model random_walk's parameters"):
        generate("random_walk", "fast", NODES, AREA, 10, 0)


@pytest.mark.parametrize("duration,seed,nodes,words", [
    (0, 1, ["a"], "mobility.duration: 0.0 is out of range; expected a number > 0"),
    (10, 1.5, ["a"], "mobility.seed: 1.5 (float) is not allowed; expected an integer"),
    (10, 1, ["a", "a"], "mobility: node a is named twice"),
    (10, 1, [""], "mobility: node name '' is not allowed"),
])
def test_a_bad_run_is_refused(duration, seed, nodes, words):
    with pytest.raises(HarnessError) as err:
        generate("random_walk", {"min_speed": 1, "max_speed": 2, "interval": 1}, nodes, AREA,
                 duration, seed)
    assert words in str(err.value)


def test_a_trace_must_move_the_nodes_and_keep_them_inside(tmp_path):
    path = tmp_path / "far.csv"
    path.write_text("time,node,x,y\n0,sta1,1,1\n10,sta1,150,1\n0,sta2,1,1\n")
    with pytest.raises(HarnessError) as err:
        generate("csv", {"file": str(path)}, ["sta1", "sta2"], AREA, 10, 0)
    assert str(err.value) == (f"{path}: node sta1 is at (150, 1, 0) at t=10 s, outside the area "
                              "(x [0, 100], y [0, 50], z [0, 0]); expected every position "
                              "inside it")
    with pytest.raises(HarnessError, match=r"far.csv has no node sta3; expected the nodes "
                                           r"sta1, sta2, sta3"):
        generate("csv", {"file": str(path)}, ["sta1", "sta2", "sta3"], Area(0, 200, 0, 9), 10, 0)
    with pytest.raises(HarnessError, match=r"far.csv moves sta2, not among the nodes; "
                                           r"expected the nodes sta1"):
        generate("csv", {"file": str(path)}, ["sta1"], Area(0, 200, 0, 9), 10, 0)


def test_ns2_ids_map_names_and_must_be_distinct(tmp_path):
    path = tmp_path / "s.ns2"
    path.write_text(NS2)
    area = Area(0, 100, 0, 50, 0, 2)
    ids = {"ap": 2, "car": 0, "bus": 1}
    trajs = generate("ns2", {"file": str(path), "ids": ids}, ["car", "bus", "ap"], area, 10, 0)
    assert trajs["car"] == Trajectory("car", traces.parse_ns2(NS2)["sta1"].waypoints)
    with pytest.raises(HarnessError, match=r"mobility.ids.car: id 0 is also bus's; expected "
                                           r"one id per node"):
        generate("ns2", {"file": str(path), "ids": {"car": 0, "bus": 0}}, ["car"], area, 10, 0)
