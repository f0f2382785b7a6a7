"""Which code produced a result: the checkout's git commit, marked ``-dirty`` when files
differ from it, stored in every run record (a sweep may span sessions and code changes).

The guest has no git: the host computes the revision before it boots the VM and passes it
in ``HARNESS_CODE_REVISION``, which wins over asking git.
"""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path
from typing import Optional

ENV = "HARNESS_CODE_REVISION"


#: Run records and reports written into the checkout: data, not code, so changes there do
#: not make the revision ``-dirty`` (a study's page regenerated from its records would mark
#: itself). Git pathspecs (``*`` crosses folders).
DATA_PATHS = ("results", "results-archive", "studies/*/records/*", "studies/*/report.md",
              "studies/*/figures/*")


@functools.lru_cache(maxsize=1)
def code_revision() -> Optional[str]:
    """``<commit>`` or ``<commit>-dirty``; None outside a git checkout or without git."""
    given = os.environ.get(ENV)
    if given:
        return given
    from harness.paths import code_root
    return revision_of(code_root())


def revision_of(root: Path) -> Optional[str]:
    """The checkout at ``root``: its commit, ``-dirty`` when a tracked file outside
    ``DATA_PATHS`` differs from it (untracked files do not count)."""
    if shutil.which("git") is None or not (root / ".git").exists():
        return None
    exclude = [f":(exclude){p}" for p in DATA_PATHS]
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"],
                              capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain",
                                "--untracked-files=no", "--", "."] + exclude,
                               capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return head.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")
