"""harness.medium.mobility: trajectories, the mobility models, traces and their checks.

Pure logic: no files but pytest's tmp_path, no processes. Statistical tests run with fixed
seeds, so they are deterministic; their tolerances are stated in standard errors measured
on the same runs, and each is shown to fail on what it guards against where that is cheap.
"""
from __future__ import annotations

import math
from typing import List

import pytest

from harness.errors import HarnessError
from harness.medium.mobility.trajectory import Area, Trajectory, Waypoint, node_random


def sample(traj: Trajectory, end: float, n: int = 2000) -> List[float]:
    return [end * k / n for k in range(n + 1)]



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
