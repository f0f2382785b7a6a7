"""The lab handouts (labs/*/README.md) cannot drift from the harness: their files validate,
each has the sections a student and an instructor need and the one command that starts it,
each has a quick form in CI (tests/emulation/test_labs.py), and every measured table is what
its committed results give (labs/handouts.py)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.experiment import schema
from harness.experiment.sweep import expand

ROOT = Path(__file__).resolve().parents[2]


def _load_handouts():
    """labs/handouts.py, a file of the labs (not a module of the harness), loaded by path."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("lab_handouts", ROOT / "labs" / "handouts.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


labs = _load_handouts()

LABS = sorted(p for p in (ROOT / "labs").iterdir() if p.is_dir())
SECTIONS = ("## Goal", "## Start", "## Do and observe", "## Questions", "## For the instructor")


def test_there_are_five_labs_and_the_index_links_each():
    assert [p.name for p in LABS] == ["01-chain-hops", "02-hidden-terminal", "03-window-limit",
                                      "04-last-hop-congestion", "05-retry-limit-mesh"]
    index = (ROOT / "labs" / "README.md").read_text()
    for lab in LABS:
        assert f"({lab.name}/README.md)" in index, lab.name


@pytest.mark.parametrize("lab", LABS, ids=lambda p: p.name)
def test_lab_files_validate_and_the_handout_is_complete(lab):
    handout = (lab / "README.md").read_text()
    for section in SECTIONS:
        assert section in handout, f"{lab.name}: no '{section}' section"
    assert f"bin/harness cli labs/{lab.name}/lab.yaml" in handout
    for name in ("lab.yaml", "measure.yaml"):
        if (lab / name).exists():
            runs = expand(schema.load(lab / name))
            assert runs, f"{lab.name}/{name} has no runs"
    for path in re.findall(r"labs/[\w./-]+\.yaml", handout):
        assert (ROOT / path).is_file(), f"{lab.name}: names {path}, which does not exist"
    quick = (ROOT / "tests" / "emulation" / "test_labs.py").read_text()
    assert f'"{lab.name}"' in quick, f"{lab.name} has no quick form in tests/emulation/test_labs.py"


@pytest.mark.parametrize("lab", LABS, ids=lambda p: p.name)
def test_measured_tables_are_what_the_results_give(lab):
    handout = lab / "README.md"
    assert labs.BLOCK.search(handout.read_text()), f"{lab.name}: no measured table"
    assert labs.stale(handout) == [], (
        f"{handout}: a measured table differs from its results; regenerate with "
        "python3 labs/handouts.py labs/*/README.md")


def test_measured_block_specs_are_checked():
    with pytest.raises(Exception, match="starts with the results path"):
        labs.parse_spec("rows=topology.hops")
    with pytest.raises(Exception, match="metric 'speed' unknown"):
        labs.parse_spec("results-archive/x metrics=speed")
    spec = labs.parse_spec("results-archive/x rows=a,b metrics=throughput,rtt where=k:1;j:true")
    assert spec == {"path": "results-archive/x", "rows": ["a", "b"],
                    "metrics": ["throughput", "rtt"], "where": {"k": 1, "j": True}, "ranges": [],
                    "flow": None}
    assert labs.parse_spec("results-archive/x flow=1")["flow"] == 1
    with pytest.raises(Exception, match="flow=first is invalid"):
        labs.parse_spec("results-archive/x flow=first")
    with pytest.raises(Exception, match="range=rtt is not one of its metrics"):
        labs.parse_spec("results-archive/x metrics=throughput range=rtt")


def test_flow_picks_one_flow_of_each_run(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    for i, (down, up) in enumerate([(2e6, 6e6), (4e6, 8e6)]):
        record = {"run_id": f"r{i}", "index": 0, "repetition": i, "status": "ok",
                  "point": {"policy.congestion": "reno"},
                  "params": {"policy": {"congestion": "reno"}},
                  "flows": [{"throughput_bps": down}, {"throughput_bps": up}]}
        (runs / f"r{i}.json").write_text(json.dumps(record))
    both = labs.measured_table(tmp_path, ["policy.congestion"], ["throughput"])
    assert "| reno | 2 | 10 ± " in both, both
    down = labs.measured_table(tmp_path, ["policy.congestion"], ["throughput"], flow=0)
    assert "| reno | 2 | 3 ± " in down, down
    up = labs.measured_table(tmp_path, ["policy.congestion"], ["throughput"], flow=1)
    assert "| reno | 2 | 7 ± " in up, up
    with pytest.raises(Exception, match="with a flow 2"):
        labs.measured_table(tmp_path, ["policy.congestion"], ["throughput"], flow=2)
