"""``harness run``: dry run, VM dispatch hook, missing executor, and a whole sweep end to end
with a pure executor standing in for the emulation."""
from __future__ import annotations

import json
import types
from pathlib import Path

import pytest

from harness import cli
from harness.cli import run as run_cmd
from harness.experiment import schema
from harness.experiment.store import Store
from harness.experiment.sweep import expand

TEXT = """\
name: demo
topology: {builder: chain}
flows: [{src: first, dst: last, duration: 2}]
sweep:
  topology.hops: [1, 2, 3]
  policy.cwnd_clamp: [1, null]
"""


@pytest.fixture
def exp_file(tmp_path) -> Path:
    path = tmp_path / "demo.yaml"
    path.write_text(TEXT + f"output: {tmp_path / 'out'}\n")
    return path


def executor_module(fail_hops: int = 0):
    calls = []

    def execute_run(params, seed, *, run_id):
        calls.append(run_id)
        hops = params["topology"]["hops"]
        if hops == fail_hops:
            raise RuntimeError("radio vanished")
        return {"flows": [{"throughput_bps": 1e6 / hops, "rtt_mean_ms": 3.0 * hops}],
                "environment": {"where": "test"}}

    return types.SimpleNamespace(execute_run=execute_run, environment=lambda: {"accel": "none"},
                                 calls=calls)


@pytest.fixture
def here(monkeypatch):
    """Run on this host (the VM hook says so) with a pure executor."""
    module = executor_module()
    monkeypatch.setattr(run_cmd, "maybe_in_vm", lambda argv: None)
    monkeypatch.setattr(run_cmd, "load_executor", lambda: module)
    return module


def test_dry_run_lists_runs_with_status(exp_file, tmp_path, capsys):
    runs = expand(schema.load(exp_file))
    store = Store(tmp_path / "out")
    store.prepare(exp_file.read_text(), runs)
    store.write({"run_id": runs[1].run_id, "status": "failed"})
    assert cli.main(["run", str(exp_file), "--dry-run"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"demo: 6 runs (6 sweep points x 1 repetitions) -> {tmp_path / 'out'}; 5 pending, at least 35s"
    assert runs[0].run_id in out[1] and "pending" in out[1] and "hops=1 cwnd_clamp=1" in out[1]
    assert "failed" in out[2] and "cwnd_clamp=unclamped" in out[2]
    assert len(out) == 7


def test_dry_run_quick(exp_file, capsys):
    assert cli.main(["run", str(exp_file), "--dry-run", "--quick"]) == 0
    out = capsys.readouterr().out
    assert "4 runs (4 sweep points x 1 repetitions)" in out and "out-quick" in out


def test_invalid_file_is_reported_before_anything_runs(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(run_cmd, "maybe_in_vm", lambda argv: pytest.fail("dispatched"))
    bad = tmp_path / "bad.yaml"
    bad.write_text(TEXT.replace("builder: chain", "builder: chian"))
    assert cli.main(["run", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:2: topology.builder: unknown builder 'chian'; allowed: chain" in err
    assert cli.main(["run", str(tmp_path / "missing.yaml")]) == 2
    assert "cannot read experiment file" in capsys.readouterr().err


def test_the_vm_decision_is_one_call_with_the_command_line(exp_file, monkeypatch, tmp_path):
    seen = []
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(run_cmd, "maybe_in_vm", lambda argv: seen.append(argv) or 7)
    monkeypatch.setattr(run_cmd, "load_executor", lambda: pytest.fail("ran here"))
    assert cli.main(["run", str(exp_file), "--output", "o", "--quick", "--fresh"]) == 7
    # absolute paths, so that the dispatch can share them into the guest wherever they lie
    assert seen == [["run", str(exp_file.resolve()), "--output", str(tmp_path.resolve() / "o"),
                     "--fresh", "--quick", "--no-report"]]


def test_missing_executor_is_a_clear_error(exp_file, monkeypatch, capsys):
    monkeypatch.setattr(run_cmd, "maybe_in_vm", lambda argv: None)
    monkeypatch.setattr(run_cmd, "EXECUTOR_MODULE", "harness.experiment._no_such_executor")
    assert cli.main(["run", str(exp_file)]) == 2
    assert "emulation executor not available yet" in capsys.readouterr().err


def test_whole_sweep_then_resume_then_report(exp_file, tmp_path, here, capsys):
    out = tmp_path / "out"
    assert cli.main(["run", str(exp_file)]) == 0
    assert len(here.calls) == 6
    captured = capsys.readouterr()
    assert "demo: 6 ok, 0 failed, 0 already stored, 0 not run" in captured.err
    assert f"report: {out / 'report.md'}" in captured.out  # written at the end of the run
    assert "| 3 | unclamped | 1 | 0.333 |" in captured.out  # the throughput table, printed
    assert (out / "report.md").exists()
    rec = json.loads(next((out / "runs").glob("*.json")).read_text())
    assert rec["environment"]["where"] == "test" and rec["environment"]["accel"] == "none"
    assert cli.main(["run", str(exp_file), "--resume"]) == 0
    assert len(here.calls) == 6
    assert "0 ok, 0 failed, 6 already stored" in capsys.readouterr().err
    assert cli.main(["report", str(out)]) == 0
    assert "| 3 | unclamped | 1 | 0.333 |" in (out / "report.md").read_text()


def test_changed_file_is_refused_then_fresh_archives(exp_file, tmp_path, here, capsys):
    assert cli.main(["run", str(exp_file)]) == 0
    exp_file.write_text(exp_file.read_text().replace("duration: 2", "duration: 3"))
    assert cli.main(["run", str(exp_file)]) == 2
    err = capsys.readouterr().err
    assert "match no run of this experiment file" in err and "flows[0].duration: 2 -> 3" in err
    assert cli.main(["run", str(exp_file), "--fresh"]) == 0
    assert len(here.calls) == 12
    assert len(list((tmp_path / "out" / "archive").glob("*/runs/*.json"))) == 6


def test_failures_give_exit_1(exp_file, monkeypatch, capsys):
    module = executor_module(fail_hops=2)
    monkeypatch.setattr(run_cmd, "maybe_in_vm", lambda argv: None)
    monkeypatch.setattr(run_cmd, "load_executor", lambda: module)
    assert cli.main(["run", str(exp_file)]) == 1
    assert "4 ok, 2 failed" in capsys.readouterr().err
    assert cli.main(["run", str(exp_file), "--fail-fast", "--retry-failed"]) == 1
    assert "0 ok, 1 failed, 2 already stored, 3 not run" in capsys.readouterr().err


def test_retry_lagged_takes_milliseconds_above_zero(exp_file, capsys):
    for bad in ("0", "-3", "ten"):
        with pytest.raises(SystemExit) as exit_info:
            cli.main(["run", str(exp_file), "--retry-lagged", bad])
        assert exit_info.value.code == 2
        assert "--retry-lagged: expected milliseconds above 0" in capsys.readouterr().err


def test_retry_lagged_goes_to_the_vm_with_the_command_line(exp_file, monkeypatch, tmp_path):
    seen = []
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(run_cmd, "maybe_in_vm", lambda argv: seen.append(argv) or 0)
    assert cli.main(["run", str(exp_file), "--output", "o", "--retry-lagged", "12.5"]) == 0
    assert seen[0][-3:] == ["--retry-lagged", "12.5", "--no-report"]
