"""The code revision stored in run records."""
from __future__ import annotations

import re
import shutil

import pytest

from harness.experiment import revision
from harness.experiment.runner import base_environment


@pytest.fixture(autouse=True)
def fresh_cache():
    revision.code_revision.cache_clear()
    yield
    revision.code_revision.cache_clear()


def test_the_environment_variable_wins(monkeypatch):
    monkeypatch.setenv(revision.ENV, "abc123def456")
    assert revision.code_revision() == "abc123def456"
    assert base_environment()["code_revision"] == "abc123def456"


def test_a_checkout_gives_its_commit(monkeypatch):
    monkeypatch.delenv(revision.ENV, raising=False)
    from harness.paths import code_root
    if shutil.which("git") is None or not (code_root() / ".git").exists():
        pytest.skip("not a git checkout")
    assert re.fullmatch(r"[0-9a-f]{12}(-dirty)?", revision.code_revision())


def test_the_guest_is_told_the_revision(monkeypatch):
    from harness.vm.dispatch import guest_env
    monkeypatch.setenv(revision.ENV, "0123456789ab")
    assert guest_env()[revision.ENV] == "0123456789ab"


def test_changed_results_do_not_make_the_checkout_dirty_but_changed_code_does(tmp_path):
    """A study's records and page are data: regenerating them keeps the revision clean;
    a study's code is code."""
    import subprocess
    if shutil.which("git") is None:
        pytest.skip("needs git")
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    records = tmp_path / "studies" / "s1" / "records" / "x"
    records.mkdir(parents=True)
    (tmp_path / "harness").mkdir()
    (tmp_path / "harness" / "a.py").write_text("a = 1\n")
    (tmp_path / "studies" / "s1" / "paper.py").write_text("b = 1\n")
    (tmp_path / "studies" / "s1" / "report.md").write_text("# page\n")
    (records / "runs.jsonl").write_text("{}\n")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "c"], check=True)
    clean = revision.revision_of(tmp_path)
    assert re.fullmatch(r"[0-9a-f]{12}", clean)
    (records / "runs.jsonl").write_text('{"status": "ok"}\n')
    (tmp_path / "studies" / "s1" / "report.md").write_text("# page, again\n")
    assert revision.revision_of(tmp_path) == clean
    (tmp_path / "studies" / "s1" / "paper.py").write_text("b = 2\n")
    assert revision.revision_of(tmp_path) == clean + "-dirty"
    subprocess.run(git + ["checkout", "-q", "--", "studies/s1/paper.py"], check=True)
    (tmp_path / "harness" / "a.py").write_text("a = 2\n")
    assert revision.revision_of(tmp_path) == clean + "-dirty"
