"""The clean-up registry and the run folders it removes: real files and real processes in a
temporary directory, no root."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import List, Optional

import pytest

from harness.kernel import cleanup


@pytest.fixture
def registry():
    """An empty registry for the test; the modules' callbacks come back after it."""
    saved = list(cleanup._CALLBACKS)
    cleanup._CALLBACKS.clear()
    try:
        yield
    finally:
        cleanup._CALLBACKS[:] = saved


def test_callbacks_run_by_stage_then_in_registration_order_and_errors_do_not_stop_others(registry):
    calls: List[str] = []

    def make(name: str, fail: bool = False):
        def fn(tag: Optional[str], report: cleanup.CleanReport) -> None:
            calls.append(f"{name}:{tag}")
            if fail:
                raise RuntimeError("boom")
            report.add("thing", name)
        return fn

    cleanup.add_cleanup_callback("files", make("files"), stage="files")
    cleanup.add_cleanup_callback("ns", make("ns", fail=True), stage="namespaces")
    cleanup.add_cleanup_callback("procs", make("procs"), stage="processes")
    cleanup.add_cleanup_callback("more files", make("more"), stage="files",
                                 leftovers=lambda tag: [f"left {tag}"])
    logged: List[str] = []
    report = cleanup.clean("ab12", log=logged.append)
    assert calls == ["procs:ab12", "ns:ab12", "files:ab12", "more:ab12"]
    assert report.problems == ["ns: boom"]
    assert report.of("thing") == ["procs", "files", "more"]
    assert logged == ["removed thing: procs", "removed thing: files", "removed thing: more"]
    assert cleanup.harness_objects_left("ab12") == ["left ab12"]


def test_registering_a_name_again_replaces_it_and_a_bad_stage_is_refused(registry):
    cleanup.add_cleanup_callback("x", lambda tag, report: report.add("a", "1"))
    cleanup.add_cleanup_callback("x", lambda tag, report: report.add("b", "2"))
    assert [c.name for c in cleanup.callbacks()] == ["x"]
    assert cleanup.clean().entries == [("b", "2")]
    with pytest.raises(ValueError, match="allowed processes, in namespaces"):
        cleanup.add_cleanup_callback("y", lambda tag, report: None, stage="later")


def test_the_plumbing_modules_register_themselves():
    from harness.cli.clean import load_plumbing
    load_plumbing()
    names = {c.name for c in cleanup.callbacks()}
    assert {"processes", "namespaces", "radios in namespaces", "radios", "OVS bridges",
            "medium run directories", "UML guests"} <= names


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def _folder(base: Path, name: str, owner: Optional[str]) -> Path:
    path = base / name
    path.mkdir()
    (path / "console.log").write_text("boot\n")
    if owner is not None:
        (path / cleanup.OWNER_FILE).write_text(owner)
    return path


def test_owner_is_alive_only_for_the_same_pid_and_start_time(tmp_path):
    cleanup.claim(tmp_path)
    assert cleanup.owner_alive(tmp_path) is True
    pid = os.getpid()
    (tmp_path / cleanup.OWNER_FILE).write_text(f"{pid} {cleanup.start_time(pid) + 1}\n")
    assert cleanup.owner_alive(tmp_path) is False  # the pid was reused by another process
    (tmp_path / cleanup.OWNER_FILE).write_text(f"{_dead_pid()} 1\n")
    assert cleanup.owner_alive(tmp_path) is False
    cleanup.release(tmp_path)
    assert cleanup.owner_alive(tmp_path) is None


def test_an_unclaimed_folder_a_process_still_names_is_left_alone(tmp_path):
    folder = _folder(tmp_path, "hx-uml-used0001", None)
    os.utime(folder, (time.time() - 3600, time.time() - 3600))
    user = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)",
                             f"{folder}/console.log"])
    try:
        time.sleep(0.2)
        assert cleanup.abandoned_dirs(tmp_path, "hx-uml-*", unclaimed=True) == []
    finally:
        user.kill()
        user.wait()
    assert cleanup.abandoned_dirs(tmp_path, "hx-uml-*", unclaimed=True) == [folder]
    assert cleanup.abandoned_dirs(tmp_path, "hx-uml-*") == []  # released: kept on purpose


def test_medium_run_directories_of_killed_runs_by_tag(tmp_path, monkeypatch):
    from harness.medium import daemon
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    mine = _folder(tmp_path, "hx-abcd-medium-x1", f"{_dead_pid()} 1\n")
    theirs = _folder(tmp_path, "hx-ef01-medium-x2", f"{_dead_pid()} 1\n")
    kept = _folder(tmp_path, "hx-abcd-medium-x3", None)  # released: kept on purpose
    os.utime(kept, (time.time() - 3600, time.time() - 3600))
    assert daemon._run_dirs_left("abcd") == [f"medium run directory {mine}"]
    report = cleanup.CleanReport()
    daemon._clean_run_dirs("abcd", report)
    assert report.of("medium run directory") == [str(mine)]
    assert not mine.exists() and theirs.exists()
    daemon._clean_run_dirs(None, report)
    assert not theirs.exists()
