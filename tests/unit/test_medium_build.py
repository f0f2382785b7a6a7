"""Building mediumd into a cache that several machines share.

Two guests of one sweep (``harness run --jobs 2``) boot alike, so their builders have the same
pid; both build into the host's cache over the shared folder. Here two host processes play
them: each reports the same pid, and both must end with a built binary.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

BUILDER = """
import os, sys
os.getpid = lambda: 394  # as in two guests booted alike
from harness.medium.build import ensure_mediumd
print(ensure_mediumd(sys.argv[1]))
"""


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("gcc") is None,
                    reason="building mediumd needs gcc and make")
@pytest.mark.parametrize("targets", [("mediumd", "mediumd"), ("mediumsim", "mediumsim")])
def test_two_builders_with_one_pid_both_get_the_binary(tmp_path: Path, targets) -> None:
    env = dict(os.environ, HARNESS_CACHE=str(tmp_path))
    procs = []
    for target in targets:  # the second starts while the first compiles
        procs.append(subprocess.Popen([sys.executable, "-c", BUILDER, target], env=env, text=True,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and procs[0].poll() is None \
                and not list(tmp_path.glob("mediumd/*.tmp*/build")):
            time.sleep(0.01)
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err[-2000:] for _out, err in outs]
    for out, _err in outs:
        binary = Path(out.strip().splitlines()[-1])
        assert binary.is_file() and os.access(binary, os.X_OK), out
    # nothing half-built is left beside the finished build
    assert not [p.name for p in (tmp_path / "mediumd").iterdir() if ".tmp" in p.name]


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("gcc") is None,
                    reason="building mediumd needs gcc and make")
def test_each_target_is_published_whole_in_a_directory_of_its_own(tmp_path: Path) -> None:
    """The second target is not added in place to the first one's build: a lock over the
    guests' shared folder does not exclude the other guest, which once ran a mediumsim still
    being linked."""
    env = dict(os.environ, HARNESS_CACHE=str(tmp_path))
    first = subprocess.run([sys.executable, "-c", BUILDER, "mediumsim"], env=env, text=True,
                           capture_output=True, timeout=300)
    assert first.returncode == 0, first.stderr[-2000:]
    built = Path(first.stdout.strip().splitlines()[-1])
    before = built.stat().st_mtime_ns
    dirs = sorted(p.name for p in (tmp_path / "mediumd").iterdir())
    assert len(dirs) == 1 and dirs[0].endswith("-mediumsim"), dirs
    # the other target builds elsewhere and leaves the published one untouched
    if shutil.which("pkg-config") and subprocess.run(["pkg-config", "--exists", "libnl-genl-3.0"]
                                                     ).returncode == 0:
        second = subprocess.run([sys.executable, "-c", BUILDER, "mediumd"], env=env, text=True,
                                capture_output=True, timeout=300)
        assert second.returncode == 0, second.stderr[-2000:]
        assert sorted(p.name.split("-")[-1] for p in (tmp_path / "mediumd").iterdir()) == [
            "mediumd", "mediumsim"]
    assert built.stat().st_mtime_ns == before
