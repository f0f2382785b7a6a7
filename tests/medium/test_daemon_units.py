"""The daemon's C unit tests (mediumd/daemon/tests/: JSON reader/writer, lag
percentiles, pcap writer, capture through the core, hwsim netlink messages), run
through ``make daemon-test``."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

MEDIUMD_DIR = Path(__file__).resolve().parents[2] / "mediumd"


def test_daemon_c_unit_tests_pass(tmp_path_factory):
    if shutil.which("make") is None or shutil.which("cc") is None:
        pytest.skip("needs make and a C compiler")
    build_dir = tmp_path_factory.getbasetemp() / "mediumd-build"  # outside the checkout
    proc = subprocess.run(["make", "-C", str(MEDIUMD_DIR), f"BUILD={build_dir}", "daemon-test"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    tests = sorted(p.stem for p in (MEDIUMD_DIR / "daemon" / "tests").glob("test_*.c"))
    assert tests, "no C unit test found"
    for name in tests:  # each program ran and said ok
        assert f"{name}\n" in proc.stdout, (name, proc.stdout)
    assert proc.stdout.count("ok\n") >= len(tests), proc.stdout
