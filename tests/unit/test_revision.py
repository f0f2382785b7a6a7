"""The code revision stored in run records."""
from __future__ import annotations

import re
import shutil

import pytest

from harness import revision
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
    from harness.vm.paths import code_root
    if shutil.which("git") is None or not (code_root() / ".git").exists():
        pytest.skip("not a git checkout")
    assert re.fullmatch(r"[0-9a-f]{12}(-dirty)?", revision.code_revision())


def test_the_guest_is_told_the_revision(monkeypatch):
    from harness.vm.dispatch import guest_env
    monkeypatch.setenv(revision.ENV, "0123456789ab")
    assert guest_env()[revision.ENV] == "0123456789ab"
