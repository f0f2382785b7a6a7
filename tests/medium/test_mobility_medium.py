"""Moving nodes from the harness's side through the simulated medium, in virtual time.

``medium.mobility`` is made into trajectories with the run's seed
(``harness.medium.config.run_trajectories``), written into mediumd's config as ``waypoint``
lines (``config_text``) and run in mediumsim: what a run's mediumd gets. A station driven
away at constant velocity receives all of a neighbour's broadcasts, then fewer, then none,
second by second as the geometry says; a random-waypoint station receives exactly the frames
sent while the trajectory Python made puts it within range."""
from __future__ import annotations

import math
from typing import Dict, List

from harness.medium.config import config_text, run_trajectories
from harness.medium.mobility.trajectory import Trajectory
from harness.medium.spec import MediumSpec

RANGE_M = 250.0


def row(node: str, mac: str, pos) -> Dict:
    return {"node": node, "index": 0, "mac": mac, "position": pos, "phy_mode": "g",
            "rate": None, "rts": None, "txpower_dbm": None, "retry_limit": None}


RADIOS = [row("sta1", "02:00:00:00:01:00", (0.0, 0.0, 0.0)),
          row("sta2", "02:00:00:00:02:00", (20.0, 0.0, 0.0))]
#: sta1 broadcasts every 100 ms at 6 Mbit/s, between the marks
FRAME_US = [50_000 + 100_000 * k for k in range(200)]


def medium(mobility: Dict, seed: int):
    spec = MediumSpec.from_dict({"tx_range": RANGE_M, "cs_range": 550, "mobility": mobility})
    trajectories = run_trajectories(RADIOS, spec, seed)
    return config_text(RADIOS, spec, seed, trajectories), trajectories


def scenario() -> str:
    return "duration 20\n" + "".join(f"frame {t} sta1 broadcast len 200 rate 6\n"
                                     for t in FRAME_US)


def distance(traj: Trajectory, t_us: int) -> float:
    return math.hypot(*traj.position_at(t_us / 1e6))


def per_second(flags: List[bool]) -> List[int]:
    return [sum(flags[i:i + 10]) for i in range(0, len(flags), 10)]


def test_delivery_falls_as_a_station_drives_away(sim):
    mobility = {"model": "constant_velocity", "vx": 25, "area": {"x": [0, 1000], "y": [-10, 10]},
                "nodes": ["sta2"], "duration": 20}
    conf, trajectories = medium(mobility, seed=1)
    assert "waypoint sta2 0.0 20.0 0.0 0.0" in conf
    out = sim(conf, scenario())
    got = [bool(f["received_by"]) for f in out["frames"]]
    want = [distance(trajectories["sta2"], t) <= RANGE_M for t in FRAME_US]
    counts = per_second(got)
    print(f"frames sta2 received per second as it drives away at 25 m/s: {counts}")
    assert got == want
    assert counts[:9] == [10] * 9 and 0 < counts[9] < 10 and counts[10:] == [0] * 10
    signals = [f["received_by"][0]["signal_dbm"] for f in out["frames"] if f["received_by"]]
    assert all(a > b for a, b in zip(signals[::5], signals[5::5]))  # weaker as it goes


def test_random_waypoint_reception_follows_the_python_trajectory(sim):
    mobility = {"model": "random_waypoint", "min_speed": 5, "max_speed": 30, "pause": 1,
                "area": {"x": [0, 500], "y": [0, 100]}, "nodes": ["sta2"], "duration": 20}
    conf, trajectories = medium(mobility, seed=5)
    out = sim(conf, scenario())
    traj = trajectories["sta2"]
    got = [bool(f["received_by"]) for f in out["frames"]]
    d = [distance(traj, t) for t in FRAME_US]
    # a frame starts within a DIFS of its injection: at 30 m/s that is mm, so only frames
    # within 5 cm of the range could go either way
    clear = [(g, x <= RANGE_M) for g, x in zip(got, d) if abs(x - RANGE_M) > 0.05]
    print(f"received {sum(got)} of {len(got)}; in range {sum(x <= RANGE_M for x in d)}; "
          f"per second {per_second(got)}")
    assert len(clear) >= 190 and all(g == w for g, w in clear)
    # with this seed it comes into range, leaves and comes back
    assert sum(a != b for a, b in zip(got, got[1:])) >= 2
    # the same seed gives the same medium; another seed another motion
    assert medium(mobility, seed=5)[0] == conf
    assert medium(mobility, seed=6)[0] != conf
