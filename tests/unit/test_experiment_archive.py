"""Record files (harness.experiment.archive): pack -> load gives the same records and IDs, the
file is byte-reproducible, pruning keeps the declared key paths, a file is replaced (not
appended) per engine version, unpack gives a directory the runner resumes, an experiment of a
record file is read-only for the runner, and broken input gives a one-line error."""
from __future__ import annotations

import json
import lzma
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
#: The data's records come from the QEMU guest (``where: vm``, no ``engine`` yet), kernel 6.1.
FILE = "qemu-6.1" + archive.SUFFIX

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
    src = tmp_path / "results" / "chain_small"
    shutil.copytree(DATA, src)
    replaced = src / "archive" / "replaced" / "05e2d7335765.20260101T000000Z.json"
    replaced.parent.mkdir(parents=True)
    old = json.loads((src / "runs" / "05e2d7335765.json").read_text())
    old["replaced_because"] = "failed; run again (--retry-failed)"
    replaced.write_text(json.dumps(old, indent=1) + "\n")
    return src


def copy_with_environment(src: Path, dest: Path, **env: Any) -> Path:
    """A copy of results directory ``src`` whose records say they ran elsewhere (``env``)."""
    shutil.copytree(src, dest)
    for path in (dest / "runs").glob("*.json"):
        rec = json.loads(path.read_text())
        rec["environment"].update(env)
        path.write_text(json.dumps(rec))
    return dest


def test_pack_then_load_gives_the_same_records_in_the_same_order(results, tmp_path):
    before = load_results(results)
    path = archive.pack(tmp_path / "records", [results])
    assert path == tmp_path / "records" / FILE
    after = load_results(tmp_path / "records" / "chain_small")
    assert [r["run_id"] for r in after.records] == [r["run_id"] for r in before.records]
    # the same data with the keys in the same order (the order of `point` orders the report)
    assert [json.dumps(r) for r in after.records] == [json.dumps(r) for r in before.records]
    assert after.sweep_keys == before.sweep_keys == ["topology.hops", "policy.cwnd_clamp"]
    assert after.name == before.name == "chain_small"
    assert after.root == tmp_path / "records" / "chain_small" and after.report_dir == results
    lines = lzma.decompress(path.read_bytes()).decode().splitlines()
    assert json.loads(lines[0]) == {"format": 2, "engine": "qemu-6.1", "kernels": ["6.1.0-28-amd64"]}
    assert all(line.startswith('{"experiment":"chain_small",') for line in lines[1:])
    assert len(lines) == 1 + 1 + 18 + 1  # header, experiment, runs, the set-aside record
    head = archive.entry(tmp_path / "records" / "chain_small", records=False)
    assert head["plan"] == json.loads((results / "plan.json").read_text())
    assert head["manifest"] == {"runs": 18, "kept": 1, "reports": "../../results/chain_small",
                                "keep": None}


def test_packing_twice_gives_the_same_bytes(results, tmp_path):
    a = archive.pack(tmp_path / "a", [results])
    b = archive.pack(tmp_path / "b", [results])
    assert a.read_bytes() == b.read_bytes()


def test_prune_keeps_the_declared_paths_through_lists_and_wildcards():
    record = {"run_id": "x", "flows": [{"throughput_bps": 1.0, "ss": [{"t": 0, "cwnd": 3},
                                                                      {"t": 1, "cwnd": 4}],
                                        "intervals": [{"bytes": 5}]}],
              "medium": {"summary": {"links": {"a>b": {"delivered": 1, "airtime": 2},
                                               "b>a": {"delivered": 3}}, "lag_us": {"p50": 1}}},
              "notes": ["kept whole"]}
    kept = archive.prune(record, ["run_id", "flows/throughput_bps", "flows/ss/cwnd",
                                  "medium/summary/links/*/delivered", "notes"])
    assert kept == {"run_id": "x", "flows": [{"throughput_bps": 1.0,
                                              "ss": [{"cwnd": 3}, {"cwnd": 4}]}],
                    "medium": {"summary": {"links": {"a>b": {"delivered": 1},
                                                     "b>a": {"delivered": 3}}}},
                    "notes": ["kept whole"]}
    assert list(archive.prune({"b": 1, "a": 2, "c": 3}, ["c", "b"])) == ["b", "c"]  # order stays
    # a path that ends at a key keeps it whole, even where a longer one passes through
    assert archive.prune(record, ["medium/summary", "medium/summary/lag_us/p50"]) == \
        {"medium": record["medium"]}
    assert archive.prune(record, ["medium/*/lag_us"]) == {"medium": {"summary": {"lag_us": {"p50": 1}}}}


