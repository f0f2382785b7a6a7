"""Radios that move in the medium core (mediumd/core/mobility.c), in virtual time.

mediumd/tests/test_mobility.c checks the interpolation and the core's bookkeeping (built with
AddressSanitizer and UBSan); its ``eval`` mode gives the positions this file compares bit for
bit with Python's ``Trajectory.position_at``. In mediumsim a station drives away from another:
its frames are received while the geometry says it is in range and lost from the instant it
leaves, with the power the propagation model gives at the distance of each frame's time."""
import json
import math
import random
import subprocess

import pytest
from conftest import MEDIUMD, radios

from harness.medium.mobility import models
from harness.medium.mobility.trajectory import Area, Trajectory, Waypoint


@pytest.fixture(scope="module")
def mobility_bin(tmp_path_factory):
    out = tmp_path_factory.mktemp("mobility") / "test_mobility"
    srcs = sorted(str(p) for p in (MEDIUMD / "core").glob("*.c"))
    cmd = ["gcc", "-O2", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
           "-Wall", "-Wextra", "-Werror", f"-I{MEDIUMD / 'core'}",
           str(MEDIUMD / "tests" / "test_mobility.c"), *srcs, "-lm", "-o", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return out


def test_core_checks(mobility_bin):
    proc = subprocess.run([str(mobility_bin)], capture_output=True, text=True, timeout=120)
    print(proc.stdout.strip(), proc.stderr[-3000:])
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == '{"failures": 0}'


def c_positions(binary, traj: Trajectory, times):
    """The core's positions on ``traj`` at ``times`` (its eval mode), as floats."""
    text = "".join(f"{w.t!r} {w.x!r} {w.y!r} {w.z!r}\n" for w in traj.waypoints) + "\n"
    text += "".join(f"{t!r}\n" for t in times)
    proc = subprocess.run([str(binary), "eval"], input=text, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    return [tuple(float.fromhex(v) for v in line.split()) for line in proc.stdout.splitlines()]


AREA = Area(0, 300, 0, 200, 0, 3)
CASES = {
    "random_waypoint": {"min_speed": 0.7, "max_speed": 13.3, "pause": 1.5},
    "random_walk": {"min_speed": 0.5, "max_speed": 9.1, "interval": 2.3},
    "gauss_markov": {"alpha": 0.75, "mean_speed": 4.1, "speed_sd": 1.3, "direction_sd": 40,
                     "time_step": 0.7},
    "constant_velocity": {"vx": 17.3, "vy": -3.1, "vz": 0.05},
}


@pytest.mark.parametrize("model", CASES)
def test_positions_bit_for_bit_with_python(mobility_bin, model):
    """Every waypoint time, a hair either side of it, random times and the times the medium
    derives from its nanosecond clock (ns / 1e9): the same doubles as position_at."""
    trajectories = models.generate(model, CASES[model], ["n1", "n2", "n3"], AREA, 40.0, seed=11)
    rng = random.Random(5)
    for traj in trajectories.values():
        times = [-1.0, 0.0, 40.0, 41.5]
        for w in traj.waypoints:
            times += [w.t, math.nextafter(w.t, -math.inf), math.nextafter(w.t, math.inf)]
        times += [rng.uniform(0, 40) for _ in range(300)]
        times += [rng.randrange(0, 40 * 10**9) / 1e9 for _ in range(300)]
        got = c_positions(mobility_bin, traj, times)
        want = [traj.position_at(t) for t in times]
        bad = [(t, g, w) for t, g, w in zip(times, got, want) if g != w]
        print(f"{model} {traj.node}: {len(traj.waypoints)} waypoints, {len(times)} times, "
              f"{len(bad)} differ")
        assert not bad, bad[:3]


def test_jumps_and_pauses_bit_for_bit(mobility_bin):
    traj = Trajectory("n", (Waypoint(0, 0.1, 0.2, 0.3), Waypoint(0, 5.5, 1.1, 0.3),
                            Waypoint(1.7, 9.9, 1.1, 0.3), Waypoint(3.3, 9.9, 1.1, 0.3),
                            Waypoint(3.3, 0.7, 77.7, 1.9), Waypoint(10.1, 3.3, 0.01, 0.0)))
    times = [i / 97 for i in range(-20, 1200)] + [0.0, 1.7, 3.3, 10.1]
    got = c_positions(mobility_bin, traj, times)
    assert got == [traj.position_at(t) for t in times]
    assert got[-2] == (0.7, 77.7, 1.9)      # at a jump the later waypoint holds


# -- a station drives away, in mediumsim ---------------------------------------------------
#: a at the origin; b from 50 m to 550 m along x in 10 s (50 m/s): it crosses a's 250 m
#: transmission range at 4 s. Two-ray ground, no fading: in range, a frame at 1 Mbit/s is
#: decoded (SNR ~27 dB at the edge); beyond it the receiver does not lock.
DRIVE = (Trajectory("b", (Waypoint(0, 50, 0, 0), Waypoint(10, 550, 0, 0))))
RANGE_M = 250.0
CONF = ("seed 4\npropagation two_ray\ndefaults phy b tx_range 250 cs_range 550\n"
        + radios([("a", 0, 0), ("b", 50, 0)]))
WAYPOINTS = "".join(f"waypoint b {w.t!r} {w.x!r} {w.y!r} {w.z!r}\n" for w in DRIVE.waypoints)
#: one broadcast from a every 100 ms, between the 100 ms marks (none near the 4 s crossing)
FRAME_US = [50_000 + 100_000 * k for k in range(100)]


def distance_at(t_us: float) -> float:
    x, y, z = DRIVE.position_at(t_us / 1e6)
    return math.hypot(x, y, z)


def drive_scenario(frames: str) -> str:
    return "duration 10\nwarmup 0\n" + WAYPOINTS + frames


def test_frames_received_until_the_station_leaves_range(sim):
    out = sim(CONF, drive_scenario("".join(f"frame {t} a broadcast len 100 rate 1\n"
                                           for t in FRAME_US)))
    got = [bool(f["received_by"]) for f in out["frames"]]
    want = [distance_at(t) <= RANGE_M for t in FRAME_US]
    last = max(i for i, ok in enumerate(got) if ok)
    print(f"received {sum(got)} of {len(got)}; last at {FRAME_US[last] / 1e6:g} s, "
          f"{distance_at(FRAME_US[last]):.1f} m; geometry says until 4 s ({RANGE_M:g} m)")
    assert got == want
    assert sum(got) == 40                   # 0.05 .. 3.95 s


def test_received_power_is_the_models_at_each_frames_distance(sim, mediumsim_bin, tmp_path):
    """Each frame's signal is the mean power a station standing where b is at that frame's
    time receives (mediumsim --links of a static copy): the link was recomputed as b moved."""
    out = sim(CONF, drive_scenario("".join(f"frame {t} a broadcast len 100 rate 1\n"
                                           for t in FRAME_US[:40:7])))
    for t, frame in zip(FRAME_US[:40:7], out["frames"]):
        x, y, z = DRIVE.position_at(t / 1e6)
        conf = tmp_path / "static.conf"
        conf.write_text(CONF.replace("pos 50 0 0", f"pos {x!r} {y!r} {z!r}"))
        proc = subprocess.run([str(mediumsim_bin), str(conf), "--links"], capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        static = next(link["mean_dbm"] for link in json.loads(proc.stdout)["links"]
                      if link["tx"] == "a" and link["rx"] == "b")
        signal = frame["received_by"][0]["signal_dbm"]
        print(f"t {t / 1e6:.2f} s at {x:.1f} m: {signal:.2f} dBm, standing there "
              f"{static:.2f} dBm")
        assert abs(signal - static) < 0.011


def test_unicast_acked_in_range_and_retried_to_the_limit_beyond(sim):
    frames = "".join(f"frame {t} b a len 500 rate 2 count 4\n" for t in FRAME_US[::5])
    out = sim(CONF, drive_scenario(frames))
    acked = [f["acked"] for f in out["frames"]]
    tries = [f["attempts"] for f in out["frames"]]
    want = [distance_at(t) <= RANGE_M for t in FRAME_US[::5]]
    print(f"acked {acked}\ntries {tries}")
    assert acked == want
    assert all(n == 1 for n, ok in zip(tries, acked) if ok)
    assert all(n == 4 for n, ok in zip(tries, acked) if not ok)


def test_scenario_waypoints_replace_the_configs(sim):
    """The config says b stays at 50 m; the scenario's waypoints move it away."""
    still = sim(CONF, "duration 10\nframe 9000000 a broadcast len 100 rate 1\n")
    moved = sim(CONF, drive_scenario("frame 9000000 a broadcast len 100 rate 1\n"))
    config_moves = sim(CONF + WAYPOINTS, "duration 10\nframe 9000000 a broadcast len 100 "
                       "rate 1\n")
    assert still["frames"][0]["received_by"]
    assert not moved["frames"][0]["received_by"]
    assert config_moves["frames"] == moved["frames"]
    end = [r["pos"] for r in moved["medium"]["radios"]]
    assert end == [[0, 0, 0], [550, 0, 0]]


def test_scenario_waypoint_errors(mediumsim_bin, tmp_path):
    conf = tmp_path / "m.conf"
    conf.write_text(CONF)
    for line, expect in [("waypoint c 0 0 0 0", ":2: radio: no radio 'c' in the medium config"),
                         ("waypoint b 0 0 0", "expected waypoint RADIO T X Y Z"),
                         ("waypoint b 2 0 0 0\nwaypoint b 1 0 0 0",
                          "time 1 s of b is before its previous waypoint's")]:
        scen = tmp_path / "s.txt"
        scen.write_text(f"duration 1\n{line}\n")
        proc = subprocess.run([str(mediumsim_bin), str(conf), str(scen)], capture_output=True,
                              text=True, timeout=60)
        print(proc.stderr.strip())
        assert proc.returncode == 2 and expect in proc.stderr
