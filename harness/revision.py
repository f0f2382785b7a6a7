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
from typing import Optional

ENV = "HARNESS_CODE_REVISION"


@functools.lru_cache(maxsize=1)
def code_revision() -> Optional[str]:
    """``<commit>`` or ``<commit>-dirty``; None outside a git checkout or without git."""
    given = os.environ.get(ENV)
    if given:
        return given
    from harness.vm.paths import code_root
    root = code_root()
    if shutil.which("git") is None or not (root / ".git").exists():
        return None
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"],
                              capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain",
                                "--untracked-files=no"],
                               capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return head.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")
