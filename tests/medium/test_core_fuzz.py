"""Random API use as a daemon would make it (enqueue with random rate tables and
flags, moves, overrides, tx power changes, CLOCK_MONOTONIC-like times), built
with AddressSanitizer and UBSan: every frame gets exactly one tx_status, no
frame is delivered twice to a receiver, time never runs backwards."""
import json
import subprocess

import pytest
from conftest import MEDIUMD


@pytest.fixture(scope="module")
def fuzz_bin(tmp_path_factory):
    out = tmp_path_factory.mktemp("fuzz") / "fuzz_core"
    srcs = sorted(str(p) for p in (MEDIUMD / "core").glob("*.c"))
    cmd = ["gcc", "-O1", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
           "-Wall", "-Wextra", f"-I{MEDIUMD / 'core'}", str(MEDIUMD / "tests" / "fuzz_core.c"),
           *srcs, "-lm", "-o", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.mark.parametrize("seed,gap_us", [(1, 400), (2, 400), (3, 4000), (4, 4000), (5, 40)])
def test_core_invariants_under_random_use(fuzz_bin, seed, gap_us):
    proc = subprocess.run([str(fuzz_bin), str(seed), "20000", str(gap_us)], capture_output=True,
                          text=True, timeout=300)
    print(proc.stdout.strip(), proc.stderr[-2000:])
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert json.loads(proc.stdout)["failures"] == 0
