"""``harness test``: the project's tests, each where it can run.

Host-only tests (unit tests, the medium core in virtual time) run here; emulation tests
(marker ``emulation``) run natively when this host has mac80211_hwsim, else in the VM.
The last line sums both phases as ``N passed, N failed, N skipped``.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Dict, List

from harness.errors import HarnessError

PYTEST_NO_TESTS = 5


def register(sub) -> None:
    p = sub.add_parser("test", help="run the tests: unit tests here, emulation tests natively or in the VM",
                       description="Without options: unit tests plus the quick emulation subset "
                                   "(marker 'emulation and not slow').")
    p.add_argument("--unit", action="store_true", help="only the host tests")
    p.add_argument("--emulation", action="store_true", help="only the emulation tests")
    p.add_argument("--slow", action="store_true",
                   help="include slow emulation suites (marker 'slow', e.g. full paper sweeps)")
    p.add_argument("-k", dest="keyword", help="pytest -k expression for both phases")
    p.add_argument("pytest_args", nargs="*", help="paths or extra pytest arguments (after --)")
    p.set_defaults(func=cmd_test)


def _counts(junit: Path) -> Dict[str, int]:
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    if not junit.exists():
        return counts
    root = ET.parse(junit).getroot()
    for suite in ([root] if root.tag == "testsuite" else root.iter("testsuite")):
        total = int(suite.get("tests", 0))
        failed = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
        skipped = int(suite.get("skipped", 0))
        counts["failed"] += failed
        counts["skipped"] += skipped
        counts["passed"] += total - failed - skipped
    return counts


def _pytest_argv(marker: str, junit: str, args) -> List[str]:
    argv = ["-m", "pytest", "-m", marker, f"--junitxml={junit}", "-p", "no:cacheprovider",
            "-o", "junit_family=xunit2"]
    if args.keyword:
        argv += ["-k", args.keyword]
    argv += args.pytest_args or ["tests"]
    return argv


def cmd_test(args) -> int:
    from harness.host import in_vm, native_capable
    from harness.vm.paths import cache_dir, code_root
    os.chdir(code_root())
    if not Path("tests").is_dir():
        raise HarnessError(f"no tests/ directory under {code_root()}: run from a checkout")
    phases = []
    if not args.emulation:
        phases.append("unit")
    if not args.unit:
        phases.append("emulation")
    total = {"passed": 0, "failed": 0, "skipped": 0}
    rc_all = 0
    emu_marker = "emulation" if args.slow else "emulation and not slow"
    for phase in phases:
        marker = "not emulation" if phase == "unit" else emu_marker
        print(f"\n=== harness test: {phase} tests ({marker}) ===", flush=True)
        if phase == "emulation" and not (in_vm() or native_capable()):
            from harness.vm.dispatch import GUEST_CACHE, run_script_in_vm
            junit_host = cache_dir() / "guest" / f"junit-{os.getpid()}.xml"
            junit_host.unlink(missing_ok=True)
            argv = _pytest_argv(marker, f"{GUEST_CACHE}/{junit_host.name}", args)
            rc = run_script_in_vm("exec python3 " + " ".join(_quote(a) for a in argv))
        else:
            junit_host = Path(tempfile.mkstemp(prefix="hx-junit-", suffix=".xml")[1])
            rc = subprocess.call([sys.executable] + _pytest_argv(marker, str(junit_host), args))
        counts = _counts(junit_host)
        junit_host.unlink(missing_ok=True)
        for k in total:
            total[k] += counts[k]
        if rc not in (0, PYTEST_NO_TESTS):
            rc_all = 1
    print(f"\ntotal: {total['passed']} passed, {total['failed']} failed, "
          f"{total['skipped']} skipped")
    return rc_all


def _quote(a: str) -> str:
    import shlex
    return shlex.quote(a)
