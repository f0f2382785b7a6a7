"""Results store: atomic records, resume bookkeeping, detection of changed experiment files."""
from __future__ import annotations

import json

import pytest

from harness.errors import HarnessError
from harness.experiment import schema
from harness.experiment.store import Store, diff, write_json_atomic
from harness.experiment.sweep import expand

TEXT = """\
name: demo
topology: {builder: chain}
flows: [{src: first, dst: last, duration: 5}]
sweep:
  topology.hops: [1, 2, 3]
"""


def planned(text: str = TEXT):
    exp = schema.loads(text)
    return exp, expand(exp)


def fake_record(run, status="ok"):
    return {"run_id": run.run_id, "index": run.index, "repetition": run.repetition,
            "status": status, "flows": [{"throughput_bps": 1e6}]}


def test_atomic_write_leaves_only_the_record(tmp_path):
    path = tmp_path / "runs" / "abc.json"
    write_json_atomic(path, {"x": 1})
    assert json.loads(path.read_text()) == {"x": 1}
    assert [p.name for p in path.parent.iterdir()] == ["abc.json"]


def test_a_failed_serialisation_leaves_neither_record_nor_temporary(tmp_path):
    path = tmp_path / "runs" / "abc.json"
    with pytest.raises(ValueError):
        write_json_atomic(path, {"x": float("nan")})
    assert not path.parent.exists() or list(path.parent.iterdir()) == []


def test_prepare_writes_experiment_copy_and_plan(tmp_path):
    exp, runs = planned()
    store = Store(tmp_path)
    state = store.prepare(TEXT, runs)
    assert state.done == set() and state.changes == []
    assert (tmp_path / "experiment.yaml").read_text() == TEXT
    plan = json.loads((tmp_path / "plan.json").read_text())
    assert [r["run_id"] for r in plan["runs"]] == [r.run_id for r in runs]


def test_resume_knows_which_runs_are_done_and_ignores_partial_files(tmp_path):
    exp, runs = planned()
    store = Store(tmp_path)
    store.prepare(TEXT, runs)
    store.write(fake_record(runs[0]))
    store.write(fake_record(runs[1], status="failed"))
    (store.runs_dir / f".{runs[2].run_id}.json.tmp.999").write_text('{"run_id": ')  # killed writer
    state = store.prepare(TEXT, runs)
    assert state.done == {runs[0].run_id, runs[1].run_id}
    assert list(store.runs_dir.glob(".*")) == []
    state = Store(tmp_path).prepare(TEXT, runs, retry_failed=True)
    assert state.done == {runs[0].run_id} and state.failed == {runs[1].run_id}
    assert [r["run_id"] for r in store.records()] == [runs[0].run_id, runs[1].run_id]


def test_a_retry_rule_runs_again_only_the_failures_it_accepts(tmp_path):
    exp, runs = planned()
    store = Store(tmp_path)
    store.prepare(TEXT, runs)
    store.write(dict(fake_record(runs[0], status="failed"), error="iperf3 exited 1"))
    store.write(dict(fake_record(runs[1], status="failed"), error="HWMP found no path"))
    state = store.prepare(TEXT, runs, retry_failed=lambda r: "no path" not in r["error"])
    assert state.failed == {runs[0].run_id} and state.done == {runs[1].run_id}


def test_extending_the_sweep_is_fine_and_reported_as_a_change(tmp_path):
    exp, runs = planned()
    store = Store(tmp_path)
    store.prepare(TEXT, runs)
    store.write(fake_record(runs[0]))
    bigger = TEXT.replace("[1, 2, 3]", "[1, 2, 3, 4]")
    _, more = planned(bigger)
    state = store.prepare(bigger, more)
    assert state.done == {runs[0].run_id}
    assert state.changes == ["sweep.topology.hops: [1, 2, 3] -> [1, 2, 3, 4]"]


def test_changed_parameters_are_detected_and_explained(tmp_path):
    exp, runs = planned()
    store = Store(tmp_path)
    store.prepare(TEXT, runs)
    store.write(fake_record(runs[0]))
    changed = TEXT.replace("duration: 5", "duration: 6")
    _, other = planned(changed)
    with pytest.raises(HarnessError) as info:
        store.prepare(changed, other)
    msg = str(info.value)
    assert "1 run record(s) that match no run of this experiment file" in msg
    assert "flows[0].duration: 5 -> 6" in msg
    assert "--fresh" in msg
    # The old experiment copy is untouched by the refused attempt.
    assert (tmp_path / "experiment.yaml").read_text() == TEXT


def test_a_binary_stored_copy_is_unreadable_not_a_traceback(tmp_path):
    """A damaged experiment.yaml in the output (not UTF-8 text) is reported as one reason."""
    exp, runs = planned()
    store = Store(tmp_path)
    store.prepare(TEXT, runs)
    store.write(fake_record(runs[0]))
    (tmp_path / "experiment.yaml").write_bytes(b"\x00\xff\xfe")
    assert store.prepare(TEXT, runs).changes == ["the stored experiment.yaml is unreadable"]
    (tmp_path / "experiment.yaml").write_bytes(b"\x00\xff\xfe")
    changed = TEXT.replace("duration: 5", "duration: 6")
    with pytest.raises(HarnessError, match=r"parameters changed \(the stored experiment.yaml "
                                           r"is unreadable\)"):
        store.prepare(changed, planned(changed)[1])


def test_fresh_archives_instead_of_deleting(tmp_path):
    exp, runs = planned()
    store = Store(tmp_path)
    store.prepare(TEXT, runs)
    store.write(fake_record(runs[0]))
    changed = TEXT.replace("duration: 5", "duration: 6")
    _, other = planned(changed)
    state = store.prepare(changed, other, fresh=True)
    assert state.done == set() and state.archived is not None
    assert (state.archived / "runs" / f"{runs[0].run_id}.json").exists()
    assert (state.archived / "experiment.yaml").read_text() == TEXT
    assert store.existing_ids() == set()


def test_one_writer_per_directory(tmp_path):
    first, second = Store(tmp_path), Store(tmp_path)
    first.lock()
    try:
        with pytest.raises(HarnessError, match="another harness run is writing"):
            second.lock()
    finally:
        first.unlock()
    second.lock()
    second.unlock()


def test_diff_names_paths():
    old = {"a": 1, "flows": [{"src": "x"}], "sweep": {"k": [1, 2]}}
    new = {"a": 2, "flows": [{"src": "y"}], "sweep": {"k": [1, 2]}, "b": True}
    assert diff(old, new) == ["a: 1 -> 2", 'flows[0].src: "x" -> "y"', "b: added (true)"]