def test_pack_prunes_records_to_identity_and_keep(results, tmp_path):
    archive.pack(tmp_path / "records", [results], keep={"chain_small": ["flows/throughput_bps"],
                                                        "another": ["medium"]})
    rs = load_results(tmp_path / "records" / "chain_small")
    full = load_results(results)
    for pruned, rec in zip(rs.records, full.records):
        assert list(pruned) == [k for k in rec if k in archive.IDENTITY + ("flows",)]
        assert pruned["params"] == rec["params"] and pruned["environment"] == rec["environment"]
        assert pruned["flows"] == [{"throughput_bps": f["throughput_bps"]} for f in rec["flows"]]
    kept = archive.entry(tmp_path / "records" / "chain_small")["kept"]
    assert kept[0][0] == "archive/replaced/05e2d7335765.20260101T000000Z.json"
    assert "medium" not in kept[0][1] and kept[0][1]["run_id"] == "05e2d7335765"
    assert archive.entry(tmp_path / "records" / "chain_small")["manifest"]["keep"] == \
        list(archive.IDENTITY) + ["flows/throughput_bps"]


def test_the_file_is_named_from_the_records_and_one_file_holds_one_engine_version(results, tmp_path):
    assert archive.engine_version([{"environment": {"engine": "uml", "kernel": "6.1.176"}}]) \
        == "uml-6.1"
    assert archive.engine_version([{"environment": {"where": "native", "kernel": "6.18.4-x"}}]) \
        == "native-6.18"
    uml = copy_with_environment(results, tmp_path / "uml" / "chain_small", engine="uml",
                                kernel="6.1.176")
    mixed = tmp_path / "mixed" / "chain_small"
    shutil.copytree(results, mixed)
    shutil.copy(next((uml / "runs").glob("*.json")), mixed / "runs")
    with pytest.raises(HarnessError, match=r"one engine version; these come from qemu-6.1 "
                                           r"\(17 runs\), uml-6.1 \(1 runs\)"):
        archive.pack(tmp_path / "records", [mixed])


def test_packing_again_replaces_the_experiment_and_keeps_the_others(results, tmp_path):
    other = tmp_path / "results" / "other"
    shutil.copytree(results, other)
    folder = tmp_path / "records"
    archive.pack(folder, [results, other])
    (other / "runs" / "05e2d7335765.json").unlink()
    archive.pack(folder, [other])
    assert [p.name for p in archive.record_files(folder)] == [FILE]
    assert len(load_results(folder / "other").records) == 17  # replaced, not appended
    assert len(load_results(folder / "chain_small").records) == 18


def test_a_new_engine_version_takes_the_experiment_out_of_the_old_file(results, tmp_path):
    folder = tmp_path / "records"
    other = tmp_path / "results" / "other"
    shutil.copytree(results, other)
    archive.pack(folder, [results, other], reports=tmp_path / "reports")
    uml = copy_with_environment(results, tmp_path / "uml" / "chain_small", engine="uml",
                                kernel="6.1.176")
    archive.pack(folder, [uml])
    assert [p.name for p in archive.record_files(folder)] == [FILE, "uml-6.1" + archive.SUFFIX]
    assert load_results(folder / "chain_small").records[0]["environment"]["engine"] == "uml"
    assert load_results(folder / "chain_small").report_dir == tmp_path / "reports" / "chain_small"
    assert load_results(folder / "other").records[0]["environment"].get("engine") is None
    archive.pack(folder, [copy_with_environment(other, tmp_path / "uml" / "other", engine="uml",
                                                kernel="6.1.176")])
    assert [p.name for p in archive.record_files(folder)] == ["uml-6.1" + archive.SUFFIX]


def test_unpack_restores_the_directory(results, tmp_path):
    archive.pack(tmp_path / "records", [results])
    again = tmp_path / "again"
    assert archive.unpack(tmp_path / "records" / "chain_small", again) == 18
    for path in sorted((results / "runs").glob("*.json")):
        assert json.loads((again / "runs" / path.name).read_text()) == json.loads(path.read_text())
    assert (again / "experiment.yaml").read_bytes() == (results / "experiment.yaml").read_bytes()
    rel = "archive/replaced/05e2d7335765.20260101T000000Z.json"
    assert json.loads((again / rel).read_text()) == json.loads((results / rel).read_text())
    with pytest.raises(HarnessError, match="holds run records already"):
        archive.unpack(tmp_path / "records" / "chain_small", again)


def test_report_of_a_packed_experiment_goes_to_its_reports_directory(results, tmp_path):
    archive.pack(tmp_path / "records", [results], reports=tmp_path / "docs")
    rs = load_results(tmp_path / "records" / "chain_small")
    assert rs.report_dir == tmp_path / "docs" / "chain_small"
    from harness.analysis.report import write_report
    report = write_report(tmp_path / "records" / "chain_small")
    assert report == tmp_path / "docs" / "chain_small" / "report.md"
    assert f"Results: `{tmp_path / 'records' / 'chain_small'}`; 18 run records" in report.read_text()
    assert "of 18 planned" in report.read_text()
    assert [p.name for p in (tmp_path / "records").iterdir()] == [FILE]


