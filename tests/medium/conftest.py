"""Fixtures for the medium-core physics tests: build mediumd once, run
mediumsim scenarios in virtual time, return its JSON."""
from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MEDIUMD = ROOT / "mediumd"
MEDIUMSIM = MEDIUMD / "build" / "mediumsim"


@pytest.fixture(scope="session")
def mediumsim_bin() -> Path:
    """Build the core and the simulator (make core mediumsim) once per session."""
    proc = subprocess.run(["make", "-C", str(MEDIUMD), "core", "mediumsim"],
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        pytest.fail(f"make core mediumsim failed:\n{proc.stdout}\n{proc.stderr}")
    return MEDIUMSIM


@pytest.fixture
def sim(mediumsim_bin, tmp_path):
    """sim(config_text, scenario_text, seed=None, flags=()) -> parsed JSON of mediumsim."""
    counter = [0]

    def run(config: str, scenario: str, seed: int | None = None, flags: tuple = ()) -> dict:
        counter[0] += 1
        conf = tmp_path / f"medium{counter[0]}.conf"
        scen = tmp_path / f"scenario{counter[0]}.txt"
        conf.write_text(config)
        scen.write_text(scenario)
        cmd = [str(mediumsim_bin), str(conf), str(scen)]
        if seed is not None:
            cmd += ["--seed", str(seed)]
        cmd += list(flags)
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"mediumsim failed: {proc.stderr}"
        return json.loads(proc.stdout)

    return run


@pytest.fixture
def config_error(mediumsim_bin, tmp_path):
    """config_error(config_text) -> mediumsim's stderr for a config it must refuse (exit 2)."""
    scen = tmp_path / "empty-scenario.txt"
    scen.write_text("duration 1\n")

    def run(config: str) -> str:
        conf = tmp_path / "bad.conf"
        conf.write_text(config)
        proc = subprocess.run([str(mediumsim_bin), str(conf), str(scen)], capture_output=True,
                              text=True, timeout=60)
        print(proc.stderr.strip())
        assert proc.returncode == 2, f"exit {proc.returncode} for a bad config:\n{config}"
        return proc.stderr

    return run


def radios(names_positions, **keys) -> str:
    """Radio lines: [(name, x, y), ...] with consecutive MACs."""
    extra = " ".join(f"{k} {v}" for k, v in keys.items())
    return "".join(f"radio 02:00:00:00:{i // 256:02x}:{i % 256:02x} name {n} pos {x} {y} 0 {extra}\n"
                   for i, (n, x, y) in enumerate(names_positions, start=1))


def rel_err(measured: float, expected: float) -> float:
    return (measured - expected) / expected


def circle(n: int, radius: float):
    """n points on a circle around the origin."""
    return [(f"s{i}", radius * math.cos(2 * math.pi * i / n), radius * math.sin(2 * math.pi * i / n))
            for i in range(n)]
