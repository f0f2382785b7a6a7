"""Packed results (harness.experiment.archive): pack -> load gives the same records and IDs,
the files are byte-reproducible, unpack gives a directory the runner resumes, and a packed
directory is read-only for the runner."""
from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any, Dict, List

import pytest

from harness.cli import main
from harness.errors import HarnessError
from harness.experiment import archive, schema
from harness.experiment.progress import Progress
from harness.experiment.results import load_results
from harness.experiment.runner import run_sweep
from harness.experiment.store import Store
from harness.experiment.sweep import expand

DATA = Path(__file__).resolve().parent / "data" / "chain_small"

TEXT = """\
name: demo
topology: {builder: chain}
flows: [{src: first, dst: last, duration: 1}]
sweep:
  topology.hops: [1, 2, 3]
repetitions: 2
"""


class Executor:
    """A pure executor: throughput falls with hops; remembers which runs it ran."""

    def __init__(self) -> None:
        self.calls: List[str] = []

    def __call__(self, params: Dict[str, Any], seed: int, *, run_id: str) -> Dict[str, Any]:
        self.calls.append(run_id)
        hops = params["topology"]["hops"]
        return {"flows": [{"throughput_bps": 2e6 / hops + seed % 1000}]}


def sweep(out: Path, executor: Executor) -> None:
    exp = schema.loads(TEXT)
    runs = expand(exp)
    run_sweep(exp, Store(out), executor, runs=runs,
              progress=Progress(len(runs), stream=open("/dev/null", "w"), tty=False))


@pytest.fixture
def results(tmp_path: Path) -> Path:
    src = tmp_path / "docs" / "chain_small"
    shutil.copytree(DATA, src)
    replaced = src / "archive" / "replaced" / "05e2d7335765.20260101T000000Z.json"
    replaced.parent.mkdir(parents=True)
    old = json.loads((src / "runs" / "05e2d7335765.json").read_text())
    old["replaced_because"] = "failed; run again (--retry-failed)"
    replaced.write_text(json.dumps(old, indent=1) + "\n")
    return src


def test_pack_then_load_gives_the_same_records_in_the_same_order(results, tmp_path):
    before = load_results(results)
    dest = tmp_path / "archive" / "chain_small"
    info = archive.pack(results, dest)
    assert info["runs"] == 18 and info["kept"] == 1
    after = load_results(dest)
    assert [r["run_id"] for r in after.records] == [r["run_id"] for r in before.records]
    # the same data with the keys in the same order (the order of `point` orders the report)
    assert ([json.dumps(r) for r in after.records] == [json.dumps(r) for r in before.records])
    assert after.sweep_keys == before.sweep_keys == ["topology.hops", "policy.cwnd_clamp"]
    assert after.name == before.name == "chain_small"
    assert after.root == dest and after.report_dir == results
    assert (dest / "plan.json").read_bytes() == (results / "plan.json").read_bytes()
    lines = gzip.decompress((dest / archive.RUNS_FILE).read_bytes()).decode().splitlines()
    assert len(lines) == 18 and all(json.loads(line)["run_id"] for line in lines)


def test_packing_twice_gives_the_same_bytes(results, tmp_path):
    archive.pack(results, tmp_path / "a")
    archive.pack(results, tmp_path / "b")
    for name in (archive.RUNS_FILE, archive.KEPT_FILE, archive.MANIFEST):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_remove_leaves_only_the_reports(results, tmp_path):
    (results / "report.md").write_text("# chain_small\n")
    archive.pack(results, tmp_path / "packed", remove=True)
    assert sorted(p.name for p in results.iterdir()) == ["report.md"]
    assert len(load_results(tmp_path / "packed").records) == 18


def test_unpack_restores_the_directory_byte_for_byte(results, tmp_path):
    archive.pack(results, tmp_path / "packed")
    again = tmp_path / "again"
    assert archive.unpack(tmp_path / "packed", again) == 18
    for path in sorted(results.rglob("*.json")) + [results / "experiment.yaml"]:
        rel = path.relative_to(results)
        assert (again / rel).read_bytes() == path.read_bytes(), rel
    with pytest.raises(HarnessError, match="holds run records already"):
        archive.unpack(tmp_path / "packed", again)


def test_report_of_a_packed_directory_goes_to_its_reports_directory(results, tmp_path):
    dest = tmp_path / "packed"
    archive.pack(results, dest, reports=tmp_path / "docs" / "elsewhere")
    rs = load_results(dest / archive.RUNS_FILE)  # the file itself names the directory too
    assert rs.report_dir == tmp_path / "docs" / "elsewhere"
    from harness.analysis.report import write_report
    report = write_report(dest)
    assert report == tmp_path / "docs" / "elsewhere" / "report.md"
    assert f"Results: `{dest}`; 18 run records" in report.read_text()
    assert sorted(p.name for p in dest.iterdir()) == sorted(
        [archive.MANIFEST, archive.RUNS_FILE, archive.KEPT_FILE, "experiment.yaml", "plan.json"])


def test_resume_from_an_unpacked_archive_skips_the_stored_ids(tmp_path):
    first = Executor()
    sweep(tmp_path / "live", first)
    assert len(first.calls) == 6
    stored = sorted(p.stem for p in (tmp_path / "live" / "runs").glob("*.json"))
    archive.pack(tmp_path / "live", tmp_path / "packed")
    (tmp_path / "unpacked").mkdir()
    archive.unpack(tmp_path / "packed", tmp_path / "unpacked")
    missing = tmp_path / "unpacked" / "runs" / f"{stored[0]}.json"
    missing.unlink()
    second = Executor()
    sweep(tmp_path / "unpacked", second)
    assert second.calls == [stored[0]]  # every other stored ID was skipped
    assert sorted(p.stem for p in (tmp_path / "unpacked" / "runs").glob("*.json")) == stored


def test_a_packed_directory_counts_as_stored_but_refuses_new_runs(tmp_path):
    sweep(tmp_path / "live", Executor())
    archive.pack(tmp_path / "live", tmp_path / "packed")
    store = Store(tmp_path / "packed")
    assert store.existing_ids() == {p.stem for p in (tmp_path / "live" / "runs").glob("*.json")}
    some = sorted(store.existing_ids())[0]
    assert store.load(some) == json.loads((tmp_path / "live" / "runs" / f"{some}.json").read_text())
    executor = Executor()
    with pytest.raises(HarnessError, match="packed results archive"):
        sweep(tmp_path / "packed", executor)
    assert executor.calls == [] and not (tmp_path / "packed" / "runs").exists()


def test_pack_refuses_what_is_not_a_results_directory(tmp_path):
    with pytest.raises(HarnessError, match="not a results directory"):
        archive.pack(tmp_path, tmp_path / "packed")
    (tmp_path / "packed").mkdir()
    (tmp_path / "packed" / archive.MANIFEST).write_text('{"format": 99}')
    with pytest.raises(HarnessError, match="format 99"):
        load_results(tmp_path / "packed")


def test_cli_pack_and_unpack(results, tmp_path, capsys):
    assert main(["archive", "pack", str(results), str(tmp_path / "packed"), "--remove"]) == 0
    assert "18 run records, 1 set aside" in capsys.readouterr().out
    assert not (results / "runs").exists()
    assert main(["archive", "unpack", str(tmp_path / "packed"), str(tmp_path / "back")]) == 0
    assert len(list((tmp_path / "back" / "runs").glob("*.json"))) == 18
    assert main(["archive", "pack", str(tmp_path / "packed"), str(tmp_path / "x")]) == 2
    assert "packed already" in capsys.readouterr().err