def test_resume_from_an_unpacked_experiment_skips_the_stored_ids(tmp_path):
    first = Executor()
    sweep(tmp_path / "live", first)
    assert len(first.calls) == 6
    stored = sorted(p.stem for p in (tmp_path / "live" / "runs").glob("*.json"))
    for path in (tmp_path / "live" / "runs").glob("*.json"):  # a pure executor records none
        path.write_text(json.dumps(dict(json.loads(path.read_text()),
                                        environment={"where": "native", "kernel": "6.1.0"})))
    archive.pack(tmp_path / "records", [tmp_path / "live"])
    archive.unpack(tmp_path / "records" / "live", tmp_path / "unpacked")
    missing = tmp_path / "unpacked" / "runs" / f"{stored[0]}.json"
    missing.unlink()
    second = Executor()
    sweep(tmp_path / "unpacked", second)
    assert second.calls == [stored[0]]  # every other stored ID was skipped
    assert sorted(p.stem for p in (tmp_path / "unpacked" / "runs").glob("*.json")) == stored


def test_a_packed_experiment_counts_as_stored_but_refuses_new_runs(results, tmp_path):
    archive.pack(tmp_path / "records", [results])
    store = Store(tmp_path / "records" / "chain_small")
    assert store.existing_ids() == {p.stem for p in (results / "runs").glob("*.json")}
    some = sorted(store.existing_ids())[0]
    assert store.load(some) == json.loads((results / "runs" / f"{some}.json").read_text())
    executor = Executor()
    with pytest.raises(HarnessError, match="experiment of a record file"):
        sweep(tmp_path / "records" / "chain_small", executor)
    assert executor.calls == [] and not (tmp_path / "records" / "chain_small").exists()


def test_broken_input_gives_a_one_line_error(results, tmp_path):
    with pytest.raises(HarnessError, match="not a results directory"):
        archive.pack(tmp_path / "records", [tmp_path])
    path = archive.pack(tmp_path / "records", [results])
    with pytest.raises(HarnessError, match=r"no experiment 'nope' in qemu-6.1.jsonl.xz "
                                           r"\(they hold chain_small\)$"):
        load_results(tmp_path / "records" / "nope")
    good = path.read_bytes()
    broken = {"ended before the end-of-stream": good[: len(good) // 2],
              "Corrupt input data": good[:200] + bytes([good[200] ^ 1]) + good[201:],
              "format not supported": b"not xz at all",
              "format 99 is not one this harness reads": lzma.compress(b'{"format": 99}\n'),
              'does not start with {"experiment":': lzma.compress(b'{"format": 2}\n{"run": 1}\n'),
              "chain_small is not readable (its records do not match its manifest's counts)":
                  lzma.compress(b'{"format": 2}\n' + lzma.decompress(good).splitlines(True)[1])}
    for why, data in broken.items():
        path.write_bytes(data)
        with pytest.raises(HarnessError) as err:
            load_results(tmp_path / "records" / "chain_small")
        assert str(path) in str(err.value) and why in str(err.value), str(err.value)
        assert "\n" not in str(err.value)


def test_cli_pack_and_unpack(results, tmp_path, capsys):
    assert main(["archive", "pack", str(tmp_path / "records"), str(results)]) == 0
    assert f"{tmp_path / 'records' / FILE}: 1 experiment(s) packed" in capsys.readouterr().out
    back = tmp_path / "back"
    assert main(["archive", "unpack", str(tmp_path / "records" / "chain_small"), str(back)]) == 0
    assert len(list((back / "runs").glob("*.json"))) == 18
    assert main(["archive", "pack", str(tmp_path / "records"), str(tmp_path / "x")]) == 2
    assert "not a results directory" in capsys.readouterr().err


def test_cli_pack_into_a_study_prunes_to_its_record_keys(results, tmp_path, monkeypatch, capsys):
    """A study's folder: the file goes into its records/, each experiment pruned to what the
    study's RECORD_KEYS names for it; an experiment it does not name keeps its records whole."""
    top = tmp_path / "packstudies"  # a name of its own: studies are found once per name
    (top / "mine" / "records").mkdir(parents=True)
    (top / "__init__.py").write_text("")
    (top / "mine" / "__init__.py").write_text("")
    (top / "mine" / "paper.py").write_text(
        "from harness.study.claims import Paper\nPAPER = Paper('777', 'A paper', [])\n"
        "RECORD_KEYS = {'chain_small': ('flows/throughput_bps',)}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("HARNESS_STUDIES", "packstudies")
    other = tmp_path / "results" / "other"
    shutil.copytree(results, other)
    assert main(["archive", "pack", str(top / "mine"), str(results), str(other)]) == 0
    assert "records pruned to study 777's RECORD_KEYS" in capsys.readouterr().out
    assert [p.name for p in (top / "mine" / "records").iterdir()] == [FILE]
    pruned = load_results(top / "mine" / "records" / "chain_small").records[0]
    assert list(pruned["flows"][0]) == ["throughput_bps"] and "medium" not in pruned
    whole = load_results(top / "mine" / "records" / "other").records
    assert [json.dumps(r) for r in whole] == [json.dumps(r) for r in load_results(results).records]
