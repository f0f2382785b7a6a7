"""What ``harness cli`` and ``harness draw`` open: experiment files and builders with options,
checked before anything starts (harness.interactive.sources); the command lines themselves
(``harness draw`` writes its picture; a bad option is one error line, exit 2)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.interactive import sources

ROOT = Path(__file__).resolve().parents[2]


def test_options_are_paths_with_yaml_values_and_bare_keys_are_the_builders():
    got = sources.parse_assignments(["hops=4", "medium.cs_range=300", "topology.rts=true",
                                     "policy.cwnd_clamp=null", "flows[0].congestion=reno"],
                                    bare_prefix="topology")
    assert got == [("topology.hops", 4), ("medium.cs_range", 300), ("topology.rts", True),
                   ("policy.cwnd_clamp", None), ("flows[0].congestion", "reno")]
    with pytest.raises(HarnessError, match="not KEY=VALUE"):
        sources.parse_assignments(["hops"])
    with pytest.raises(HarnessError, match="'repetitions' cannot be set here; allowed roots"):
        sources.parse_assignments(["repetitions=3"])


def test_builder_setup_validates_like_an_experiment_file():
    setup = sources.from_builder("chain", ["hops=4", "rate=11", "phy=b", "medium.cs_range=550"])
    assert setup.topo.node_names() == ["sta1", "sta2", "sta3", "sta4", "sta5"]
    assert setup.topo.stations["sta1"].rate == 11.0
    assert setup.medium["cs_range"] == 550 and setup.medium["tx_range"] == 250
    assert [(f["src"], f["dst"]) for f in setup.flows] == [("sta1", "sta5")]
    with pytest.raises(HarnessError, match="topology.hops: 0 .* expected an integer in"):
        sources.from_builder("chain", ["hops=0"])
    with pytest.raises(HarnessError, match="unknown parameter of builder 'chain'; allowed: builder, hops"):
        sources.from_builder("chain", ["hopz=3"])
    with pytest.raises(HarnessError, match="neither an experiment file .* builders: campus, chain"):
        sources.load("ring")


def test_experiment_opens_at_the_first_sweep_point_unless_an_option_picks_another(tmp_path):
    exp = tmp_path / "e.yaml"
    exp.write_text("name: e\ntopology: {builder: chain, phy: b, rate: 2}\n"
                   "policy: {cwnd_clamp: 2}\nflows: [{src: first, dst: last}]\n"
                   "sweep:\n  topology.hops: [2, 5]\n  topology.rts: [false, true]\n")
    first = sources.load(str(exp))
    assert len(first.topo.node_names()) == 3 and first.topo.stations["sta1"].rts is False
    assert [p.name for p in first.policies] == ["cwnd_clamp"]
    other = sources.load(str(exp), ["topology.hops=5", "topology.rts=true", "policy.cwnd_clamp=4"])
    assert len(other.topo.node_names()) == 6 and other.topo.stations["sta1"].rts is True
    assert other.params["policy"]["cwnd_clamp"] == 4
    with pytest.raises(HarnessError, match="topology.rts: maybe .* expected true or false"):
        sources.load(str(exp), ["topology.rts=maybe"])
    with pytest.raises(HarnessError, match="no such file"):
        sources.kind_of(str(tmp_path / "missing.yaml"))
    script = tmp_path / "s.py"
    script.write_text("")
    assert sources.kind_of(str(script)) == "script" and sources.kind_of(None) == "builder"


def harness(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=300)


def test_draw_command_writes_png_and_svg_and_refuses_bad_options(tmp_path):
    done = harness("draw", "chain", "hops=2", "-o", "pic.png", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["pic.png", "pic.svg"]
    assert (tmp_path / "pic.svg").stat().st_size > 1000
    bad = harness("draw", "chain", "hops=99", cwd=tmp_path)
    assert bad.returncode == 2
    assert bad.stderr.strip().startswith("harness draw: error: builder chain: topology.hops: 99")
    wrong = harness("cli", "chain", "spacing=-3", cwd=tmp_path)
    assert wrong.returncode == 2 and "topology.spacing" in wrong.stderr, wrong.stderr
    assert "VM" not in wrong.stderr  # refused before any guest is booted
