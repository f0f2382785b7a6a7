"""``harness run``: dry run, input refused before anything starts (flows
naming missing nodes, unwritable output), and a whole sweep end to end with a pure executor
standing in for the emulation."""
from __future__ import annotations

import json
import os
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


@pytest.fixture(autouse=True)
def one_at_a_time(monkeypatch):
    """These tests drive the sequential runner of the native engine with a pure executor
    (--jobs is tested in tests/unit/test_parallel.py; the uml engine's pool of guests in
    tests/parallel/test_uml_sweeps.py)."""
    monkeypatch.setattr(run_cmd, "default_jobs", lambda: 1)
    monkeypatch.setenv("HARNESS_ENGINE", "native")


@pytest.fixture
def here(monkeypatch):
    """Run on this host with a pure executor."""
    module = executor_module()
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
    bad = tmp_path / "bad.yaml"
    bad.write_text(TEXT.replace("builder: chain", "builder: chian"))
    assert cli.main(["run", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:2: topology.builder: unknown builder 'chian'; allowed: campus, chain" in err
    assert cli.main(["run", str(tmp_path / "missing.yaml")]) == 2
    assert "cannot read experiment file" in capsys.readouterr().err


def test_the_executor_is_the_emulation_module():
    from harness.experiment import execute
    assert run_cmd.load_executor() is execute


def refused(capsys, argv, monkeypatch) -> str:
    """Run ``harness ARGV``, which must stop at validation: exit 2, one line on stderr, no
    guest, no executor."""
    monkeypatch.setattr(run_cmd, "make_pool", lambda args: pytest.fail("reached the runs"))
    monkeypatch.setattr(run_cmd, "load_executor", lambda: pytest.fail("reached the executor"))
    assert cli.main(["run", *argv]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert captured.out == ""
    return lines[0]


BAD_FLOWS = [
    ("topology: {builder: chain, hops: 2}\nflows: [{src: sta1, dst: sta9}]\n",
     "flows[0].dst: no node 'sta9' in the topology; allowed: sta1, sta2, sta3, first, last"),
    ("topology: {builder: chain, hops: 2}\nflows: [{src: sta0, dst: last}]\n",
     "flows[0].src: no node 'sta0'"),
    # sta4 exists at 3 hops only: every point of the sweep is checked, not just the first
    ("topology: {builder: chain}\nflows: [{src: first, dst: sta4}]\n"
     "sweep: {topology.hops: [3, 2]}\n",
     "flows[0].dst: no node 'sta4' in the topology at sweep point topology.hops=2; "
     "allowed: sta1, sta2, sta3, first, last"),
    ("topology: {builder: chain, hops: 2}\nflows: [{src: first, dst: last}]\n"
     "sweep:\n  flows[0].dst: [sta2, sta7]\n",
     "flows[0].dst: no node 'sta7' in the topology at sweep point flows[0].dst=sta7"),
    ("topology: {builder: chain, hops: 2}\nflows: [{src: first, dst: sta1}]\n",
     "flows[0].dst: 'sta1' is the same node as src 'first' (sta1)"),
]


@pytest.mark.parametrize("dry", [True, False])
@pytest.mark.parametrize("body,message", BAD_FLOWS)
def test_flow_naming_a_missing_node_is_refused_before_anything_starts(
        tmp_path, monkeypatch, capsys, body, message, dry):
    path = tmp_path / "bad.yaml"
    path.write_text(f"name: bad\noutput: {tmp_path / 'out'}\n" + body)
    line = refused(capsys, [str(path)] + (["--dry-run"] if dry else []), monkeypatch)
    assert line.startswith(f"harness run: error: {path}:")
    assert message in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml"]


@pytest.mark.parametrize("argv", [[], ["--dry-run"], ["--quick"]])
def test_a_binary_experiment_file_is_one_line_naming_it(tmp_path, monkeypatch, capsys, argv):
    """Bytes that are not UTF-8 text: one line naming the file, exit 2, no traceback."""
    path = tmp_path / "binary.yaml"
    path.write_bytes(b"\x00\xff\xfe")
    line = refused(capsys, [str(path), *argv], monkeypatch)
    assert line == (f"harness run: error: {path}: not an experiment file: byte 1 is not UTF-8 "
                    "text (an experiment is a YAML text file)")
    # queued after a good file: refused before the good one runs
    exp = tmp_path / "good.yaml"
    exp.write_text(TEXT + f"output: {tmp_path / 'out'}\n")
    line = refused(capsys, [str(exp), str(path), *argv], monkeypatch)
    assert line.startswith(f"harness run: error: {path}: not an experiment file")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["cli", "draw"])
def test_the_prompt_and_the_picture_refuse_a_binary_file_alike(tmp_path, monkeypatch, capsys,
                                                                 command):
    from harness.vm import dispatch
    monkeypatch.setattr(dispatch, "needs_vm", lambda: pytest.fail("reached the VM decision"))
    path = tmp_path / "binary.yaml"
    path.write_bytes(b"\x00\xff\xfe")
    assert cli.main([command, str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [f"harness {command}: error: {path}: not an experiment "
                                         "file: byte 1 is not UTF-8 text (an experiment is a "
                                         "YAML text file)"]
    assert captured.out == ""


def test_a_binary_experiment_file_fails_the_command_without_a_traceback(tmp_path):
    """The real entry point (``python -m harness``): what a user sees on the terminal."""
    import subprocess
    import sys
    path = tmp_path / "binary.yaml"
    path.write_bytes(b"\x00\xff\xfe")
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root), "HARNESS_ENGINE": "native"}
    done = subprocess.run([sys.executable, "-m", "harness", "run", str(path), "--dry-run"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.splitlines() == [f"harness run: error: {path}: not an experiment file: "
                                        "byte 1 is not UTF-8 text (an experiment is a YAML "
                                        "text file)"]


def unwritable_cases(tmp_path):
    """(output path, reason expected in the message): each one a new user could type."""
    a_file = tmp_path / "taken"
    a_file.write_text("not a directory")
    return [
        (a_file, f"{a_file} is a file, not a directory"),
        (a_file / "out", f"{a_file} is a file, not a directory"),
        (Path("/proc/nope"), "cannot create /proc/nope"),
        (Path("/proc/nope/deeper"), "cannot create /proc/nope"),
    ]


@pytest.mark.parametrize("dry", [True, False])
@pytest.mark.parametrize("case", range(4))
def test_unwritable_output_in_the_file_is_refused(tmp_path, monkeypatch, capsys, case, dry):
    out, reason = unwritable_cases(tmp_path)[case]
    path = tmp_path / "bad.yaml"
    path.write_text(TEXT + f"output: {out}\n")
    line = refused(capsys, [str(path)] + (["--dry-run"] if dry else []), monkeypatch)
    assert line.startswith(f"harness run: error: output: {out} is not writable: ")
    assert reason in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml", "taken"]
    assert (tmp_path / "taken").read_text() == "not a directory"


@pytest.mark.parametrize("case", range(4))
def test_unwritable_output_option_is_refused(exp_file, tmp_path, monkeypatch, capsys, case):
    out, reason = unwritable_cases(tmp_path)[case]
    line = refused(capsys, [str(exp_file), "--output", str(out)], monkeypatch)
    assert line.startswith(f"harness run: error: --output: {out} is not writable: ")
    assert reason in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.yaml", "taken"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through directory permissions")
def test_read_only_directory_is_refused(exp_file, tmp_path, monkeypatch, capsys):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        line = refused(capsys, [str(exp_file), "--output", str(locked / "out")], monkeypatch)
    finally:
        locked.chmod(0o700)
    assert f"cannot create {locked / 'out'}: Permission denied" in line
    assert list(locked.iterdir()) == []


def test_writable_output_is_left_as_it_was(exp_file, tmp_path, capsys):
    existing = tmp_path / "existing"
    existing.mkdir()
    assert cli.main(["run", str(exp_file), "--dry-run", "--output", str(existing)]) == 0
    assert list(existing.iterdir()) == []  # the write probe is gone again
    assert cli.main(["run", str(exp_file), "--dry-run",
                     "--output", str(tmp_path / "new" / "deeper")]) == 0
    assert not (tmp_path / "new").exists()


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
    monkeypatch.setattr(run_cmd, "load_executor", lambda: module)
    assert cli.main(["run", str(exp_file)]) == 1
    assert "4 ok, 2 failed" in capsys.readouterr().err
    assert cli.main(["run", str(exp_file), "--fail-fast", "--retry-failed"]) == 1
    # the 4 ok runs are stored; of the 2 failed ones run again, the first fails and stops the sweep
    assert "0 ok, 1 failed, 4 already stored, 1 not run" in capsys.readouterr().err


def test_retry_lagged_takes_milliseconds_above_zero(exp_file, capsys):
    for bad in ("0", "-3", "ten"):
        with pytest.raises(SystemExit) as exit_info:
            cli.main(["run", str(exp_file), "--retry-lagged", bad])
        assert exit_info.value.code == 2
        assert "--retry-lagged: expected milliseconds above 0" in capsys.readouterr().err


def test_first_repetitions_run_first_and_the_rest_on_a_rerun(exp_file, tmp_path, here, capsys):
    exp_file.write_text(exp_file.read_text() + "repetitions: 3\n")
    assert cli.main(["run", str(exp_file), "--repetitions", "1"]) == 0
    assert len(here.calls) == 6  # one pass over the 6 points
    assert "demo: 6 ok, 0 failed, 0 already stored, 12 not run" in capsys.readouterr().err
    reps = {json.loads(p.read_text())["repetition"] for p in (tmp_path / "out" / "runs").glob("*.json")}
    assert reps == {0}
    assert cli.main(["run", str(exp_file), "--dry-run", "--repetitions", "2"]) == 0
    assert "6 pending in the first 2 repetition(s)" in capsys.readouterr().out
    assert cli.main(["run", str(exp_file)]) == 0  # the rest, nothing repeated
    assert len(here.calls) == 18 and len(set(here.calls)) == 18
    assert "demo: 12 ok, 0 failed, 6 already stored, 0 not run" in capsys.readouterr().err


def test_first_repetitions_beyond_the_file_are_refused(exp_file, here, capsys):
    assert cli.main(["run", str(exp_file), "--repetitions", "2"]) == 2
    err = capsys.readouterr().err
    assert "--repetitions: 2 is more than the 1 repetition(s)" in err and "allowed 1-1" in err
    assert here.calls == []
    with pytest.raises(SystemExit):
        cli.main(["run", str(exp_file), "--repetitions", "0"])
    assert "--repetitions: expected a whole number >= 1" in capsys.readouterr().err


def test_several_files_run_one_after_another(exp_file, tmp_path, here, capsys):
    second = tmp_path / "second.yaml"
    second.write_text(TEXT.replace("name: demo", "name: demo2") + f"output: {tmp_path / 'out2'}\n")
    assert cli.main(["run", str(exp_file), str(second), "--no-report"]) == 0
    assert len(here.calls) == 12
    err = capsys.readouterr().err
    assert f"== {exp_file} (1 of 2)" in err and f"== {second} (2 of 2)" in err
    assert "demo: 6 ok" in err and "demo2: 6 ok" in err
    assert len(list((tmp_path / "out2" / "runs").glob("*.json"))) == 6


def test_a_bad_file_in_a_queue_stops_it_before_anything_runs(exp_file, tmp_path, here, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(TEXT.replace("builder: chain", "builder: ring"))
    assert cli.main(["run", str(exp_file), str(bad)]) == 2
    assert here.calls == [] and "topology.builder" in capsys.readouterr().err
    assert cli.main(["run", str(exp_file), str(exp_file), "--output", "o"]) == 2
    assert "--output names one results directory: allowed with one file, got 2" in \
        capsys.readouterr().err
    assert here.calls == []
